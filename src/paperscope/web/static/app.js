// paperscope web UI: reads the same JSON API as every other client. All text goes through
// textContent (never innerHTML), so abstracts are escaped exactly once by the browser.
"use strict";

const $ = (id) => document.getElementById(id);

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

async function api(path, options = {}) {
  const response = await fetch(path, options);
  const body = await response.json();
  if (!body.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body.data;
}

function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

function sourceText(sources) {
  if (!sources || !sources.length) return "";
  const first = sources[0];
  const more = sources.length > 1 ? ` (+${sources.length - 1} more)` : "";
  return `${first.path.split("/").pop()}:${first.line}${more}`;
}

async function runSearch(query) {
  showError("");
  const results = $("results");
  try {
    const hits = await api(`/api/search?q=${encodeURIComponent(query)}&limit=50`);
    results.replaceChildren();
    if (!hits.length) {
      results.append(el("p", { class: "hint" }, "No results."));
      return;
    }
    const list = el("ol");
    for (const hit of hits) {
      const legs = Object.entries(hit.legs || {})
        .map(([name, leg]) => `${name} #${leg.rank}`)
        .join(", ");
      list.append(
        el(
          "li",
          { "data-paper-id": hit.paper_id, onclick: () => openCard(hit.paper_id) },
          el("div", { class: "label" }, hit.label),
          el("div", { class: "meta" }, `${hit.paper_id} · ${sourceText(hit.sources)} · ${legs}`),
          el("div", { class: "snippet" }, hit.snippet || ""),
        ),
      );
    }
    results.append(list);
  } catch (err) {
    showError(err.message);
  }
}

function row(list, name, value) {
  if (value === null || value === undefined || (Array.isArray(value) && !value.length) || value === "") return;
  list.append(el("dt", {}, name), el("dd", {}, Array.isArray(value) ? value.join(", ") : value));
}

async function openCard(paperId) {
  showError("");
  try {
    const paper = await api(`/api/papers/${encodeURIComponent(paperId)}`);
    renderCard(paper);
    for (const li of document.querySelectorAll("#results li")) {
      li.classList.toggle("active", li.dataset.paperId === paperId);
    }
  } catch (err) {
    showError(err.message);
  }
}

// Each card field as readable text (names, not objects): the same fields `paperscope show` prints.
function cardFields(paper, data) {
  const names = (items, key) => (items || []).map((item) => (typeof item === "string" ? item : item[key])).filter(Boolean);
  const unit = (u) => (u === "%" || u === "×" ? u : u ? ` ${u}` : "");
  const methods = (data.methods || []).map((m) => (m.long_form ? `${m.name} (${m.long_form})` : m.name));
  const area = data.area ? `${data.area.label} (${data.area.source}, confidence ${Number(data.area.confidence).toFixed(2)})` : "";
  return [
    ["methods", methods.length ? methods : names(data.method_names, "name")],
    ["contribution", names(data.contribution_types, "type")],
    ["tasks", names(data.tasks, "text")],
    ["datasets", names(data.datasets, "name")],
    ["claims", (data.claims || []).map((c) => `${c.value}${unit(c.unit)} ${c.what || ""}`.trim())],
    ["area", area],
    ["keywords", paper.keywords || []],
    ["code", (data.code_urls || []).filter((u) => /^https?:\/\//.test(u))],
    ["links", (paper.urls || []).filter((u) => /^https?:\/\//.test(u))],
  ];
}

function renderCard(paper) {
  const card = $("card");
  const facts = el("dl");
  const data = paper.card || {};
  row(facts, "title", paper.title);
  row(facts, "venue", [paper.venue, paper.year].filter(Boolean).join(" "));
  row(facts, "decision", paper.decision);
  for (const [name, value] of cardFields(paper, data)) row(facts, name, value);
  row(facts, "sources", paper.sources.map((s) => `${s.path}:${s.line}`));
  const marks = paper.marks;
  const star = el("button", { class: marks.starred ? "on" : "", id: "star" }, marks.starred ? "★ starred" : "☆ star");
  star.addEventListener("click", async () => {
    const data = await api(`/api/papers/${paper.paper_id}/star`, { method: marks.starred ? "DELETE" : "PUT" });
    renderCard({ ...paper, marks: data });
  });
  const tags = el("div", {}, ...marks.tags.map((t) => el("span", { class: "tag" }, t)));
  const tagInput = el("input", { id: "tag-input", placeholder: "add tag + Enter" });
  tagInput.addEventListener("keydown", async (event) => {
    if (event.key !== "Enter" || !tagInput.value.trim()) return;
    const data = await api(`/api/papers/${paper.paper_id}/tags/${encodeURIComponent(tagInput.value.trim())}`, { method: "PUT" });
    renderCard({ ...paper, marks: data });
  });
  const note = el("textarea", { id: "note", placeholder: "note" });
  note.value = marks.note || "";
  const saveNote = el("button", { id: "save-note" }, "save note");
  saveNote.addEventListener("click", async () => {
    const data = await api(`/api/papers/${paper.paper_id}/note`, {
      method: "PUT",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ body: note.value }),
    });
    renderCard({ ...paper, marks: data });
  });
  card.replaceChildren(
    el("h2", {}, paper.label),
    el("div", { class: "meta" }, paper.paper_id),
    facts,
    el("p", { class: "abstract" }, paper.clean_text),
    el("div", {}, star, " ", tags, tagInput),
    note,
    saveNote,
  );
  card.hidden = false;
}

$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const query = $("q").value;
  history.replaceState(null, "", `?q=${encodeURIComponent(query)}`);
  runSearch(query);
});

api("/api/stats")
  .then((s) => { $("stats").textContent = `${s.papers} papers`; })
  .catch((err) => showError(err.message));

const initial = new URLSearchParams(location.search).get("q");
if (initial) {
  $("q").value = initial;
  runSearch(initial);
}
