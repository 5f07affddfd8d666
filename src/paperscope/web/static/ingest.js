// Ingest page: send each chosen file's bytes to POST /api/ingest?name=…, poll its job, show the report.
"use strict";

(function () {
  const { t, api } = window.paperscope;
  const input = document.getElementById("files");
  const button = document.getElementById("upload");
  const bar = document.getElementById("progress");
  const text = document.getElementById("progress-text");
  const report = document.getElementById("report");
  const POLL_MS = 400;
  const LABELS_SHOWN = 50;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  // The native file input is hidden (its button text follows the browser's language, not the page's).
  const names = document.getElementById("file-names");
  input.addEventListener("change", () => {
    const files = Array.from(input.files || []);
    if (files.length) names.textContent = t("files_chosen", { n: files.length, names: files.map((f) => f.name).join(", ") });
  });

  function cell(row, value) {
    const td = document.createElement("td");
    td.textContent = String(value);
    row.append(td);
  }

  function showProgress(index, count, job, name) {
    const total = job.total || 0;
    const part = job.state === "done" ? 1 : total ? Math.min(1, job.done / total) : 0;
    // read, cards and embed each take about a third of a file's time.
    const phases = { read: 0, cards: 1, embed: 2, done: 3 };
    const step = phases[job.phase] === undefined ? 0 : phases[job.phase];
    bar.max = count * 3;
    bar.value = Math.min(count * 3, index * 3 + (job.state === "done" ? 3 : step + part));
    if (job.state === "queued") text.textContent = t("queued", { name });
    else if (job.state === "done") text.textContent = t("phase_done", { name });
    else text.textContent = t(`phase_${job.phase || "read"}`, { name, done: job.done || 0, total: total || "?" });
  }

  async function ingestFile(file, index, count) {
    text.textContent = t("uploading", { name: file.name });
    const started = await api(`/api/ingest?name=${encodeURIComponent(file.name)}`, {
      method: "POST",
      headers: { "Content-Type": "application/octet-stream" },
      body: file,
    });
    for (;;) {
      const job = await api(`/api/ingest/${encodeURIComponent(started.job_id)}`);
      showProgress(index, count, job, file.name);
      // A job whose file could not be read fails with its report: the report says why, per file.
      if (job.state === "done" || (job.state === "failed" && job.report)) return { ...job, chosen: file.name };
      if (job.state === "failed") throw new Error(t("failed_job", { name: file.name, error: job.error || "?" }));
      await sleep(POLL_MS);
    }
  }

  function skipText(skip) {
    const where = skip.unit === "record" ? t("record", { n: skip.line }) : t("line", { n: skip.line });
    return `${skip.path}, ${where}: ${skip.reason}`;
  }

  async function showReport(jobs) {
    const rows = document.getElementById("report-files");
    const skips = document.getElementById("skips");
    const conflicts = document.getElementById("conflicts");
    const fresh = document.getElementById("new-papers");
    rows.replaceChildren();
    skips.replaceChildren();
    conflicts.replaceChildren();
    fresh.replaceChildren();
    const newIds = [];
    let failed = 0;
    for (const job of jobs) {
      for (const file of (job.report && job.report.files) || []) {
        const row = document.createElement("tr");
        const skipped = file.skipped || [];
        const shown = job.chosen || file.path;  // the name the user picked, not the stored copy's
        for (const value of [shown, file.read, file.new, file.present, file.merged, skipped.length]) cell(row, value ?? 0);
        rows.append(row);
        if (file.error) {
          row.classList.add("failed");
          failed += 1;
          const li = document.createElement("li");
          li.className = "skip file-error";
          li.textContent = t("file_failed", { name: shown, error: file.error });
          skips.append(li);
        }
        for (const skip of skipped) {
          const li = document.createElement("li");
          li.className = "skip";
          li.textContent = skipText(skip);
          skips.append(li);
        }
        for (const conflict of file.conflicts || []) {
          const unit = "record" in conflict ? "record" : "line";
          const where = `${shown}, ${t(unit, { n: conflict[unit] })}`;
          const other = conflict.other_title || conflict.other_id;
          const li = document.createElement("li");
          li.className = "conflict";
          li.textContent = t("conflict", { where, kind: conflict.kind, value: conflict.value, other });
          conflicts.append(li);
        }
      }
      newIds.push(...(job.new_paper_ids || []));
    }
    document.getElementById("conflicts-box").hidden = !conflicts.children.length;
    if (!skips.children.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = t("no_skips");
      skips.append(li);
    }
    if (!newIds.length) {
      const li = document.createElement("li");
      li.className = "muted";
      li.textContent = t(failed ? "no_new_failed" : "no_new");
      fresh.append(li);
    }
    // The first LABELS_SHOWN new papers by their labels; the rest are one line linking to the
    // library list, newest first (300 bare paper ids were a wall of hex).
    for (const paperId of newIds.slice(0, LABELS_SHOWN)) {
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = `/paper/${encodeURIComponent(paperId)}`;
      link.textContent = paperId;
      li.append(link);
      fresh.append(li);
      api(`/api/papers/${encodeURIComponent(paperId)}`)
        .then((paper) => {
          // A generated label (no title in the list) is marked, as on the server-rendered pages.
          link.textContent = paper.title_source === "generated" ? `${t("label_marker")} ${paper.label}` : paper.label;
        })
        .catch(() => {});
    }
    if (newIds.length > LABELS_SHOWN) {
      const li = document.createElement("li");
      const link = document.createElement("a");
      link.href = "/?sort=added";
      link.className = "more-new";
      link.textContent = t("more_new", { n: newIds.length - LABELS_SHOWN });
      li.append(link);
      fresh.append(li);
    }
    report.hidden = false;
    text.textContent = t("done", { new: newIds.length, files: jobs.length });
    if (failed) {
      text.textContent += " " + t("files_failed", { n: failed });
      text.classList.add("failed");
    }
  }

  button.addEventListener("click", async () => {
    const files = Array.from(input.files || []);
    if (!files.length) {
      text.textContent = t("pick_files");
      return;
    }
    button.disabled = true;
    text.classList.remove("failed");
    const jobs = [];
    try {
      for (const [index, file] of files.entries()) jobs.push(await ingestFile(file, index, files.length));
      await showReport(jobs);
    } catch (err) {
      if (jobs.length) await showReport(jobs);
      text.textContent = err.message;
      text.classList.add("failed");
    } finally {
      button.disabled = false;
    }
  });
})();
