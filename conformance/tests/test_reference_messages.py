"""The reference lcb_prompts word for word where the goldens cannot see: its error messages
(docs/hardening.md's bad-input matrix quotes them) and its call to a tokenizer's
apply_chat_template.

Another implementation (--impl) only has to raise the same exception types, which
test_bad_input.py checks; these tests skip for it. Mutation testing (tox -e mutation) needs
them: without them a changed message or a changed apply_chat_template argument survives.
"""

from __future__ import annotations

import copy

import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.suite import cases

ROW = {"question_content": "Add two numbers.", "starter_code": ""}


@pytest.fixture
def reference(impl):
    if impl.name != implementation.REFERENCE:
        pytest.skip(f"the reference {implementation.REFERENCE}'s own messages, not {impl.name}'s")
    return impl.module


def message(call, *args, **kwargs) -> tuple[type, str]:
    with pytest.raises(Exception) as raised:
        call(*args, **kwargs)
    return type(raised.value), str(raised.value)


PROMPT_STYLES_TEXT = (
    "('generic', 'codeqwen', 'deepseek', 'genericbase', 'qwq', 'deepseekr1', 'claude', "
    "'gemini', 'geminithinking')"
)
MESSAGE_STYLES_TEXT = "('generic', 'oaireasonpreview', 'oaireason', 'claude3')"
STYLES_TEXT = PROMPT_STYLES_TEXT[:-1] + ", 'oaireasonpreview', 'oaireason', 'claude3')"


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        (
            (["question_content"],),
            {},
            (TypeError, "row must be a mapping (an LCB dataset row); got list"),
        ),
        (
            ({},),
            {},
            (ValueError, "row has no 'question_content' (lcb_runner's problem class requires it)"),
        ),
        (
            ({"question_content": b"q"},),
            {},
            (TypeError, "row['question_content'] must be str; got bytes"),
        ),
        (
            ({"question_content": "q", "starter_code": 3},),
            {},
            (TypeError, "row['starter_code'] must be str or None; got int"),
        ),
        (
            (ROW,),
            {"style": "LLaMa3"},
            (ValueError, f"style must be one of {PROMPT_STYLES_TEXT}; got 'LLaMa3'"),
        ),
        (
            (ROW,),
            {"style": "claude3"},
            (
                ValueError,
                "style 'claude3' is not sent this way by lcb_runner; use "
                f"format_lcb_messages(row, style='claude3') (styles here: {PROMPT_STYLES_TEXT})",
            ),
        ),
        (
            (ROW,),
            {"chat_template": True},
            (
                ValueError,
                "chat_template=True needs a tokenizer (lcb_runner renders the generic style with "
                "the Meta-Llama-3-8B-Instruct chat template); got tokenizer=None",
            ),
        ),
        (
            (ROW,),
            {"chat_template": True, "tokenizer": object()},
            (
                ValueError,
                "tokenizer 'object' has no chat_template; pass chat_template=False or a chat "
                "tokenizer",
            ),
        ),
    ],
    ids=[
        "not-a-mapping",
        "no-question",
        "question-bytes",
        "starter-int",
        "unknown-style",
        "message-style",
        "no-tokenizer",
        "not-a-tokenizer",
    ],
)
def test_format_lcb_prompt_messages(reference, args, kwargs, expected):
    assert message(reference.format_lcb_prompt, *args, **kwargs) == expected


@pytest.mark.parametrize(
    ("args", "kwargs", "expected"),
    [
        (
            ({},),
            {},
            (ValueError, "row has no 'question_content' (lcb_runner's problem class requires it)"),
        ),
        (
            (ROW,),
            {"style": "qwq"},
            (
                ValueError,
                "style 'qwq' is not sent this way by lcb_runner; use "
                f"format_lcb_prompt(row, style='qwq') (styles here: {MESSAGE_STYLES_TEXT})",
            ),
        ),
        (
            (ROW,),
            {"style": "OpenAIChat"},
            (ValueError, f"style must be one of {MESSAGE_STYLES_TEXT}; got 'OpenAIChat'"),
        ),
    ],
    ids=["no-question", "prompt-style", "unknown-style"],
)
def test_format_lcb_messages_messages(reference, args, kwargs, expected):
    assert message(reference.format_lcb_messages, *args, **kwargs) == expected


