"""Code extraction from a model's answer, as lcb_runner's extract_code does it.

A fence line is any line (split on "\\n" only, as upstream does) that contains "```"
anywhere. The solution is the lines strictly between the last two fence lines.

Nothing here splits the text into lines: fence lines are found with str.rfind / str.find
(C speed) and every result is one slice of the input. The answer is the text after the
last "</think>"; it is addressed by its start index rather than copied. Markers are searched
for through a single character (_find, _rfind), which str.find / str.rfind locate with memchr.
"""

from __future__ import annotations

import re

from .prompts import _check_style

FENCE = "```"
THINK_OPEN = "<think>"
THINK_CLOSE = "</think>"


def extract_code(model_output: str, style: str = "generic") -> str:
    """Code between the last two ``` fence lines (last block if 3+); "" if fewer than two.
    style="genericbase" = whole stripped output. Matches lcb_runner extract_code, except
    that everything up to the last </think> is dropped first, so a fence inside a reasoning
    model's thinking can't be mistaken for the solution (no </think>: output unchanged)."""
    _check_output(model_output)
    _check_style(style)
    text = model_output
    start = _answer_start(text)
    if style == "genericbase":
        return text[start:].strip()
    last = _rfind(text, FENCE, start)
    if last == -1:
        return ""
    # The last fence line begins after the "\n" before its last ```; every ``` before that
    # "\n" lies on an earlier line (a fence has no "\n" in it).
    last_line = text.rfind("\n", start, last) + 1  # 0: it is the answer's first line
    previous = _rfind(text, FENCE, start, last_line)
    if previous == -1:  # no fence line before it
        return ""
    code_start = text.find("\n", previous) + 1  # found: text[last_line - 1] is "\n"
    return text[code_start : last_line - 1]


def extract_code_prefix(model_output: str, style: str = "generic") -> str:
    """Code being written, for prefix scoring: text after the last open fence, or "" when no
    block is open. Deferring on a closed block (a later block could supersede it) keeps the
    prefix consistent with extract_code at complete: whenever this returns p != "",
    extract_code(model_output + "\\n```") == p. style="genericbase" = whole stripped output.

    Reasoning: like extract_code, only the text after the last </think> counts; while a
    <think> is still open (one after the last </think>) the model is reasoning, not
    answering, and the result is "" (defer).

    For a stream, lcb_prompts.PrefixExtractor gives the same answers at a cost per chunk."""
    _check_output(model_output)
    _check_style(style)
    text = model_output
    start = _answer_start(text)
    if _find(text, THINK_OPEN, start) != -1:
        return ""
    if style == "genericbase":
        return text[start:].strip()
    code_start = _open_block_code(text, start)
    return "" if code_start == -1 else text[code_start:]


def _answer_start(model_output: str) -> int:
    """Index where the answer begins: just after the last </think>, else 0."""
    cut = _rfind(model_output, THINK_CLOSE)
    return 0 if cut == -1 else cut + len(THINK_CLOSE)


def _open_block_code(text: str, start: int) -> int:
    """Where the code of the open block starts in text[start:]: just past the "\\n" that
    ends the last fence line, if the number of fence lines is odd; -1 if it is even or that
    line has no "\\n" yet.

    A line with several ``` is one fence line, so after each ``` the scan resumes on the
    next line. The first FENCE_LINES_VISITED fence lines are visited one by one (str.find at
    memchr speed); past them, the rest are counted in C, however many there are."""
    fence_lines = 0
    line = start  # the start of the line the scan has reached
    for _ in range(FENCE_LINES_VISITED):
        fence = _find(text, FENCE, line)
        if fence == -1:
            return line if fence_lines % 2 == 1 else -1
        fence_lines += 1
        end = text.find("\n", fence + len(FENCE))
        if end == -1:
            return -1
        line = end + 1
    # No line holds two non-overlapping ``` (the usual case): then the rest of the fence
    # lines are the rest of the ```. Otherwise count the lines themselves.
    if _TWO_FENCES_ON_A_LINE.search(text, line) is None:
        fence_lines += text.count(FENCE, line)
    else:
        fence_lines += len(_FENCE_LINE.findall(text, line))
    if fence_lines % 2 == 0:
        return -1
    end = text.find("\n", _rfind(text, FENCE, start) + len(FENCE))
    return -1 if end == -1 else end + 1


# fence lines visited one by one before the rest are counted in C (docs/performance.md)
FENCE_LINES_VISITED = 16
_FENCE_LINE = re.compile(r"```[^\n]*")
_TWO_FENCES_ON_A_LINE = re.compile(r"```[^\n]*```")


# A marker is looked for through its first character, which str.find / str.rfind locate with
# memchr, several times faster than their search for the whole marker. After this many
# candidates that are not the marker (inline `code` next to a fence, "a < b" after a
# </think>), the rest is left to str.find / str.rfind.
_CANDIDATES = 8


def _find(text: str, marker: str, start: int = 0) -> int:
    """text.find(marker, start)."""
    first = marker[0]
    for _ in range(_CANDIDATES):
        found = text.find(first, start)
        if found == -1 or text.startswith(marker, found):
            return found
        start = found + 1
    return text.find(marker, start)


def _rfind(text: str, marker: str, start: int = 0, end: int | None = None) -> int:
    """text.rfind(marker, start, end): the last occurrence lying within text[start:end]."""
    if end is None:
        end = len(text)
    # Searching backwards, a candidate is the last character of the run of marker[0] that
    # opens the marker (for ``` the third `): an occurrence at i has it at i + key.
    key = len(marker) - len(marker.lstrip(marker[0])) - 1
    rest = len(marker) - key  # from that character to the marker's end
    for _ in range(_CANDIDATES):
        found = text.rfind(marker[0], start + key, max(end - rest + 1, 0))
        if found == -1:
            return -1
        if text.startswith(marker, found - key):
            return found - key
        end = found + rest - 1  # an occurrence left has its key character before found
    return text.rfind(marker, start, end)


def _check_output(model_output: object) -> None:
    if not isinstance(model_output, str):
        raise TypeError(
            f"model_output must be str; got {type(model_output).__name__}"
            + (
                " (decode it first, e.g. with decode_context)"
                if isinstance(model_output, bytes | bytearray)
                else ""
            )
        )
