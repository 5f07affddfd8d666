"""Card extraction: per-field extractors over the clean text, assembled by ``card.build_card``."""

from .card import EXTRACTOR_VERSION, build_card, build_cards

__all__ = ["build_card", "build_cards", "EXTRACTOR_VERSION"]
