"""Regeneration: shows what changed, and never loses a golden when upstream fails for a case.
The tests read the outcomes from its record (--json FILE); those that read the console say so."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import PINNED_COMMIT, Upstream, regen

# regeneration's mechanics: a golden under another transformers line is the drift run's
pytestmark = [pytest.mark.upstream, pytest.mark.transformers_independent]


@pytest.fixture
def source(pytestconfig) -> str:
    return f"--upstream={pytestconfig.getoption('--upstream')}"


def regen_record(tmp_path, *argv: str) -> tuple[int, dict]:
    """The command's exit code and its record (--json FILE): what the tests read."""
    target = tmp_path / "regen-record.json"
    code = regen.main([*argv, "--json", str(target)])
    return code, json.loads(target.read_text("utf-8"))


def outcomes(record: dict) -> dict[str, dict]:
    """Each golden's outcome by case id."""
    return {golden["id"]: golden for golden in record["goldens"]}


def test_only_the_reference_writes_goldens(golden_copy, capsys):
    # tests the console's contract: the refusal is one line on stderr saying what to do
    before = goldens.manifest_lines()
    assert regen.main(["--upstream=installed"]) == 2
    error = capsys.readouterr().err
    assert f"goldens come from lcb_runner at {PINNED_COMMIT[:7]} only" in error
    assert "is not a clean checkout of it" in error and "--check compares" in error
    assert goldens.manifest_lines() == before


def test_a_failing_case_keeps_its_golden_and_is_reported(
    golden_copy, monkeypatch, capsys, source, tmp_path
):
    failing = GoldenKey(goldens.EXTRACT, "generic", "two_blocks_last_wins")
    tampered = GoldenKey(goldens.EXTRACT, "codeqwen", "two_blocks_last_wins")
    kept = failing.path.read_bytes()
    tampered.path.write_bytes(b"hand-edited\r\n")
    real_extract = Upstream.extract

    def extract(self, style, output):
        if style == failing.group and output == cases.outputs()[failing.case].output:
            raise RuntimeError("upstream exploded")
        return real_extract(self, style, output)

    monkeypatch.setattr(Upstream, "extract", extract)
    # How a failure is handled, whatever upstream this run has (the installed stand-in lacks
    # some LMStyles: those cases fail too, and keep their goldens).
    monkeypatch.setattr(Upstream, "is_pinned", lambda self: True)
    code, record = regen_record(tmp_path, source)
    assert code == record["exit_code"] == exit_codes.INCOMPLETE
    found = outcomes(record)
    assert found[str(failing)]["outcome"] == regen.FAILED
    assert found[str(failing)]["error"] == {"type": "RuntimeError", "message": "upstream exploded"}
    assert found[str(failing)]["path"] == failing.relative
    assert failing.path.read_bytes() == kept
    assert found[str(tampered)]["outcome"] == regen.CHANGED
    assert tampered.path.read_bytes() != b"hand-edited\r\n"
    assert str(failing) in goldens.provenance()["kept_from_previous_run"]
    assert record["totals"][regen.FAILED] == sum(
        golden["outcome"] == regen.FAILED for golden in record["goldens"]
    )
    # tests the console's contract: it names the failed case and shows the change, bytes escaped
    printed = capsys.readouterr().out
    assert f"FAILED {failing}: RuntimeError: upstream exploded (old golden kept)" in printed
    assert f"CHANGED {tampered}: differs from the old golden" in printed
    assert "hand-edited\\r\\n" in printed


def test_check_mode_writes_nothing_and_reports_drift(golden_copy, source, tmp_path):
    tampered = GoldenKey(goldens.PROMPT, "deepseek", next(iter(cases.problems())))
    tampered.path.write_bytes(tampered.path.read_bytes() + b" ")
    code, record = regen_record(tmp_path, source, "--check")
    assert code == record["exit_code"] == exit_codes.DIFFERS
    assert record["mode"] == "check"
    assert outcomes(record)[str(tampered)]["outcome"] == regen.CHANGED
    assert tampered.path.read_bytes().endswith(b" ")


def test_the_record_names_what_this_upstream_cannot_produce(golden_copy, tmp_path):
    """The installed stand-in (PyPI's older lcb_runner) lacks LMStyles the goldens hold, and
    its judge predates 16de2a1's stdin fix: --check compares what it can (the judge goldens
    differ: exit 1), and records each golden it cannot produce as not in this upstream with
    upstream's error."""
    code, record = regen_record(tmp_path, "--upstream=installed", "--check")
    assert code == record["exit_code"] == exit_codes.DIFFERS
    changed = {g["family"] for g in record["goldens"] if g["outcome"] == regen.CHANGED}
    assert goldens.JUDGE in changed
    assert record["upstream"]["source"] == "installed" and record["upstream"]["pinned"] is False
    absent = [g for g in record["goldens"] if g["outcome"] == regen.NOT_IN_THIS_UPSTREAM]
    assert absent and {g["error"]["type"] for g in absent} == {"UpstreamMissing"}
    kinds = (*regen.COUNTED, regen.KEPT)
    assert sum(record["totals"][kind] for kind in kinds) == len(record["goldens"])
    kept = [g["kept"]["reason"] for g in record["goldens"] if g["outcome"] == regen.KEPT]
    assert record["totals"]["kept_by_reason"] == dict(Counter(kept))


def test_an_unwritable_record_exits_6(golden_copy, monkeypatch, source, tmp_path, capsys):
    # tests the console's contract: the record not written is one line on stderr
    monkeypatch.setattr(regen.families, "expected_keys", list)  # no golden produced: quick
    (tmp_path / "a-file").write_text("", "utf-8")
    code = regen.main([source, "--check", "--json", str(tmp_path / "a-file" / "record.json")])
    assert code == exit_codes.REPORT_NOT_WRITTEN
    assert "lcb-conformance regen: JSON report not written" in capsys.readouterr().err


def test_current_goldens_are_what_the_reference_produces(golden_copy, upstream, source, tmp_path):
    if not upstream.is_pinned():
        pytest.skip(
            f"{upstream.describe_source()} is not lcb_runner {PINNED_COMMIT[:7]}, which made the "
            "goldens (the drift run compares it case by case)"
        )
    code, record = regen_record(tmp_path, source, "--check")
    differing = [g for g in record["goldens"] if g["outcome"] not in (regen.UNCHANGED, regen.KEPT)]
    assert code == record["exit_code"] == exit_codes.OK, differing
    assert record["case_index"]["outcome"] == regen.UNCHANGED
    assert record["upstream"]["commit"] == PINNED_COMMIT and record["upstream"]["dirty"] is False
