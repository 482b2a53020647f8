"""The implementation's own API contract: bad input gets a clear error naming what was wrong,
strange text (lone surrogates, split UTF-8, 10 MB) passes through, and the extraction rules
hold for any input, not just the fixtures (runner/properties.py).

These cases say nothing about comparability with lcb_runner: they are the contract of the
reference lcb_prompts' API, which an adapter may follow or not. The verdict reports them as a
tier of their own and the exit code ignores them unless asked (``--strict-contract``). A case
needs the functions it calls; without one it is not provided, like a golden case.
"""

from __future__ import annotations

import copy
import re
import types
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from lcb_conformance.suite import cases, styles

ROW = {"question_content": "Add two numbers.", "starter_code": ""}
LONE = "\ud800"  # a lone high surrogate, as a broken UTF-16 source or json.loads("\\ud800") gives
STAND_IN = "\ue000"  # a private-use character in the same places, for the expected result
TEN_MB = 10 * 1024 * 1024
BIG_LINE = "total += values[i] * 3  # é€😀"
# the seed's styles (the style table's), and those extracting the last fenced block
SEED_STYLES = styles.SEED_STYLES
FENCE_STYLES = styles.FENCED_SEED_STYLES


class Functions:
    """What a contract check calls: the implementation's functions by name (NotProvided when
    it lacks one), a tokenizer snapshot by repo id, the deviations it declares, and how many
    examples a property draws."""

    def __init__(self, impl, load_tokenizer: Callable[[str], object], examples: int):
        self.impl = impl
        self.tokenizer = load_tokenizer
        self.deviations = tuple(impl.deviations)
        self.examples = examples

    def __call__(self, name: str) -> Callable:
        return getattr(self.impl, name)


@dataclass(frozen=True)
class ContractCase:
    id: str  # contract/<group>/<name>
    group: str
    functions: tuple[str, ...]  # the functions it calls
    check: Callable[[Functions], None]  # raises AssertionError when the contract is broken
    in_process: bool = False  # passes objects no process boundary carries (a tokenizer)


