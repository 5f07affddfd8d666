"""The example of a search by example: a paper of the library, a text file, or pasted text.

A search by example ranks the library by the text of one paper or paragraph (``paperscope
search --like``, ``GET /api/search?like=``). This module only turns what the user named into
that text and a label for the notice; the ranking is :meth:`paperscope.Library.search` with
the example paper itself excluded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .errors import InputError
from .models import Paper

__all__ = ["Example", "MAX_EXAMPLE_BYTES", "paper_example", "file_example", "stdin_example", "text_example"]

#: Largest example file read (4 MiB: a long paper's full text is about 100 KB). A search reads
#: only the start of a long query anyway (``paperscope.library.cut_query``).
MAX_EXAMPLE_BYTES = 4 * 1024 * 1024


@dataclass(frozen=True)
class Example:
    """What a search by example ranks by.

    Attributes:
        text: the query text (a paper's title and clean abstract, or the file's text).
        label: what the notice names: the paper's display label, or where the text came from.
        paper_id: the example paper, left out of its own results; None for a file or pasted text.
    """

    text: str
    label: str
    paper_id: str | None = None

    @property
    def exclude(self) -> set[str]:
        """The paper_ids a search by this example leaves out (the example paper itself)."""
        return {self.paper_id} if self.paper_id else set()

    @property
    def notice(self) -> str:
        """One line saying what the hits are like."""
        return f"papers like {self.label}"


def paper_example(paper: Paper) -> Example:
    """Return the example of a stored paper: its title and clean abstract."""
    text = f"{paper.title}. {paper.clean_text}" if paper.title else paper.clean_text
    return Example(text=text, label=paper.display_label, paper_id=paper.paper_id)


def text_example(text: str, source: str) -> Example:
    """Return the example of pasted text; ``source`` says where it came from ("standard input")."""
    return Example(text=text, label=f"the text of {source}")


def file_example(path: str | Path) -> Example:
    """Return the example of a UTF-8 text file (a leading byte-order mark is dropped).

    Raises:
        InputError: the file is missing, a folder, unreadable, larger than MAX_EXAMPLE_BYTES,
            not UTF-8, or holds no printable text; the message names the file.
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a folder; give a text file, a paper_id or - for standard input")
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_EXAMPLE_BYTES + 1)
    except FileNotFoundError:
        raise InputError(
            f"{path}: no such file, and no paper has this paper_id; give a paper_id (or a prefix of"
            " 4+ characters), a UTF-8 text file, or - for standard input"
        ) from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return text_example(_decode(data, str(path)), path.name)


def stdin_example(data: bytes) -> Example:
    """Return the example of what was read from standard input (at most MAX_EXAMPLE_BYTES + 1 bytes).

    Raises:
        InputError: more than MAX_EXAMPLE_BYTES, not UTF-8, or no printable text.
    """
    return text_example(_decode(data, "standard input"), "standard input")


def _decode(data: bytes, where: str) -> str:
    if len(data) > MAX_EXAMPLE_BYTES:
        raise InputError(
            f"{where}: larger than {MAX_EXAMPLE_BYTES // (1024 * 1024)} MiB; give the paragraph or"
            " abstract to search by"
        )
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{where}: not UTF-8 text (byte {exc.start:,} is 0x{data[exc.start]:02x}); save it as UTF-8"
        ) from None
    if not any(ch.isprintable() and not ch.isspace() for ch in text):
        raise InputError(
            f"{where}: holds no text ({'empty' if not data else 'only blank or control characters'});"
            " give the paragraph or abstract to search by"
        )
    return text
