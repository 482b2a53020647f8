"""The real vocabularies (tox -e realvocab): six real tokenizers assembled from registry packages,
verified against independent references, and the synthetic snapshots held to them on every
special-token fact the default suite asserts."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.offline_tokenizers import hf_cache, real_vocab
from lcb_conformance.offline_tokenizers.token_ids import WITH_SPECIALS
from lcb_conformance.suite import cases, families, goldens, tokenization
from lcb_conformance.tokenizer_checks import tokenizer_diff

pytestmark = pytest.mark.realvocab

REPO_IDS = {folder: folder.replace("__", "/", 1) for folder in real_vocab.MODELS}


@pytest.mark.parametrize("folder", real_vocab.MODELS)
def test_real_tokenizer_is_verified(folder, real_tokenizer, real_cache):
    """llama.cpp's reference tokenizations, the sanity ids, the snapshot's chat template sha256
    and BOS/EOS, and a shipped tokenizer_config.json equal to the snapshot's."""
    problems = real_vocab.verify(folder, real_tokenizer(REPO_IDS[folder]), real_cache)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("folder", real_vocab.MODELS)
def test_bos_on_plain_text_is_the_snapshots(folder, real_tokenizer):
    """tokenizer("hi") adds a BOS exactly when the snapshot says so, per transformers line."""
    expected = json.loads((hf_cache.SNAPSHOTS_DIR / "families.json").read_text("utf-8"))
    four = tokenization.transformers_line() == "transformers-4"
    line = "transformers<5" if four else "transformers>=5"
    want = expected["snapshots"][folder]["expected"]["bos_count_hi"][line]
    tokenizer = real_tokenizer(REPO_IDS[folder])
    bos = tokenizer.bos_token_id
    got = {
        f"add_special_tokens={flag}": tokenizer("hi", add_special_tokens=flag)["input_ids"].count(
            bos
        )
        if bos is not None
        else 0
        for flag in (True, False)
    }
    assert got == want


def _marker_kind(status: str) -> str:
    """A marker's status without the piece count of a split marker (vocabulary-dependent)."""
    return "text" if status.startswith("text (") else status


def _special_token_facts(record: dict) -> dict:
    """What a token audit asserts about special tokens (not the vocabulary-dependent length)."""
    return {
        "prompt_sha256": record["prompt_sha256"],
        "bos_token": record["bos_token"],
        "bos_count": record["bos_count"],
        "special_tokens_in_order": record["special_tokens_in_order"],
        "markers_in_prompt": {m: _marker_kind(s) for m, s in record["markers_in_prompt"].items()},
    }


def _audited_prompt(style: str, repo_id: str, question_id: str) -> str:
    if style == "generic":
        key = goldens.GoldenKey(goldens.CHAT_PROMPT, cases.ChatRendering(repo_id).name, question_id)
    else:
        key = goldens.GoldenKey(goldens.PROMPT, style, question_id)
    return goldens.read(key)


AUDIT_KEYS = [
    k for k in families.expected_keys(goldens.TOKENIZATION) if families.in_this_environment(k)
]


@pytest.mark.parametrize("key", AUDIT_KEYS, ids=str)
def test_token_audit_golden_holds_with_the_real_vocabulary(key, real_tokenizer):
    """Every special-token fact of a token-audit golden (BOS counts, special tokens in order,
    each marker one special token / one added token / split text) is the same when the audited
    prompt is tokenized by the real vocabulary instead of the snapshot's byte-level one."""
    _, repo_id, style, question_id = goldens.parse_tokenized_key(key)
    recorded = json.loads(goldens.read(key))
    prompt = _audited_prompt(style, repo_id, question_id)
    real = tokenization.record(real_tokenizer(repo_id), prompt)
    assert _special_token_facts(real) == _special_token_facts(recorded)


@pytest.mark.parametrize("folder", real_vocab.MODELS)
def test_every_style_marker_has_the_snapshots_status(folder, real_tokenizer):
    """Markers absent from the audited prompts too: special/added token ids, or split."""
    repo_id = REPO_IDS[folder]
    real, snapshot = real_tokenizer(repo_id), hf_cache.load_tokenizer(repo_id)
    assert {m: _marker_kind(tokenization.marker_status(real, m)) for m in cases.STYLE_MARKERS} == {
        m: _marker_kind(tokenization.marker_status(snapshot, m)) for m in cases.STYLE_MARKERS
    }


def test_llama3_april_to_may_2024_flags_the_bos_change_with_equal_prompts(real_cache):
    """Meta-Llama-3-8B-Instruct as first published (April 2024) and as revised (May 2024):
    every rendered prompt is the same string, but tokenizing it with special tokens gives one
    more BOS (the May tokenizer.json prepends <|begin_of_text|>), and EOS moved to <|eot_id|>."""
    april, may = real_cache / "llama3-2024-04", real_cache / "llama3-2024-05"

    status = tokenizer_diff.main([str(april), str(may), "--problems", "2"])

    assert status == 1
    old, new = tokenizer_diff.load(str(april)), tokenizer_diff.load(str(may))
    problems = list(cases.problems())[:2]
    diffs = [tokenizer_diff.diff_style(old, new, s, problems) for s in cases.TOKENIZED_STYLES]
    assert diffs and all((d.prompts_changed, d.cases) == (0, 2) for d in diffs)
    (generic,) = [d for d in diffs if d.style == tokenizer_diff.CHAT_STYLE]
    assert generic.ids_changed[WITH_SPECIALS] == 2 and generic.bos == {(1, 2)}
    before, after = tokenizer_diff.tokenizer_facts(old), tokenizer_diff.tokenizer_facts(new)
    changed = {name: (before[name], after[name]) for name in before if before[name] != after[name]}
    assert changed["eos_token_id"] == ("128001", "128009")
    assert changed["BOS added to a string"] == ("0", "1")
