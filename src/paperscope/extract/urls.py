"""Code and project URLs: which links in an abstract point at code, which at a project page."""

from __future__ import annotations

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


def _is_code_host(host: str) -> bool:
    host = host.lower().removeprefix("www.")
    return any(host == h or host.endswith("." + h) for h in CODE_HOSTS)


def extract_urls(clean: str) -> tuple[list[str], list[str]]:
    """Split the URLs of a clean abstract into ``(code_urls, project_urls)``, each in text order.

    A URL on a code host (``CODE_HOSTS``) is code; any other (``*.github.io``, lab pages) is a
    project page. Trailing punctuation and braces are already stripped by ``find_urls``.
    """
    code: list[str] = []
    project: list[str] = []
    for url in find_urls(clean):
        (code if _is_code_host(urlparse(url).netloc) else project).append(url)
    return code, project
