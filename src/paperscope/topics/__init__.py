"""Topics: reduce → cluster → label → layout, each step swappable through a small registry."""

from .cluster import CLUSTERERS, Clusterer
from .label import LABELLERS, Labeller
from .layout import LAYOUTS, Layout
from .pipeline import UNASSIGNED_ID, UNASSIGNED_NAME, TopicModel, fit_topics
from .reduce import REDUCERS, Reducer

__all__ = [
    "fit_topics",
    "TopicModel",
    "UNASSIGNED_ID",
    "UNASSIGNED_NAME",
    "Reducer",
    "Clusterer",
    "Labeller",
    "Layout",
    "REDUCERS",
    "CLUSTERERS",
    "LABELLERS",
    "LAYOUTS",
]
