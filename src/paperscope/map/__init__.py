"""The topic map: a self-contained offline HTML file or the live page's shell (one canvas script), and a PNG."""

from .html import (
    COLOR_MODES,
    MAP_ASSETS,
    PALETTE,
    live_map_html,
    live_map_parts,
    map_asset,
    map_payload,
    write_map_html,
)
from .png import PNG_INSTALL, require_matplotlib, write_map_png

__all__ = [
    "map_payload",
    "write_map_html",
    "write_map_png",
    "require_matplotlib",
    "PNG_INSTALL",
    "live_map_html",
    "live_map_parts",
    "map_asset",
    "MAP_ASSETS",
    "COLOR_MODES",
    "PALETTE",
]
