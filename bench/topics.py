"""Benchmark topics against groups nobody tuned on: ICLR 2026 primary areas and IJCAI 2024 areas.

First one table, for each labelled set (the 4,302 ICLR 2026 papers and their 12 OpenReview
primary areas; the 787 IJCAI 2024 main-track papers and their 15 areas, the only papercopilot file
with area labels), all methods on the same embedding matrix, mean of 3 seeds: paperscope's broad
topics (defaults, and with the opt-in TF-IDF text block), k-means with as many clusters as gold
groups and with as many as paperscope's topics, and BERTopic with default settings (seeded UMAP)
when installed: NMI, ARI, topics, unassigned share.
The defaults of ``fit_topics`` were chosen on ICLR 2026 (see ``topics/pipeline.py``); IJCAI 2024
is held out.

Then, on ICLR 2026 only: wall times (paperscope's default UMAP in numpy, and umap-learn's when
the ``umap`` extra is installed), paperscope's stability when 5% of the papers are added, a
determinism check, the topic names, and the map's draw time with 20,000 points in headless Chromium.

    PYTHONPATH=src python bench/topics.py            # everything
    PYTHONPATH=src python bench/topics.py --no-bertopic --no-render
    PYTHONPATH=src python bench/topics.py --sets-only # the table only

Embeddings come from ``paperscope.index.embed`` (the default ``minilm``); they are cached in
$TMPDIR/paperscope-bench, so only the first run pays for them. BERTopic is a bench-only
dependency: ``pip install --no-deps bertopic==0.17.4`` then ``pip install -e ".[bench]"``.
NMI is scikit-learn's (arithmetic normalisation); unassigned papers count as one more cluster,
as BERTopic's outlier topic -1 does.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

from _data import embed_documents, load_iclr2026, load_ijcai2024
from paperscope.topics import fit_topics
from paperscope.topics.label import BOILERPLATE_WORDS, LATEX_WORDS, STOP_WORDS


def row(
    name: str,
    labels: np.ndarray,
    areas: np.ndarray,
    n_topics: int,
    unassigned: float,
    wall_s: float,
    cpu_s: float,
) -> str:
    nmi = normalized_mutual_info_score(areas, labels)
    ari = adjusted_rand_score(areas, labels)
    return (
        f"| {name:<36} | {nmi:5.3f} | {ari:5.3f} | {n_topics:6d} | {unassigned:10.1%} "
        f"| {wall_s:8.1f} | {cpu_s:7.1f} |"
    )


#: The seeds of every method in the held-out table; 42 is fit_topics' default.
SEEDS = (42, 43, 44)
#: The opt-in text block's weight (``fit_topics(text_weight=...)``), chosen on ICLR 2026 only.
TEXT_WEIGHT = 0.2


def kmeans_labels(matrix: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Return k-means (10 k-means++ starts, one thread) labels of the embedding rows, int64 (n_papers,)."""
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1):
        return KMeans(k, n_init=10, random_state=seed).fit_predict(matrix).astype(np.int64)


def bertopic_labels(docs: list[str], matrix: np.ndarray, seed: int) -> np.ndarray:
    """Return BERTopic's topics (-1 = outlier), with its default UMAP given ``random_state=seed``."""
    from bertopic import BERTopic
    from umap import UMAP

    umap_model = UMAP(n_neighbors=15, n_components=5, min_dist=0.0, metric="cosine", random_state=seed)
    topics, _ = BERTopic(umap_model=umap_model).fit_transform(docs, embeddings=matrix)
    return np.asarray(topics, dtype=np.int64)


