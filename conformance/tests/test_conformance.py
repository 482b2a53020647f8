"""The implementation under test against the goldens: every prompt and every extraction
byte-for-byte as upstream lcb_runner produced it (plus the documented deviations)."""

from __future__ import annotations

import pytest

from lcb_conformance import audit, cases, deviations, goldens
from lcb_conformance.goldens import GoldenKey


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.PROMPT), ids=str)
def test_prompt(key, impl_function, chat_tokenizer, golden):
    variant = cases.VARIANTS[key.group]
    format_lcb_prompt = impl_function("format_lcb_prompt")
    tokenizer = chat_tokenizer(variant.tokenizer) if variant.chat_template else None
    prompt = format_lcb_prompt(
        cases.problems()[key.case],
        tokenizer=tokenizer,
        chat_template=variant.chat_template,
        style=variant.style,
    )
    assert prompt == golden(key)


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.MESSAGES), ids=str)
def test_messages(key, impl_function, golden):
    """A message LMStyle's chat messages, in lcb_runner's shape (list, or Claude3's
    (system, messages)), compared as canonical JSON."""
    variant = cases.MESSAGE_VARIANTS_BY_NAME[key.group]
    messages = impl_function("format_lcb_messages")(cases.problems()[key.case], style=variant.style)
    assert goldens.canonical_json(messages) == golden(key)


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.CHAT_PROMPT), ids=str)
def test_chat_prompt(key, impl_function, chat_tokenizer, golden):
    """The generic style through each family's own template (what lcb_runner does with
    Meta-Llama-3-8B-Instruct's), Qwen3 with enable_thinking None / True / False."""
    rendering = cases.RENDERINGS[key.group]
    prompt = impl_function("format_lcb_prompt")(
        cases.problems()[key.case],
        tokenizer=chat_tokenizer(rendering.tokenizer),
        chat_template=True,
        style="generic",
        enable_thinking=rendering.enable_thinking,
    )
    assert prompt == golden(key)


# Token behaviour differs between transformers lines; each line checks its own audits.
@pytest.mark.parametrize(
    "key",
    [key for key in goldens.expected_keys(goldens.TOKEN_AUDIT) if goldens.in_this_environment(key)],
    ids=str,
)
def test_token_audit(key, impl_function, chat_tokenizer, golden):
    _, tokenizer_id, style, question_id = goldens.parse_audit_key(key)
    tokenizer = chat_tokenizer(tokenizer_id)
    prompt = impl_function("format_lcb_prompt")(
        cases.problems()[question_id],
        tokenizer=tokenizer,
        chat_template=style == "generic",
        style=style,
    )
    assert audit.render(audit.audit(tokenizer, prompt)) == golden(key)


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.EXTRACT), ids=str)
def test_extract_code(key, impl_function, golden):
    extract_code = impl_function("extract_code")
    extracted = extract_code(cases.outputs()[key.case].output, style=key.group)
    if (key.case, key.group) not in deviations.think_deviations():
        assert extracted == golden(key)
        return
    # Documented deviation (deviations.toml): upstream's extraction of the answer after
    # the last </think>, which is not what upstream extracts from the whole output.
    assert extracted == golden(GoldenKey(goldens.EXTRACT_AFTER_THINK, key.group, key.case))
    assert extracted != goldens.read(key)


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.REFERENCE_PREFIX), ids=str)
def test_extract_code_prefix(key, impl_function, golden):
    extract_code_prefix = impl_function("extract_code_prefix")
    assert extract_code_prefix(cases.outputs()[key.case].output, style=key.group) == golden(key)


@pytest.mark.parametrize("key", goldens.expected_keys(goldens.REFERENCE_DECODE), ids=str)
def test_decode_context(key, impl_function, golden):
    decode_context = impl_function("decode_context")
    assert decode_context(cases.contexts()[key.case]) == golden(key)
