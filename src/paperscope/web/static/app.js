// paperscope pages: the helpers every page script shares (texts, the JSON API) and small behaviours.
// Text is always set with textContent, never innerHTML, so nothing from a paper is parsed as HTML.
"use strict";

(function () {
  const strings = JSON.parse(document.body.dataset.strings || "{}");

  // t("saved") or t("phase_read", {name, done, total}): the interface text in the page's language.
  function t(key, values) {
    let text = Object.prototype.hasOwnProperty.call(strings, key) ? strings[key] : key;
    for (const [name, value] of Object.entries(values || {})) text = text.split(`{${name}}`).join(String(value));
    return text;
  }

  // Call this server's JSON API; resolves to `data` of the success envelope, rejects with its error.
  async function api(path, options = {}) {
    const response = await fetch(path, { credentials: "same-origin", ...options });
    let body = null;
    try {
      body = await response.json();
    } catch (err) {
      throw new Error(`HTTP ${response.status}`);
    }
    if (!body || !body.ok) throw new Error((body && body.error) || `HTTP ${response.status}`);
    return body.data;
  }

  function jsonBody(value) {
    return { headers: { "Content-Type": "application/json" }, body: JSON.stringify(value) };
  }

  // True when a key press belongs to something else: a modifier, typing in a field, the keys dialog.
  function ignoresKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return true;
    const target = event.target;
    if (target && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))) return true;
    const help = document.getElementById("keys-help");
    return Boolean(help && help.open);
  }

  window.paperscope = { t, api, jsonBody, ignoresKey };

  // A <select data-autosubmit> (the browse order) submits its form when changed.
  for (const select of document.querySelectorAll("select[data-autosubmit]")) {
    select.addEventListener("change", () => select.form.submit());
  }

  // Long facet lists show their first values; the toggle shows the rest.
  for (const button of document.querySelectorAll(".facet-toggle")) {
    button.addEventListener("click", () => {
      const section = button.closest(".facet");
      const open = section.classList.toggle("open");
      button.textContent = open ? button.dataset.less : button.dataset.more;
    });
  }

  // The search box is a textarea, so a pasted paragraph keeps its words: it grows with its text
  // (up to the CSS max-height), and Enter searches as in a one-line box (Shift+Enter: a new line).
  const box = document.querySelector("textarea#q");
  if (box) {
    const grow = () => {
      box.style.height = "auto";
      box.style.height = `${box.scrollHeight + 2}px`;
    };
    box.addEventListener("input", grow);
    box.addEventListener("focus", grow);
    box.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        box.form.requestSubmit();
      }
    });
  }

  const help = document.getElementById("keys-help");
  const opener = document.getElementById("keys-open");
  if (help && opener) opener.addEventListener("click", () => help.showModal());
})();
