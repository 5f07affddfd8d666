"""The topic map: one self-contained offline HTML file (canvas scatter, search, cards) and a PNG."""

from .html import COLOR_MODES, PALETTE, map_payload, write_map_html
from .png import write_map_png

__all__ = ["map_payload", "write_map_html", "write_map_png", "COLOR_MODES", "PALETTE"]
