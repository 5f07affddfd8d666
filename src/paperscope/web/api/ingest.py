"""POST /api/ingest?name=FILE (the raw file as the body) and GET /api/ingest/{job_id} (its progress).

An upload is streamed to a new file in the library's uploads folder (``NAME.uploads`` beside
``NAME.db``; see :func:`paperscope.web.jobs.uploads_dir_for`) under its sanitised name, never
outside it, counting bytes as they arrive: past the limit (50 MiB by default,
``PAPERSCOPE_MAX_UPLOAD_MB`` or ``create_app(max_upload_bytes=)``) the partial file is deleted
and the answer is a 413. The stored file is then queued as an ingest job (one runs at a time,
the others wait in order; a full queue is a 409), which reads it, builds its cards and embeds
its papers on a background thread while every other route keeps answering. The file is deleted
when its job ends, done or failed, unless the upload says ``keep=true``.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from ...errors import InputError
from ..jobs import NAME_PATTERN
from ..schemas import ERROR_RESPONSES, Envelope, ErrorResponse, IngestAccepted, IngestJobModel
from ..security import BodyTooLarge
from .deps import ok, reject_unknown_query

router = APIRouter(dependencies=[Depends(reject_unknown_query)], responses=ERROR_RESPONSES, tags=["ingest"])


@router.post(
    "/ingest",
    response_model=Envelope[IngestAccepted],
    status_code=202,
    responses={409: {"model": ErrorResponse, "description": "Too many uploads are waiting already."}},
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "The list file's raw bytes (text, JSON, JSON Lines, CSV or BibTeX).",
            "content": {
                "application/octet-stream": {"schema": {"type": "string", "format": "binary", "minLength": 1}}
            },
        }
    },
)
async def upload(
    request: Request,
    name: Annotated[
        str,
        Query(
            min_length=1,
            max_length=255,
            description="the file's name, e.g. papers.txt: its part after the last slash must hold an"
            " ASCII letter or digit; it is stored under that part, sanitised",
            json_schema_extra={"pattern": NAME_PATTERN},
        ),
    ],
    keep: Annotated[
        bool,
        Query(
            description="keep the uploaded file in the uploads folder after the job; by default it is"
            " deleted as soon as the job ends, done or failed (the papers stay)"
        ),
    ] = False,
) -> dict[str, Any]:
    """Store the body as the file ``name`` and queue its ingest; returns the job id (202).

    The stored file is deleted when the job ends (done or failed) unless ``keep=true``.

    Errors: 400 an unusable name or an empty body; 409 too many uploads waiting; 413 a body
    over the upload limit (nothing is kept).
    """
    jobs = request.app.state.jobs
    limit = request.app.state.max_upload_bytes
    path = jobs.new_upload_path(name)  # an empty placeholder until the upload replaces it
    part = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.part")
    size = 0
    try:
        with part.open("xb") as handle:
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    raise BodyTooLarge(limit)
                handle.write(chunk)
        if size == 0:
            raise InputError("empty upload: send the file's bytes as the request body")
        os.replace(part, path)
        job = jobs.submit(path, keep=keep)
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            part.unlink()
    return ok({"job_id": job.job_id, "name": path.name, "size_bytes": size, "state": job.state, "keep": keep})


@router.get("/ingest/{job_id}", response_model=Envelope[IngestJobModel])
def job_status(request: Request, job_id: str) -> dict[str, Any]:
    """Return an ingest job: state, phase, done/total, and once done its report and new papers.

    States: queued → running → done (or failed, with ``error``). Phases while running: read
    (done in lines of the file, total null), cards and embed (in papers), then done. Errors:
    404 unknown job.
    """
    return ok(request.app.state.jobs.get(job_id))
