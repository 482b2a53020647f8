"""The network mode's verdicts, checked offline against the snapshots' own facts."""

from __future__ import annotations

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases
from lcb_conformance.tokenizer_checks.hub_check import SnapshotFacts, main, verdict


@pytest.mark.parametrize("repo_id", cases.CHAT_TOKENIZERS)
def test_the_snapshot_template_passes_its_own_check(repo_id, chat_tokenizer):
    status, line = verdict(SnapshotFacts.read(repo_id), chat_tokenizer(repo_id).chat_template)
    assert status == exit_codes.OK and line.startswith("ok"), line


def test_a_changed_hub_template_is_a_mismatch_naming_the_repo(chat_tokenizer):
    facts = SnapshotFacts.read(cases.LLAMA3_TOKENIZER)
    template = chat_tokenizer(cases.LLAMA3_TOKENIZER).chat_template
    status, line = verdict(facts, template.replace("| trim", ""))
    assert status == exit_codes.DIFFERS
    assert line.startswith(f"MISMATCH {cases.LLAMA3_TOKENIZER}@main (unpinned)")
    assert "regenerate the goldens" in line


def test_offline_nothing_is_checked_and_it_is_not_green(capsys):
    # tests the console's contract: offline, one line says nothing was checked
    assert main([]) == exit_codes.INCOMPLETE
    assert "needs the network (HF_HUB_OFFLINE is set): nothing checked" in capsys.readouterr().err


def test_a_repo_without_a_snapshot_is_refused_naming_the_snapshots(capsys):
    # tests the console's contract: an input error is one line naming the snapshots
    with pytest.raises(SystemExit) as refused:
        main(["some-org/no-such-model"])
    assert refused.value.code == exit_codes.UNUSABLE
    err = capsys.readouterr().err
    assert "no snapshot of some-org/no-such-model" in err and cases.LLAMA3_TOKENIZER in err
