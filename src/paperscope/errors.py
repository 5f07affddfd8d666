"""Exception hierarchy: one base class, a subclass only where a caller acts differently."""

from __future__ import annotations

__all__ = [
    "PaperscopeError",
    "InputError",
    "NothingMarked",
    "NotFound",
    "ModelUnavailable",
    "StoreError",
    "ReadOnlyLibrary",
]


class PaperscopeError(Exception):
    """Base class of every error paperscope raises on purpose."""


class InputError(PaperscopeError):
    """Bad user input: a file, a record or a query that cannot be used.

    Attributes:
        path: the file the input came from, or None for a query or argument.
        line: 1-based line (or record number) inside ``path``, or None.
        reason: what is wrong, in words a user can act on.

    """

    def __init__(self, reason: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.reason = reason
        where = path or ""
        if path and line is not None:
            where = f"{path}:{line}"
        super().__init__(f"{where}: {reason}" if where else reason)


class NothingMarked(InputError):
    """A recommendation needs starred, kept (or tagged) papers and the library has none yet.

    The web API answers it with 409: the request is fine, the library's state does not allow it yet.
    """

    http_status = 409


class NotFound(PaperscopeError):
    """A paper, tag or other named thing does not exist in the library."""


class ModelUnavailable(PaperscopeError):
    """A model or optional dependency is not installed; the message names the install command."""


class StoreError(PaperscopeError):
    """The library database cannot be opened, migrated or written."""


class ReadOnlyLibrary(StoreError):
    """A write to a library opened read-only (read-only folder or mount, or a damaged file).

    The web API answers it with 403: the request is understood and refused while the library
    stays read-only.
    """

    http_status = 403
