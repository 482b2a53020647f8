"""A JSON array or object streamed one element (member) at a time, never the whole file; errors
by file and line.

lcb_runner writes its results as one JSON array (``json.dump(..., indent=4)``) and its
``--use_cache`` file as one JSON object; a 10-sample run over 1,000 problems with long
reasoning outputs is over a gigabyte. These readers hold one element in memory at a time
(plus one read chunk), and name the file and line of anything that is not well-formed JSON.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

CHUNK = 1 << 20  # characters read at a time
_DECODER = json.JSONDecoder()
_WHITESPACE = " \t\n\r"


class JsonStreamError(ValueError):
    """The file is not the JSON shape expected; the message names file and line."""


class _Reader:
    """A text buffer over the file that knows the line number of its start."""

    def __init__(self, path: Path, stream):
        self.path, self.stream = path, stream
        self.buffer, self.line, self.eof = "", 1, False

    def fill(self) -> bool:
        """Append a chunk; False at the end of the file."""
        if self.eof:
            return False
        chunk = self.stream.read(CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buffer += chunk
        return True

    def consume(self, count: int) -> None:
        self.line += self.buffer.count("\n", 0, count)
        self.buffer = self.buffer[count:]

    def skip_whitespace(self) -> None:
        while True:
            stripped = self.buffer.lstrip(_WHITESPACE)
            self.consume(len(self.buffer) - len(stripped))
            if self.buffer or not self.fill():
                return

    def expect(self, characters: str, what: str) -> str:
        """The next non-blank character, which must be one of ``characters``."""
        self.skip_whitespace()
        if not self.buffer:
            self.fail(f"ends early (truncated?): expected {what}")
        char = self.buffer[0]
        if char not in characters:
            self.fail(f"expected {what}, found {char!r}")
        self.consume(1)
        return char

    def value(self, what: str):
        """The next JSON value, decoded; reads on until it is complete."""
        self.skip_whitespace()
        while True:
            try:
                value, end = _DECODER.raw_decode(self.buffer)
            except json.JSONDecodeError as error:
                # Incomplete in the buffer: read on (doubling, so a long value costs few
                # retries); at the end of the file it is truncated or malformed.
                if not _may_continue(self.buffer, error):
                    self.fail(f"{what} is not valid JSON ({error.msg})", error.lineno - 1)
                if not self._grow():
                    self.fail(f"{what} ends early (truncated?) or is not valid JSON ({error.msg})")
                continue
            self.consume(end)
            return value

    def _grow(self) -> bool:
        grown = False
        target = max(CHUNK, len(self.buffer))
        while len(self.buffer) < 2 * target and self.fill():
            grown = True
        return grown

    def fail(self, message: str, lines_in: int = 0):
        raise JsonStreamError(f"{self.path}:{self.line + lines_in}: {message}")


def _may_continue(buffer: str, error: json.JSONDecodeError) -> bool:
    """Whether the value may just continue after the buffer: an open string, or an error
    within an escape's length of the buffer's end (a chunk can cut a number or a \\uXXXX)."""
    return error.msg.startswith("Unterminated string") or error.pos >= len(buffer) - 6


def _open(path: Path):
    try:
        return Path(path).open(encoding="utf-8", newline="")
    except OSError as error:
        raise JsonStreamError(f"{path}: cannot open ({error.strerror})") from None


def iter_array(path: Path) -> Iterator[tuple[int, object]]:
    """(line where the element starts, element) for each element of the file's top-level
    JSON array."""
    with _open(path) as stream:
        reader = _Reader(path, stream)
        try:
            reader.expect("[", "a JSON array '['")
            reader.skip_whitespace()
            if reader.buffer[:1] == "]":
                reader.consume(1)
            else:
                index = 0
                while True:
                    reader.skip_whitespace()
                    line = reader.line
                    yield line, reader.value(f"element {index}")
                    index += 1
                    if reader.expect(",]", "',' or ']' after an element") == "]":
                        break
            reader.skip_whitespace()
            if reader.buffer:
                reader.fail("text after the end of the array")
        except UnicodeDecodeError as error:
            reader.fail(f"not UTF-8 ({error.reason})")


def iter_object(path: Path) -> Iterator[tuple[int, str, object]]:
    """(line, key, value) for each member of the file's top-level JSON object."""
    with _open(path) as stream:
        reader = _Reader(path, stream)
        try:
            reader.expect("{", "a JSON object '{'")
            reader.skip_whitespace()
            if reader.buffer[:1] == "}":
                reader.consume(1)
                return
            while True:
                reader.skip_whitespace()
                line = reader.line
                key = reader.value("a member's key")
                if not isinstance(key, str):
                    reader.fail("a member's key is not a string")
                reader.expect(":", "':' after a key")
                yield line, key, reader.value(f"the value of {key[:60]!r}")
                if reader.expect(",}", "',' or '}' after a member") == "}":
                    break
        except UnicodeDecodeError as error:
            reader.fail(f"not UTF-8 ({error.reason})")
