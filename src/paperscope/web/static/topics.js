// Topics page before the first fit: the button asks the server to fit them (a POST), then reloads.
"use strict";

(function () {
  const { t, api } = window.paperscope;
  const button = document.getElementById("fit-topics");
  const status = document.getElementById("fit-status");
  if (!button) return;
  button.addEventListener("click", async () => {
    button.disabled = true;
    status.textContent = t("fitting");
    try {
      await api("/api/topics/fit", { method: "POST" });
      status.textContent = t("fitted");
      window.location.reload();
    } catch (err) {
      status.textContent = err.message;
      button.disabled = false;
    }
  });
})();
