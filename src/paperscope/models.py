"""Plain data classes passed between stages: no I/O here."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = [
    "TITLE_SOURCES",
    "LABEL_MARKER",
    "marked_label",
    "EXTRACTOR_VERSION",
    "FIRST_CARD_VERSION",
    "CLAIM_RELATIONS",
    "claim_text",
    "Source",
    "Record",
    "Paper",
    "Card",
    "Hit",
    "IngestReport",
    "FileReport",
    "Skip",
    "Conflict",
    "Topic",
]


#: Where the title a paper shows comes from: ``source`` (the input file gave it), ``program``
#: (``paperscope enrich --program`` attached it; an ``enrichments`` row, migration 9, records it)
#: or ``generated`` (no title: the card's label, else the abstract's first words, stands in).
TITLE_SOURCES = ("source", "program", "generated")

#: What marks a generated label wherever it stands in for a title: CLI lines, web headings and
#: results, and the title of every export (the label itself stays unmarked in ``label``).
#:
#: Decision (issue 23): a bracketed prefix, ``"[Label] "`` + the label. A prefix is read first,
#: so a reader scanning a list, a bibliography or a CSV column never takes the label for the
#: paper's title; the brackets say it is not part of the text; and it is capitalised because
#: citation processors change the case of titles: pandoc's citeproc title-cases an English title
#: ("[label]" came out "[Label]") and sentence case keeps a first word's capital, so "[Label]"
#: reads the same in every style (BibTeX, whose styles lower-case titles, gets it braced). The
#: web app shows the same text in English and its translation in Chinese (``web/i18n.py``).
LABEL_MARKER = "[Label]"


def marked_label(label: str, title_source: str | None) -> str:
    """Return ``label`` as a person should read it: with :data:`LABEL_MARKER` first when generated.

    A title (``source`` or ``program``) is returned as it is; so is an empty label (a hit whose
    details were not read).
    """
    return f"{LABEL_MARKER} {label}" if title_source == "generated" and label else label


#: Bumped whenever an extractor changes its output; cards of another version are rebuilt. Here,
#: beside Card, so that counting outdated cards (``stats``) imports no extractor (issue 29).
#: 0.7: code links canonical, one per repository, and also taken from the record's URL fields.
#: 0.8: claims carry relation, baseline, metric and dataset; ranges and numbers in words.
#: 0.9: tasks filled from the trained keyphrase ranker's task phrases (extract/keyphrases.py).
#: 0.9: method names from the learned extractor, ranked by score (extract/methods.py).
#: 0.10: a label without a method name comes from the keyphrase ranker, not the opening words.
#: 0.11: labels end at a noun-phrase boundary ("…" where cut) and never open with a verb or anaphor.
#: 0.11: area: text model of 60,000 features; with the paper's vector a joint SVM (extract/area_embedding.py).
#: 0.12: claims keep bounds in words ("more than 14%", "up to"); claims, methods and datasets carry a
#: confidence, and only confident ones are shown (paperscope/confidence.py); generic labels give way
#: to keyphrases.
#: 0.13: method names include the names an abstract uses (BERT, PPO, CIFAR-10), scored by the name model
#: (extract/method_model.NameModel) whose probability is their confidence; a dataset name is widened
#: by an all-capital word, a Roman numeral or a version ("MS COCO") (issue 27).
#: 0.14: a listed dataset may carry a modifier or a lower-case word ("safety-focused WildGuardTest",
#: "Oxford flowers"); "dataset, i.e., X", "mAP on X", "the X leaderboard / shared task" name datasets;
#: "1.5 dB" is no method name; method names are shown from 0.65 (issue 27).
#: 0.15: claims keep bounds written as comparatives ("greater than", "fewer than"), before a range
#: ("around 42-43%") or as "within <a loss> of N"; "4.5 times faster" and "a 40-fold reduction" are
#: factors; a metric keeps its variant word and any case ("53.9 box AP", "78.6 mIOU"); the number in
#: parentheses after a compared method ("over NEFTune (64.69%)") is not shown; a percent sign
#: escaped twice ("$18.9\\%$") is kept by clean_text; a dataset list may follow a dash, a comma or
#: "like"; every name before a plural head ("Sintel and KITTI-2015 benchmarks") is a dataset; a
#: modifier ("English-only") is no part of a name and a year is ("AIME 2024") (issue 27).
#: 0.16: a plain word capitalised only because it starts a sentence is no part of a two-word name
#: ("Using PerSEval", "While Vision-Language-Action", "On ImageNet" were names; 191 of 8,378 names
#: of 2,500 ICLR 2026 abstracts, 69 of them shown) (issue 27).
EXTRACTOR_VERSION = "0.16"
#: Version tag of the quick card written at ingest; it is replaced by the full card.
FIRST_CARD_VERSION = f"{EXTRACTOR_VERSION}-first"

#: What a card's claim says its number does (``extract.claim_relation.relation_of`` decides).
#: Here, not in the extractor, so that showing a stored card imports no extractor (issue 29).
CLAIM_RELATIONS = ("improves", "reduces", "increases", "reaches", "speedup", "compared-with")
_CLAIM_ARROWS = {"improves": "↑", "reduces": "↓", "increases": "↑"}


def claim_text(claim: Mapping[str, Any]) -> str:
    """Return a claim (its ``to_dict`` shape) as a person writes it.

    ``"↑8.4% accuracy improvements on MATH"``, ``"↓63% inference time"``, ``"3.67× speedup"``,
    ``"↑64.0% translation accuracy (from 57.5%)"``, ``"91.5% accuracy (vs. 42.7%)"``,
    ``"12.8 IR@1 on Flickr30k"``. Cards written before relations (no ``relation`` key) read as
    value, unit and what; an old ``relation`` holding a bound ("up to") is shown before the value.
    """
    value = str(claim.get("value", "")).strip()
    unit = str(claim.get("unit") or "").strip()
    glued = unit in ("%", "×", "x")
    number = f"{value}{unit}" if glued else f"{value} {unit}".strip()
    relation = str(claim.get("relation") or "").strip()
    bound = str(claim.get("bound") or "").strip()
    if relation and relation not in CLAIM_RELATIONS:  # a card of extractor 0.7 or older: the bound
        bound, relation = relation, ""
    lead = f"{bound} " if bound and bound[0] not in "<>≤≥~" else bound
    arrow = _CLAIM_ARROWS.get(relation, "")
    if arrow and lead.endswith(" "):  # a bound in words after the arrow: "↓ up to 65×", not "↓up to 65×"
        arrow += " "
    parts = [f"{arrow}{lead}{number}", str(claim.get("what") or "").strip()]
    baseline = claim.get("baseline")
    if baseline not in (None, ""):
        base = f"{baseline}{unit}" if glued else f"{baseline} {unit}".strip()
        parts.append(
            f"(from {base})" if relation in ("improves", "reduces", "increases") else f"(vs. {base})"
        )
    dataset = str(claim.get("dataset") or "").strip()
    if dataset and dataset not in parts[1]:
        parts.append(f"on {dataset}")
    return " ".join(p for p in parts if p)


@dataclass(frozen=True)
class Source:
    """Where a paper was read: a file path and the 1-based line (or record number) it starts on."""

    path: str
    line: int
    format: str = "text"

    @property
    def file_name(self) -> str:
        """The file's name without its folders: what hits, pages and exports show of ``path``."""
        return self.path.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]

    def to_dict(self) -> dict[str, Any]:
        """Return ``{"path": file name, "line", "format"}``: no absolute local path leaves the machine."""
        return {"path": self.file_name, "line": self.line, "format": self.format}


