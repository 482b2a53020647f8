"""The implementation under test against the goldens: every prompt, message list and
extraction byte for byte as upstream lcb_runner produced it (plus the documented deviations).

Cases come from the case index (lcb_conformance.suite.index): each names the call, its
fixture inputs and its golden; a test's id is the case's id."""

from __future__ import annotations

import pytest

from lcb_conformance.suite import audit, families, goldens, index


def cases_of(family: str, this_line_only: bool = False):
    held = index.held_cases(family)
    if this_line_only:  # token behaviour differs between transformers lines
        held = [c for c in held if c["transformers_line"] == audit.transformers_line()]
    return pytest.mark.parametrize("case", held, ids=[c["id"] for c in held])


def golden_key(case: dict) -> goldens.GoldenKey:
    """The golden a case is held to (a listed deviation's is another family's)."""
    return families.key_of(case["golden"])


def call(case: dict, impl_function, chat_tokenizer):
    arguments = index.arguments(case["call"])
    if arguments.get("tokenizer") is not None:
        arguments["tokenizer"] = chat_tokenizer(arguments["tokenizer"])
    return impl_function(case["call"]["function"])(**arguments)


@cases_of(goldens.PROMPT)
def test_prompt(case, impl_function, chat_tokenizer, golden):
    assert call(case, impl_function, chat_tokenizer) == golden(golden_key(case))


@cases_of(goldens.MESSAGES)
def test_messages(case, impl_function, chat_tokenizer, golden):
    """A message LMStyle's chat messages, in lcb_runner's shape (list, or Claude3's
    (system, messages)), compared as canonical JSON."""
    messages = call(case, impl_function, chat_tokenizer)
    assert goldens.canonical_json(messages) == golden(golden_key(case))


@cases_of(goldens.CHAT_PROMPT)
def test_chat_prompt(case, impl_function, chat_tokenizer, golden):
    """The generic style through each family's own template (what lcb_runner does with
    Meta-Llama-3-8B-Instruct's), Qwen3 with enable_thinking None / True / False."""
    assert call(case, impl_function, chat_tokenizer) == golden(golden_key(case))


@cases_of(goldens.TOKEN_AUDIT, this_line_only=True)
def test_token_audit(case, impl_function, chat_tokenizer, golden):
    prompt = call(case, impl_function, chat_tokenizer)
    tokenizer = chat_tokenizer(case["call"]["args"]["tokenizer"])
    assert audit.render(audit.audit(tokenizer, prompt)) == golden(golden_key(case))


@cases_of(goldens.EXTRACT)
def test_extract_code(case, impl, impl_function, chat_tokenizer, golden):
    """lcb_runner's extraction; for a case of a deviation the implementation declares
    (DEVIATIONS), that deviation's golden instead."""
    extracted = call(case, impl_function, chat_tokenizer)
    held_to = families.key_of(index.golden_held_to(case, impl.deviations))
    assert extracted == golden(held_to)
    if held_to != families.key_of(case["id"]):
        # deviations.toml: upstream's extraction of the answer after the last </think>,
        # which is not what upstream extracts from the whole output.
        assert extracted != goldens.read(families.key_of(case["id"]))


@cases_of(goldens.REFERENCE_PREFIX)
def test_extract_code_prefix(case, impl_function, chat_tokenizer, golden):
    assert call(case, impl_function, chat_tokenizer) == golden(golden_key(case))


@cases_of(goldens.REFERENCE_DECODE)
def test_decode_context(case, impl_function, chat_tokenizer, golden):
    assert call(case, impl_function, chat_tokenizer) == golden(golden_key(case))
