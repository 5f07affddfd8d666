"""The map's legend and topic names in Chromium: every topic listed, nothing covers a name.

A synthetic map of 15 or 30 topics (long names, some crowded together, some at the plot's left
edge where the legend used to float) is written as the standalone page and opened with
``set_content``, so no request leaves the page.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import offline_browser, screenshot

from paperscope.map import map_payload, write_map_html
from paperscope.models import Paper, Topic

pytestmark = pytest.mark.browser

WORDS = [
    "speculative decoding", "draft models", "graph neural networks", "message passing",
    "diffusion models", "score matching", "reinforcement learning", "reward models",
    "dataset distillation", "parameter matching", "federated learning", "client drift",
    "vision transformers", "token pruning", "protein design", "structure prediction",
    "causal discovery", "latent confounders", "time series forecasting", "state space models",
    "mixture of experts", "expert routing", "in-context learning", "induction heads",
    "machine unlearning", "membership inference", "neural operators", "PDE solvers",
    "video generation", "motion priors",
]  # fmt: skip


def _topic_map(n_topics: int, tmp_path: Path) -> tuple[str, list[str]]:
    """Return (the standalone page's HTML, the broad topics' names by size) for ``n_topics`` topics.

    Topic k has 40 - k papers around a centre on a spiral; every third centre sits next to the
    one before it, so their names compete for the same place; topic 0 sits at the left edge.
    """
    papers: list[Paper] = []
    assigned: dict[str, dict[str, Any]] = {}
    topics: list[Topic] = []
    for k in range(n_topics):
        angle, radius = 2.4 * k, 0.15 + 0.8 * k / n_topics
        cx, cy = (-0.98, 0.0) if k == 0 else (radius * math.cos(angle), radius * math.sin(angle))
        if k % 3 == 2:
            prev = topics[-1]
            cx, cy = prev.x + 0.04, prev.y + 0.02
        name = f"{WORDS[k % len(WORDS)]} · {WORDS[(k + 7) % len(WORDS)]}"
        size = 40 - k
        topics.append(Topic(topic_id=k, name=name, level=0, size=size, x=cx, y=cy))
        for i in range(size):
            paper_id = f"t{k}p{i}"
            papers.append(
                Paper(paper_id=paper_id, abstract=f"Paper {i} of {name}.", clean_text=f"Paper {i}.")
            )
            assigned[paper_id] = {
                "topic_id": k,
                "subtopic_id": n_topics + k if i % 2 else None,
                "is_outlier": False,
                "x": cx + 0.05 * math.cos(i),
                "y": cy + 0.05 * math.sin(i * 1.7),
            }
        topics.append(
            Topic(n_topics + k, f"sub {name}", level=1, size=size // 2, parent_id=k, x=cx, y=cy - 0.01)
        )
    path = write_map_html(tmp_path / "map.html", map_payload(papers, assigned, topics, title="Legend test"))
    broad = [t.name for t in sorted((t for t in topics if t.level == 0), key=lambda t: -t.size)]
    return path.read_text(encoding="utf-8"), broad


#: True once the last frame was drawn at the plot's present size (a resize redraws a frame later).
DRAWN_AT_PLOT_SIZE = """(() => {
  const s = window.paperscopeMap.stats, r = document.getElementById("map").getBoundingClientRect();
  return Math.abs(s.width - r.width) < 1 && Math.abs(s.height - r.height) < 1;
})()"""


def _box(page: Any, selector: str) -> dict[str, float]:
    return page.locator(selector).bounding_box()


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    """Whether two boxes share area; ``a`` is Playwright's (x, y, width, height), ``b`` has edges."""
    return (
        a["x"] < b["right"]
        and a["x"] + a["width"] > b["left"]
        and a["y"] < b["bottom"]
        and a["y"] + a["height"] > b["top"]
    )