@dataclass
class Record:
    """One paper as a reader produced it, before it is stored.

    ``abstract`` is the original text (for display); the store derives the clean text.
    Optional metadata is None or empty when the source does not carry it.
    """

    abstract: str
    source: Source
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    decision: str | None = None
    keywords: list[str] = field(default_factory=list)
    source_area: str | None = None
    urls: list[str] = field(default_factory=list)
    external_ids: dict[str, str] = field(default_factory=dict)


@dataclass
class Card:
    """What paperscope understood of a paper; every list is in order of first appearance.

    Attributes:
        label: display label, "NAME — what it does" when the paper names its method.
        method_names: names of methods, models, systems, benchmarks, datasets and metrics the paper
            introduces or uses (issue 27), its own first; `extra["methods"]` has each one's confidence.
        code_urls: repository and project URLs, trailing punctuation stripped.
        extractor_version: the version of ``extract`` that built this card.

    """

    label: str
    method_names: list[str] = field(default_factory=list)
    code_urls: list[str] = field(default_factory=list)
    extractor_version: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        # Shallow copies: dataclasses.asdict deep-copies every value and cost ~0.1 ms per card.
        data = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "extra"}
        data = {k: list(v) if isinstance(v, list) else v for k, v in data.items()}
        data.update(self.extra)
        return data

    def to_json(self) -> str:
        """Return :meth:`to_dict` as the JSON text ``store.papers.save_cards`` stores (UTF-8, not escaped)."""
        return json.dumps(self.to_dict(), ensure_ascii=False)


