"""The elements of a JSON array, read one at a time from a text stream, each with the line it starts on.

Each element is decoded on its own by the standard library's C decoder
(``json.JSONDecoder.raw_decode``) from a buffer that holds it: when an element is cut off by
the buffer's end, the buffer grows to twice the element's window and the element is decoded
again, so the work stays linear in the file's size. An element larger than ``max_chars`` is
passed over without being built (only its size is kept), so memory stays bounded whatever the
file's shape. A syntax error is an ``InputError`` with its exact line and column.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, TextIO

from ..errors import InputError
from .files import MAX_RECORD_CHARS, json_decoder, json_error_reason

__all__ = ["Oversized", "Undecodable", "array_elements"]

_CHUNK_CHARS = 2**20
# A value cut off by the buffer's end fails at most this close to it ("-Infinity" is 9 long).
_TAIL = 9
_WS_RE = re.compile(r"[ \t\n\r]*")
_OUT_RE = re.compile(r'["\[\]{}]')  # what changes the nesting outside strings
_IN_RE = re.compile(r'["\\]')  # what ends a string, or escapes the next character
_SCALAR_END_RE = re.compile(r"[,\]\s]")


@dataclass(frozen=True)
class Oversized:
    """An element passed over unread because it is longer than the limit: its length in characters."""

    chars: int


@dataclass(frozen=True)
class Undecodable:
    """An element that is JSON but cannot be a Python value (nested too deeply, an integer too long)."""

    reason: str


class _Stream:
    def __init__(self, path: str, handle: TextIO, max_chars: int):
        self.path = path
        self.handle = handle
        self.max_chars = max_chars
        self.decoder = json_decoder()
        self.buf = ""
        self.pos = 0
        self.eof = False
        # Line bookkeeping: buf[:mark] is counted; mark_line is the line of buf[mark], and
        # line_start the index in buf where that line starts (negative: before buf[0]).
        self.mark = 0
        self.mark_line = 1
        self.line_start = 0

    def more(self, chars: int = _CHUNK_CHARS) -> bool:
        """Append at least ``chars`` more characters (1 Mi at least); False at the end of the file."""
        if self.eof:
            return False
        data = self.handle.read(max(chars, _CHUNK_CHARS))
        if not data:
            self.eof = True
            return False
        if self.pos > _CHUNK_CHARS:
            self.drop(self.pos)
        self.buf += data
        return True

    def drop(self, cut: int) -> None:
        """Forget ``buf[:cut]`` (already read), keeping line numbers right."""
        self.line_at(cut)
        self.buf = self.buf[cut:]
        self.pos -= cut
        self.mark -= cut
        self.line_start -= cut

    def line_at(self, pos: int) -> tuple[int, int]:
        """Return the 1-based line and column of ``buf[pos]`` (``pos`` never goes backwards)."""
        buf, mark = self.buf, self.mark
        if pos > mark:
            breaks = buf.count("\n", mark, pos) + buf.count("\r", mark, pos) - buf.count("\r\n", mark, pos)
            if mark > 0 and buf[mark - 1] == "\r" and buf[mark] == "\n":
                breaks -= 1  # a CRLF cut between two counts
            if breaks:
                self.mark_line += breaks
                self.line_start = max(buf.rfind("\n", mark, pos), buf.rfind("\r", mark, pos)) + 1
            self.mark = pos
        return self.mark_line, pos - self.line_start + 1

    def error(self, reason: str, pos: int) -> InputError:
        line, column = self.line_at(pos)
        return InputError(f"malformed JSON: {reason} (column {column})", self.path, line)

    def skip_ws(self) -> bool:
        """Move past whitespace; False at the end of the file."""
        while True:
            self.pos = _WS_RE.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf):
                return True
            if not self.more():
                return False

    def element(self) -> Any:
        while True:
            try:
                value, end = self.decoder.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as exc:
                cut_off = exc.msg.startswith("Unterminated string") or exc.pos >= len(self.buf) - _TAIL
                if cut_off and not self.eof:
                    if len(self.buf) - self.pos > self.max_chars:
                        return Oversized(self.pass_over())
                    self.more(len(self.buf) - self.pos)  # the element's window doubles: linear
                    continue
                raise self.error(exc.msg, exc.pos) from exc
            except (ValueError, RecursionError) as exc:
                self.pass_over()
                return Undecodable(json_error_reason(exc))
            if end >= len(self.buf) and not self.eof and self.more():
                continue  # a number cut at the buffer's end may go on
            begin, self.pos = self.pos, end
            return Oversized(end - begin) if end - begin > self.max_chars else value

    def pass_over(self) -> int:
        """Move past the element at ``pos`` without decoding it; return its length in characters."""
        begin = self.pos
        scanned = 0  # characters of the element dropped from the buffer
        depth = 0
        in_string = False
        pos = begin
        while True:
            buf = self.buf
            end: int | None = None
            while pos < len(buf):
                if in_string:
                    m = _IN_RE.search(buf, pos)
                    if m is None:
                        pos = len(buf)
                        break
                    if m.group() == "\\":
                        if m.end() >= len(buf):
                            pos = m.start()  # the escaped character is in the next chunk
                            break
                        pos = m.end() + 1
                        continue
                    in_string = False
                    pos = m.end()
                    if depth == 0:
                        end = pos
                        break
                    continue
                m = _OUT_RE.search(buf, pos)
                if depth == 0 and (m is None or m.start() > pos):  # a number or literal
                    s = _SCALAR_END_RE.search(buf, pos)
                    if s is not None:
                        end = s.start()
                        break
                    pos = len(buf)
                    break
                if m is None:
                    pos = len(buf)
                    break
                pos = m.end()
                if m.group() == '"':
                    in_string = True
                elif m.group() in "[{":
                    depth += 1
                else:
                    depth -= 1
                    if depth <= 0:
                        end = pos
                        break
            if end is not None:
                self.pos = end
                return scanned + end - begin
            # Drop what was scanned, read on.
            scanned += pos - begin
            self.pos = pos
            self.drop(pos)
            pos = begin = 0
            if not self.more():
                raise self.error("the file ends inside a value", len(self.buf))


def array_elements(
    path: str, handle: TextIO, max_chars: int = MAX_RECORD_CHARS
) -> Iterator[tuple[int, Any | Oversized | Undecodable]]:
    """Yield ``(line, value)`` for each element of the JSON array ``handle`` holds.

    ``line`` is the 1-based line where the element starts (LF, CRLF and a lone CR each end a
    line). Values are decoded by ``files.json_decoder``; an element longer than ``max_chars``
    characters comes as :class:`Oversized`, one that cannot be a value as :class:`Undecodable`.

    Raises:
        InputError: the text is not one JSON array (the message gives the line and column).
    """
    stream = _Stream(path, handle, max_chars)
    if not stream.skip_ws():
        raise InputError("malformed JSON: no value", path, 1)
    if stream.buf[stream.pos] != "[":
        raise stream.error(f"expected '[', found {stream.buf[stream.pos]!r}", stream.pos)
    stream.pos += 1
    first = True
    while True:
        if not stream.skip_ws():
            raise stream.error("the array is not closed (expected ']')", len(stream.buf))
        char = stream.buf[stream.pos]
        if char == "]":
            stream.pos += 1
            if stream.skip_ws():
                raise stream.error("Extra data after the array", stream.pos)
            return
        if not first:
            if char != ",":
                raise stream.error("Expecting ',' delimiter", stream.pos)
            stream.pos += 1
            if not stream.skip_ws():
                raise stream.error("the array is not closed (expected ']')", len(stream.buf))
        first = False
        line = stream.line_at(stream.pos)[0]
        yield line, stream.element()
