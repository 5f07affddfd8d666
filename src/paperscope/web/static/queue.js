// The triage queue: 1-4 mark the paper and load the next, s skips it, u undoes the last mark.
"use strict";

(function () {
  const { t, api, jsonBody, ignoresKey } = window.paperscope;
  const state = document.getElementById("queue-state");
  const article = document.getElementById("queue-paper");
  const status = document.getElementById("mark-status");
  const undo = document.getElementById("queue-undo");
  if (!state) return;
  const base = state.dataset.base;
  const skip = state.dataset.skip;

  function say(text, failed) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("failed", Boolean(failed));
  }

  function go(params) {
    const url = new URL(base, window.location.origin);
    if (skip) url.searchParams.set("skip", skip);
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    window.location.assign(url.pathname + url.search);
  }

  function setTriage(paperId, value) {
    return api(`/api/papers/${encodeURIComponent(paperId)}/triage`, { method: "PUT", ...jsonBody({ state: value }) });
  }

  let busy = false;
  async function mark(value) {
    if (!article || busy) return;
    busy = true;
    const paperId = article.dataset.paperId;
    for (const b of document.querySelectorAll("button.queue-mark")) b.disabled = true;
    say(t("saving"));
    try {
      await setTriage(paperId, value);
      go({ prev: paperId, was: article.dataset.triage || "unseen" });
    } catch (err) {
      busy = false;
      for (const b of document.querySelectorAll("button.queue-mark")) b.disabled = false;
      say(t("failed", { error: err.message }), true);
    }
  }

  async function undoLast() {
    if (!undo || undo.disabled || busy || !undo.dataset.prev) return;
    busy = true;
    say(t("saving"));
    try {
      await setTriage(undo.dataset.prev, undo.dataset.was || "unseen");
      go({ paper: undo.dataset.prev });
    } catch (err) {
      busy = false;
      say(t("failed", { error: err.message }), true);
    }
  }

  for (const button of document.querySelectorAll("button.queue-mark")) {
    button.addEventListener("click", () => mark(button.dataset.state));
  }
  if (undo) undo.addEventListener("click", undoLast);

  document.addEventListener("keydown", (event) => {
    if (ignoresKey(event)) return;
    const button = document.querySelector(`button.queue-mark[data-key="${event.key}"]`);
    if (button) {
      event.preventDefault();
      mark(button.dataset.state);
    } else if (event.key === "s") {
      const link = document.getElementById("queue-skip");
      if (link) { event.preventDefault(); window.location.assign(link.href); }
    } else if (event.key === "u") {
      event.preventDefault();
      undoLast();
    }
  });
})();
