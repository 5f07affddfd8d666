// Keyboard shortcuts: "/" search, j/k move through results, s star, o (or Enter) open, ? help.
"use strict";

(function () {
  const help = document.getElementById("keys-help");

  function typing(target) {
    if (!target || !(target instanceof Element)) return false;
    return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
  }

  function results() {
    return Array.from(document.querySelectorAll("li.result"));
  }

  function current() {
    return document.querySelector("li.result.current");
  }

  function move(step) {
    const items = results();
    if (!items.length) return;
    const at = items.indexOf(current());
    const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : Math.min(items.length - 1, Math.max(0, at + step));
    items.forEach((item, i) => item.classList.toggle("current", i === next));
    items[next].scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === "Escape" && typing(event.target)) {
      event.target.blur();
      return;
    }
    if (typing(event.target) || (help && help.open)) return;
    const item = current();
    switch (event.key) {
      case "/": {
        const box = document.getElementById("q");
        if (box) {
          event.preventDefault();
          box.focus();
          box.select();
        }
        break;
      }
      case "?":
        if (help) {
          event.preventDefault();
          help.showModal();
        }
        break;
      case "j":
        move(1);
        break;
      case "k":
        move(-1);
        break;
      case "s": {
        if (document.getElementById("queue-state")) break; // the queue page: s skips (queue.js)
        const star = item ? item.querySelector("button.star") : document.getElementById("star");
        if (star) star.click();
        break;
      }
      case "o":
      case "Enter": {
        const link = item && item.querySelector("a.result-title");
        if (link) {
          event.preventDefault();
          window.location.href = link.href;
        }
        break;
      }
      default:
        break;
    }
  });
})();