def _label_problems(page: Any) -> list[str]:
    """What is wrong with the names drawn on the plot: overlapping each other, the legend, or the edge."""
    page.wait_for_function(DRAWN_AT_PLOT_SIZE)
    labels = page.evaluate("window.paperscopeMap.labels()")
    legend, plot = _box(page, "#legend"), _box(page, "#map")
    found = [f"{lab['name']!r} under the legend" for lab in labels if _overlap(legend, lab)]
    found += [
        f"{lab['name']!r} outside the plot"
        for lab in labels
        if lab["left"] < plot["x"] - 0.5
        or lab["right"] > plot["x"] + plot["width"] + 0.5
        or lab["top"] < plot["y"] - 0.5
        or lab["bottom"] > plot["y"] + plot["height"] + 0.5
    ]
    for i, a in enumerate(labels):
        edges = {
            "x": a["left"],
            "y": a["top"],
            "width": a["right"] - a["left"],
            "height": a["bottom"] - a["top"],
        }
        found += [f"{a['name']!r} overlaps {b['name']!r}" for b in labels[i + 1 :] if _overlap(edges, b)]
    return found


@pytest.mark.parametrize("n_topics", [15, 30])
def test_legend_lists_every_topic_beside_the_plot_and_folds(n_topics: int, tmp_path: Path):
    html, names = _topic_map(n_topics, tmp_path)
    with offline_browser() as browser:
        # bypass_csp lets Playwright evaluate its probes; the page itself forbids any fetch.
        page, log = browser.new_page(viewport=(1280, 720), bypass_csp=True)
        page.set_content(html)
        page.wait_for_function("window.paperscopeMap && window.paperscopeMap.stats.frames > 0")

        # Every topic is in the legend and can be scrolled into its visible part.
        items = page.locator("#legend-items .item")
        assert items.count() == n_topics
        shown = page.inner_text("#legend-items")
        assert all(name in shown for name in names)
        view = _box(page, "#legend-items")
        for k, name in enumerate(names):
            item = items.nth(k)
            item.scroll_into_view_if_needed()
            assert item.inner_text() == f"{name} ({40 - k})"
            box = item.bounding_box()
            assert (
                view["y"] - 0.5 <= box["y"] and box["y"] + box["height"] <= view["y"] + view["height"] + 0.5
            )

        # The names on the plot: the largest topics' drawn, none overlapping another or the legend.
        page.wait_for_function(DRAWN_AT_PLOT_SIZE)
        drawn = [lab["name"] for lab in page.evaluate("window.paperscopeMap.labels()")]
        assert drawn[:2] == names[:2] and names[0] in drawn  # topic 0 sits at the left edge
        assert _label_problems(page) == []
        path = screenshot(page, f"map_legend_{n_topics}_topics")
        assert path.stat().st_size > 10_000

        # Folding the legend gives the plot its width; unfolding brings every topic back.
        plot_width = _box(page, "#map")["width"]
        page.click("#legend-toggle")
        assert page.get_attribute("#legend-toggle", "aria-expanded") == "false"
        assert page.get_attribute("#legend-toggle", "title") == "Show the legend"
        assert not page.is_visible("#legend-items") and _box(page, "#legend")["width"] < 40
        page.wait_for_function(
            f"document.getElementById('map').getBoundingClientRect().width > {plot_width + 150}"
        )
        assert _label_problems(page) == []
        screenshot(page, f"map_legend_{n_topics}_topics_folded")
        page.click("#legend-toggle")
        assert page.get_attribute("#legend-toggle", "aria-expanded") == "true"
        assert page.is_visible("#legend-items") and page.inner_text("#legend-items") == shown

        # Zoomed in, subtopic names join the broad ones and still overlap nothing.
        page.evaluate("window.paperscopeMap.zoomBy(3)")
        page.wait_for_function("window.paperscopeMap.labels().some((l) => l.name.startsWith('sub '))")
        assert _label_problems(page) == []
        assert log.problems() == []
