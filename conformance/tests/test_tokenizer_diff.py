"""`lcb-conformance tokenizer-diff`: a tokenizer upgrade that changes what the model sees is
flagged (non-zero exit), identical tokenizers pass. The real April->May 2024 Llama-3 pair is in
test_real_vocab.py (it needs the real vocabularies)."""

from __future__ import annotations

import json
import shutil

from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import cases
from lcb_conformance.tokenizer_checks import tokenizer_diff

R1 = "deepseek-ai__DeepSeek-R1-Distill-Qwen-7B"
# The template before DeepSeek's February-2025 edit that made the generation prompt end in
# "<think>\n" (fixtures/tokenizers/_variants).
R1_BEFORE_THINK = (
    hf_cache.SNAPSHOTS_DIR / "_variants" / R1 / ("chat_template.pre-2025-02-think-update.jinja")
)
FEW = ["--problems", "2"]
FEW_IDS = list(cases.problems())[:2]


def style_diffs(old: str, new: str) -> dict[str, tokenizer_diff.StyleDiff]:
    """Per style, the record the command's report is printed from (tokenizer_diff.diff_style)."""
    old_tok, new_tok = tokenizer_diff.load(old), tokenizer_diff.load(new)
    return {
        style: tokenizer_diff.diff_style(old_tok, new_tok, style, FEW_IDS)
        for style in cases.TOKENIZED_STYLES
    }


def test_identical_tokenizers_pass():
    snapshot = str(hf_cache.SNAPSHOTS_DIR / R1)
    assert tokenizer_diff.main([snapshot, snapshot, *FEW]) == 0
    diffs = style_diffs(snapshot, snapshot)
    assert [d.cases for d in diffs.values()] == [len(FEW_IDS)] * len(diffs)
    assert not any(d.changed for d in diffs.values())


def test_r1_distill_think_edit_is_flagged_as_a_prompt_change(tmp_path):
    before = tmp_path / "before"
    shutil.copytree(hf_cache.SNAPSHOTS_DIR / R1, before)
    config = json.loads((before / "tokenizer_config.json").read_text("utf-8"))
    config["chat_template"] = R1_BEFORE_THINK.read_text("utf-8")
    (before / "tokenizer_config.json").write_text(json.dumps(config), "utf-8")

    status = tokenizer_diff.main([str(before), str(hf_cache.SNAPSHOTS_DIR / R1), *FEW])

    assert status == 1
    diffs = style_diffs(str(before), str(hf_cache.SNAPSHOTS_DIR / R1))
    generic = diffs[tokenizer_diff.CHAT_STYLE]
    assert generic.changed and (generic.prompts_changed, generic.cases) == (2, 2)
    # the first differing token is the new <think> after the assistant marker
    assert any("['<think>']" in line for line in generic.first)
    # the raw-string styles do not go through the template: unchanged
    assert not diffs["deepseekr1"].changed


def test_a_tokenizer_that_cannot_be_loaded_is_named(tmp_path, capsys):
    # tests the console's contract: a tokenizer that cannot be loaded is one line naming it
    snapshot = str(hf_cache.SNAPSHOTS_DIR / R1)
    missing = str(tmp_path / "no-such-tokenizer")
    assert tokenizer_diff.main([missing, snapshot, *FEW]) == 2
    assert f"cannot load tokenizer {missing!r}" in capsys.readouterr().err


def test_a_length_change_across_a_context_limit_is_named():
    assert tokenizer_diff.limits_crossed(4000, 4100) == [4096]
    assert tokenizer_diff.limits_crossed(4100, 9000) == [8192]
    assert tokenizer_diff.limits_crossed(100, 200) == []