def test_a_tokenizer_without_template_is_named(reference, chat_tokenizer):
    tokenizer = copy.copy(chat_tokenizer(cases.LLAMA3_TOKENIZER))
    tokenizer.chat_template = None
    assert message(reference.format_lcb_prompt, ROW, tokenizer=tokenizer, chat_template=True) == (
        ValueError,
        f"tokenizer '{cases.LLAMA3_TOKENIZER}' has no chat_template; pass chat_template=False "
        "or a chat tokenizer",
    )


@pytest.mark.parametrize("function", ["extract_code", "extract_code_prefix"])
def test_extraction_messages(reference, function):
    call = getattr(reference, function)
    assert message(call, None) == (TypeError, "model_output must be str; got NoneType")
    assert message(call, b"x") == (
        TypeError,
        "model_output must be str; got bytes (decode it first, e.g. with decode_context)",
    )
    assert message(call, "x", style="qwen") == (
        ValueError,
        f"style must be one of {STYLES_TEXT}; got 'qwen'",
    )


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (3.5, (TypeError, "context must be str, bytes, or a list/tuple of tokens; got float")),
        ([True], (TypeError, "context[0] is a bool, not a byte id")),
        ([b"", 256], (ValueError, "context[1] = 256 is not a byte id (0..255)")),
        ([-1], (ValueError, "context[0] = -1 is not a byte id (0..255)")),
        ([b"", 1.5], (TypeError, "context[1] must be bytes, int or str; got float")),
    ],
    ids=["float", "bool-token", "int-256", "int-negative", "float-token"],
)
def test_decode_context_messages(reference, context, expected):
    assert message(reference.decode_context, context) == expected


class RecordingTokenizer:
    """Just enough of a chat tokenizer to see how format_lcb_prompt calls it."""

    chat_template = "{{ messages }}"
    name_or_path = "recording"

    def __init__(self):
        self.calls: list[tuple[list, dict]] = []

    def apply_chat_template(self, messages, **kwargs):
        self.calls.append((messages, kwargs))
        return "rendered"


def test_the_chat_template_call(reference):
    """System and user messages, rendered as text with the generation prompt; enable_thinking
    is left out of the call entirely when None (a template may test 'is defined')."""
    tokenizer = RecordingTokenizer()
    assert reference.format_lcb_prompt(ROW, tokenizer=tokenizer, chat_template=True) == "rendered"
    plain = reference.format_lcb_prompt(ROW)
    system, _, user = plain.partition("\n\n")
    ((messages, kwargs),) = tokenizer.calls
    assert messages == [
        {"role": "system", "content": system},
        {"role": "user", "content": user},
    ]
    assert system == reference.SYSTEM_MESSAGE
    assert kwargs == {"tokenize": False, "add_generation_prompt": True}
    assert kwargs["tokenize"] is False


@pytest.mark.parametrize("thinking", [True, False])
def test_enable_thinking_is_forwarded(reference, thinking):
    tokenizer = RecordingTokenizer()
    reference.format_lcb_prompt(
        ROW, tokenizer=tokenizer, chat_template=True, enable_thinking=thinking
    )
    ((_, kwargs),) = tokenizer.calls
    assert kwargs == {"tokenize": False, "add_generation_prompt": True, "enable_thinking": thinking}
    assert kwargs["enable_thinking"] is thinking


# --- lcb_prompts.PrefixExtractor (reference only): what mutation testing found untested ----


def test_prefix_extractor_message(reference):
    assert message(reference.PrefixExtractor().feed, b"```") == (
        TypeError,
        "chunk must be str; got bytes",
    )


@pytest.mark.parametrize("style", ["generic", "genericbase"])
def test_prefix_extractor_cuts_at_the_last_think_close_in_one_chunk(reference, style):
    """Two </think> in one chunk: the answer starts after the last, not the first."""
    text = "x</think>```\nab</think>cd"
    extractor = reference.PrefixExtractor(style)
    assert extractor.feed(text) == reference.extract_code_prefix(text, style)
    assert extractor.feed(text) == reference.extract_code_prefix(text + text, style)
