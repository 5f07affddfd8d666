"""Code and project URLs: which links in an abstract point at code, which at a project page."""

from __future__ import annotations

import re
from urllib.parse import urlparse

from ..text import find_urls

__all__ = ["CODE_HOSTS", "extract_urls"]

#: Hosts whose links are code or released artefacts (repositories, model and dataset hubs).
CODE_HOSTS = (
    "github.com",
    "gitlab.com",
    "bitbucket.org",
    "codeberg.org",
    "gitee.com",
    "huggingface.co",
    "sourceforge.net",
    "anonymous.4open.science",
    "zenodo.org",
    "kaggle.com",
)


#: Words that say a link holds code, in the sentence before it ("Code is available at …").
_CODE_CUE_RE = re.compile(
    r"\b(?:code|codes|codebase|implementations?|source|repository|repo)\b", re.IGNORECASE
)
_SENTENCE_END_RE = re.compile(r"[.!?;]\s")


def _is_code_host(host: str) -> bool:
    host = host.lower().removeprefix("www.")
    return any(host == h or host.endswith("." + h) for h in CODE_HOSTS)


def extract_urls(clean: str) -> tuple[list[str], list[str]]:
    """Split the URLs of a clean abstract into ``(code_urls, project_urls)``, each in text order.

    A URL on a code host (``CODE_HOSTS``) is code. Any other (``*.github.io``, lab pages) is code
    when the words of its sentence before it name code ("Code and models are available at
    https://x.github.io"), else a project page (demos, project sites). Trailing punctuation and
    braces are already stripped by ``find_urls``.
    """
    code: list[str] = []
    project: list[str] = []
    for url in find_urls(clean):
        at = clean.find(url)
        before = clean[: max(at, 0)]
        ends = list(_SENTENCE_END_RE.finditer(before))
        lead = before[ends[-1].end() :] if ends else before
        is_code = _is_code_host(urlparse(url).netloc) or bool(_CODE_CUE_RE.search(lead))
        (code if is_code else project).append(url)
    return code, project
