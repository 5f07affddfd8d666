"""GET /api/schedule: the attendee's plan, the chosen papers' sessions by day and session, with clashes.

The sessions come from the program (``paperscope enrich --program FILE``); the clash rule is
:mod:`paperscope.schedule`'s. ``GET /api/export?format=ics`` (same selection) is the calendar.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ...store.marks import TRIAGE_STATES
from ..schemas import ERROR_RESPONSES, Envelope, PlanModel
from .deps import DATE_OR_EMPTY, library_of, ok, one_of, optional, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["schedule"])


@router.get("/schedule", response_model=Envelope[PlanModel])
def schedule(
    request: Request,
    state: Annotated[
        str | None,
        Query(
            max_length=20,
            description="only papers with this triage state",
            json_schema_extra=optional(one_of(TRIAGE_STATES, empty=True)),
        ),
    ] = None,
    starred: Annotated[bool, Query(description="only the starred papers")] = False,
    tag: Annotated[str | None, Query(max_length=200, description="only papers with this tag")] = None,
    day: Annotated[
        str | None,
        Query(max_length=10, description="only this local day, YYYY-MM-DD", json_schema_extra=DATE_OR_EMPTY),
    ] = None,
) -> dict[str, Any]:
    """Return the plan of the chosen papers (every paper with a session when none is chosen).

    Errors: 400 an unknown triage state or a day that is not YYYY-MM-DD.
    """
    with library_of(request) as lib:
        plan = lib.schedule(state=state or None, starred=starred, tag=tag or None, day=day or None)
    return ok(plan.to_dict())
