"""The network mode's verdicts, checked offline against the snapshots' own facts."""

from __future__ import annotations

import pytest

from lcb_conformance.suite import cases
from lcb_conformance.tokenizer_checks.hub_check import SnapshotFacts, main, verdict


@pytest.mark.parametrize("repo_id", cases.CHAT_TOKENIZERS)
def test_the_snapshot_template_passes_its_own_check(repo_id, chat_tokenizer):
    status, line = verdict(SnapshotFacts.read(repo_id), chat_tokenizer(repo_id).chat_template)
    assert status == 0 and line.startswith("ok"), line


def test_a_changed_hub_template_is_a_mismatch_naming_the_repo(chat_tokenizer):
    facts = SnapshotFacts.read(cases.LLAMA3_TOKENIZER)
    template = chat_tokenizer(cases.LLAMA3_TOKENIZER).chat_template
    status, line = verdict(facts, template.replace("| trim", ""))
    assert status == 1
    assert line.startswith(f"MISMATCH {cases.LLAMA3_TOKENIZER}@main (unpinned)")
    assert "regenerate the goldens" in line


def test_it_refuses_to_run_offline(capsys):
    assert main([]) == 2
    assert "needs the network" in capsys.readouterr().err
