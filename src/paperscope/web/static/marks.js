// Stars, tags, triage and notes, saved through the JSON API in place (search results and paper page).
"use strict";

(function () {
  const { t, api, jsonBody, ignoresKey } = window.paperscope;
  const status = document.getElementById("mark-status");

  const TOAST_MS = 1500;
  let clearTimer = null;

  function say(text, failed) {
    if (!status) return;
    status.textContent = text;
    status.classList.toggle("failed", Boolean(failed));
    // On the search page the status is a toast: a success fades, a failure stays until the next action.
    clearTimeout(clearTimer);
    if (status.classList.contains("toast") && !failed && text === t("saved")) {
      clearTimer = setTimeout(() => { status.textContent = ""; }, TOAST_MS);
    }
  }

  function paperPath(paperId, rest) {
    return `/api/papers/${encodeURIComponent(paperId)}/${rest}`;
  }

  function showStar(button, starred) {
    button.setAttribute("aria-pressed", starred ? "true" : "false");
    const icon = button.querySelector("[aria-hidden]");
    if (icon) icon.textContent = starred ? "★" : "☆";
    const label = button.querySelector(".star-text");
    if (label) label.textContent = starred ? label.dataset.on : label.dataset.off;
  }

  // Rebuild a `.tags` list from the marks the API returned.
  function showTags(container, paperId, tags, removable) {
    const list = container.classList.contains("tags") ? container : container.querySelector(".tags");
    if (!list) return;
    list.replaceChildren();
    for (const tag of tags) {
      const chip = document.createElement("span");
      chip.className = "tag";
      chip.dataset.tag = tag;
      const link = document.createElement("a");
      link.href = `/?tag=${encodeURIComponent(tag)}`;
      link.textContent = tag;
      chip.append(link);
      if (removable) {
        const remove = document.createElement("button");
        remove.type = "button";
        remove.className = "untag";
        remove.dataset.tag = tag;
        remove.setAttribute("aria-label", tag);
        remove.textContent = "×";
        chip.append(remove);
      }
      list.append(chip);
    }
  }

  async function run(action) {
    say(t("saving"));
    try {
      const marks = await action();
      say(t("saved"));
      return marks;
    } catch (err) {
      say(t("failed", { error: err.message }), true);
      return null;
    }
  }

  document.addEventListener("click", async (event) => {
    const star = event.target.closest("button.star");
    if (star) {
      event.preventDefault();
      const paperId = star.dataset.paperId;
      const on = star.getAttribute("aria-pressed") !== "true";
      star.disabled = true;
      const marks = await run(() => api(paperPath(paperId, "star"), { method: on ? "PUT" : "DELETE" }));
      star.disabled = false;
      if (marks) showStar(star, marks.starred);
      return;
    }
    const untag = event.target.closest("button.untag");
    if (untag) {
      const box = untag.closest("[data-paper-id]");
      const paperId = box.dataset.paperId;
      const marks = await run(() =>
        api(paperPath(paperId, `tags/${encodeURIComponent(untag.dataset.tag)}`), { method: "DELETE" }),
      );
      if (marks) showTags(document.getElementById("tags"), paperId, marks.tags, true);
    }
  });

  document.addEventListener("submit", async (event) => {
    const form = event.target;
    if (!form.matches("form.tag-form, form#tag-form")) return;
    event.preventDefault();
    const input = form.querySelector("input[name=tag]");
    const tag = input.value.trim();
    if (!tag) return;
    const paperId = form.dataset.paperId;
    const marks = await run(() => api(paperPath(paperId, `tags/${encodeURIComponent(tag)}`), { method: "PUT" }));
    if (!marks) return;
    input.value = "";
    if (form.id === "tag-form") showTags(document.getElementById("tags"), paperId, marks.tags, true);
    else showTags(form.closest("li.result"), paperId, marks.tags, false);
  });

  // One button per triage state (unseen clears it); each also has a one-digit key (data-key, 0-4).
  const triage = document.getElementById("triage");
  if (triage) {
    const buttons = Array.from(triage.querySelectorAll("button[data-state]"));
    const choose = async (button) => {
      const marks = await run(() => api(paperPath(triage.dataset.paperId, "triage"), { method: "PUT", ...jsonBody({ state: button.dataset.state }) }));
      if (!marks) return;
      const current = marks.triage || "unseen";
      for (const b of buttons) b.setAttribute("aria-pressed", b.dataset.state === current ? "true" : "false");
    };
    for (const button of buttons) button.addEventListener("click", () => choose(button));
    document.addEventListener("keydown", (event) => {
      if (ignoresKey(event)) return;
      const button = buttons.find((b) => b.dataset.key === event.key);
      if (button) { event.preventDefault(); choose(button); }
    });
  }

  const save = document.getElementById("save-note");
  const note = document.getElementById("note");
  if (save && note) {
    save.addEventListener("click", () =>
      run(() => api(paperPath(save.dataset.paperId, "note"), { method: "PUT", ...jsonBody({ body: note.value }) })),
    );
  }
})();
