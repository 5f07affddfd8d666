"""Shared pieces of the browser tests: a live server on loopback, and Chromium with the network cut.

Chromium is Debian's (/usr/bin/chromium) driven by Playwright through ``executable_path``; no
browser is downloaded. Every request that is not to 127.0.0.1 is aborted and recorded; console
errors, uncaught page errors and failed same-origin requests (a network failure or a status of
400 or more) are collected per page, so a test asserts them empty.
"""

from __future__ import annotations

import contextlib
import re
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import unescape as html_unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import uvicorn

from paperscope import Library
from paperscope.web import create_app

CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: What must never show in a page's visible text: a JS object or JSON printed as a value.
BAD_TEXT = ("[object Object]", '{"')
#: Raw LaTeX: a math dollar or a backslash command; clean text has neither.
RAW_LATEX = re.compile(r"\$|\\[A-Za-z(\[]")


def visible_text(html: str) -> str:
    """The visible text of a server-rendered page, roughly: tags, scripts and attributes dropped,
    entities decoded, white space collapsed (no browser needed)."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(html_unescape(re.sub(r"<[^>]+>", " ", body)).split())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serve(library: Library) -> Iterator[str]:
    """Serve ``create_app(library)`` with uvicorn on a free 127.0.0.1 port (a thread); yield its URL."""
    port = free_port()
    config = uvicorn.Config(create_app(library), host="127.0.0.1", port=port, log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            pytest.fail(f"uvicorn did not start on 127.0.0.1:{port}")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)


@dataclass
class PageLog:
    """What went wrong on a page: console errors, page errors, failed and blocked requests."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    blocked: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return (
            [f"console: {m}" for m in self.console_errors]
            + [f"page error: {m}" for m in self.page_errors]
            + [f"request: {m}" for m in self.failed_requests]
            + [f"blocked (not loopback): {m}" for m in self.blocked]
        )

    def clear(self) -> None:
        for items in (self.console_errors, self.page_errors, self.failed_requests, self.blocked):
            items.clear()


class OfflineBrowser:
    """One Chromium for many pages; each context has the network cut to 127.0.0.1."""

    def __init__(self, playwright: Any):
        if not CHROMIUM.exists():
            pytest.fail(f"{CHROMIUM} missing: apt-get install -y chromium (never `playwright install`)")
        self.browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

    def new_page(self, viewport: tuple[int, int] = (1280, 900), **context_args: Any) -> tuple[Any, PageLog]:
        """Return ``(page, log)``: a page of a new context whose problems ``log`` collects."""
        log = PageLog()
        context = self.browser.new_context(
            viewport={"width": viewport[0], "height": viewport[1]}, locale="en-US", **context_args
        )

        def only_loopback(route: Any) -> None:
            if urlsplit(route.request.url).hostname == "127.0.0.1":
                route.continue_()
            else:
                log.blocked.append(route.request.url)
                route.abort()

        context.route("**/*", only_loopback)
        page = context.new_page()
        page.on("console", lambda m: log.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: log.page_errors.append(str(e)))

        def on_failed(request: Any) -> None:
            if urlsplit(request.url).hostname == "127.0.0.1":
                log.failed_requests.append(f"{request.method} {request.url}: {request.failure}")

        def on_response(response: Any) -> None:
            if urlsplit(response.url).hostname == "127.0.0.1" and response.status >= 400:
                log.failed_requests.append(
                    f"{response.request.method} {response.url}: HTTP {response.status}"
                )

        page.on("requestfailed", on_failed)
        page.on("response", on_response)
        return page, log

    def close(self) -> None:
        self.browser.close()


@contextlib.contextmanager
def offline_browser() -> Iterator[OfflineBrowser]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = OfflineBrowser(playwright)
        try:
            yield browser
        finally:
            browser.close()


def text_problems(text: str, latex: bool = True) -> list[str]:
    """Return what in ``text`` (a page's visible text) is not readable: objects, JSON, raw LaTeX."""
    found = [bad for bad in BAD_TEXT if bad in text]
    if latex:
        found += [
            f"raw LaTeX {m.group()!r} in ...{text[max(0, m.start() - 40) : m.end() + 40]}..."
            for m in RAW_LATEX.finditer(text)
        ]
    return found


def screenshot(page: Any, name: str) -> Path:
    """Save a full-page screenshot as artifacts/NAME.png and return its path."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
