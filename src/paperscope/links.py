"""A paper's links by kind (code, project, OpenReview, arXiv, PDF, DOI), http(s) only.

What a result card or an export shows beside a title: one link per kind, built from the
record's own URLs, its external ids and the card's code and project URLs. Pure functions, no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, urlsplit

__all__ = ["LINK_KINDS", "paper_links", "is_web_url"]

#: The kinds in the order a card shows them.
LINK_KINDS = ("code", "project", "openreview", "arxiv", "pdf", "doi", "url")

_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "codeberg.org")
_SAFE_ID = re.compile(r"[A-Za-z0-9._\-/]+")


def is_web_url(url: object) -> bool:
    """Return True for an absolute ``http://`` or ``https://`` URL with a host (never ``javascript:``)."""
    if not isinstance(url, str) or any(c in url for c in "\r\n\t \"'<>\\"):
        return False
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _kind_of(url: str) -> str:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower().removeprefix("www.")
    path = parts.path.lower()
    if host in _CODE_HOSTS:
        return "code"
    if host.endswith(".github.io"):
        return "project"
    if host == "openreview.net":
        return "pdf" if path.startswith("/pdf") else "openreview"
    if host in ("arxiv.org", "export.arxiv.org"):
        return "pdf" if path.startswith("/pdf") else "arxiv"
    if host in ("doi.org", "dx.doi.org"):
        return "doi"
    if path.endswith(".pdf"):
        return "pdf"
    return "url"


def paper_links(
    urls: Iterable[str] = (),
    external_ids: Mapping[str, str] | None = None,
    code_urls: Iterable[str] = (),
    project_urls: Iterable[str] = (),
) -> dict[str, str]:
    """Return ``{kind: url}``, at most one URL per kind of :data:`LINK_KINDS`, in that order.

    Args:
        urls: the record's own URLs (any order; the first of each kind wins).
        external_ids: ``{"openreview": forum id, "arxiv": id, "doi": doi}`` as ingest stores them;
            they give the OpenReview forum, the arXiv abstract, a PDF (arXiv's, else OpenReview's)
            and ``https://doi.org/DOI`` when no URL of that kind was given.
        code_urls: the card's code repository URLs (from the abstract or the record's fields).
        project_urls: the card's project page URLs.

    Only ``http``/``https`` URLs are kept (see :func:`is_web_url`), so a ``javascript:`` URL in a
    record never becomes a link.
    """
    found: dict[str, str] = {}
    for url in code_urls:
        if is_web_url(url):
            found.setdefault("code", url)
    for url in project_urls:
        if is_web_url(url):
            found.setdefault("project", url)
    for url in urls:
        if is_web_url(url):
            found.setdefault(_kind_of(url), url)
    ids = {k: v for k, v in (external_ids or {}).items() if isinstance(v, str) and _SAFE_ID.fullmatch(v)}
    if "openreview" in ids:
        found.setdefault("openreview", f"https://openreview.net/forum?id={quote(ids['openreview'])}")
    if "arxiv" in ids:
        found.setdefault("arxiv", f"https://arxiv.org/abs/{ids['arxiv']}")
        found.setdefault("pdf", f"https://arxiv.org/pdf/{ids['arxiv']}")
    if "openreview" in ids:
        found.setdefault("pdf", f"https://openreview.net/pdf?id={quote(ids['openreview'])}")
    if "doi" in ids:
        found.setdefault("doi", f"https://doi.org/{ids['doi']}")
    return {kind: found[kind] for kind in LINK_KINDS if kind in found}
