"""Pydantic models of the JSON API's responses: what ``/openapi.json`` promises, and gets.

Every route answers ``{"ok": true, "data": ..., "notice": str | null}`` on success
(:class:`Envelope`) and ``{"ok": false, "error": str, "status": int}`` on every failure
(:class:`ErrorResponse`), whatever produced it: a route, validation, the security checks, the
body-size limit or an unexpected error. Routes declare their models as ``response_model``, so
FastAPI serialises each answer through them and the schema cannot drift from the app.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

#: The values of ``title_source`` (``paperscope.models.TITLE_SOURCES``).
TitleSource = Literal["source", "program", "generated"]

__all__ = [
    "Envelope",
    "ErrorResponse",
    "ERROR_RESPONSES",
    "SourceModel",
    "HitModel",
    "MarksModel",
    "PaperModel",
    "PaperWithMarks",
    "ReadyModel",
    "StatsModel",
    "BrowseModel",
    "FacetValue",
    "ReadingListItem",
    "TagCount",
    "QueueItemModel",
    "SuggestionModel",
    "PlanModel",
    "QueueModel",
    "IngestAccepted",
    "IngestJobModel",
]

T = TypeVar("T")


class Envelope(BaseModel, Generic[T]):
    """The success envelope of every JSON route."""

    ok: Literal[True] = True
    data: T
    notice: str | None = Field(
        None,
        description="A line (or several, joined by newlines) about how the answer was made: the"
        " query was cut to the documented length, or the dense leg is missing vectors and the"
        " results are BM25 only. null when there is nothing to say.",
    )


class ErrorResponse(BaseModel):
    """The one error shape: every 4xx and 5xx answer of the API."""

    ok: Literal[False] = False
    error: str = Field(description="What went wrong, and what to do next.")
    status: int = Field(description="The HTTP status code, repeated.")


_ERRORS = {
    400: "Bad input: an unknown query parameter, a number out of range, an empty query, a bad body.",
    401: "A token is required (the server was started with --token).",
    403: "Refused: a write from another Origin, or a Host this server does not serve.",
    404: "No such paper, job, topic or route.",
    413: "The request body is larger than the limit.",
    414: "The request URL (path and query) is longer than 256 KiB.",
    500: "An unexpected error (a bug): the message names the exception type.",
    503: "The server is busy (every library connection in use, or the database locked by a write).",
}
#: ``responses=`` for every route: the error shape under each status the app can answer.
ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorResponse, "description": text} for code, text in _ERRORS.items()
}


class SourceModel(BaseModel):
    """Where a paper was read: the file's name (never a local folder), its line and format."""

    path: str = Field(description="The file name only.")
    line: int = Field(description="1-based line, or record number for JSON arrays.")
    format: str


class HitModel(BaseModel):
    """One search result, with what a result card shows (no second call needed)."""

    paper_id: str
    rank: int = Field(description="1-based rank in this answer.")
    score: float = Field(description="The fused (RRF) score, or the one leg's raw score.")
    label: str = Field(description="The title, else the card's 'NAME — what it does' label (never marked).")
    title: str | None = Field(description="The paper's title; null when it has none (never a label).")
    title_source: TitleSource | None = Field(
        description="Where the title comes from; 'generated': no title, `label` stands in for one and a"
        " client marks it as a label. Null only for a hit whose details were not read (label '')."
    )
    venue: str | None
    year: int | None
    authors: list[str]
    decision: str | None
    area: str | None = Field(description="The source's area, else the card's predicted one.")
    has_code: bool
    links: dict[str, str] = Field(
        description="kind → http(s) URL, kinds in order among code, project, openreview, arxiv, pdf, doi, url."
    )
    sources: list[SourceModel]
    legs: dict[str, dict[str, int | float]] = Field(
        description="Each leg's rank (int) and raw score (bm25, dense; svm for recommendations)."
    )
    snippet: str = Field(description="The best passage; the matched terms are listed in `terms`.")
    terms: list[str] = Field(description="Query terms found in the paper (related: the shared words).")
    missing_vector: bool = Field(description="The paper has no embedding yet, so dense search missed it.")
    like: list[str] = Field(
        default_factory=list,
        description="Recommendations: the labels of the kept papers (or, for papers like mine, of the"
        " user's own papers) this hit is closest to, closest first, a generated label marked '[Label] …';"
        " empty for search and related hits.",
    )


class MarksModel(BaseModel):
    """The user's marks on one paper."""

    starred: bool
    tags: list[str]
    note: str | None
    triage: Literal["skimmed", "maybe", "keep", "reject"] | None = Field(
        default=None, description="The triage state; null: unseen (never triaged)."
    )


