"""Shared CLI output: the one ``--json`` option, JSON on stdout, and the JSON error shape.

Every command that prints data takes ``--json`` through :func:`json_option`. Under ``--json`` an
error (a ``PaperscopeError``, a usage error, a missing library) is the object
``{"ok": false, "error": "..."}`` on stdout instead of the ``Error: ...`` line on stderr, and the
exit status stays 1 (2 for a usage error), as datasette's ``error_body`` does for its API.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import IO, Any, TypeVar

import click

__all__ = ["JSON_FLAG", "JsonError", "emit_json", "error_body", "json_option", "wants_json"]

JSON_FLAG = "--json"

F = TypeVar("F", bound=Callable[..., Any])


def emit_json(data: Any) -> None:
    """Print ``data`` as strict JSON (non-finite floats as null), indented, on stdout."""
    from .strict_json import dumps

    click.echo(dumps(data, ensure_ascii=False, indent=2))


def json_option(help: str = "Print as JSON.") -> Callable[[F], F]:  # noqa: A002 (click's own name)
    """Return the ``--json`` flag (parameter ``as_json``) every data command takes."""
    return click.option(JSON_FLAG, "as_json", is_flag=True, help=help)


def device_option() -> Callable[[F], F]:
    """Return ``--device auto|cpu|cuda`` (parameter ``device``) of the commands that embed."""
    return click.option(
        "--device",
        type=click.Choice(["auto", "cpu", "cuda"]),
        default="auto",
        show_default=True,
        help="Where papers are embedded: cuda runs the model on torch on a GPU (pip install"
        " 'paperscope[gpu]'); auto uses a GPU when torch sees one, else the CPU int8 model.",
    )


def error_body(message: str) -> dict[str, Any]:
    """Return the one error shape of ``--json``: ``{"ok": false, "error": message}``."""
    return {"ok": False, "error": message}


def wants_json(args: Sequence[str]) -> bool:
    """Return whether the command line asks for ``--json`` (before any ``--``, which ends the options)."""
    for arg in args:
        if arg == "--":
            return False
        if arg == JSON_FLAG:
            return True
    return False


class JsonError(click.ClickException):
    """A CLI error shown as ``{"ok": false, "error": ...}`` on stdout, keeping the original exit status."""

    def __init__(self, message: str, exit_code: int = 1):
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the error object on stdout (``file`` is ignored: stdout is where --json output goes)."""
        emit_json(error_body(self.format_message()))