@dataclass
class Paper:
    """A stored paper: identity, texts, metadata, provenance and card."""

    paper_id: str
    abstract: str
    clean_text: str
    title: str | None = None
    authors: list[str] = field(default_factory=list)
    venue: str | None = None
    year: int | None = None
    decision: str | None = None
    keywords: list[str] = field(default_factory=list)
    source_area: str | None = None
    urls: list[str] = field(default_factory=list)
    external_ids: dict[str, str] = field(default_factory=dict)
    sources: list[Source] = field(default_factory=list)
    card: Card | None = None
    #: True when the title was attached from a conference program (the store sets it from the
    #: ``enrichments`` table); see :attr:`title_source`.
    is_program_title: bool = False

    @property
    def title_source(self) -> str:
        """Where the title comes from: one of :data:`TITLE_SOURCES`.

        Derived, not stored: no title is ``generated``; a title attached by ``enrich`` (an
        ``enrichments`` row for the paper) is ``program``; any other title is ``source``.
        """
        if not self.title:
            return "generated"
        return "program" if self.is_program_title else "source"

    @property
    def display_label(self) -> str:
        """:attr:`label` as shown to a person: marked with :data:`LABEL_MARKER` when generated."""
        return marked_label(self.label, self.title_source)

    @property
    def label(self) -> str:
        """The title when the source has one, else the card's derived label, else the first words.

        A real title beats any label we derive; lists without titles get the card's
        "NAME — what it does" label.
        """
        if self.title:
            return self.title
        if self.card and self.card.label:
            return self.card.label
        return " ".join(self.clean_text.split()[:12])

    def to_dict(self) -> dict[str, Any]:
        """Return the export shape: one JSON object per paper (see ``paperscope export``)."""
        return {
            "paper_id": self.paper_id,
            "label": self.label,
            "title": self.title,
            "title_source": self.title_source,
            "authors": self.authors,
            "abstract": self.abstract,
            "clean_text": self.clean_text,
            "venue": self.venue,
            "year": self.year,
            "decision": self.decision,
            "keywords": self.keywords,
            "source_area": self.source_area,
            "urls": self.urls,
            "external_ids": self.external_ids,
            "sources": [s.to_dict() for s in self.sources],
            "card": self.card.to_dict() if self.card else None,
        }


