"""Bad input gets a clear error naming what was wrong, never a silently wrong prompt."""

from __future__ import annotations

import pytest

from lcb_conformance import cases

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


@pytest.mark.parametrize("style", ["LLaMa3", "Generic", "", None, "qwen"])
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
    ],
    ids=["float", "dict", "none-token", "float-token", "bool-token", "int-256", "int-negative"],
)
def test_unsupported_context(impl_function, context, error, named):
    with pytest.raises(error, match=named):
        impl_function("decode_context")(context)


@pytest.mark.parametrize("context", [None, "", b"", []], ids=repr)
def test_empty_context_is_empty_text(impl_function, context):
    assert impl_function("decode_context")(context) == ""
