"""Fixtures of the web tests."""

from __future__ import annotations

import pytest

from paperscope.web import i18n


@pytest.fixture
def strict_catalogue(monkeypatch: pytest.MonkeyPatch) -> None:
    """A template asking for a text the catalogue lacks fails the test instead of showing the key."""
    monkeypatch.setattr(i18n, "STRICT", True)
