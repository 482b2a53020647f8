"""Readable mismatch reports: where two texts first differ, invisible characters shown.

Shown as: \\n \\r \\t and other control characters as escapes, a trailing space (before a
line break or the end) as "·", and every non-ASCII character as \\uXXXX so a U+2028 or a
fullwidth ｜ cannot pass for its look-alike. Backslashes are doubled.

On a terminal (printable, write): what every command prints, hostile text from runs, results
files, datasets and adapters included, with only the characters that could rewrite a line
(controls, bidirectional overrides) escaped; names and text in any script are kept.
"""

from __future__ import annotations

import difflib
import json
import re
import sys

WINDOW = 40  # characters shown on each side of the first difference
TRAILING_SPACE = "·"


_SPACES = re.compile(" +")
_SHOWN_AS_ESCAPE = re.compile(r"[^ -~]|\\")  # anything but printable ASCII, and backslash
_NAMED_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match) -> str:
    char = match.group()
    if char in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _shown(chunk: str) -> str:
    return _SHOWN_AS_ESCAPE.sub(_escape, chunk)


def visible(text: str, start: int = 0, end: int | None = None) -> str:
    """text[start:end] with invisible characters made visible; whether a space is trailing
    is judged on the whole text, not the slice. Linear (regular expressions over runs, not a
    loop over characters): a 10 MB output is shown in well under a second."""
    end = len(text) if end is None else min(end, len(text))
    out, position = [], start
    for run in _SPACES.finditer(text, start):  # whole runs, even past end: trailing or not
        if run.start() >= end:
            break
        after = run.end()
        trailing = after == len(text) or text[after] in "\r\n"
        out.append(_shown(text[position : run.start()]))
        out.append((TRAILING_SPACE if trailing else " ") * (min(after, end) - run.start()))
        position = min(after, end)
    out.append(_shown(text[position:end]))
    return "".join(out)


def first_difference(actual: str, expected: str) -> int | None:
    """Offset of the first differing character, or None when equal."""
    if actual == expected:
        return None
    for index, (a, b) in enumerate(zip(actual, expected, strict=False)):
        if a != b:
            return index
    return min(len(actual), len(expected))