class PaperModel(BaseModel):
    """One stored paper: metadata, texts, provenance and card (the export shape)."""

    paper_id: str
    label: str = Field(description="The title, else the card's 'NAME — what it does' label (never marked).")
    title: str | None = Field(description="The paper's title; null when it has none (never a label).")
    title_source: TitleSource = Field(
        description="'source': the input file gave the title; 'program': `paperscope enrich --program`"
        " attached it; 'generated': no title, `label` stands in for one and a client marks it as a label."
    )
    authors: list[str]
    abstract: str = Field(description="The text as the source had it.")
    clean_text: str = Field(description="Normalised text: LaTeX and markup made readable.")
    venue: str | None
    year: int | None
    decision: str | None
    keywords: list[str]
    source_area: str | None
    urls: list[str]
    external_ids: dict[str, str]
    sources: list[SourceModel]
    card: dict[str, Any] | None = Field(
        description="The card: methods, datasets, tasks, claims, contribution types with start/end"
        " offsets into clean_text, area {label, confidence, source}, code and project URLs."
    )


class AttachedModel(BaseModel):
    """Fields ``enrich`` attached to a paper from a conference program, and where they came from."""

    program: str = Field(description="The program file's name (no folder leaves the server).")
    entry_line: int = Field(description="The entry's line (or record number) in that file.")
    session: str | None = Field(description="The session the program names for the paper, if any.")
    method: str = Field(description="How the match was made: 'agreed' (matched automatically) or 'review'.")
    fields: list[str] = Field(description="The paper fields the entry set, e.g. title, authors.")


class PaperWithMarks(PaperModel):
    """A paper, the user's marks on it and what was attached to it from a program."""

    marks: MarksModel
    attached: list[AttachedModel] = Field(default_factory=list)


class ByVenue(BaseModel):
    """Papers of one (venue, year)."""

    venue: str | None
    year: int | None
    papers: int


class ReadyModel(BaseModel):
    """A worker that has warmed up (``GET /api/ready``)."""

    ready: bool = Field(description="Always true: a worker still warming up answers 503.")
    warm_s: float | None = Field(
        description="Seconds the warm-up took (None: the app was built without one, e.g. in tests)."
    )


class StatsModel(BaseModel):
    """Library counts (no model is loaded to answer)."""

    db: str = Field(description="The database file's name (not its folder).")
    schema_version: int
    papers: int
    sources: int
    cards: int
    stars: int
    tags: int
    notes: int
    vectors: int
    missing_vectors: int = Field(description="Papers without a current vector of the active embedder.")
    embedder: str
    topics: int
    missing_cards: int = Field(
        description="Papers without a full card of the current extractor version (first cards included)."
    )
    first_cards: int = Field(description="Papers holding only the quick card an ingest writes first.")
    missing_topics: int = Field(
        description="Papers with no assignment in the stored topic fit (0 before a fit)."
    )
    topics_fitted: bool = Field(description="Whether topics have been fitted.")
    unfinished: int = Field(
        description="missing_cards + missing_vectors + missing_topics: 0 when every stage is done."
    )
    by_venue: list[ByVenue]


class BrowseModel(BaseModel):
    """One page of the library, sorted."""

    total: int = Field(description="Papers passing the filters (all pages).")
    offset: int
    hits: list[HitModel]


class FacetValue(BaseModel):
    """One value of a facet and how many papers of the result set have it."""

    value: str = Field(description="What the filter of the same name takes.")
    label: str = Field(description="What to show (a topic's name for its id).")
    count: int


class ReadingListItem(BaseModel):
    """A marked paper of the reading list."""

    paper: PaperModel
    marks: MarksModel
    topic: dict[str, Any] | None = Field(description="{topic_id, topic, subtopic_id, subtopic} or null.")


class QueueItemModel(HitModel):
    """A paper of the triage queue: its hit, topic and marks."""

    topic: dict[str, Any] | None = Field(description="{topic_id, topic, subtopic_id, subtopic} or null.")
    marks: MarksModel


class QueueModel(BaseModel):
    """The triage queue: how far the reader has got and the next unseen papers."""

    total: int = Field(description="Papers in the queue's scope (the library, or one topic).")
    seen: int = Field(description="Papers of the scope with a triage state.")
    progress: str = Field(description='"412 of 3,300 seen".')
    counts: dict[str, int] = Field(description="Papers of the scope per triage state (none: left out).")
    order: Literal["recommended", "topic"] = Field(description="The order asked for.")
    ordered_by: Literal["recommended", "topic"] = Field(
        description="The order used: topic while nothing is kept or starred, or vectors are missing."
    )
    notice: str | None = Field(description="Why the order asked for is not the one used; else null.")
    items: list[QueueItemModel] = Field(description="The next papers, first the one to look at now.")