def bench_sets(with_bertopic: bool, seeds: tuple[int, ...] = SEEDS) -> dict[str, object]:
    """Print the held-out table: each labelled set x method, NMI and ARI as mean over ``seeds``.

    paperscope runs twice: with its defaults, and with the TF-IDF text block joined to the
    embeddings (:mod:`paperscope.topics.features`, off by default).

    Returns:
        {set name: {method: {"nmi", "ari", "topics", "unassigned_fraction"}}}, means over seeds.
    """
    has_bertopic = with_bertopic and importlib.util.find_spec("bertopic") is not None
    if with_bertopic and not has_bertopic:
        print(
            "BERTopic not installed (pip install --no-deps bertopic==0.17.4; pip install -e '.[bench]'): row left out"
        )
    sets = {"ICLR 2026 (dev)": load_iclr2026(), "IJCAI 2024 (held out)": load_ijcai2024()}
    print(f"\nmean of seeds {list(seeds)}; load average: {load_average()}")
    print(
        "| set                   | papers | groups | method                        | topics |  NMI  |  ARI  | unassigned |"
    )
    print("|" + "|".join("-" * w for w in (23, 8, 8, 31, 8, 7, 7, 12)) + "|")
    figures: dict[str, object] = {}
    for set_name, (titles, texts, group_names) in sets.items():
        docs = [f"{t}. {a}" for t, a in zip(titles, texts, strict=True)]
        paper_ids = [f"p{i:05d}" for i in range(len(docs))]
        groups = np.unique(group_names, return_inverse=True)[1]
        n_groups = int(groups.max()) + 1
        matrix, _ = embed_documents(docs)
        runs: dict[str, list[tuple[np.ndarray, int]]] = {}
        for seed in seeds:
            model = fit_topics(paper_ids, docs, matrix, seed=seed)
            n_topics = len(model.broad_topics())
            runs.setdefault("paperscope (broad topics)", []).append((model.topic_ids, n_topics))
            joined = fit_topics(paper_ids, docs, matrix, seed=seed, text_weight=TEXT_WEIGHT)
            runs.setdefault(f"paperscope, text_weight={TEXT_WEIGHT}", []).append(
                (joined.topic_ids, len(joined.broad_topics()))
            )
            runs.setdefault("k-means, k = groups", []).append(
                (kmeans_labels(matrix, n_groups, seed), n_groups)
            )
            runs.setdefault("k-means, k = paperscope topics", []).append(
                (kmeans_labels(matrix, n_topics, seed), n_topics)
            )
            if has_bertopic:
                bt = bertopic_labels(docs, matrix, seed)
                runs.setdefault("BERTopic 0.17.4 defaults", []).append((bt, int(bt.max()) + 1))
        figures[set_name] = {}
        for method, results in runs.items():
            nmi = float(np.mean([normalized_mutual_info_score(groups, labels) for labels, _ in results]))
            ari = float(np.mean([adjusted_rand_score(groups, labels) for labels, _ in results]))
            unassigned = float(np.mean([(labels < 0).mean() for labels, _ in results]))
            topics = "/".join(sorted({str(k) for _, k in results}))
            print(
                f"| {set_name:<21} | {len(docs):6d} | {n_groups:6d} | {method:<29} | {topics:>6} "
                f"| {nmi:5.3f} | {ari:5.3f} | {unassigned:10.1%} |"
            )
            figures[set_name][method] = {  # type: ignore[index]
                "nmi": round(nmi, 4), "ari": round(ari, 4), "topics": topics,
                "unassigned_fraction": round(unassigned, 4),
            }  # fmt: skip
    return figures


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def bench_render(n_points: int = 20_000) -> str:
    """Return a line with the map's median full-redraw time for ``n_points`` papers."""
    from playwright.sync_api import sync_playwright

    from paperscope.map import write_map_html
    from paperscope.map.html import PALETTE, UNASSIGNED_COLOR

    rng = np.random.default_rng(0)
    centres = rng.uniform(-0.8, 0.8, size=(25, 2))
    topic = rng.integers(0, 25, size=n_points)
    xy = np.clip(centres[topic] + rng.normal(scale=0.06, size=(n_points, 2)), -1, 1).round(6)
    text = "Synthetic abstract about sparse attention, diffusion sampling and reward shaping. " * 12
    payload = {
        "title": f"{n_points} synthetic papers",
        "color_by": "topic",
        "palette": PALETTE,
        "unassigned_color": UNASSIGNED_COLOR,
        "papers": {
            "paper_id": [f"{i:012x}" for i in range(n_points)],
            "x": xy[:, 0].tolist(),
            "y": xy[:, 1].tolist(),
            "topic_id": topic.tolist(),
            "subtopic_id": [None] * n_points,
            "is_outlier": [0] * n_points,
            "label": [f"Paper {i}" for i in range(n_points)],
            "title": [f"Paper {i}" for i in range(n_points)],
            "authors": [["A. Author"]] * n_points,
            "venue": ["BENCH 2026"] * n_points,
            "area": [""] * n_points,
            "abstract": [text] * n_points,
            "urls": [[]] * n_points,
            "card": [{}] * n_points,
        },
        "categories": {
            mode: {"names": [f"topic {k}" for k in range(25)], "index": topic.tolist(), "grey_last": False}
            for mode in ("topic", "area", "venue")
        },
        "topics": [
            {"topic_id": k, "name": f"topic {k}", "level": 0, "size": int((topic == k).sum()),
             "key_phrases": [],
             "parent_id": None, "is_unassigned": False, "representative_ids": [],
             "x": float(centres[k, 0]), "y": float(centres[k, 1])}
            for k in range(25)
        ],
    }  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        page_path = write_map_html(Path(folder) / "map.html", payload)
        size_mb = page_path.stat().st_size / 1e6
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync"],
            )  # fmt: skip
            try:
                page = browser.new_context(
                    offline=True, bypass_csp=True, viewport={"width": 1400, "height": 900}
                ).new_page()
                start = time.perf_counter()
                page.goto(page_path.as_uri())
                page.wait_for_function("window.paperscopeMap && window.paperscopeMap.stats.frames > 0")
                load_s = time.perf_counter() - start
                drawn = page.evaluate("window.paperscopeMap.stats.drawn")
                times = []
                for step in range(30):
                    page.evaluate(f"window.paperscopeMap.zoomBy({1.15 if step < 15 else 1 / 1.15})")
                    times.append(page.evaluate("window.paperscopeMap.drawNow()"))
                page.fill("#search", "paper 1234")
                page.wait_for_function("window.paperscopeMap.matchCount() > 0")
                search_ms = page.evaluate("window.paperscopeMap.drawNow()")
            finally:
                browser.close()
    return (
        f"map, {n_points} points: page {size_mb:.1f} MB, open {load_s:.1f} s, drawn {drawn}, "
        f"redraw median {np.median(times):.1f} ms (max {max(times):.1f}), "
        f"redraw while searching {search_ms:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-bertopic", action="store_true", help="Skip BERTopic.")
    parser.add_argument("--no-render", action="store_true", help="Skip the 20k-point map in Chromium.")
    parser.add_argument("--sets-only", action="store_true", help="Print the held-out table and stop.")
    parser.add_argument("--json", type=Path, default=None, help="Also write the figures to this JSON file.")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    print(f"cores: {os.cpu_count()}; other jobs on the machine stretch wall times")
    sets = bench_sets(not args.no_bertopic)
    if args.sets_only:
        if args.json:
            args.json.write_text(json.dumps({"sets": sets}, indent=2), encoding="utf-8")
        return

    titles, texts, area_names = load_iclr2026()
    docs = [f"{t}. {a}" for t, a in zip(titles, texts, strict=True)]
    paper_ids = [f"p{i:05d}" for i in range(len(docs))]
    areas = np.unique(area_names, return_inverse=True)[1]
    matrix, embedder = embed_documents(docs)
    print(f"ICLR 2026: {len(docs)} papers, {areas.max() + 1} primary areas; embeddings {matrix.shape}")
    print(f"embedder: {embedder}; cores: {os.cpu_count()}; load average: {load_average()}")
    print("(other jobs on the machine stretch wall times; cpu = this process's CPU time)")

    start = time.perf_counter()
    fit_topics(paper_ids[:300], docs[:300], matrix[:300])
    warm_s = time.perf_counter() - start
    print(f"warm-up (a 300-paper fit, UMAP in numpy): {warm_s:.1f} s")
    figures: dict[str, object] = {"sets": sets, "n_papers": len(docs), "warm_up_s": round(warm_s, 1)}
    has_umap_learn = importlib.util.find_spec("umap") is not None
    if has_umap_learn:
        start = time.perf_counter()
        fit_topics(paper_ids[:300], docs[:300], matrix[:300], reducer="umap-learn", layout="umap-learn")
        compile_s = time.perf_counter() - start
        print(f"warm-up (numba compile of umap-learn + a 300-paper fit): {compile_s:.1f} s")
        figures["umap_learn_compile_s"] = round(compile_s, 1)
    else:
        print("umap-learn not installed (pip install 'paperscope[umap]'): its row is left out")
    # BERTopic's UMAP runs NN-descent (4,096+ papers), which numba compiles on its first call:
    # BERTopic's wall time below includes that compile; paperscope never runs NN-descent.
    print("\n| method" + " " * 31 + "|  NMI  |  ARI  | topics | unassigned | wall (s) | cpu (s) |")
    print("|" + "|".join("-" * w for w in (38, 7, 7, 8, 12, 10, 9)) + "|")
    start, cpu = time.perf_counter(), time.process_time()
    model = fit_topics(paper_ids, docs, matrix)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    broad = len(model.broad_topics())
    unassigned = model.unassigned_fraction
    print(row("paperscope (broad topics)", model.topic_ids, areas, broad, unassigned, wall, cpu))
    fine = np.where(model.subtopic_ids >= 0, model.subtopic_ids, model.topic_ids)
    n_fine = len({int(v) for v in fine if v >= 0})
    print(row("paperscope (subtopics where present)", fine, areas, n_fine, unassigned, wall, cpu))
    if has_umap_learn:
        start, cpu_ul = time.perf_counter(), time.process_time()
        ul = fit_topics(paper_ids, docs, matrix, reducer="umap-learn", layout="umap-learn")
        wall_ul, cpu_ul = time.perf_counter() - start, time.process_time() - cpu_ul
        n_ul = len(ul.broad_topics())
        print(row("paperscope, umap-learn (broad)", ul.topic_ids, areas, n_ul, ul.unassigned_fraction,
                  wall_ul, cpu_ul))  # fmt: skip
        figures["paperscope_umap_learn"] = {
            "nmi": round(normalized_mutual_info_score(areas, ul.topic_ids), 4),
            "ari": round(adjusted_rand_score(areas, ul.topic_ids), 4),
            "topics": n_ul,
            "wall_s": round(wall_ul, 1),
            "cpu_s": round(cpu_ul, 1),
        }
    figures["paperscope"] = {
        "nmi": round(normalized_mutual_info_score(areas, model.topic_ids), 4),
        "ari": round(adjusted_rand_score(areas, model.topic_ids), 4),
        "topics": broad,
        "subtopics": sum(t.level == 1 for t in model.topics),
        "unassigned_fraction": round(unassigned, 4),
        "outlier_fraction_before_assignment": round(model.outlier_fraction, 4),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "timings_ms": model.timings_ms,
    }

    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    start, cpu = time.perf_counter(), time.process_time()
    with threadpool_limits(limits=1):
        km = KMeans(12, n_init=10, random_state=0).fit_predict(matrix)
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(row("k-means, 12 clusters (embeddings)", km, areas, 12, 0.0, wall, cpu))

    if not args.no_bertopic:
        try:
            from bertopic import BERTopic
        except ImportError:
            print("BERTopic not installed: pip install --no-deps bertopic==0.17.4; pip install -e '.[bench]'")
        else:
            start, cpu = time.perf_counter(), time.process_time()
            topics_bt, _ = BERTopic().fit_transform(docs, embeddings=matrix)
            wall, cpu = time.perf_counter() - start, time.process_time() - cpu
            bt = np.asarray(topics_bt)
            outliers = float((bt < 0).mean())
            print(row("BERTopic 0.17.4 defaults", bt, areas, int(bt.max()) + 1, outliers, wall, cpu))
            figures["bertopic"] = {
                "nmi": round(normalized_mutual_info_score(areas, bt), 4),
                "ari": round(adjusted_rand_score(areas, bt), 4),
                "topics": int(bt.max()) + 1,
                "unassigned_fraction": round(outliers, 4),
                "wall_s": round(wall, 1),
                "cpu_s": round(cpu, 1),
            }

    print(
        f"\npaperscope: HDBSCAN left {model.outlier_fraction:.1%} out; neighbour votes placed them (flagged)"
    )
    print(f"paperscope steps (ms): {json.dumps(model.timings_ms)}")

    again = fit_topics(paper_ids, docs, matrix)
    identical = again.fingerprint() == model.fingerprint()
    print(f"determinism: second run byte-identical assignments, coordinates and names: {identical}")
    figures["deterministic"] = identical

    # Stability: fit without 1/21 of the papers (so the full set is the subset + 5%), compare.
    rng = np.random.default_rng(0)
    keep = np.sort(rng.choice(len(docs), round(len(docs) / 1.05), replace=False))
    part = fit_topics([paper_ids[i] for i in keep], [docs[i] for i in keep], matrix[keep])
    stability = adjusted_rand_score(model.topic_ids[keep], part.topic_ids)
    print(f"stability: broad-topic ARI of {len(keep)} papers before and after adding 5%: {stability:.3f}")
    figures["stability_ari"] = round(stability, 4)

    names = [t.name for t in model.topics if t.level == 0]
    print("\nbroad topics:", "; ".join(f"{t.name} ({t.size})" for t in model.topics if t.level == 0))
    figures["names"] = names
    forbidden = STOP_WORDS | BOILERPLATE_WORDS | LATEX_WORDS
    bad = [
        t.name
        for t in model.topics
        if not t.is_unassigned and set(re.findall(r"[^\W_]+", t.name)) & forbidden
    ]
    print(f"topic and subtopic names with a stop word, boilerplate or LaTeX word: {len(bad)} {bad}")
    singles = [t.name for t in model.topics if not t.is_unassigned and " " not in t.name.replace(", ", ",")]
    print(f"topic and subtopic names made of single words only: {len(singles)} {singles}")
    figures["single_word_names"] = singles

    if not args.no_render:
        if Path("/usr/bin/chromium").exists():
            line = bench_render()
            print(line)
            figures["render"] = line
        else:
            print("map render: /usr/bin/chromium missing (apt-get install -y chromium)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2), encoding="utf-8")


if __name__ == "__main__":
    main()
