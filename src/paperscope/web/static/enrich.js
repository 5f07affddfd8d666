// The enrich review page: accept or reject a suggested program title, then take it off the list.
"use strict";

(function () {
  const { t, api, jsonBody } = window.paperscope;
  const list = document.getElementById("suggestions");
  if (!list) return;
  list.addEventListener("click", async (event) => {
    const button = event.target.closest("button[data-accept]");
    if (!button) return;
    const item = button.closest("li.suggestion");
    const status = item.querySelector(".enrich-status");
    const accept = button.dataset.accept === "true";
    for (const b of item.querySelectorAll("button")) b.disabled = true;
    status.textContent = t("saving");
    try {
      await api(`/api/enrich/suggestions/${encodeURIComponent(item.dataset.suggestionId)}`, { method: "PUT", ...jsonBody({ accept }) });
      item.classList.add(accept ? "accepted" : "rejected");
      status.textContent = accept ? t("enrich_accepted") : t("enrich_rejected");
    } catch (err) {
      for (const b of item.querySelectorAll("button")) b.disabled = false;
      status.textContent = t("failed", { error: err.message });
    }
  });
})();
