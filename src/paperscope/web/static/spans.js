// Paper page: hovering (or focusing) a card value lights its span in the abstract, and back.
"use strict";

(function () {
  const abstract = document.getElementById("abstract");
  if (!abstract) return;

  function light(number, on) {
    for (const span of abstract.querySelectorAll(`span.span[data-span="${CSS.escape(number)}"]`)) {
      span.classList.toggle("lit", on);
    }
    for (const ref of document.querySelectorAll(`[data-span-ref="${CSS.escape(number)}"]`)) {
      ref.classList.toggle("lit", on);
    }
  }

  for (const ref of document.querySelectorAll("[data-span-ref]")) {
    const number = ref.dataset.spanRef;
    if (!ref.matches("a")) ref.tabIndex = 0;
    ref.addEventListener("mouseenter", () => light(number, true));
    ref.addEventListener("mouseleave", () => light(number, false));
    ref.addEventListener("focus", () => light(number, true));
    ref.addEventListener("blur", () => light(number, false));
  }
  for (const span of abstract.querySelectorAll("span.span[data-span]")) {
    span.addEventListener("mouseenter", () => light(span.dataset.span, true));
    span.addEventListener("mouseleave", () => light(span.dataset.span, false));
  }
})();
