"""Bad input gets a clear error naming what was wrong, never a silently wrong prompt."""

from __future__ import annotations

import pytest

from lcb_conformance.suite import cases

ROW = {"question_content": "Add two numbers.", "starter_code": ""}


@pytest.mark.parametrize(
    ("row", "error", "named"),
    [
        (["question_content"], TypeError, "row"),
        ("Add two numbers.", TypeError, "row"),
        ({"starter_code": ""}, ValueError, "question_content"),
        ({"question_content": None}, TypeError, "question_content"),
        ({"question_content": b"bytes"}, TypeError, "question_content"),
        ({"question_content": "q", "starter_code": 3}, TypeError, "starter_code"),
    ],
    ids=["list", "str", "missing-question", "none-question", "bytes-question", "int-starter"],
)
def test_bad_row(impl_function, row, error, named):
    with pytest.raises(error, match=named):
        impl_function("format_lcb_prompt")(row)


@pytest.mark.parametrize(
    "row",
    [{"question_content": "q"}, {"question_content": "q", "starter_code": None}],
    ids=["absent", "none"],
)
def test_missing_or_none_starter_code_is_empty(impl_function, row):
    format_lcb_prompt = impl_function("format_lcb_prompt")
    assert format_lcb_prompt(row) == format_lcb_prompt(
        {"question_content": "q", "starter_code": ""}
    )


# Not a style name (an LMStyle, a near-miss) or not even a str: the same ValueError.
@pytest.mark.parametrize(
    "style", ["LLaMa3", "Generic", "", None, "qwen", b"generic", ["generic"], 0]
)
def test_unknown_style(impl_function, style):
    for name, argument in [
        ("format_lcb_prompt", ROW),
        ("extract_code", "x"),
        ("extract_code_prefix", "x"),
    ]:
        with pytest.raises(ValueError, match="style"):
            impl_function(name)(argument, style=style)


def test_chat_template_without_tokenizer_is_an_error(impl_function):
    with pytest.raises(ValueError, match="tokenizer"):
        impl_function("format_lcb_prompt")(ROW, chat_template=True)


def test_tokenizer_without_chat_template_is_an_error(impl_function, chat_tokenizer):
    import copy

    tokenizer = copy.copy(chat_tokenizer(cases.LLAMA3_TOKENIZER))
    tokenizer.chat_template = None
    with pytest.raises(ValueError, match="chat_template"):
        impl_function("format_lcb_prompt")(ROW, tokenizer=tokenizer, chat_template=True)


@pytest.mark.parametrize("output", [None, b"```\nx\n```", 3, ["```"]], ids=repr)
@pytest.mark.parametrize("function", ["extract_code", "extract_code_prefix"])
def test_non_str_model_output(impl_function, function, output):
    with pytest.raises(TypeError, match="model_output"):
        impl_function(function)(output)


@pytest.mark.parametrize(
    ("context", "error", "named"),
    [
        (3.5, TypeError, "context"),
        ({"a": 1}, TypeError, "context"),
        ([b"ok", None], TypeError, r"context\[1\]"),
        ([b"ok", 1.0], TypeError, r"context\[1\]"),
        ([True], TypeError, r"context\[0\]"),
        ([256], ValueError, r"context\[0\]"),
        ([-1], ValueError, r"context\[0\]"),
        # falsy values of an unsupported type are errors too, not an empty context
        (0, TypeError, "context"),
        (False, TypeError, "context"),
        ({}, TypeError, "context"),
        (0.0, TypeError, "context"),
        (memoryview(b"ab"), TypeError, "context"),
        (iter([b"ab"]), TypeError, "context"),
        ([[98]], TypeError, r"context\[0\]"),
    ],
    ids=[
        "float",
        "dict",
        "none-token",
        "float-token",
        "bool-token",
        "int-256",
        "int-negative",
        "int-0",
        "false",
        "empty-dict",
        "float-0",
        "memoryview",
        "iterator",
        "nested-list",
    ],
)
def test_unsupported_context(impl_function, context, error, named):
    with pytest.raises(error, match=named):
        impl_function("decode_context")(context)


@pytest.mark.parametrize("context", [None, "", b"", []], ids=repr)
def test_empty_context_is_empty_text(impl_function, context):
    assert impl_function("decode_context")(context) == ""


# --- bytes vs str, invalid and split UTF-8 --------------------------------------------------


