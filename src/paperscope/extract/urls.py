"""Code and project URLs: which links in an abstract point at code, which at a project page.

A code link is written in its canonical form, one entry per repository, whatever the way
the paper writes it (``http://www.github.com/A/B.git/``, ``github.com/a/b#readme``,
``.../b/tree/main``, ``.../b/blob/main/README.md`` are all ``https://github.com/A/B``).
What "the repository" is depends on the host (see :func:`canonical_code_url`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from ..text import find_urls

__all__ = [
    "CODE_HOSTS",
    "canonical_code_url",
    "code_urls_of_record",
    "extract_urls",
    "merge_code_urls",
    "repository_key",
]

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
# A code-host link written without its scheme ("Code: github.com/acme/apm.", or broken as
# "https: //github.com/a/b"): the host must start a word, so "mygithub.com" or "user@github.com"
# are not read as one.
_BARE_CODE_URL_RE = re.compile(
    r"(?<![\w.@/:-])(?://)?(?:www\.)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org|gitee\.com|huggingface\.co)"
    r"/[^\s<>\"'`{}\[\]|\\^]+",
    re.IGNORECASE,
)

# First path segments that are pages of the site, not owners (github.com/orgs/x, /topics/y …).
_GITHUB_SITE_PAGES = frozenset(
    "about apps collections enterprise events explore features login marketplace notifications "
    "orgs organizations pricing pulls issues search security settings site sponsors topics trending "
    "users".split()
)
# Hugging Face: the kinds of repository (models have no prefix) and pages that are not repositories.
_HF_KINDS = frozenset({"datasets", "spaces"})
_HF_REPO_PAGES = frozenset(
    {"tree", "blob", "resolve", "raw", "commits", "commit", "discussions", "viewer", "edit"}
)
_HF_SITE_PAGES = frozenset({"docs", "blog", "papers", "models", "organizations", "settings", "join", "login"})
# Path segments after owner/repo that lead into a folder or file of the repository, by host.
_TREE_SEGMENTS = {
    "github": ("tree", "blob"),
    "gitee": ("tree", "blob"),
    "bitbucket": ("src",),
    "codeberg": ("src",),
}
_README_RE = re.compile(r"^readme(?:\.[a-z]+)?$", re.IGNORECASE)


def _is_code_host(host: str) -> bool:
    host = host.lower().removeprefix("www.")
    return any(host == h or host.endswith("." + h) for h in CODE_HOSTS)


def _folder(rest: list[str], ref_segments: int = 1) -> list[str]:
    """Return ``[ref..., path...]`` of a link into a folder or file, or [] for the repository itself.

    A link to the repository's root on some branch (``tree/main``) or to its README is the
    repository: only a path inside it (a project folder of a monorepo) is kept.
    """
    path = [p for p in rest[ref_segments:] if p]
    if path and _README_RE.match(path[-1]):
        path = path[:-1]
    return rest[:ref_segments] + path if path else []


def _split(url: str) -> tuple[str, list[str]] | None:
    if "://" not in url[:10]:
        url = "https://" + url
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower().removeprefix("www.")
    except ValueError:  # "http://[::1" and other broken authorities
        return None
    if not host:
        return None
    return host, [p for p in parts.path.split("/") if p]


def _repository(url: str) -> tuple[str, tuple[str, ...], list[str], bool] | None:
    """Return ``(host, repository path, folder segments, case-insensitive)``, or None if not a repository."""
    split = _split(url)
    if split is None:
        return None
    host, segments = split
    if host in ("github.com", "gitee.com", "codeberg.org", "bitbucket.org"):
        # Owner and repository names are case-insensitive on all four (GitHub, Gitee, Gitea and
        # Bitbucket all resolve /Owner/Repo and /owner/repo to one repository).
        if len(segments) < 2 or segments[0].lower() in _GITHUB_SITE_PAGES:
            return None
        name = segments[1].removesuffix(".git")
        rest = segments[2:]
        kind = host.split(".")[0]
        if kind == "codeberg":  # Gitea/Forgejo: /src/branch/<ref>/<path> (also /src/tag/, /src/commit/)
            inner = _folder(rest[1:], 2) if rest[:1] == ["src"] else []
        else:
            inner = _folder(rest[1:]) if rest and rest[0] in _TREE_SEGMENTS[kind] else []
        if not name:
            return None
        return host, (segments[0], name), [rest[0], *inner] if inner else [], True
    if host == "gitlab.com":
        # Projects sit in nested groups; "/-/" starts the project's pages (/-/tree/<ref>/<path>).
        if "-" in segments:
            at = segments.index("-")
            project, rest = segments[:at], segments[at + 1 :]
        else:  # older links without "/-/": /group/project/tree/master
            project, rest = segments, []
            for i, seg in enumerate(segments[2:], start=2):
                if seg in ("tree", "blob", "issues", "merge_requests", "wikis", "commits", "raw", "tags"):
                    project, rest = segments[:i], segments[i:]
                    break
        if len(project) < 2:
            return None
        project = [*project[:-1], project[-1].removesuffix(".git")]
        inner = _folder(rest[1:]) if rest and rest[0] in ("tree", "blob") else []
        return host, tuple(project), ["-", rest[0], *inner] if inner else [], True
    if host == "huggingface.co":
        # A model (/owner/name or a legacy /name), a dataset or a space; ids are compared as written.
        if not segments or segments[0] in _HF_SITE_PAGES:
            return None
        if segments[0] in _HF_KINDS or segments[0] == "collections":
            repo = tuple(segments[:3]) if len(segments) >= 3 else None
        elif len(segments) > 1 and segments[1] in _HF_REPO_PAGES:  # a legacy model: /gpt2/tree/main
            repo = tuple(segments[:1])
        else:
            repo = tuple(segments[:2])
        if repo is None:
            return None
        return host, repo, [], False
    if host == "anonymous.4open.science":
        # Anonymised review copies: /r/<id>/<path> is one repository.
        if len(segments) >= 2 and segments[0] == "r":
            return host, ("r", segments[1]), [], False
        return None
    return None


def canonical_code_url(url: str) -> str:
    """Return the canonical form of a code link: ``https://host/repository`` (plus a folder).

    Per host, "the repository" is:

    * GitHub, Gitee, Bitbucket and Codeberg: ``owner/name`` (``.git`` dropped);
    * GitLab: the project path with its groups (``group/sub/project``), up to ``/-/``;
    * Hugging Face: ``owner/name`` of a model, ``datasets/owner/name``, ``spaces/owner/name``,
      ``collections/owner/slug``, or a legacy model's single name;
    * anonymous.4open.science: ``r/<id>``.

    Scheme, ``www.``, query, fragment, trailing slash and pages of the repository (issues,
    releases, ``tree/main``, the README) go. A link into a folder or file of the repository
    (``tree/<ref>/<path>``, GitLab ``-/tree/<ref>/<path>``, Bitbucket ``src/<ref>/<path>``,
    Codeberg ``src/branch/<ref>/<path>``) keeps that path: it says where in a monorepo the code
    is. Links on other hosts, and pages of a code host that are not a repository
    (``github.com/orgs/x``, a user page), only lose their trailing slash and fragment.
    """
    found = _repository(url)
    if found is None:
        trimmed = url.split("#", 1)[0].rstrip("/")
        if "://" not in trimmed[:10]:
            trimmed = "https://" + trimmed
        return trimmed if len(trimmed) > len("https://") else url
    host, repo, folder, _ = found
    return "https://" + "/".join((host, *repo, *folder))


def repository_key(url: str) -> str:
    """Return the identity of the repository a code link points at (lowercased where the host ignores case).

    Two links with one key are one entry of a card: ``https://github.com/A/B`` and
    ``http://www.github.com/a/b.git`` share ``github.com/a/b``; a folder of the repository
    shares its key too (see :func:`merge_code_urls`). Links that are not repositories are
    keyed by their canonical form.
    """
    found = _repository(url)
    if found is None:
        return _project_key(canonical_code_url(url))
    host, repo, _, case_insensitive = found
    key = "/".join((host, *repo))
    return key.lower() if case_insensitive else key


def merge_code_urls(urls: Iterable[str]) -> list[str]:
    """Return canonical code links, one per repository, in order of first appearance.

    When one repository is linked both as a whole and into a folder, the folder link is kept
    (it says where the code is); of two folder links, the first.
    """
    kept: dict[str, tuple[str, bool]] = {}
    for url in urls:
        found = _repository(url)
        key = repository_key(url)
        into_folder = bool(found and found[2])
        if key not in kept or (into_folder and not kept[key][1]):
            kept[key] = (canonical_code_url(url), into_folder)
    return [url for url, _ in kept.values()]


def _project_key(url: str) -> str:
    """Return ``host/path`` of a link: scheme, ``www.``, fragment and trailing slash ignored."""
    parts = url.split("#", 1)[0].rstrip("/")
    _, _, rest = parts.partition("://")
    host, slash, path = rest.partition("/")
    return host.lower().removeprefix("www.") + slash + path


def extract_urls(clean: str) -> tuple[list[str], list[str]]:
    """Split the URLs of a clean abstract into ``(code_urls, project_urls)``, each in text order.

    A URL on a code host (``CODE_HOSTS``) is code, and so is a code-host link written without
    its scheme (``github.com/acme/apm``). Any other (``*.github.io``, lab pages) is code when
    the words of its sentence before it name code ("Code and models are available at
    https://x.github.io"), else a project page (demos, project sites). Code links are
    canonical, one per repository (:func:`merge_code_urls`); a project page given twice (with
    and without a trailing slash) is kept once, as first written. Trailing punctuation and
    braces are already stripped by ``find_urls``.
    """
    code: list[str] = []
    project: list[str] = []
    found: list[tuple[int, str]] = []
    for url in find_urls(clean):
        found.append((clean.find(url), url))
    if "." in clean:
        for m in _BARE_CODE_URL_RE.finditer(clean):
            found.append((m.start(), find_urls("https://" + m.group(0).lstrip("/"))[0]))
    seen_projects: set[str] = set()
    for at, url in sorted(found, key=lambda f: f[0]):
        before = clean[: max(at, 0)]
        ends = list(_SENTENCE_END_RE.finditer(before))
        lead = before[ends[-1].end() :] if ends else before
        host = urlsplit(url if "://" in url[:10] else "https://" + url).netloc
        if _is_code_host(host) or bool(_CODE_CUE_RE.search(lead)):
            code.append(url)
        elif _project_key(url) not in seen_projects:
            seen_projects.add(_project_key(url))
            project.append(url)
    return merge_code_urls(code), project


def code_urls_of_record(urls: Iterable[str]) -> list[str]:
    """Return the record's own URLs (its ``url``, ``code``, ``github`` fields…) that are code links.

    Only links on a code host count: a ``url`` field usually holds the paper's page.
    """
    out: list[str] = []
    for url in urls:
        split = _split(url.strip())
        if split is not None and _is_code_host(split[0]):
            out.append(url.strip())
    return out
