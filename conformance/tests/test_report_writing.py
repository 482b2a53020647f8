"""The report writers never crash on a string and never leave half a file
(lcb_conformance.reports.report): lone surrogates, NUL, control characters and megabytes are
escaped and visible; a report that cannot be written raises ReportNotWritten and leaves
nothing (or the previous report) at its path. Every command writes its reports the same way
(lcb_conformance.common.report_files): whole or absent, with the umask's mode, and a report it
cannot write is exit 6 with one line on stderr."""

from __future__ import annotations

import json
import os
from collections import Counter

import jsonschema
import miniatures
import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.common import exit_codes, paths, report_files
from lcb_conformance.reports import report
from lcb_conformance.reports.verdict import Verdict
from lcb_conformance.runner import results
from lcb_conformance.runner import run as runner
from lcb_conformance.suite import goldens, index

HOSTILE = miniatures.HOSTILE
# Past the side-by-side limit (the 10 MB case runs end to end in test_cli_report.py).
LARGE = "x" * (report.SIDE_BY_SIDE_LIMIT + 1)


def hostile_run(adapter=miniatures.hostile) -> Verdict:
    """Two extraction cases through the runner, and a failed contract case whose reason
    carries the hostile string."""
    impl = implementation.wrap("hostile", adapter)
    cases = index.held_cases(goldens.EXTRACT)[:2]
    found = [runner.Runner(impl).golden(case) for case in cases]
    found.append(
        results.CaseResult(
            "contract/utf-8/decode-context[byte-ids]", results.CONTRACT, "utf-8", "extract_code",
            (runner.CONTRACT_ROW, "utf-8"), results.FAILED, reason=f"UnicodeError: {HOSTILE}",
        )
    )  # fmt: skip
    return Verdict(results.ConformanceRun(results.header(impl.describe(), len(found)), found))


def test_hostile_strings_give_valid_json_that_loses_nothing(tmp_path):
    path = tmp_path / "report.json"
    report.write_json(hostile_run(), path)
    data = json.loads(path.read_bytes().decode("utf-8"))  # strict UTF-8: no raw surrogate
    assert data["failures"][0]["actual"] == HOSTILE
    assert HOSTILE in data["failures"][-1]["reason"]


def test_hostile_strings_are_visible_in_the_html(tmp_path):
    path = tmp_path / "report.html"
    report.write_html(hostile_run(), path)
    page = path.read_bytes().decode("utf-8")
    assert "\x00" not in page and "\x1b" not in page and "\x85" not in page
    assert '<span class="escape">\\ud800</span>' in page  # the contract's reason, made visible
    assert '<span class="escape">\\x00</span>' in page
    assert "\\ud800" in page and "\\x1b" in page  # the showdiff report of the actual text


def test_a_large_output_is_reported_whole_without_a_side_by_side_diff(tmp_path):
    large = type(miniatures.hostile)(extract_code=lambda model_output, style="generic": LARGE)
    run = hostile_run(large)
    report.write_json(run, tmp_path / "r.json")
    report.write_html(run, tmp_path / "r.html")
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))["failures"][0]["actual"] == LARGE
    page = (tmp_path / "r.html").read_text("utf-8")
    assert "No side-by-side diff: " in page and '<table class="diff"' not in page


@pytest.mark.parametrize("blocker", ["directory", "file-as-parent"])
def test_an_unwritable_path_raises_and_leaves_nothing(tmp_path, blocker):
    if blocker == "directory":
        path = tmp_path / "report.json"
        path.mkdir()
    else:
        (tmp_path / "not-a-dir").write_text("")
        path = tmp_path / "not-a-dir" / "report.json"
    with pytest.raises(report_files.ReportNotWritten, match="cannot write"):
        report.write_json(hostile_run(), path)
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]


def test_a_failed_write_keeps_the_previous_report(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    path.write_text("previous report", "utf-8")

    def disk_full(source, destination):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_files.os, "replace", disk_full)
    with pytest.raises(report_files.ReportNotWritten, match="No space left on device"):
        report.write_html(hostile_run(), path)
    assert path.read_text("utf-8") == "previous report"
    assert os.listdir(tmp_path) == ["report.html"]  # the temporary file is gone


@pytest.mark.parametrize(
    "adapter", [miniatures.hostile, miniatures.not_text, miniatures.raises],
    ids=["text", "no-text", "raises"],
)  # fmt: skip
def test_the_json_report_is_what_its_published_schema_describes(adapter, tmp_path):
    """report.schema.json ships in the package; its schema string is the report's."""
    schema = json.loads(paths.REPORT_SCHEMA.read_text("utf-8"))
    report.write_json(hostile_run(adapter), tmp_path / "r.json")
    data = json.loads((tmp_path / "r.json").read_text("utf-8"))
    jsonschema.validate(data, schema)
    assert data["schema"] == report.SCHEMA == schema["properties"]["schema"]["const"]


