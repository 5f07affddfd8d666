"""Send a request straight through an ASGI app: for URLs httpx refuses to build (over 64 kB)."""

from __future__ import annotations

import asyncio


def asgi_get(app, path: str, query: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """GET ``path?query`` through ``app``; return its status, headers (lower-case names) and body."""

    async def run() -> list[dict]:
        sent: list[dict] = []
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "root_path": "",
            "query_string": query,
            "headers": [(b"host", b"testserver")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }

        async def receive() -> dict:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: dict) -> None:
            sent.append(message)

        await app(scope, receive, send)
        return sent

    sent = asyncio.run(run())
    headers = {k.decode().lower(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, b"".join(m.get("body", b"") for m in sent[1:])