@dataclass
class Hit:
    """One search result: the paper, its fused score and rank, and each leg's rank/score.

    ``missing_vector`` is True when the paper has no embedding yet, so the dense leg could not
    see it (the search then ranks by BM25; ``paperscope embed`` fills the vectors).

    The metadata a result card shows rides along, so a client needs no second call: ``title``
    (None for title-less lists; ``label`` is then the card's label), ``venue``, ``year``,
    ``authors``, ``decision``, ``area`` (the source's area, else the card's predicted one),
    ``has_code`` and ``links`` (``{kind: url}``, see :func:`paperscope.links.paper_links`).
    ``title_source`` is one of :data:`TITLE_SOURCES` (``generated``: ``label`` stands in for a
    title, see :attr:`display_label`); None for a hit whose details were not read (``label`` "").
    """

    paper_id: str
    score: float
    rank: int
    label: str
    sources: list[Source] = field(default_factory=list)
    legs: dict[str, dict[str, float]] = field(default_factory=dict)
    snippet: str = ""
    terms: list[str] = field(default_factory=list)
    missing_vector: bool = False
    title: str | None = None
    venue: str | None = None
    year: int | None = None
    authors: list[str] = field(default_factory=list)
    decision: str | None = None
    area: str | None = None
    has_code: bool = False
    links: dict[str, str] = field(default_factory=dict)
    #: Recommendations only: the labels (title, else card label, marked as
    #: :attr:`Paper.display_label` is) of the kept papers, or of the user's own papers
    #: (``recommend --like``), this hit is closest to, closest first; empty for search and
    #: related hits.
    like: list[str] = field(default_factory=list)
    title_source: str | None = None

    @property
    def display_label(self) -> str:
        """:attr:`label` as shown to a person: marked with :data:`LABEL_MARKER` when generated."""
        return marked_label(self.label, self.title_source)

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape of a hit (``sources`` by file name, see :meth:`Source.to_dict`)."""
        return {
            "paper_id": self.paper_id,
            "rank": self.rank,
            "score": self.score,
            "label": self.label,
            "title": self.title,
            "title_source": self.title_source,
            "venue": self.venue,
            "year": self.year,
            "authors": list(self.authors),
            "decision": self.decision,
            "area": self.area,
            "has_code": self.has_code,
            "links": dict(self.links),
            "sources": [s.to_dict() for s in self.sources],
            "legs": self.legs,
            "snippet": self.snippet,
            "terms": self.terms,
            "missing_vector": self.missing_vector,
            "like": list(self.like),
        }


@dataclass
class Skip:
    """A record that was not stored (or was repaired): where it was and why.

    ``line`` is a 1-based line number, or a 1-based record number when ``unit`` is
    ``"record"`` (JSON arrays, whose records have no cheap line number when streamed).
    """

    path: str
    line: int
    reason: str
    unit: str = "line"

    def __str__(self) -> str:
        if self.unit == "record":
            return f"{self.path}: record {self.line}: {self.reason}"
        return f"{self.path}:{self.line}: {self.reason}"


@dataclass
class Conflict:
    """A record that shares an external id with a paper whose text differs: kept as two papers.

    See ``ingest/dedup.py`` (rule 1 and shared ids). ``line`` is a 1-based line number, or a
    1-based record number when ``unit`` is ``"record"``.

    Attributes:
        kind: the id's kind (``"doi"``, ``"arxiv"``, ``"openreview"``).
        value: the id in canonical spelling (``dedup.normalise_id``).
        paper_id: the paper the record is now part of (its own, or the one it merged into).
        other_id: the paper that holds the same id and was kept apart from it.
        other_title: that paper's title (None when it has none).

    """

    path: str
    line: int
    kind: str
    value: str
    paper_id: str
    other_id: str
    other_title: str | None = None
    unit: str = "line"

    def __str__(self) -> str:
        where = f"{self.path}: record {self.line}" if self.unit == "record" else f"{self.path}:{self.line}"
        other = f"{self.other_id} ({self.other_title})" if self.other_title else self.other_id
        return f"{where}: {self.kind} {self.value} is also on paper {other}, whose text differs: kept apart"

    def to_dict(self) -> dict[str, Any]:
        return {
            self.unit: self.line,
            "kind": self.kind,
            "value": self.value,
            "paper_id": self.paper_id,
            "other_id": self.other_id,
            "other_title": self.other_title,
        }


@dataclass
class FileReport:
    """Ingest figures for one file; ``error`` is set when the whole file was rejected.

    A file that fails part-way is undone as a whole: ``new``, ``present`` and ``merged`` are 0,
    and ``read`` counts the records read before the failure.

    Attributes:
        present: records whose normalised abstract was already stored (same ``paper_id``).
        merged: near-duplicate records merged into an existing paper with another ``paper_id``.
        repaired: records stored after invalid characters were removed from them.
        ignored: why a file met in a folder was not read (not a paper list); None when read.
        conflicts: records sharing an external id with a paper whose text differs (kept apart).

    """

    path: str
    format: str = ""
    read: int = 0
    new: int = 0
    present: int = 0
    merged: int = 0
    skipped: list[Skip] = field(default_factory=list)
    error: str | None = None
    repaired: list[Skip] = field(default_factory=list)
    ignored: str | None = None
    conflicts: list[Conflict] = field(default_factory=list)


@dataclass
class IngestReport:
    """Ingest figures for one run, file by file, plus warnings (e.g. language/model mismatch).

    ``elapsed_s`` is the read-and-store phase; ``phases`` holds the later ones (``"cards"``,
    ``"embed"``), each ``{"count": items done, "elapsed_s": wall seconds}``.
    """

    files: list[FileReport] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    rolled_back: bool = False
    phases: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def read(self) -> int:
        return sum(f.read for f in self.files)

    @property
    def new(self) -> int:
        return sum(f.new for f in self.files)

    @property
    def present(self) -> int:
        return sum(f.present for f in self.files)

    @property
    def merged(self) -> int:
        return sum(f.merged for f in self.files)

    @property
    def skipped(self) -> list[Skip]:
        return [s for f in self.files for s in f.skipped]

    @property
    def conflicts(self) -> list[Conflict]:
        return [c for f in self.files for c in f.conflicts]

    @property
    def failed(self) -> list[FileReport]:
        return [f for f in self.files if f.error]

    @property
    def ignored(self) -> list[FileReport]:
        return [f for f in self.files if f.ignored]

    def to_dict(self) -> dict[str, Any]:
        return {
            "read": self.read,
            "new": self.new,
            "present": self.present,
            "merged": self.merged,
            "skipped": len(self.skipped),
            "conflicts": len(self.conflicts),
            "files_failed": len(self.failed),
            "files_ignored": len(self.ignored),
            "elapsed_s": round(self.elapsed_s, 3),
            "phases": {
                name: {"count": int(p["count"]), "elapsed_s": round(p["elapsed_s"], 3)}
                for name, p in self.phases.items()
            },
            "warnings": self.warnings,
            "rolled_back": self.rolled_back,
            "files": [
                {
                    "path": f.path,
                    "format": f.format,
                    "read": f.read,
                    "new": f.new,
                    "present": f.present,
                    "merged": f.merged,
                    "skipped": [{s.unit: s.line, "reason": s.reason} for s in f.skipped],
                    "repaired": [{s.unit: s.line, "reason": s.reason} for s in f.repaired],
                    "conflicts": [c.to_dict() for c in f.conflicts],
                    "error": f.error,
                    "ignored": f.ignored,
                }
                for f in self.files
            ],
        }


@dataclass
class Topic:
    """A topic of the library: a broad topic (level 0), a subtopic (level 1), or the Unassigned group.

    Attributes:
        topic_id: 0.. for broad topics, then subtopics; -1 for the Unassigned group.
        name: short human-readable name (its best key phrases); for the Unassigned group a
            description that cannot pass for a topic.
        level: 0 for broad topics and the Unassigned group, 1 for subtopics.
        size: number of papers.
        key_phrases: c-TF-IDF key phrases, best first.
        parent_id: the broad topic of a subtopic, else None.
        is_unassigned: True only for the group of papers that fit no topic.
        representative_ids: the papers closest to the topic's centroid, closest first.
        x, y: where the name sits on the map (median of its papers' coordinates, in [-1, 1]).
    """

    topic_id: int
    name: str
    level: int
    size: int
    key_phrases: list[str] = field(default_factory=list)
    parent_id: int | None = None
    is_unassigned: bool = False
    representative_ids: list[str] = field(default_factory=list)
    x: float = 0.0
    y: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
