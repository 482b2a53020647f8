"""Token-id goldens: the ids a model receives for every token-audited (style, family) prompt under
the real tokenizers. The real tokenizers reproduce them (realvocab-marked: tox -e realvocab,
realvocab-tf457); offline, each golden is well-formed and about the very prompt its token audit
audits, and a mismatch is reported by its first differing token, decoded on both sides."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.offline_tokenizers import hf_cache, token_ids
from lcb_conformance.offline_tokenizers import real_vocab_sources as sources
from lcb_conformance.suite import families, goldens, tokenization
from lcb_conformance.tokenizer_checks import tokenizer_diff
from lcb_conformance.upstream.producers import Producer

THIS_LINE = [
    key for key in families.expected_keys(goldens.TOKEN_IDS) if families.in_this_environment(key)
]
EVERY_LINE = families.expected_keys(goldens.TOKEN_IDS)


@pytest.mark.realvocab
@pytest.mark.parametrize("key", THIS_LINE, ids=str)
def test_real_tokenizer_gives_the_golden_token_ids(key, real_tokenizer):
    """lcb_runner's prompt (the goldens' string; for generic its OpenAIChat messages through the
    tokenizer's template) tokenized by the real tokenizer with and without special tokens, and
    for generic by the template with tokenize=True: the recorded ids, lengths and prompt."""
    _, repo_id, style, question_id = goldens.parse_tokenized_key(key)
    tokenizer = real_tokenizer(repo_id)
    now = tokenizer_diff.model_input(tokenizer, style, question_id)
    recorded_sha, recorded = token_ids.parse(goldens.read(key))
    differences = [
        f"{how}: "
        + token_ids.first_token_difference(
            tokenizer, recorded.get(how, []), tokenizer, ids, ("golden", "now")
        )
        for how, ids in now["ids"].items()
        if recorded.get(how) != ids
    ]
    assert not differences, "\n".join(differences)
    assert token_ids.render(now["prompt"], now["ids"]) == goldens.read(key)


@pytest.mark.parametrize("key", EVERY_LINE, ids=str)
def test_token_ids_golden_is_about_the_audited_prompt(key):
    """Well-formed (each block's count is its number of ids) and tokenizing the prompt the token
    audit of the same case audits (the same sha256)."""
    sha, found = token_ids.parse(goldens.read(key))
    audited = goldens.GoldenKey(goldens.TOKENIZATION, key.group, key.case)
    assert sha == json.loads(goldens.read(audited))["prompt_sha256"]
    generic = goldens.parse_tokenized_key(key)[2] == tokenizer_diff.CHAT_STYLE
    assert list(found) == [
        token_ids.WITH_SPECIALS,
        token_ids.WITHOUT_SPECIALS,
        *([token_ids.FROM_MESSAGES] if generic else []),
    ]


def test_a_changed_id_is_named_and_decoded_on_both_sides():
    """The report of a mismatch: the first differing position, both ids, the lengths, and the
    tokens around it decoded on each side (here: a golden and a copy with one id replaced)."""
    key = goldens.GoldenKey(
        goldens.TOKEN_IDS,
        f"{tokenization.transformers_line()}/Qwen__Qwen3-8B",
        goldens.tokenized_case("codeqwen", "atc_stamp_card_rally"),
    )
    ids = token_ids.parse(goldens.read(key))[1][token_ids.WITH_SPECIALS]
    changed = [*ids[:5], ids[5] + 1, *ids[6:]]
    tokenizer = hf_cache.load_tokenizer("Qwen/Qwen3-8B")

    report = token_ids.first_token_difference(tokenizer, ids, tokenizer, changed)

    before, after = repr(tokenizer.decode(ids[2:5])), repr(tokenizer.decode(ids[6:9]))
    assert report.split("\n") == [
        f"token 5: {ids[5]} -> {ids[5] + 1} (lengths {len(ids)} -> {len(ids)})",
        f"      old {before} [{tokenizer.decode([ids[5]])!r}] {after}",
        f"      new {before} [{tokenizer.decode([ids[5] + 1])!r}] {after}",
    ]


def test_malformed_token_ids_text_is_named():
    with pytest.raises(ValueError, match="says '3 ids', holds 2 ids"):
        token_ids.parse("prompt sha256 00\n\nstring, add_special_tokens=True: 3 ids\n1 2\n")
    with pytest.raises(ValueError, match="must start with 'prompt sha256 '"):
        token_ids.parse("1 2 3\n")


def test_without_the_real_vocabularies_token_ids_are_not_producible_here(tmp_path, monkeypatch):
    """What makes regeneration keep the token-id goldens instead of failing or deleting them
    (the upstream is never reached: the real tokenizers come first)."""
    monkeypatch.setattr(sources, "DEFAULT_CACHE", tmp_path)
    with pytest.raises(families.NotProducibleHere, match="token ids need the real vocabularies"):
        Producer(upstream=None)(THIS_LINE[0])
