/* paperscope map: a canvas scatter of papers with topic names, hover cards, a card panel and
 * search highlighting. No library and no network beyond its own server.
 *
 * One script, two pages:
 *   - the standalone file (`paperscope map --out F`): the data is an inline JSON block
 *     (#map-data), the search box filters the papers in the page, a click opens the card panel;
 *   - the server's live /map: the data comes from /api/map (body[data-map-src]), the page's
 *     query (?q=) highlights the hits of the library's own search (/api/search), a click opens
 *     /paper/ID (shift-click opens the card panel).
 * Text from the data is only ever set with textContent (never innerHTML); links are http(s) only. */
(function () {
  "use strict";

  const STRINGS = {
    en: {
      papers: (n) => `${n} paper${n === 1 ? "" : "s"}`,
      matches: (n) => `${n} match${n === 1 ? "" : "es"}`,
      hits: (n, capped) => (capped ? `the top ${n} hits` : `${n} hit${n === 1 ? "" : "s"}`),
      offMap: (n) => `, ${n} not on the map (added since the last topic fit)`,
      searching: "searching…",
      loading: "loading the map…",
      placed: "placed by its neighbours",
      open: "Open the paper page",
      hint: "click a point: open the paper · shift-click: card",
      fields: {
        venue: "Venue", decision: "Decision", topic: "Topic", methods: "Methods", contribution: "Contribution",
        tasks: "Tasks", datasets: "Datasets", claims: "Claims", area: "Area", keywords: "Keywords",
        code: "Code", links: "Links", paper_id: "Paper ID",
      },
      highlight: "Highlight on the map…",
      title: (n) => `Topic map: ${n} papers`,
      legend: "Legend", hideLegend: "Hide the legend", showLegend: "Show the legend",
    },
    zh: {
      papers: (n) => `${n} 篇论文`,
      matches: (n) => `匹配 ${n} 篇`,
      hits: (n, capped) => (capped ? `命中前 ${n} 篇` : `命中 ${n} 篇`),
      offMap: (n) => `，其中 ${n} 篇不在地图上（上次拟合主题后新加入）`,
      searching: "搜索中…",
      loading: "正在加载地图…",
      placed: "按近邻放置",
      open: "打开论文页面",
      hint: "单击点：打开论文 · Shift+单击：卡片",
      fields: {
        venue: "会议", decision: "录用结果", topic: "主题", methods: "方法", contribution: "贡献类型",
        tasks: "任务", datasets: "数据集", claims: "结果", area: "领域", keywords: "关键词",
        code: "代码", links: "链接", paper_id: "论文 ID",
      },
      highlight: "在地图上高亮…",
      title: (n) => `主题地图：${n} 篇论文`,
      legend: "图例", hideLegend: "隐藏图例", showLegend: "显示图例",
      // The map bar's own labels (the live page in Chinese; the file and English keep the HTML's).
      bar: {
        "color-by-label": "着色依据", "zoom-in": ["+", "放大"], "zoom-out": ["−", "缩小"], reset: ["重置", "显示全部"],
        "card-close": ["×", "关闭"],
      },
      colorModes: { topic: "主题", area: "领域", venue: "会议" },
    },
  };
  const HTTP = /^https?:\/\/[^\s]+$/i;

  function boot() {
    const inline = document.getElementById("map-data");
    if (inline) { start(JSON.parse(inline.textContent), null); return; }
    // The page's settings: on #map-root inside the site's template, else on <body> (the plain shell).
    const body = document.getElementById("map-root") || document.body;
    const live = {
      src: body.dataset.mapSrc || "/api/map",
      query: body.dataset.query || "",
      mode: body.dataset.mode || "",
      lang: body.dataset.lang === "zh" ? "zh" : "en",
    };
    const countEl = document.getElementById("count");
    countEl.textContent = STRINGS[live.lang].loading;
    fetch(live.src, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => r.json().then((body) => ({ status: r.status, body })))
      .then(({ status, body }) => {
        if (!body || body.ok !== true) throw new Error((body && body.error) || `HTTP ${status}`);
        start(body.data, live);
      })
      .catch((err) => { countEl.textContent = String(err.message || err); countEl.classList.add("error"); });
  }

  function start(data, live) {
    const T = STRINGS[live ? live.lang : "en"];
    const P = data.papers;
    const n = P.paper_id.length;
    const xs = Float64Array.from(P.x);
    const ys = Float64Array.from(P.y);
    const topicsById = new Map(data.topics.map((t) => [t.topic_id, t]));
    const indexOf = new Map(P.paper_id.map((pid, i) => [pid, i]));

    const canvas = document.getElementById("map");
    const ctx = canvas.getContext("2d");
    const plot = document.getElementById("plot");
    const tooltip = document.getElementById("tooltip");
    const searchBox = document.getElementById("search");
    const countEl = document.getElementById("count");
    const colorSelect = document.getElementById("color-by");
    const legend = document.getElementById("legend");
    const legendItems = document.getElementById("legend-items");
    const legendToggle = document.getElementById("legend-toggle");
    const cardPanel = document.getElementById("card");
    const cardBody = document.getElementById("card-body");
    document.getElementById("title").textContent = data.title;
    countEl.classList.remove("error");
    if (live) {
      document.getElementById("title").textContent = T.title(n);
      for (const [id, label] of Object.entries(T.bar || {})) {
        const el = document.getElementById(id);
        if (!el) continue;
        if (Array.isArray(label)) { el.textContent = label[0]; el.title = label[1]; } else el.textContent = label;
      }
      for (const option of colorSelect.options) if (T.colorModes && T.colorModes[option.value]) option.textContent = T.colorModes[option.value];
      searchBox.placeholder = T.highlight;
      searchBox.setAttribute("aria-label", T.highlight);
      const hint = document.getElementById("hint");
      if (hint) hint.textContent = T.hint;
    }

    // View transform: screen = (x * scale + tx, -y * scale + ty), in CSS pixels.
    let W = 0, H = 0, dpr = 1, scale = 1, tx = 0, ty = 0, baseScale = 1;
    let colorBy = data.color_by;
    let matches = null; // Uint8Array(n) while a search is active
    let matchCount = 0;
    let searchNote = ""; // live: what the count line says about the hits
    let focus = null; // category index picked in the legend
    let hovered = -1;
    let pending = false;
    // highlighted: points drawn as hits; hits: papers the live search returned (null: none asked).
    const stats = { drawn: 0, frames: 0, width: 0, height: 0, highlighted: 0, hits: null, searching: false, query: "" };
    let labelBoxes = []; // the topic names drawn last: {name, box: [left, top, right, bottom]} in canvas px

    // ---- colours and per-category buckets ---------------------------------------------------
    const buckets = {};
    function categoryColor(mode, c) {
      const cat = data.categories[mode];
      if (cat.grey_last && c === cat.names.length - 1) return data.unassigned_color;
      return data.palette[c % data.palette.length];
    }
    function bucketsFor(mode) {
      if (!buckets[mode]) {
        const cat = data.categories[mode];
        const lists = cat.names.map(() => []);
        for (let i = 0; i < n; i++) lists[cat.index[i]].push(i);
        buckets[mode] = lists;
      }
      return buckets[mode];
    }

    // ---- spatial grid for hover ----------------------------------------------------------------
    const G = Math.max(1, Math.ceil(Math.sqrt(n / 4)));
    const grid = new Array(G * G);
    function cellOf(v) { return Math.min(G - 1, Math.max(0, Math.floor(((v + 1) / 2) * G))); }
    for (let i = 0; i < n; i++) {
      const k = cellOf(ys[i]) * G + cellOf(xs[i]);
      (grid[k] || (grid[k] = [])).push(i);
    }
    function nearest(sx, sy, radiusPx) {
      const dx = (sx - tx) / scale, dy = -(sy - ty) / scale, rd = radiusPx / scale;
      let best = -1, bestD = rd * rd;
      const cx0 = cellOf(dx - rd), cx1 = cellOf(dx + rd), cy0 = cellOf(dy - rd), cy1 = cellOf(dy + rd);
      for (let cy = cy0; cy <= cy1; cy++) {
        for (let cx = cx0; cx <= cx1; cx++) {
          const cell = grid[cy * G + cx];
          if (!cell) continue;
          for (const i of cell) {
            const ex = xs[i] - dx, ey = ys[i] - dy, d = ex * ex + ey * ey;
            if (d <= bestD && (best < 0 || d < bestD || isActive(i))) { best = i; bestD = d; }
          }
        }
      }
      return best;
    }

    // ---- view ------------------------------------------------------------------------------------
    function fitTo(indices, pad) {
      let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
      for (const i of indices) {
        x0 = Math.min(x0, xs[i]); x1 = Math.max(x1, xs[i]); y0 = Math.min(y0, ys[i]); y1 = Math.max(y1, ys[i]);
      }
      if (!isFinite(x0)) { x0 = -1; x1 = 1; y0 = -1; y1 = 1; }
      const bw = Math.max(x1 - x0, 0.05), bh = Math.max(y1 - y0, 0.05);
      scale = Math.min(W / bw, H / bh) * pad;
      tx = W / 2 - ((x0 + x1) / 2) * scale;
      ty = H / 2 + ((y0 + y1) / 2) * scale;
    }
    function allIndices() { const a = new Array(n); for (let i = 0; i < n; i++) a[i] = i; return a; }
    function matchIndices() { const a = []; for (let i = 0; i < n; i++) if (matches[i]) a.push(i); return a; }
    function resize() {
      const rect = plot.getBoundingClientRect();
      const first = W === 0;
      const cx = (W / 2 - tx) / scale, cy = (ty - H / 2) / scale;
      W = Math.max(1, rect.width); H = Math.max(1, rect.height);
      dpr = window.devicePixelRatio || 1;
      canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
      if (first) { fitTo(allIndices(), 0.88); baseScale = scale; }
      else { tx = W / 2 - cx * scale; ty = H / 2 + cy * scale; }
      redraw();
    }
    function zoomAt(sx, sy, factor) {
      const s = Math.min(baseScale * 400, Math.max(baseScale * 0.4, scale * factor));
      tx = sx - (sx - tx) * (s / scale); ty = sy - (sy - ty) * (s / scale); scale = s;
      redraw();
    }
    function zoomToMatches() {
      if (!matches || !matchCount) return;
      fitTo(matchIndices(), 0.7); scale = Math.min(scale, baseScale * 30); redraw();
    }

    // ---- drawing ---------------------------------------------------------------------------------
    function isActive(i) {
      if (matches && !matches[i]) return false;
      if (focus !== null && data.categories[colorBy].index[i] !== focus) return false;
      return true;
    }
    function redraw() { if (!pending) { pending = true; requestAnimationFrame(draw); } }
    function draw() {
      pending = false;
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, W, H);
      const zoom = scale / baseScale;
      const r = Math.max(1.4, Math.min(8, (n > 5000 ? 1.7 : n > 500 ? 2.4 : 4.5) * Math.sqrt(zoom)));
      const filtering = matches !== null || focus !== null;
      const lists = bucketsFor(colorBy);
      let drawn = 0, highlighted = 0;
      const margin = r + 2;
      for (let pass = 0; pass < (filtering ? 2 : 1); pass++) {
        // Pass 0 draws everything (faint while filtering); pass 1 redraws the active points on top.
        ctx.globalAlpha = filtering && pass === 0 ? 0.13 : 0.85;
        for (let c = 0; c < lists.length; c++) {
          ctx.fillStyle = categoryColor(colorBy, c);
          ctx.beginPath();
          const rr = pass === 1 ? r + 1.5 : r;
          for (const i of lists[c]) {
            if (pass === 1 && !isActive(i)) continue;
            const sx = xs[i] * scale + tx, sy = -ys[i] * scale + ty;
            if (sx < -margin || sx > W + margin || sy < -margin || sy > H + margin) continue;
            ctx.moveTo(sx + rr, sy);
            ctx.arc(sx, sy, rr, 0, 6.283185307179586);
            if (pass === 0) drawn++; else highlighted++;
          }
          ctx.fill();
          if (pass === 1) { ctx.lineWidth = 1; ctx.strokeStyle = "#111"; ctx.stroke(); }
        }
      }
      ctx.globalAlpha = 1;
      if (hovered >= 0) {
        const sx = xs[hovered] * scale + tx, sy = -ys[hovered] * scale + ty;
        ctx.beginPath(); ctx.arc(sx, sy, r + 4, 0, 6.283185307179586);
        ctx.lineWidth = 2; ctx.strokeStyle = "#000"; ctx.stroke();
      }
      drawLabels(zoom);
      stats.drawn = drawn; stats.highlighted = highlighted; stats.width = W; stats.height = H; stats.frames++;
    }
    // Topic names, placed greedily: larger topics first, each at its centre or just above or below
    // it, moved inside the plot, and left out when every place overlaps a name already drawn.
    function drawLabels(zoom) {
      const placed = [];
      const showFine = zoom >= 2.2;
      const broad = data.topics.filter((t) => t.level === 0 && !t.is_unassigned).sort((a, b) => b.size - a.size);
      const fine = showFine ? data.topics.filter((t) => t.level === 1).sort((a, b) => b.size - a.size) : [];
      ctx.textAlign = "center"; ctx.textBaseline = "middle"; ctx.lineJoin = "round";
      const h = 20; // box height of a 14px name with its white halo
      const overlaps = (box) => placed.some(({ box: b }) => box[0] < b[2] && box[2] > b[0] && box[1] < b[3] && box[3] > b[1]);
      const draw1 = (t, font, color, alpha) => {
        const px = t.x * scale + tx, py = -t.y * scale + ty;
        if (px < 0 || px > W || py < 0 || py > H) return; // its papers are off screen
        ctx.font = font;
        const w = ctx.measureText(t.name).width + 6;
        if (w > W || h > H) return;
        for (const dy of [0, -h, h]) {
          const sx = Math.min(W - w / 2, Math.max(w / 2, px)), sy = Math.min(H - h / 2, Math.max(h / 2, py + dy));
          const box = [sx - w / 2, sy - h / 2, sx + w / 2, sy + h / 2];
          if (overlaps(box)) continue;
          placed.push({ name: t.name, box });
          ctx.globalAlpha = alpha;
          ctx.lineWidth = 4; ctx.strokeStyle = "rgba(255,255,255,0.9)"; ctx.strokeText(t.name, sx, sy);
          ctx.fillStyle = color; ctx.fillText(t.name, sx, sy);
          ctx.globalAlpha = 1;
          return;
        }
      };
      for (const t of broad) draw1(t, "600 14px system-ui, sans-serif", "#111", showFine ? 0.55 : 1);
      for (const t of fine) draw1(t, "italic 12px system-ui, sans-serif", "#333", 1);
      labelBoxes = placed;
    }

    // ---- legend ------------------------------------------------------------------------------------
    function buildLegend() {
      legendItems.replaceChildren();
      const cat = data.categories[colorBy];
      const counts = cat.names.map(() => 0);
      for (let i = 0; i < n; i++) counts[cat.index[i]]++;
      cat.names.forEach((name, c) => {
        const item = document.createElement("div");
        item.className = "item" + (focus === c ? " active" : "");
        const sw = document.createElement("span");
        sw.className = "swatch"; sw.style.background = categoryColor(colorBy, c); // CSSOM, allowed by the CSP
        const label = document.createElement("span");
        label.textContent = `${name} (${counts[c]})`;
        item.append(sw, label);
        item.addEventListener("click", () => { focus = focus === c ? null : c; buildLegend(); updateCount(); redraw(); });
        legendItems.append(item);
      });
    }
    // The legend folds to a strip beside the plot; the plot takes the width back (see resize).
    function setLegendOpen(open) {
      legend.classList.toggle("collapsed", !open);
      legendToggle.setAttribute("aria-expanded", String(open));
      legendToggle.title = open ? T.hideLegend : T.showLegend;
    }
    legendToggle.textContent = T.legend;
    setLegendOpen(window.innerWidth >= 700); // a phone's width is the plot's
    legendToggle.addEventListener("click", () => setLegendOpen(legend.classList.contains("collapsed")));

    // ---- search: in the page (standalone) or the library's own (live) ------------------------------
    let haystack = null;
    function buildHaystack() {
      haystack = new Array(n);
      for (let i = 0; i < n; i++) {
        const card = P.card[i] || {};
        haystack[i] = [P.title[i], P.label[i], (P.authors[i] || []).join(" "), P.abstract[i], P.paper_id[i],
          (card.method_names || []).join(" ")].join(" \u0001 ").normalize("NFKC").toLowerCase();
      }
    }
    function localSearch(query) {
      const tokens = query.normalize("NFKC").toLowerCase().split(/\s+/).filter(Boolean);
      if (!tokens.length) { clearSearch(); return; }
      if (!haystack) buildHaystack();
      matches = new Uint8Array(n); matchCount = 0;
      for (let i = 0; i < n; i++) {
        let ok = true;
        for (const t of tokens) if (haystack[i].indexOf(t) < 0) { ok = false; break; }
        if (ok) { matches[i] = 1; matchCount++; }
      }
      updateCount(); redraw();
    }
    function clearSearch() {
      matches = null; matchCount = 0; searchNote = ""; stats.hits = null; stats.query = ""; stats.searching = false;
      searchSeq++;
      updateCount(); redraw();
    }
    const LIVE_LIMIT = 200;
    let searchSeq = 0;
    function liveSearch(query, zoom) {
      query = query.trim();
      if (live) {
        const url = new URL(window.location.href);
        if (query) url.searchParams.set("q", query); else url.searchParams.delete("q");
        if (live.mode) url.searchParams.set("mode", live.mode); else url.searchParams.delete("mode");
        window.history.replaceState(null, "", url);
      }
      if (!query) { clearSearch(); return Promise.resolve(); }
      const seq = ++searchSeq;
      const params = new URLSearchParams({ q: query, limit: String(LIVE_LIMIT) });
      if (live.mode) params.set("mode", live.mode);
      stats.searching = true; stats.query = query;
      countEl.textContent = T.searching;
      return fetch(`/api/search?${params}`, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then((r) => r.json())
        .then((body) => {
          if (seq !== searchSeq) return;
          if (!body || body.ok !== true) throw new Error((body && body.error) || "search failed");
          const hits = body.data || [];
          matches = new Uint8Array(n); matchCount = 0;
          let off = 0;
          for (const hit of hits) {
            const i = indexOf.get(hit.paper_id);
            if (i === undefined) { off++; continue; }
            if (!matches[i]) { matches[i] = 1; matchCount++; }
          }
          stats.hits = hits.length; stats.searching = false;
          searchNote = T.hits(hits.length, hits.length >= LIVE_LIMIT) + (off ? T.offMap(off) : "");
          updateCount();
          if (zoom) zoomToMatches(); else redraw();
        })
        .catch((err) => {
          if (seq !== searchSeq) return;
          stats.searching = false; matches = null; matchCount = 0; searchNote = String(err.message || err);
          updateCount(); redraw();
        });
    }
    function updateCount() {
      if (live && (matches || searchNote)) countEl.textContent = searchNote;
      else if (matches) countEl.textContent = T.matches(matchCount);
      else countEl.textContent = T.papers(n);
    }
    // The site nav's mode switch (select#mode) is the map search's mode too.
    const modeSelect = live ? document.getElementById("mode") : null;
    if (modeSelect) {
      if (live.mode) modeSelect.value = live.mode;
      modeSelect.addEventListener("change", () => {
        live.mode = modeSelect.value;
        if (searchBox.value.trim()) liveSearch(searchBox.value, false);
      });
    }
    let searchTimer = 0;
    const runSearch = live ? (q) => liveSearch(q, false) : localSearch;
    searchBox.addEventListener("input", () => {
      clearTimeout(searchTimer);
      searchTimer = setTimeout(() => runSearch(searchBox.value), live ? 350 : 120);
    });
    searchBox.addEventListener("keydown", (e) => {
      if (e.key === "Enter") {
        clearTimeout(searchTimer);
        if (live) liveSearch(searchBox.value, true);
        else { localSearch(searchBox.value); zoomToMatches(); }
      } else if (e.key === "Escape") { searchBox.value = ""; clearTimeout(searchTimer); runSearch(""); }
    });

    // ---- tooltip and card --------------------------------------------------------------------------
    function topicLine(i) {
      const t = topicsById.get(P.topic_id[i]);
      const s = P.subtopic_id[i] === null ? null : topicsById.get(P.subtopic_id[i]);
      let text = t ? t.name : "";
      if (s) text += " › " + s.name;
      if (P.is_outlier[i] && t && !t.is_unassigned) text += ` (${T.placed})`;
      return text;
    }
    function showTooltip(i, sx, sy) {
      tooltip.replaceChildren();
      const a = document.createElement("div"); a.className = "t-label"; a.textContent = P.label[i];
      tooltip.append(a);
      if (P.title[i] && P.title[i] !== P.label[i]) {
        const b = document.createElement("div"); b.className = "t-title"; b.textContent = P.title[i]; tooltip.append(b);
      }
      const meta = document.createElement("div"); meta.className = "t-meta";
      meta.textContent = [P.venue[i], topicLine(i)].filter(Boolean).join(" · ");
      const snip = document.createElement("div"); snip.className = "t-snippet";
      const abs = P.abstract[i];
      snip.textContent = abs.length > 220 ? abs.slice(0, 220) + "…" : abs;
      tooltip.append(meta, snip);
      tooltip.hidden = false;
      const tw = tooltip.offsetWidth, th = tooltip.offsetHeight;
      tooltip.style.left = Math.min(W - tw - 4, sx + 14) + "px"; // CSSOM, allowed by the CSP
      tooltip.style.top = (sy + 14 + th > H ? Math.max(4, sy - th - 10) : sy + 14) + "px";
    }

    // Each card field as readable text, as the paper page shows it: names, never objects.
    function text(v) { return typeof v === "string" ? v.trim() : typeof v === "number" ? String(v) : ""; }
    function names(items, key) {
      return (Array.isArray(items) ? items : []).map((it) => (it && typeof it === "object" ? text(it[key]) : text(it))).filter(Boolean);
    }
    function unique(values) { return [...new Set(values)]; }
    function claimText(c) {
      if (!c || typeof c !== "object") return text(c);
      if (text(c.text)) return text(c.text); // written by the server as the paper page writes it
      const unit = text(c.unit);
      const glued = unit === "%" || unit === "×" || unit === "x" ? unit : unit ? ` ${unit}` : "";
      return [`${text(c.value)}${glued}`, text(c.what)].filter(Boolean).join(" ");
    }
    function areaText(i, card) {
      const a = card.area;
      if (typeof a === "string" && a.trim()) return a.trim(); // the live payload sends it as text
      if (a && typeof a === "object" && text(a.label)) {
        // "label (model, 49%)"; an area taken from the list itself ("source") has no confidence to show.
        const sure = typeof a.confidence === "number" && a.source !== "source";
        const how = [text(a.source), sure ? `${Math.round(a.confidence * 100)}%` : ""].filter(Boolean);
        return how.length ? `${text(a.label)} (${how.join(", ")})` : text(a.label);
      }
      return text(P.area[i]);
    }
    function cardFields(i) {
      const card = P.card[i] || {};
      const methods = (Array.isArray(card.methods) ? card.methods : [])
        .map((m) => (m && typeof m === "object" ? (text(m.long_form) ? `${text(m.name)} (${text(m.long_form)})` : text(m.name)) : text(m)))
        .filter(Boolean);
      const links = (P.urls[i] || []).filter((u) => HTTP.test(u));
      // As on the paper page: code and project pages together under "code", http(s) only.
      const code = names(card.code_urls).concat(names(card.project_urls)).filter((u) => HTTP.test(u));
      return [
        ["venue", [text(P.venue[i])]],
        ["decision", [text(P.decision ? P.decision[i] : "")]],
        ["topic", [topicLine(i)]],
        ["methods", unique(methods.length ? methods : names(card.method_names, "name"))],
        ["contribution", unique(names(card.contribution_types, "type"))],
        ["tasks", unique(names(card.tasks, "text"))],
        ["datasets", unique(names(card.datasets, "name"))],
        ["claims", (Array.isArray(card.claims) ? card.claims : []).map(claimText).filter(Boolean)],
        ["area", [areaText(i, card)]],
        ["keywords", unique(names(P.keywords ? P.keywords[i] : []))],
        ["code", unique(code)],
        ["links", unique(links).filter((u) => !code.includes(u))],
        ["paper_id", [P.paper_id[i]]],
      ].map(([key, values]) => [key, values.filter(Boolean)]).filter(([, values]) => values.length);
    }
    function fieldList(i) {
      const dl = document.createElement("dl"); dl.id = "card-fields";
      for (const [key, values] of cardFields(i)) {
        const dt = document.createElement("dt"); dt.textContent = T.fields[key] || key;
        const dd = document.createElement("dd"); dd.dataset.field = key;
        const isLink = key === "code" || key === "links";
        values.forEach((v, k) => {
          if (k) dd.append(document.createTextNode(key === "claims" ? "; " : isLink ? " " : ", "));
          if (isLink) {
            const a = document.createElement("a");
            a.href = v; a.textContent = v; a.target = "_blank"; a.rel = "noopener noreferrer";
            dd.append(a);
          } else {
            const span = document.createElement("span"); span.className = "value"; span.textContent = v; dd.append(span);
          }
        });
        dl.append(dt, dd);
      }
      return dl;
    }
    function paperHref(i) { return `/paper/${encodeURIComponent(P.paper_id[i])}`; }
    function openCard(i) {
      cardBody.replaceChildren();
      const h = document.createElement("h2"); h.textContent = P.title[i] || P.label[i]; cardBody.append(h);
      if (P.title[i] && P.label[i] !== P.title[i]) { const l = document.createElement("div"); l.className = "meta"; l.textContent = P.label[i]; cardBody.append(l); }
      if (P.authors[i] && P.authors[i].length) { const a = document.createElement("div"); a.className = "meta authors"; a.textContent = P.authors[i].join(", "); cardBody.append(a); }
      cardBody.append(fieldList(i));
      const abs = document.createElement("div"); abs.className = "abstract"; abs.textContent = P.abstract[i]; cardBody.append(abs);
      if (live) {
        const open = document.createElement("a"); open.id = "card-open"; open.href = paperHref(i); open.textContent = T.open + " →";
        cardBody.append(open);
      }
      cardPanel.hidden = false;
      cardPanel.dataset.paperId = P.paper_id[i];
      tooltip.hidden = true;
    }
    document.getElementById("card-close").addEventListener("click", () => { cardPanel.hidden = true; });

    // ---- pointer and controls ----------------------------------------------------------------------
    let drag = null;
    canvas.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, tx, ty, moved: false };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      const rect = canvas.getBoundingClientRect();
      const sx = e.clientX - rect.left, sy = e.clientY - rect.top;
      if (drag) {
        const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
        if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; canvas.classList.add("dragging"); }
        if (drag.moved) { tx = drag.tx + dx; ty = drag.ty + dy; tooltip.hidden = true; redraw(); return; }
      }
      const i = nearest(sx, sy, 8);
      if (i !== hovered) { hovered = i; redraw(); }
      canvas.classList.toggle("over-point", i >= 0);
      if (i >= 0) showTooltip(i, sx, sy); else tooltip.hidden = true;
    });
    canvas.addEventListener("pointerup", (e) => {
      const wasClick = drag && !drag.moved;
      drag = null; canvas.classList.remove("dragging");
      if (!wasClick) return;
      const rect = canvas.getBoundingClientRect();
      const i = nearest(e.clientX - rect.left, e.clientY - rect.top, 8);
      if (i < 0) return;
      if (!live || e.shiftKey) openCard(i);
      else if (e.ctrlKey || e.metaKey) window.open(paperHref(i), "_blank", "noopener");
      else window.location.assign(paperHref(i));
    });
    canvas.addEventListener("pointerleave", () => { tooltip.hidden = true; if (hovered >= 0) { hovered = -1; redraw(); } });
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const rect = canvas.getBoundingClientRect();
      zoomAt(e.clientX - rect.left, e.clientY - rect.top, Math.exp(-e.deltaY * 0.0015));
    }, { passive: false });
    document.getElementById("zoom-in").addEventListener("click", () => zoomAt(W / 2, H / 2, 1.6));
    document.getElementById("zoom-out").addEventListener("click", () => zoomAt(W / 2, H / 2, 1 / 1.6));
    document.getElementById("reset").addEventListener("click", () => { fitTo(allIndices(), 0.88); baseScale = scale; redraw(); });
    colorSelect.value = colorBy;
    colorSelect.addEventListener("change", () => { colorBy = colorSelect.value; focus = null; buildLegend(); redraw(); });
    document.addEventListener("keydown", (e) => { if (e.key === "Escape") cardPanel.hidden = true; });
    new ResizeObserver(() => resize()).observe(plot); // the window, and the legend folding

    // A small read-only handle for tests and for people who want to script the page.
    window.paperscopeMap = {
      n,
      stats,
      live: Boolean(live),
      matchCount: () => matchCount,
      /** Where a paper's point is, in CSS px relative to the canvas (null: not on the map). */
      screenPoint(paperId) {
        const i = indexOf.get(paperId);
        if (i === undefined) return null;
        return { x: xs[i] * scale + tx, y: -ys[i] * scale + ty };
      },
      /** The same point in page coordinates (what page.mouse takes). */
      screenPosition(paperId) {
        const p = this.screenPoint(paperId);
        if (!p) return null;
        const rect = canvas.getBoundingClientRect();
        return { x: rect.left + p.x, y: rect.top + p.y };
      },
      hovered: () => (hovered >= 0 ? P.paper_id[hovered] : null),
      /** The topic names drawn last, each with its box in page coordinates. */
      labels() {
        const rect = canvas.getBoundingClientRect();
        return labelBoxes.map(({ name, box }) => ({
          name, left: rect.left + box[0], top: rect.top + box[1], right: rect.left + box[2], bottom: rect.top + box[3],
        }));
      },
      ids: () => P.paper_id.slice(),
      highlightedIds: () => (matches ? matchIndices().map((i) => P.paper_id[i]) : []),
      openCard(paperId) { const i = indexOf.get(paperId); if (i !== undefined) openCard(i); return i !== undefined; },
      /** Draw now and return the time it took in ms (for bench/topics.py). */
      drawNow() { const t0 = performance.now(); draw(); return performance.now() - t0; },
      zoomBy(factor) { zoomAt(W / 2, H / 2, factor); },
      search: (q) => (live ? liveSearch(q, false) : Promise.resolve(localSearch(q))),
    };
    buildLegend();
    updateCount();
    resize();
    if (live && live.query) { searchBox.value = live.query; liveSearch(live.query, false); }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
