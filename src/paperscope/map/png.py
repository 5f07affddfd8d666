"""Static PNG of the topic map for reports (matplotlib, Agg backend, no display needed)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..errors import InputError, ModelUnavailable

__all__ = ["write_map_png", "require_matplotlib", "PNG_INSTALL"]

#: The extra that brings matplotlib (not in the default install: about 90 MB with fontTools and Pillow).
PNG_INSTALL = "pip install 'paperscope[png]'"


def require_matplotlib() -> None:
    """Check that matplotlib is installed, importing nothing (a map asks before writing its HTML).

    Raises:
        ModelUnavailable: matplotlib is not installed (the message names the extra).
    """
    from importlib.util import find_spec

    if find_spec("matplotlib") is None:
        raise ModelUnavailable(f"the PNG of the map needs matplotlib; run: {PNG_INSTALL}")


def write_map_png(
    path: str | Path, payload: dict[str, Any], width_px: int = 1800, height_px: int = 1350
) -> Path:
    """Draw every paper coloured as in the HTML map, with broad topic names, into a PNG.

    Args:
        path: the PNG file; written to a temp file and renamed into place.
        payload: the output of :func:`paperscope.map.map_payload`.
        width_px: image width in pixels (150 dpi).
        height_px: image height in pixels.

    Returns:
        The PNG path.

    Raises:
        ModelUnavailable: matplotlib is not installed (the message names the extra).
        InputError: the folder of ``path`` does not exist.
    """
    require_matplotlib()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.patheffects as effects
    import matplotlib.pyplot as plt

    out = Path(path)
    if not out.parent.is_dir():
        raise InputError(f"{out.parent}: folder does not exist; create it or choose another --png path")
    papers = payload["papers"]
    mode = payload["color_by"]
    cat = payload["categories"][mode]
    last = len(cat["names"]) - 1

    def colour(c: int) -> str:
        if cat["grey_last"] and c == last:
            return str(payload["unassigned_color"])
        return str(payload["palette"][c % len(payload["palette"])])

    dpi = 150
    fig, ax = plt.subplots(figsize=(width_px / dpi, height_px / dpi), dpi=dpi)
    try:
        n = len(papers["x"])
        size = 3.0 if n > 5000 else 8.0 if n > 500 else 30.0
        ax.scatter(
            papers["x"],
            papers["y"],
            c=[colour(c) for c in cat["index"]],
            s=size,
            linewidths=0,
            alpha=0.8,
        )
        halo = [effects.withStroke(linewidth=3, foreground="white")]
        for topic in payload["topics"]:
            if topic["level"] == 0 and not topic["is_unassigned"]:
                ax.text(
                    topic["x"], topic["y"], topic["name"], ha="center", va="center", fontsize=8,
                    weight="bold", path_effects=halo,
                )  # fmt: skip
        ax.set_title(payload["title"])
        ax.set_axis_off()
        ax.set_aspect("equal", adjustable="datalim")
        fig.tight_layout()
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        fig.savefig(tmp, format="png", dpi=dpi, metadata={"Software": None})
        tmp.replace(out)
    finally:
        plt.close(fig)
    return out