class SuggestionModel(BaseModel):
    """A program entry ``enrich`` suggests for a title-less paper, to accept or reject."""

    suggestion_id: int
    paper_id: str
    label: str = Field(description="The paper's label now (the card's, as it has no title).")
    title_source: TitleSource = Field(description="'generated' while the paper has no title.")
    abstract: str = Field(description="The start of the paper's clean text.")
    program: str = Field(description="The program file's name.")
    rank: int = Field(description="1: the entry leg A ranked first for the paper.")
    score: float
    title: str = Field(description="The entry's title, which accepting attaches.")
    authors: list[str]
    session: str | None
    decision: str | None
    line: int = Field(description="The entry's line (or record number) in the program file.")


class SlotModel(BaseModel):
    """One session of one chosen paper in the attendee's plan."""

    uid: str = Field(
        description="The stable iCalendar UID: paper_id, kind and ordinal (paper-oral-1@paperscope)."
    )
    paper_id: str
    label: str = Field(description="The title, else the card's label.")
    title: str | None = Field(description="The paper's title; null when the label is paperscope's.")
    link: str | None = Field(description="The paper's own page (OpenReview first), or null.")
    kind: str = Field(description="oral, poster, or the program's own word for the session.")
    name: str | None = Field(description="The session's name as the program gives it.")
    starts_at: str | None = Field(description="ISO 8601 with the program's UTC offset; null: no time given.")
    ends_at: str | None = Field(description="ISO 8601 with the program's UTC offset, or null.")
    timezone: str | None = Field(description="The program's IANA time zone, or null (a bare offset).")
    day: str | None = Field(description="The local date of the start, YYYY-MM-DD.")
    room: str | None = Field(description="Room, board or poster position, when the program gives one.")
    url: str | None = Field(description="The event's page in the program, when given.")
    clashes_with: list[str] = Field(description="uids of the chosen papers' sessions that overlap this one.")


class SessionGroupModel(BaseModel):
    """A session of the day (a name at a time) and the chosen papers presented in it."""

    kind: str
    name: str | None
    starts_at: str | None
    ends_at: str | None
    has_clash: bool = Field(
        description="A paper of this session clashes with another chosen paper's session."
    )
    slots: list[SlotModel]


class DayModel(BaseModel):
    """One local day of the plan, its sessions in time order."""

    day: str | None = Field(description="YYYY-MM-DD; null holds the sessions without a time.")
    sessions: list[SessionGroupModel]


class PlanModel(BaseModel):
    """The attendee's plan: the chosen papers' sessions by day and session, with the clashes."""

    days: list[DayModel]
    clashes: list[list[str]] = Field(description="Each clashing pair once, [uid, uid], in time order.")
    papers: int = Field(description="Papers in the plan.")
    without_sessions: int = Field(
        description="Chosen papers with no session on any day (0 when none is chosen)."
    )


class TagCount(BaseModel):
    """A tag and the number of papers carrying it."""

    tag: str
    count: int


class IngestAccepted(BaseModel):
    """An upload stored and queued for ingest."""

    job_id: str
    name: str = Field(description="The file name it was stored under (sanitised).")
    size_bytes: int
    state: Literal["queued", "running", "done", "failed"]
    keep: bool = Field(
        description="The file stays after the job (keep=true); else it is deleted when the job ends."
    )


class IngestJobModel(BaseModel):
    """An ingest job as it runs."""

    job_id: str
    name: str
    state: Literal["queued", "running", "done", "failed"]
    phase: Literal["read", "cards", "embed", "done"] | None = Field(
        description="null while queued; read (lines of the file), cards (papers), embed (papers), done."
    )
    done: int = Field(description="Units of the phase done: lines in read, papers in cards and embed.")
    total: int | None = Field(description="Units of the phase in all; null when not known yet.")
    report: dict[str, Any] | None = Field(
        description="When done: read/new/present/merged/skipped counts, warnings, phases, and files:"
        " [{path (file name), format, read, new, present, merged, skipped: [{path, line, unit,"
        " reason}], repaired: [...], error, ignored}]."
    )
    new_paper_ids: list[str] = Field(description="The papers this job added, in file order.")
    error: str | None = Field(description="Why the job failed (state failed), else null.")
    keep: bool = Field(
        description="The uploaded file stays after the job; else it is deleted when the job ends."
    )
    queued_ahead: int = Field(description="Jobs queued before this one (0 once it runs).")
    elapsed_s: float | None = Field(description="Wall seconds since the job started running.")
