"""Where the evaluation data lives: ``$PAPERSCOPE_EVAL_DATA``, else ``shared/data`` beside the checkout.

A plain ``pip install`` puts paperscope in site-packages, where no ``shared/data`` is beside it:
there the variable (or ``paperscope eval --data DIR``) names the folder.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["default_data_dir", "ENV_VAR", "GOLD_NAME", "ICLR_NAME"]

#: The environment variable naming the evaluation data folder.
ENV_VAR = "PAPERSCOPE_EVAL_DATA"
#: The dev gold of the cards inside the data folder (hand labels of the ICML 2026 lists 000 and 001).
GOLD_NAME = Path("gold") / "icml2026_cards_dev.jsonl"
#: The folder of ICLR 2026 CSVs with OpenReview primary areas inside the data folder.
ICLR_NAME = Path("iclr2026-primary-area")


def default_data_dir() -> Path:
    """Return ``$PAPERSCOPE_EVAL_DATA``, else ``shared/data`` beside the repository (read each call)."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env).expanduser()
    return Path(__file__).resolve().parents[3].parent / "shared" / "data"