def _position(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def _window(text: str, offset: int) -> tuple[str, int]:
    """The shown slice around offset, and where the offset falls in the shown string."""
    start = max(0, offset - WINDOW)
    before = ("…" if start else "") + visible(text, start, offset)
    after = visible(text, offset, offset + WINDOW) + ("…" if offset + WINDOW < len(text) else "")
    return before + after, len(before)


def report(
    actual: str,
    expected: str,
    *,
    label: str,
    expected_name: str = "golden",
    actual_name: str = "actual",
) -> str:
    """A multi-line report of the first difference between actual and expected."""
    offset = first_difference(actual, expected)
    if offset is None:
        return f"{label}: identical"
    width = max(len(expected_name), len(actual_name))
    shown_expected, caret = _window(expected, offset)
    shown_actual, caret_actual = _window(actual, offset)
    lines = [
        f"{label}: differs from the {expected_name}",
        f"first difference at offset {offset} ({_position(expected, offset)} of the "
        f"{expected_name}); lengths: {expected_name} {len(expected)}, {actual_name} {len(actual)}",
        f"{expected_name:>{width}}: {shown_expected}",
        f"{actual_name:>{width}}: {shown_actual}",
        " " * (width + 2 + min(caret, caret_actual)) + "^",
    ]
    context = list(
        difflib.unified_diff(
            [visible(line) for line in expected.split("\n")],
            [visible(line) for line in actual.split("\n")],
            expected_name,
            actual_name,
            n=1,
            lineterm="",
        )
    )
    if context:
        lines.append("line diff (visible characters):")
        lines += context[:40] + (["… (diff truncated)"] if len(context) > 40 else [])
    return "\n".join(lines)


# --- chat messages ---------------------------------------------------------------------------


def _conversation(value) -> tuple[str | None, list] | None:
    """(top-level system or None, messages) of a canonical-JSON message golden; None when
    the value has neither shape."""
    if isinstance(value, dict) and isinstance(value.get("messages"), list):
        return value.get("system"), value["messages"]
    if isinstance(value, list):
        return None, value
    return None


def _part(message) -> tuple[str, str]:
    if isinstance(message, dict):
        content = message.get("content")
        return str(message.get("role")), content if isinstance(content, str) else repr(content)
    return "?", repr(message)


def text_difference(what: str, actual: str, expected: str) -> str:
    """One line: where ``what`` first differs, both sides shown around it."""
    offset = first_difference(actual, expected)
    shown_expected, _ = _window(expected, offset)
    shown_actual, _ = _window(actual, offset)
    return (
        f"{what} differs at offset {offset} ({_position(expected, offset)}): "
        f"golden {shown_expected!s} | actual {shown_actual!s}"
    )


def messages_differences(actual_json: str, golden_json: str) -> list[str]:
    """What differs between two chat conversations (canonical JSON, goldens.canonical_json),
    in words: "system message missing", "user message differs at offset …", roles, counts.
    Empty when either side is not a conversation or they are equal."""
    try:
        actual = _conversation(json.loads(actual_json))
        golden = _conversation(json.loads(golden_json))
    except ValueError:
        return []
    if actual is None or golden is None or actual == golden:
        return []
    found = []
    (actual_system, actual_messages), (golden_system, golden_messages) = actual, golden
    if golden_system is not None and actual_system is None:
        found.append("system prompt missing (lcb_runner sends (system, messages))")
    elif golden_system is None and actual_system is not None:
        found.append("a separate system prompt lcb_runner does not send")
    elif golden_system != actual_system:
        found.append(text_difference("system prompt", str(actual_system), str(golden_system)))
    actual_parts = [_part(message) for message in actual_messages]
    golden_parts = [_part(message) for message in golden_messages]
    golden_has_system = bool(golden_parts) and golden_parts[0][0] == "system"
    actual_has_system = bool(actual_parts) and actual_parts[0][0] == "system"
    if golden_has_system and not actual_has_system:
        found.append("system message missing")
        golden_parts = golden_parts[1:]
    elif actual_has_system and not golden_has_system:
        found.append("system message extra (lcb_runner sends none)")
        actual_parts = actual_parts[1:]
    if len(actual_parts) != len(golden_parts):
        found.append(
            f"{len(golden_parts)} other messages in the golden, {len(actual_parts)} in the actual"
        )
    for number, ((role, content), (golden_role, golden_content)) in enumerate(
        zip(actual_parts, golden_parts, strict=False), start=1
    ):
        if role != golden_role:
            found.append(f"message {number}: role {role!r}, lcb_runner's {golden_role!r}")
        elif content != golden_content:
            found.append(text_difference(f"{role} message", content, golden_content))
    return found


# --- how two texts differ ---------------------------------------------------------------------


WHITESPACE_ONLY = "whitespace-only"
CONTENT = "content"
NO_TEXT = "no text"  # the call raised, or returned something else than a string
_WHITESPACE = re.compile(r"\s+")


def _edge(text: str, where: str) -> str:
    if where == "leading":
        return text[: len(text) - len(text.lstrip())]
    return text[len(text.rstrip()) :]


def severity(golden: str | None, actual: str | None) -> dict:
    """How two differing texts differ: {"severity": content | whitespace-only | no text}, and
    for whitespace only, "where" (leading, trailing, interior) and "detail": what each side
    has there, with invisible characters shown."""
    if golden is None or actual is None:
        return {"severity": NO_TEXT}
    if _WHITESPACE.sub("", golden) != _WHITESPACE.sub("", actual):
        return {"severity": CONTENT}
    where, details = [], []
    for edge in ("leading", "trailing"):
        ours, theirs = _edge(golden, edge), _edge(actual, edge)
        if ours != theirs:
            where.append(edge)
            details.append(
                f"{edge} whitespace: golden '{visible(ours)}', actual '{visible(theirs)}'"
            )
    if golden.strip() != actual.strip():
        where.append("interior")
        offset = first_difference(actual.strip(), golden.strip())
        details.append(f"interior whitespace differs at offset {offset} of the stripped texts")
    return {"severity": WHITESPACE_ONLY, "where": where, "detail": "; ".join(details)}


def describe(golden: str, actual: str) -> dict:
    """How an answer differs from its golden, as data a report groups by: "kind" (a short
    phrase: "trailing newline missing", "leading whitespace", "content", ...), whether the
    difference is whitespace only, the first differing offset and its line and column, and for
    whitespace the detail of severity()."""
    found = severity(golden, actual)
    offset = first_difference(actual, golden)
    whitespace_only = found["severity"] == WHITESPACE_ONLY
    if not whitespace_only:
        kind = CONTENT
    elif golden.rstrip("\n") == actual.rstrip("\n") and golden.strip() == actual.strip():
        missing = len(golden) - len(golden.rstrip("\n")) > len(actual) - len(actual.rstrip("\n"))
        kind = "trailing newline missing" if missing else "trailing newline added"
    else:
        kind = " and ".join(found["where"]) + " whitespace"
    return {
        "kind": kind,
        "whitespace_only": whitespace_only,
        "offset": offset,
        "position": _position(actual, offset),
        "detail": found.get("detail", ""),
    }


def no_text(reason: str) -> dict:
    """How an answer that is not the golden's kind of value (None, a list: families.NotText)
    differs, as describe() says it of text: kind "no text", the reason as its detail."""
    return {
        "kind": NO_TEXT,
        "whitespace_only": False,
        "offset": None,
        "position": "",
        "detail": reason,
    }


# --- on a terminal ----------------------------------------------------------------------------

# The bidirectional controls, which reorder what follows them (on a terminal's line, in a page's
# cell): a regular-expression class's body.
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# What a hostile string could rewrite a terminal line with: C0 controls but tab and newline (the
# line structure; ESC starts colour, cursor, title and OSC 8 link sequences, CR and backspace
# overwrite), DEL, C1 (U+009B is a one-character CSI), the bidirectional controls and lone
# surrogates.
_UNPRINTABLE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}\ud800-\udfff]")


def printable(text: str) -> str:
    """text with those characters as escapes (\\x1b, \\r, \\u202e); any other character,
    accents and CJK included, as it is: safe on any terminal, readable otherwise."""
    return _UNPRINTABLE.sub(_escape, text)


def write(text: str, stream=None, colour: str | None = None, end: str = "\n") -> None:
    """Every command's text for a terminal or a pipe (stdout by default, or its refusal line on
    stderr): printable(text), then end, in whatever the stream's encoding accepts (the rest
    backslash-escaped, never a UnicodeEncodeError). colour, an SGR code ("31;1"), is added
    after the escaping: only the gate's own escape sequences reach the terminal."""
    stream = stream or sys.stdout
    shown = printable(text)
    if colour is not None:
        shown = f"\x1b[{colour}m{shown}\x1b[0m"
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write((shown + end).encode(encoding, "backslashreplace").decode(encoding, "replace"))
