"""A search loads the query embedder on a thread only while it is not loaded yet."""

from __future__ import annotations

import threading

import pytest

from paperscope.index import embed
from paperscope.library import _LoadingEmbedder


class _Library:
    """What _LoadingEmbedder reads of a Library: the embedder's name and its query embedder."""

    _embedder_choice = "minilm"

    def __init__(self) -> None:
        self.loads = 0

    @property
    def query_embedder(self) -> embed.FakeEmbedder:
        self.loads += 1
        return embed.FakeEmbedder()


def test_the_embedder_thread_starts_only_until_the_query_embedder_is_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(embed, "embedder_is_ready", lambda name: True)
    monkeypatch.setattr(embed, "_QUERY_CACHE", {})  # a fresh process: nothing loaded
    started: list[str] = []
    original = threading.Thread.start

    def start(self: threading.Thread) -> None:
        started.append(self.name)
        original(self)

    monkeypatch.setattr(threading.Thread, "start", start)
    library = _Library()
    first = _LoadingEmbedder(library)  # type: ignore[arg-type]
    assert started == ["paperscope-embedder"]
    assert first.model_id == embed.FakeEmbedder().model_id and library.loads >= 1
    embed._QUERY_CACHE["minilm"] = embed.FakeEmbedder()  # what the first search's load leaves
    second = _LoadingEmbedder(library)  # type: ignore[arg-type]
    assert started == ["paperscope-embedder"]  # loaded: the next search starts no thread
    assert second.model_id == embed.FakeEmbedder().model_id
