"""The venue table exports use: a short venue name to its proceedings (or journal) name and kind.

``venue_info("ICML")`` gives ``booktitle = {International Conference on Machine Learning}``, the
RIS ``T2`` and the CSL ``container-title``; ``kind`` picks ``@inproceedings`` or ``@article``.
Names follow how each venue's own proceedings are cited (PMLR volume pages, the CVF open access
pages, the ACL Anthology, the NeurIPS proceedings site). ``publisher`` is set only where it has
been the same for years (PMLR, ACL, ACM, IEEE, AAAI Press, Springer); ICLR, COLM and TMLR publish
on OpenReview with no publisher of record, so they have none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Venue", "VENUES", "venue_info"]


@dataclass(frozen=True)
class Venue:
    """One venue: its short name, the name its proceedings (or journal) go by, its kind and publisher."""

    short: str
    name: str
    kind: str = "conference"  # "conference" or "journal"
    publisher: str | None = None


_PMLR = "PMLR"
_ACL = "Association for Computational Linguistics"
_ACM = "ACM"
_IEEE = "IEEE"

#: Short name (as ``ingest.fields.canonical_venue`` spells it) → venue.
VENUES: dict[str, Venue] = {
    v.short.lower(): v
    for v in (
        Venue("ICML", "International Conference on Machine Learning", publisher=_PMLR),
        Venue("ICLR", "International Conference on Learning Representations"),
        Venue("NeurIPS", "Advances in Neural Information Processing Systems"),
        Venue("CVPR", "IEEE/CVF Conference on Computer Vision and Pattern Recognition", publisher=_IEEE),
        Venue("ICCV", "IEEE/CVF International Conference on Computer Vision", publisher=_IEEE),
        Venue("WACV", "IEEE/CVF Winter Conference on Applications of Computer Vision", publisher=_IEEE),
        Venue("ECCV", "European Conference on Computer Vision", publisher="Springer"),
        Venue("IJCAI", "International Joint Conference on Artificial Intelligence"),
        Venue("AAAI", "AAAI Conference on Artificial Intelligence", publisher="AAAI Press"),
        Venue("COLM", "Conference on Language Modeling"),
        Venue("ACL", "Annual Meeting of the Association for Computational Linguistics", publisher=_ACL),
        Venue("EMNLP", "Conference on Empirical Methods in Natural Language Processing", publisher=_ACL),
        Venue(
            "NAACL",
            "Conference of the North American Chapter of the Association for Computational Linguistics",
            publisher=_ACL,
        ),
        Venue(
            "EACL",
            "Conference of the European Chapter of the Association for Computational Linguistics",
            publisher=_ACL,
        ),
        Venue("COLING", "International Conference on Computational Linguistics"),
        Venue("KDD", "ACM SIGKDD Conference on Knowledge Discovery and Data Mining", publisher=_ACM),
        Venue("WWW", "ACM Web Conference", publisher=_ACM),
        Venue(
            "SIGIR",
            "International ACM SIGIR Conference on Research and Development in Information Retrieval",
            publisher=_ACM,
        ),
        Venue(
            "AISTATS", "International Conference on Artificial Intelligence and Statistics", publisher=_PMLR
        ),
        Venue("UAI", "Conference on Uncertainty in Artificial Intelligence", publisher=_PMLR),
        Venue("COLT", "Conference on Learning Theory", publisher=_PMLR),
        Venue("CoRL", "Conference on Robot Learning", publisher=_PMLR),
        Venue("MLSys", "Conference on Machine Learning and Systems"),
        Venue("ICRA", "IEEE International Conference on Robotics and Automation", publisher=_IEEE),
        Venue("IROS", "IEEE/RSJ International Conference on Intelligent Robots and Systems", publisher=_IEEE),
        Venue("RSS", "Robotics: Science and Systems"),
        Venue(
            "ICASSP",
            "IEEE International Conference on Acoustics, Speech and Signal Processing",
            publisher=_IEEE,
        ),
        Venue("Interspeech", "Interspeech"),
        Venue(
            "MICCAI",
            "International Conference on Medical Image Computing and Computer-Assisted Intervention",
            publisher="Springer",
        ),
        Venue("TMLR", "Transactions on Machine Learning Research", kind="journal"),
        Venue("JMLR", "Journal of Machine Learning Research", kind="journal"),
        Venue(
            "TACL",
            "Transactions of the Association for Computational Linguistics",
            kind="journal",
            publisher=_ACL,
        ),
        Venue(
            "TPAMI",
            "IEEE Transactions on Pattern Analysis and Machine Intelligence",
            kind="journal",
            publisher=_IEEE,
        ),
    )
}
_ALIASES = {"nips": "neurips", "pami": "tpami", "sigkdd": "kdd", "the web conference": "www"}
#: Full names map to their venue too ("International Conference on Machine Learning (ICML)").
_BY_NAME = {re.sub(r"[^a-z]+", " ", v.name.lower()).strip(): v for v in VENUES.values()}
#: Words a list writes after the name that do not change the venue ("ICLR 2026 Conference Oral").
_NOISE = {
    "conference",
    "main",
    "track",
    "poster",
    "oral",
    "spotlight",
    "accept",
    "accepted",
    "proceedings",
    "of",
    "the",
}
_PREPRINT = re.compile(r"\b(arxiv|corr|preprint|biorxiv|medrxiv|ssrn)\b", re.I)
_WORKSHOP = re.compile(r"\bworkshops?\b", re.I)


def venue_info(venue: str | None) -> Venue | None:
    """Return the venue ``venue`` names, matching case-insensitively, or None when it has none.

    ``"ICML"``, ``"icml"``, ``"ICLR 2026 Conference"``, ``"NeurIPS 2024 Poster"``, ``"NIPS"`` and
    ``"International Conference on Machine Learning"`` all match. A workshop ("ICLR 2026 Workshop
    on X") is not its main conference: it comes back as a conference named as written. A
    preprint server (arXiv, CoRR) gives None (an ``@misc``). Any other non-empty name is a
    conference named as written, or a journal when it says "journal" or "transactions".
    """
    if not venue or not venue.strip():
        return None
    text = " ".join(venue.split())
    if _PREPRINT.search(text):
        return None
    if _WORKSHOP.search(text):
        return Venue(text, text)
    paren = re.search(r"\(([A-Za-z]+)[\s\d']*\)\s*$", text)  # "... Machine Learning (ICML 2026)"
    words = [w for w in re.sub(r"[^a-z]+", " ", text.lower()).split() if w not in _NOISE]
    candidates = [paren.group(1).lower()] if paren else []
    candidates += [" ".join(words), words[0] if words else ""]
    for key in candidates:
        key = _ALIASES.get(key, key)
        if key in VENUES:
            return VENUES[key]
    full = re.sub(r"\(.*?\)|\b(19|20)\d\d\b|\b\d+(st|nd|rd|th)\b", " ", text.lower())
    full = " ".join(re.sub(r"[^a-z]+", " ", full).split())
    full = re.sub(r"^proceedings of (the )?", "", full)
    if full in _BY_NAME:
        return _BY_NAME[full]
    kind = "journal" if re.search(r"\b(journal|transactions)\b", text, re.I) else "conference"
    return Venue(text, text, kind=kind)