def test_a_results_file_is_what_its_published_schema_describes(tmp_path):
    """Every line of a results file, hostile answers included, is valid against
    results.schema.json, ASCII, and read back as the same results."""
    schema = json.loads(paths.RESULTS_SCHEMA.read_text("utf-8"))
    run = hostile_run().run
    writer = results.ResultsWriter(tmp_path / "results.jsonl", run.header)
    for result in run.results:
        writer.write(result)
    writer.close(dict(Counter(result.status for result in run.results)))
    raw = (tmp_path / "results.jsonl").read_bytes()
    assert raw.isascii()
    for line in raw.decode("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)
    again = results.read(tmp_path / "results.jsonl")
    assert again.complete and again.results == run.results


def test_a_results_file_without_its_footer_is_an_unfinished_run(tmp_path):
    run = hostile_run().run
    writer = results.ResultsWriter(tmp_path / "results.jsonl", run.header)
    writer.write(run.results[0])
    writer.abandon()
    again = results.read(tmp_path / "results.jsonl")
    assert not again.complete and again.results == run.results[:1]
    verdict = Verdict(again)
    assert "INCOMPLETE, the run did not finish: it holds 1 of the 3 cases it planned" in (
        verdict.headline()
    )
    assert verdict.exit_code() == exit_codes.DIFFERS  # what it holds differs: 1 before 4


# ---- every command alike ---------------------------------------------------------------------


@pytest.fixture
def umask():
    """Set the process umask for one test (what a shell's umask does), then restore it."""
    previous = os.umask(0o022)
    yield lambda mask: os.umask(mask)
    os.umask(previous)


@pytest.mark.parametrize(("mask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_report_has_the_mode_the_umask_gives_a_new_file(tmp_path, umask, mask, mode):
    umask(mask)
    report.write_json(hostile_run(), tmp_path / "r.json")
    report_files.write_atomically(tmp_path / "r.md", "text\n")
    assert oct((tmp_path / "r.json").stat().st_mode & 0o777) == oct(mode)
    assert oct((tmp_path / "r.md").stat().st_mode & 0o777) == oct(mode)


def test_each_report_asked_for_is_tried_and_one_not_written_is_one_line(tmp_path, capsys):
    # tests the console's contract: a report not written is one line; a written one is named
    (tmp_path / "taken").mkdir()
    written = report_files.write_reports(
        "lcb-conformance x",
        {
            "JSON": (tmp_path / "taken", lambda: "{}"),
            "HTML": (tmp_path / "r.html", lambda: "<p>"),
            "Markdown": (None, lambda: 1 / 0),  # not asked for: not rendered
        },
    )
    assert written is False
    assert (tmp_path / "r.html").read_text() == "<p>"
    shown = capsys.readouterr()
    assert shown.err == (
        f"lcb-conformance x: JSON report not written: cannot write {tmp_path / 'taken'}: "
        f"{os.strerror(21)}\n"
    )
    assert shown.out == f"HTML report: {tmp_path / 'r.html'}\n"


def _drift(monkeypatch, path):
    from lcb_conformance.upstream import drift

    result = {"upstream": "u", "verdict": drift.IDENTICAL, "counts": {}, "verdicts": []}
    monkeypatch.setattr(drift, "run", lambda source, only=None: result)
    return "lcb-conformance drift", "JSON", drift.main(["--json", str(path)])


def _peers(monkeypatch, path):
    from lcb_conformance_dev import peers

    runs = path.parent / "runs"
    runs.mkdir()
    stored = {"peer": {"module": "peers.nvidia_generic_oai", "peer": "nvidia"}}
    (runs / "nvidia_generic_oai.json").write_text(json.dumps(stored))
    monkeypatch.setattr(peers, "render", lambda reports: "page\n")
    monkeypatch.setattr(peers, "render_matrix", lambda reports: "matrix\n")
    return "python -m lcb_conformance_dev.peers", "Markdown", peers.main(
        ["render", "--out-dir", str(runs), "--output", str(path)]
    )


def _judge_report(monkeypatch, path):
    from lcb_conformance.reports import judge as judge_report
    from lcb_conformance.upstream import judge

    judged = {case: {"failed": "not run"} for case in judge.judge_cases()}
    monkeypatch.setattr(judge, "run_batch", lambda spec, cases: judged)
    command = "python -m lcb_conformance.reports.judge"
    (path.parent / "a_judge.py").write_text("def judge_program(row, program, timeout): ...\n")
    monkeypatch.syspath_prepend(str(path.parent))
    return command, "JSON", judge_report.main(["--impl", "a_judge", "--json", str(path)])


@pytest.mark.parametrize("run_command", [_drift, _peers, _judge_report], ids=lambda f: f.__name__)
def test_a_command_that_cannot_write_its_report_exits_6_saying_why(
    run_command, tmp_path, monkeypatch, capsys
):
    # tests the console's contract: a report not written is one line on stderr
    """lcb-conformance run's rule for every command writing a report (run's own test:
    test_cli_report.py; audit's: test_run_logs.py)."""
    taken = tmp_path / "taken"
    taken.mkdir()  # a directory where the report should go
    command, kind, code = run_command(monkeypatch, taken)
    assert code == report_files.REPORT_NOT_WRITTEN
    errors = capsys.readouterr().err
    assert errors == (
        f"{command}: {kind} report not written: cannot write {taken}: {os.strerror(21)}\n"
    )
    assert not [name for name in os.listdir(tmp_path) if name.endswith(".partial")]