@pytest.mark.parametrize(
    ("context", "text"),
    [
        ([b"\xe2\x82", b"\xac"], "\u20ac"),  # a 3-byte character split over two tokens
        ([0xE2, 0x82, 0xAC], "\u20ac"),  # ... or over three byte ids
        (["\u00e9", b"\xc3", b"\xa9"], "\u00e9\u00e9"),  # str and byte pieces mixed
        ((b"\xf0\x9f", b"\x98", b"\x80"), "\U0001f600"),  # a tuple of tokens, 4-byte character
        (bytearray(b"ok"), "ok"),
        ([bytearray(b"o"), b"k"], "ok"),
        (b"ok\xe2\x82", "ok"),  # truncated at the end of the context: the partial char dropped
        ([b"ok", b"\xe2\x82"], "ok"),
        (b"\xffo\xfek", "ok"),  # bytes that are never UTF-8: dropped
        (b"\xc3\x28", "("),  # a broken 2-byte sequence: the lead byte dropped, the rest kept
        (b"\xed\xa0\x80", ""),  # an encoded surrogate is invalid UTF-8: dropped
        (b"\xef\xbb\xbfok", "\ufeffok"),  # a byte-order mark is text: kept
        ([0, 0x41, 255], "\x00A"),  # 0 and 255 are byte ids (255 is never UTF-8: dropped)
    ],
    ids=[
        "split-3-byte",
        "byte-ids",
        "mixed-pieces",
        "tuple-4-byte",
        "bytearray",
        "bytearray-token",
        "truncated-bytes",
        "truncated-token",
        "invalid-bytes",
        "broken-lead-byte",
        "encoded-surrogate",
        "bom",
        "byte-id-bounds",
    ],
)
def test_decode_context_bytes(impl_function, context, text):
    assert impl_function("decode_context")(context) == text


@pytest.mark.parametrize("function", ["extract_code", "extract_code_prefix"])
def test_bytes_model_output_says_to_decode_first(impl_function, function):
    with pytest.raises(TypeError, match="decode it first"):
        impl_function(function)(b"```\nx\n```")


def test_bytes_starter_code_is_an_error(impl_function):
    with pytest.raises(TypeError, match="starter_code"):
        impl_function("format_lcb_prompt")({"question_content": "q", "starter_code": b"def f():"})


# --- lone surrogates: text that cannot be UTF-8 passes through untouched ---------------------

LONE = "\ud800"  # a lone high surrogate, as a broken UTF-16 source or json.loads("\\ud800") gives
STAND_IN = "\ue000"  # a private-use character in the same places, for the expected result


def surrogate_row(mark: str) -> dict:
    return {"question_content": f"Count {mark}pairs.", "starter_code": f"def f(s):  # {mark}\n"}


@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek", "genericbase"])
def test_lone_surrogates_in_a_row_pass_through_unchanged(impl_function, style):
    """The prompt is exactly the one for the same row with another character there: no
    error, no replacement character (upstream's f-strings do the same). Encoding it for a
    model is the caller's concern."""
    format_lcb_prompt = impl_function("format_lcb_prompt")
    prompt = format_lcb_prompt(surrogate_row(LONE), style=style)
    assert prompt == format_lcb_prompt(surrogate_row(STAND_IN), style=style).replace(STAND_IN, LONE)


def test_lone_surrogates_pass_through_a_chat_template(impl_function, chat_tokenizer):
    format_lcb_prompt = impl_function("format_lcb_prompt")
    tokenizer = chat_tokenizer(cases.LLAMA3_TOKENIZER)
    prompt = format_lcb_prompt(surrogate_row(LONE), tokenizer=tokenizer, chat_template=True)
    expected = format_lcb_prompt(surrogate_row(STAND_IN), tokenizer=tokenizer, chat_template=True)
    assert prompt == expected.replace(STAND_IN, LONE)


@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek"])
def test_lone_surrogates_in_model_output_are_returned_as_is(impl_function, style):
    output = f"Here{LONE}:\n```python\nprint('{LONE}')\n```\n"
    assert impl_function("extract_code")(output, style=style) == f"print('{LONE}')"
    assert impl_function("extract_code_prefix")(output[:-5], style=style) == f"print('{LONE}')"
    assert impl_function("extract_code")(output, style="genericbase") == output.strip()


