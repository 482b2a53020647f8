"""Regeneration: shows what changed, and never loses a golden when upstream fails for a case."""

from __future__ import annotations

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import PINNED_COMMIT, Upstream, regen

pytestmark = pytest.mark.upstream


@pytest.fixture
def source(pytestconfig) -> str:
    return f"--upstream={pytestconfig.getoption('--upstream')}"


def test_only_the_reference_writes_goldens(golden_copy, capsys):
    # tests the console's contract: the refusal is one line on stderr saying what to do
    before = goldens.manifest_lines()
    assert regen.main(["--upstream=installed"]) == 2
    error = capsys.readouterr().err
    assert f"goldens come from lcb_runner at {PINNED_COMMIT[:7]} only" in error
    assert "is not a clean checkout of it" in error and "--check compares" in error
    assert goldens.manifest_lines() == before


def test_a_failing_case_keeps_its_golden_and_is_reported(
    golden_copy, monkeypatch, capsys, source
):
    # tests the console's contract: regen names each case on the console only (PROVENANCE.json
    # records the kept ones)
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
    assert regen.main([source]) == exit_codes.INCOMPLETE
    printed = capsys.readouterr().out
    assert f"FAILED {failing}: RuntimeError: upstream exploded (old golden kept)" in printed
    assert failing.path.read_bytes() == kept
    assert f"CHANGED {tampered}: differs from the old golden" in printed
    assert "hand-edited\\r\\n" in printed
    assert tampered.path.read_bytes() != b"hand-edited\r\n"
    assert str(failing) in goldens.provenance()["kept_from_previous_run"]


def test_check_mode_writes_nothing_and_reports_drift(golden_copy, capsys, source):
    # tests the console's contract: --check names each changed golden on the console only
    tampered = GoldenKey(goldens.PROMPT, "deepseek", next(iter(cases.problems())))
    tampered.path.write_bytes(tampered.path.read_bytes() + b" ")
    assert regen.main([source, "--check"]) == 1
    assert f"CHANGED {tampered}" in capsys.readouterr().out
    assert tampered.path.read_bytes().endswith(b" ")


def test_current_goldens_are_what_the_reference_produces(golden_copy, capsys, upstream, source):
    if not upstream.is_pinned():
        pytest.skip(
            f"{upstream.describe_source()} is not lcb_runner {PINNED_COMMIT[:7]}, which made the "
            "goldens (the drift run compares it case by case)"
        )
    assert regen.main([source, "--check"]) == 0, capsys.readouterr().out