@contextmanager
def expect_error(kinds, pattern: str):
    """The block must raise one of ``kinds`` whose message matches ``pattern``."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    names = " or ".join(kind.__name__ for kind in kinds)
    try:
        yield
    except kinds as error:
        if not re.search(pattern, str(error)):
            raise AssertionError(
                f"raised {type(error).__name__}({str(error)!r:.200}), whose message does not "
                f"name {pattern!r}"
            ) from None
    except Exception as error:
        raise AssertionError(
            f"expected {names} naming {pattern!r}; raised {type(error).__name__}"
            f"({str(error)!r:.200})"
        ) from None
    else:
        raise AssertionError(f"expected {names} naming {pattern!r}; nothing was raised")


def equal(actual, expected, what: str = "returned") -> None:
    if actual != expected:
        raise AssertionError(f"{what} {actual!r:.300}, expected {expected!r:.300}")


# --- the cases, by group --------------------------------------------------------------------

_CASES: list[ContractCase] = []


def _case(group: str, name: str, *functions: str, in_process: bool = False):
    def register(check: Callable[[Functions], None]) -> Callable[[Functions], None]:
        _CASES.append(
            ContractCase(f"contract/{group}/{name}", group, functions, check, in_process)
        )
        return check

    return register


def _each(group: str, name: str, values: dict, *functions: str, in_process: bool = False):
    """One case per value: contract/<group>/<name>[<value id>]."""

    def register(check):
        for value_id, value in values.items():
            _CASES.append(
                ContractCase(
                    f"contract/{group}/{name}[{value_id}]",
                    group,
                    functions,
                    lambda fn, value=value: check(fn, value),
                    in_process,
                )
            )
        return check

    return register


BAD_ROWS = {
    "list": (["question_content"], TypeError, "row"),
    "str": ("Add two numbers.", TypeError, "row"),
    "missing-question": ({"starter_code": ""}, ValueError, "question_content"),
    "none-question": ({"question_content": None}, TypeError, "question_content"),
    "bytes-question": ({"question_content": b"bytes"}, TypeError, "question_content"),
    "int-starter": ({"question_content": "q", "starter_code": 3}, TypeError, "starter_code"),
    "bytes-starter": (
        {"question_content": "q", "starter_code": b"def f():"},
        TypeError,
        "starter_code",
    ),
    "none": (None, (TypeError, ValueError), "row"),
    "bytes": (b'{"question_content": "q"}', (TypeError, ValueError), "row"),
    "empty-dict": ({}, (TypeError, ValueError), "row"),
    "tuple": (("question_content", "q"), (TypeError, ValueError), "row"),
}


@_each("bad-input", "row", BAD_ROWS, "format_lcb_prompt")
def _bad_row(fn, value):
    row, error, named = value
    with expect_error(error, named):
        fn("format_lcb_prompt")(row)


@_each(
    "bad-input",
    "starter-code-absent-or-none-is-empty",
    {"absent": {"question_content": "q"}, "none": {"question_content": "q", "starter_code": None}},
    "format_lcb_prompt",
)
def _missing_starter(fn, row):
    format_lcb_prompt = fn("format_lcb_prompt")
    equal(format_lcb_prompt(row), format_lcb_prompt({"question_content": "q", "starter_code": ""}))


# Not a style name (an LMStyle, a near-miss) or not even a str: the same ValueError.
UNKNOWN_STYLES = {
    repr(style): style for style in ("LLaMa3", "Generic", "", None, "qwen", b"generic", 0)
} | {"['generic']": ["generic"]}


@_each(
    "bad-input",
    "unknown-style",
    UNKNOWN_STYLES,
    "format_lcb_prompt",
    "extract_code",
    "extract_code_prefix",
)
def _unknown_style(fn, style):
    for name, argument in (
        ("format_lcb_prompt", ROW),
        ("extract_code", "x"),
        ("extract_code_prefix", "x"),
    ):
        with expect_error(ValueError, "style"):
            fn(name)(argument, style=style)


@_case("bad-input", "chat-template-without-tokenizer", "format_lcb_prompt")
def _chat_template_without_tokenizer(fn):
    with expect_error(ValueError, "tokenizer"):
        fn("format_lcb_prompt")(ROW, chat_template=True)


@_case("bad-input", "tokenizer-without-chat-template", "format_lcb_prompt", in_process=True)
def _tokenizer_without_template(fn):
    tokenizer = copy.copy(fn.tokenizer(cases.LLAMA3_TOKENIZER))
    tokenizer.chat_template = None
    with expect_error(ValueError, "chat_template"):
        fn("format_lcb_prompt")(ROW, tokenizer=tokenizer, chat_template=True)


@_case("bad-input", "object-that-is-no-tokenizer", "format_lcb_prompt", in_process=True)
def _object_no_tokenizer(fn):
    with expect_error(ValueError, "chat_template"):
        fn("format_lcb_prompt")(ROW, tokenizer=object(), chat_template=True)


@_case("bad-input", "tokenizer-ignored-without-chat-template", "format_lcb_prompt")
def _tokenizer_ignored(fn):
    format_lcb_prompt = fn("format_lcb_prompt")
    tokenizer = fn.tokenizer(cases.LLAMA3_TOKENIZER)
    equal(format_lcb_prompt(ROW, tokenizer=tokenizer), format_lcb_prompt(ROW))
    equal(
        format_lcb_prompt(ROW, style="codeqwen", enable_thinking=True),
        format_lcb_prompt(ROW, style="codeqwen"),
    )


@_case("bad-input", "row-needs-only-question-content", "format_lcb_prompt", in_process=True)
def _minimal_row(fn):
    """Missing keys other than question_content are fine; unknown keys are ignored; any
    Mapping will do (a dataset row, a read-only view)."""
    format_lcb_prompt = fn("format_lcb_prompt")
    full = dict(next(iter(cases.problems().values())))
    minimal = {"question_content": full["question_content"], "starter_code": full["starter_code"]}
    expected = format_lcb_prompt(full)
    equal(format_lcb_prompt(minimal), expected)
    equal(format_lcb_prompt({**full, "unknown_field": "x", "question_title": None}), expected)
    equal(format_lcb_prompt(types.MappingProxyType(full)), expected)


NON_STR_OUTPUTS = {repr(v): v for v in (None, b"```\nx\n```", 3)} | {"['```']": ["```"]}


@_each("bad-input", "extract-code-non-str-output", NON_STR_OUTPUTS, "extract_code")
def _non_str_output(fn, output):
    with expect_error(TypeError, "model_output"):
        fn("extract_code")(output)


@_each("bad-input", "extract-code-prefix-non-str-output", NON_STR_OUTPUTS, "extract_code_prefix")
def _non_str_output_prefix(fn, output):
    with expect_error(TypeError, "model_output"):
        fn("extract_code_prefix")(output)


@_each(
    "bad-input",
    "bytes-output-says-to-decode-first",
    {"extract_code": "extract_code", "extract_code_prefix": "extract_code_prefix"},
    "extract_code",
    "extract_code_prefix",
)
def _bytes_output(fn, function):
    with expect_error(TypeError, "decode it first"):
        fn(function)(b"```\nx\n```")


UNSUPPORTED_CONTEXTS = {
    "float": (3.5, TypeError, "context"),
    "dict": ({"a": 1}, TypeError, "context"),
    "none-token": ([b"ok", None], TypeError, r"context\[1\]"),
    "float-token": ([b"ok", 1.0], TypeError, r"context\[1\]"),
    "bool-token": ([True], TypeError, r"context\[0\]"),
    "int-256": ([256], ValueError, r"context\[0\]"),
    "int-negative": ([-1], ValueError, r"context\[0\]"),
    # falsy values of an unsupported type are errors too, not an empty context
    "int-0": (0, TypeError, "context"),
    "false": (False, TypeError, "context"),
    "empty-dict": ({}, TypeError, "context"),
    "float-0": (0.0, TypeError, "context"),
    "nested-list": ([[98]], TypeError, r"context\[0\]"),
}


@_each("bad-input", "unsupported-context", UNSUPPORTED_CONTEXTS, "decode_context")
def _unsupported_context(fn, value):
    context, error, named = value
    with expect_error(error, named):
        fn("decode_context")(context)


@_each(
    "bad-input",
    "unsupported-context-object",
    {"memoryview": lambda: memoryview(b"ab"), "iterator": lambda: iter([b"ab"])},
    "decode_context",
    in_process=True,
)
def _unsupported_context_object(fn, make):
    with expect_error(TypeError, "context"):
        fn("decode_context")(make())


@_each(
    "bad-input",
    "empty-context-is-empty-text",
    {"None": None, "''": "", "b''": b"", "[]": []},
    "decode_context",
)
def _empty_context(fn, context):
    equal(fn("decode_context")(context), "")


# --- bytes vs str, invalid and split UTF-8 ---------------------------------------------------

DECODED_CONTEXTS = {
    "split-3-byte": ([b"\xe2\x82", b"\xac"], "\u20ac"),  # a 3-byte character over two tokens
    "byte-ids": ([0xE2, 0x82, 0xAC], "\u20ac"),  # ... or over three byte ids
    "mixed-pieces": (["\u00e9", b"\xc3", b"\xa9"], "\u00e9\u00e9"),  # str and byte pieces
    "truncated-bytes": (b"ok\xe2\x82", "ok"),  # a partial character at the end: dropped
    "truncated-token": ([b"ok", b"\xe2\x82"], "ok"),
    "invalid-bytes": (b"\xffo\xfek", "ok"),  # bytes that are never UTF-8: dropped
    "broken-lead-byte": (b"\xc3\x28", "("),  # the lead byte dropped, the rest kept
    "encoded-surrogate": (b"\xed\xa0\x80", ""),  # an encoded surrogate is invalid UTF-8
    "bom": (b"\xef\xbb\xbfok", "\ufeffok"),  # a byte-order mark is text: kept
    "byte-id-bounds": ([0, 0x41, 255], "\x00A"),  # 255 is never UTF-8: dropped
}


@_each("utf-8", "decode-context", DECODED_CONTEXTS, "decode_context")
def _decode_bytes(fn, value):
    context, text = value
    equal(fn("decode_context")(context), text)


@_each(
    "utf-8",
    "decode-context-object",
    {
        "tuple-4-byte": ((b"\xf0\x9f", b"\x98", b"\x80"), "\U0001f600"),
        "bytearray": (bytearray(b"ok"), "ok"),
        "bytearray-token": ([bytearray(b"o"), b"k"], "ok"),
    },
    "decode_context",
    in_process=True,
)
def _decode_objects(fn, value):
    context, text = value
    equal(fn("decode_context")(context), text)


# --- lone surrogates: text that cannot be UTF-8 passes through untouched ---------------------


def _surrogate_row(mark: str) -> dict:
    return {"question_content": f"Count {mark}pairs.", "starter_code": f"def f(s):  # {mark}\n"}


@_each("utf-8", "lone-surrogates-in-a-row", {s: s for s in SEED_STYLES}, "format_lcb_prompt")
def _surrogates_in_row(fn, style):
    """The prompt is exactly the one for the same row with another character there: no
    error, no replacement character (upstream's f-strings do the same)."""
    format_lcb_prompt = fn("format_lcb_prompt")
    prompt = format_lcb_prompt(_surrogate_row(LONE), style=style)
    expected = format_lcb_prompt(_surrogate_row(STAND_IN), style=style)
    equal(prompt, expected.replace(STAND_IN, LONE))


@_case("utf-8", "lone-surrogates-through-a-chat-template", "format_lcb_prompt")
def _surrogates_in_template(fn):
    format_lcb_prompt = fn("format_lcb_prompt")
    tokenizer = fn.tokenizer(cases.LLAMA3_TOKENIZER)
    prompt = format_lcb_prompt(_surrogate_row(LONE), tokenizer=tokenizer, chat_template=True)
    expected = format_lcb_prompt(
        _surrogate_row(STAND_IN), tokenizer=tokenizer, chat_template=True
    )
    equal(prompt, expected.replace(STAND_IN, LONE))


@_each(
    "utf-8",
    "lone-surrogates-in-model-output",
    {s: s for s in FENCE_STYLES},
    "extract_code",
    "extract_code_prefix",
)
def _surrogates_in_output(fn, style):
    output = f"Here{LONE}:\n```python\nprint('{LONE}')\n```\n"
    equal(fn("extract_code")(output, style=style), f"print('{LONE}')")
    equal(fn("extract_code_prefix")(output[:-5], style=style), f"print('{LONE}')")
    equal(fn("extract_code")(output, style="genericbase"), output.strip())


@_case("utf-8", "lone-surrogates-in-decode-context", "decode_context")
def _surrogates_in_context(fn):
    """A str context is returned as it is; str pieces of a token list are joined as UTF-8
    bytes, so a lone surrogate in a piece (which has no UTF-8 form) is dropped."""
    decode_context = fn("decode_context")
    equal(decode_context(f"a{LONE}b"), f"a{LONE}b")
    equal(decode_context([f"a{LONE}", b"b"]), "ab")


# --- 10 MB inputs: they complete, with the right result (no timing is asserted) ------------


def _big_code() -> str:
    return "\n".join([BIG_LINE] * (TEN_MB // len(BIG_LINE.encode("utf-8")) + 1))


@_each(
    "large",
    "ten-megabyte-model-output",
    {s: s for s in FENCE_STYLES},
    "extract_code",
    "extract_code_prefix",
)
def _big_output(fn, style):
    big = _big_code()
    output = f"<think>\n```\n</think>Here:\n```python\n{big}\n```\nDone."
    equal(fn("extract_code")(output, style=style), big, "extract_code returned")
    closed = output.removesuffix("\n```\nDone.")
    equal(fn("extract_code_prefix")(closed, style=style), big, "extract_code_prefix returned")
    equal(fn("extract_code_prefix")(output, style=style), "", "extract_code_prefix returned")


@_case("large", "ten-megabytes-of-fence-lines", "extract_code", "extract_code_prefix")
def _big_fences(fn):
    output = "```\n" * (TEN_MB // 4)
    equal(fn("extract_code")(output), "")
    equal(fn("extract_code_prefix")(output), "")
    equal(fn("extract_code")(output + "x\n```"), "x")


@_case("large", "ten-megabyte-genericbase-output", "extract_code", "extract_code_prefix")
def _big_genericbase(fn):
    big = _big_code()
    output = f"  \n{big}\n\n"
    equal(fn("extract_code")(output, style="genericbase"), big)
    equal(fn("extract_code_prefix")(output, style="genericbase"), big)


@_case("large", "ten-megabyte-context", "decode_context")
def _big_context(fn):
    """As one bytes object, and as 4 KiB tokens that cut through multi-byte characters."""
    big = _big_code()
    data = big.encode("utf-8")
    equal(fn("decode_context")(data), big)
    equal(fn("decode_context")([data[i : i + 4096] for i in range(0, len(data), 4096)]), big)


@_each("large", "ten-megabyte-question", {s: s for s in SEED_STYLES}, "format_lcb_prompt")
def _big_question(fn, style):
    big = _big_code()
    prompt = fn("format_lcb_prompt")({"question_content": big}, style=style)
    if big not in prompt:
        raise AssertionError("the prompt does not hold the 10 MB question")


def contract_cases() -> list[ContractCase]:
    """Every contract case: these and the properties (runner/properties.py)."""
    from lcb_conformance.runner import properties

    return [*_CASES, *properties.CASES]