def test_lone_surrogates_in_decode_context(impl_function):
    """A str context is returned as it is; str pieces of a token list are joined as UTF-8
    bytes, so a lone surrogate in a piece (which has no UTF-8 form) is dropped like any
    other invalid UTF-8."""
    decode_context = impl_function("decode_context")
    assert decode_context(f"a{LONE}b") == f"a{LONE}b"
    assert decode_context([f"a{LONE}", b"b"]) == "ab"


# --- rows ---------------------------------------------------------------------------------


def test_a_row_needs_only_question_content(impl_function):
    """Missing keys other than question_content are fine; unknown keys are ignored; any
    Mapping will do (a dataset row, a read-only view)."""
    import types

    format_lcb_prompt = impl_function("format_lcb_prompt")
    full = dict(next(iter(cases.problems().values())))
    minimal = {"question_content": full["question_content"], "starter_code": full["starter_code"]}
    expected = format_lcb_prompt(full)
    assert format_lcb_prompt(minimal) == expected
    assert format_lcb_prompt({**full, "unknown_field": "x", "question_title": None}) == expected
    assert format_lcb_prompt(types.MappingProxyType(full)) == expected


@pytest.mark.parametrize(
    "row",
    [None, b'{"question_content": "q"}', {}, ("question_content", "q")],
    ids=["none", "bytes", "empty-dict", "tuple"],
)
def test_rows_that_are_not_rows(impl_function, row):
    with pytest.raises((TypeError, ValueError), match="row"):
        impl_function("format_lcb_prompt")(row)


def test_a_tokenizer_is_ignored_without_chat_template(impl_function, chat_tokenizer):
    format_lcb_prompt = impl_function("format_lcb_prompt")
    tokenizer = chat_tokenizer(cases.LLAMA3_TOKENIZER)
    assert format_lcb_prompt(ROW, tokenizer=tokenizer) == format_lcb_prompt(ROW)
    assert format_lcb_prompt(ROW, style="codeqwen", enable_thinking=True) == format_lcb_prompt(
        ROW, style="codeqwen"
    )


def test_an_object_that_is_no_tokenizer_is_an_error(impl_function):
    with pytest.raises(ValueError, match="chat_template"):
        impl_function("format_lcb_prompt")(ROW, tokenizer=object(), chat_template=True)


# --- 10 MB inputs: they complete, with the right result (no timing is asserted) ------------

TEN_MB = 10 * 1024 * 1024


@pytest.fixture(scope="module")
def big_code() -> str:
    line = "total += values[i] * 3  # é€😀"
    return "\n".join([line] * (TEN_MB // len(line.encode("utf-8")) + 1))


@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek"])
def test_ten_megabyte_model_output(impl_function, big_code, style):
    extract_code = impl_function("extract_code")
    extract_code_prefix = impl_function("extract_code_prefix")
    output = f"<think>\n```\n</think>Here:\n```python\n{big_code}\n```\nDone."
    assert len(output.encode("utf-8")) > TEN_MB
    assert extract_code(output, style=style) == big_code
    assert extract_code_prefix(output.removesuffix("\n```\nDone."), style=style) == big_code
    assert extract_code_prefix(output, style=style) == ""


def test_ten_megabytes_of_fence_lines(impl_function):
    output = "```\n" * (TEN_MB // 4)
    assert impl_function("extract_code")(output) == ""
    assert impl_function("extract_code_prefix")(output) == ""
    assert impl_function("extract_code")(output + "x\n```") == "x"


def test_ten_megabyte_genericbase_output(impl_function, big_code):
    output = f"  \n{big_code}\n\n"
    assert impl_function("extract_code")(output, style="genericbase") == big_code
    assert impl_function("extract_code_prefix")(output, style="genericbase") == big_code


def test_ten_megabyte_context(impl_function, big_code):
    """As one bytes object, and as 4 KiB tokens that cut through multi-byte characters."""
    decode_context = impl_function("decode_context")
    data = big_code.encode("utf-8")
    assert decode_context(data) == big_code
    tokens = [data[i : i + 4096] for i in range(0, len(data), 4096)]
    assert decode_context(tokens) == big_code
    assert decode_context(big_code) is big_code


@pytest.mark.parametrize("style", ["generic", "codeqwen", "deepseek", "genericbase"])
def test_ten_megabyte_question(impl_function, big_code, style):
    prompt = impl_function("format_lcb_prompt")({"question_content": big_code}, style=style)
    assert big_code in prompt
