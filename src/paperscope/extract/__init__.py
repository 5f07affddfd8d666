"""Card extraction: per-field extractors over the clean text, assembled by ``card.build_card``."""

from .card import EXTRACTOR_VERSION, FIRST_CARD_VERSION, build_card, build_cards, build_first_card

__all__ = ["build_card", "build_cards", "build_first_card", "EXTRACTOR_VERSION", "FIRST_CARD_VERSION"]
