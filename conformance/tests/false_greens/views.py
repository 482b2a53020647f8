"""What the views may not call green: a results file that is not one whole, finished run of
this suite (`report`), a run that answered nothing (`run`, the plugin), bad input to `audit`
and a run that differs (`audit`).

Every results file here comes from a real run (`run --only reference-impl/decode_context`,
about a second), cut or edited the way a crash, a copy or a hand would: no hash is typed.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from false_greens import FalseGreen
from lcb_conformance import cli
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.runner import results
from lcb_conformance.suite import goldens

RUN = "run.jsonl"
ONLY = "reference-impl/decode_context"
AUDIT_RUNS = paths.ROOT / "fixtures" / "audit" / "lcb_runner"
ADAPTERS = {  # by module name: one name, one source (an imported module stays imported)
    # provides a function, none of it called by the decode_context cases
    "nothing_adapter": "def extract_code(model_output, style='generic'):\n    return ''\n",
    # every decode_context answer differs from its golden
    "differing_adapter": "def decode_context(context):\n    return 'not the golden'\n",
}


def _real_run(tmp: Path) -> list[str]:
    """The lines of a real, finished, all-identical results file of lcb_prompts."""
    argv = ["run", "--impl", "lcb_prompts", "--only", ONLY, "--no-contract"]
    assert cli.main([*argv, "--results", str(tmp / RUN)]) == exit_codes.OK
    return (tmp / RUN).read_text("ascii").splitlines()


def _write(tmp: Path, lines: list[str]) -> None:
    (tmp / RUN).write_text("".join(line + "\n" for line in lines), "ascii")


def _edited(edit):
    """A prepare: the real run's lines, then ``edit(lines)`` -> the lines written."""

    def prepare(tmp: Path) -> None:
        _write(tmp, edit(_real_run(tmp)))

    return prepare


def _with_header(change):
    def edit(lines: list[str]) -> list[str]:
        head = json.loads(lines[0])
        change(head["header"])
        return [json.dumps(head), *lines[1:]]

    return edit


def _first_result(change):
    def edit(lines: list[str]) -> list[str]:
        record = json.loads(lines[1])
        change(record["result"])
        return [lines[0], json.dumps(record), *lines[2:]]

    return edit


def _footer(counts: dict) -> str:
    return json.dumps({"footer": {"complete": True, "counts": counts}})


def _forged(adapter: str, edit):
    """A prepare: a real run of the module ``adapter`` (its source ADAPTERS[adapter]), each
    row edited by ``edit(result)`` and the footer recounted, as a forger would."""

    def prepare(tmp: Path) -> None:
        (tmp / f"{adapter}.py").write_text(ADAPTERS[adapter], "utf-8")
        argv = ["run", "--impl", adapter, "--impl-path", str(tmp), "--only", ONLY]
        assert cli.main([*argv, "--no-contract", "--results", str(tmp / RUN)]) != exit_codes.OK
        lines = (tmp / RUN).read_text("ascii").splitlines()
        rows = [json.loads(line) for line in lines[1:-1]]
        for row in rows:
            edit(row["result"])
        counts = Counter(row["result"]["status"] for row in rows)
        _write(tmp, [lines[0], *map(json.dumps, rows), _footer(dict(counts))])

    return prepare


def _judge_rows_claimed_identical(judge: str, rechecked: bool):
    """A prepare: a run of the miniature judge ``judge`` (every judge case differs), each row
    edited to say identical (``rechecked``: its re-run alone's answer forged to be its golden),
    and the footer recounted."""

    def prepare(tmp: Path) -> None:
        tests = str(paths.ROOT / "conformance" / "tests")
        argv = ["run", "--impl", f"miniature_judges:{judge}", "--impl-path", tests,
                "--only", "judge", "--no-contract"]  # fmt: skip
        assert cli.main([*argv, "--results", str(tmp / RUN)]) == exit_codes.DIFFERS
        lines = (tmp / RUN).read_text("ascii").splitlines()
        rows = [json.loads(line) for line in lines[1:-1]]
        for row in rows:
            found = row["result"]
            found.update(status=results.IDENTICAL, reason="", difference=None)
            if rechecked:
                found["rechecked"] = goldens.read(goldens.key_of(found["golden"]))
        _write(tmp, [lines[0], *map(json.dumps, rows), _footer({results.IDENTICAL: len(rows)})])

    return prepare


def _claiming(status: str):
    """An edit: a differing row made to claim ``status``, its answer left in place."""

    def edit(result: dict) -> None:
        if result["status"] in (results.DIFFERS, results.WHITESPACE):
            result.update(status=status, reason="", difference=None)

    return edit


def _deviation_erased(tmp: Path) -> None:
    """lcb_prompts' extraction run, the rows held to its declared </think> deviation edited
    to claim lcb_runner's own golden (tier 1 then says identical to lcb_runner)."""
    argv = ["run", "--impl", "lcb_prompts", "--only", "extract", "--no-contract"]
    assert cli.main([*argv, "--results", str(tmp / RUN)]) == exit_codes.OK
    lines = (tmp / RUN).read_text("ascii").splitlines()
    rows = [json.loads(line) for line in lines[1:-1]]
    for row in rows:
        if row["result"]["deviation"]:
            row["result"].update(deviation=None, upstream_identical=None)
    _write(tmp, [lines[0], *map(json.dumps, rows), lines[-1]])


def _nothing_adapter(tmp: Path) -> None:
    (tmp / "nothing_adapter.py").write_text(ADAPTERS["nothing_adapter"], "utf-8")


def _nothing_answered_run(tmp: Path) -> None:
    _nothing_adapter(tmp)
    argv = ["run", "--impl", "nothing_adapter", "--impl-path", str(tmp), "--only", ONLY]
    assert cli.main([*argv, "--no-contract", "--results", str(tmp / RUN)]) != exit_codes.OK


def _narrowed_plugin_session(tmp: Path) -> None:
    """A plugin session whose -k left out some of the planned cases, with --lcb-results."""
    argv = ["-p", "lcb_conformance.plugin", "-q", "-p", "no:randomly", "--lcb-impl",
            "lcb_prompts", "--lcb-only", ONLY, "--lcb-results", str(tmp / RUN)]  # fmt: skip
    assert pytest.main([*argv, "-k", "ascii"]) == pytest.ExitCode.OK


def _audit_copy(run: str, name: str):
    def prepare(tmp: Path) -> None:
        (found,) = (AUDIT_RUNS / run / "output").glob(f"*/{name}")
        shutil.copy(found, tmp / name)

    return prepare


def _text(name: str, content: str):
    def prepare(tmp: Path) -> None:
        (tmp / name).write_text(content, "utf-8")

    return prepare


RESULTS = "{tmp}/" + RUN
CODEGEN = "Scenario.codegeneration_3_0.2.json"

CASES = [
    # --- report: a results file that is not one whole, finished run of this suite ----------
    FalseGreen(
        id="report-cut-before-its-footer",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.INCOMPLETE,
        why="a run that died before its footer (every row identical) is not a finished verdict",
        prepare=_edited(lambda lines: lines[:-1]),
        says=("INCOMPLETE, the run did not finish: it holds 13 of the 13 cases it planned",),
    ),
    FalseGreen(
        id="report-cut-half-way",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.INCOMPLETE,
        why="a CI job that dies half-way checked half of what it was asked",
        prepare=_edited(lambda lines: lines[:7]),
        says=("the run did not finish: it holds 6 of the 13 cases it planned",),
    ),
    FalseGreen(
        id="report-a-case-twice",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a row duplicated (two files concatenated, an edit) is not one run",
        prepare=_edited(lambda lines: [lines[0], lines[1], lines[1], *lines[2:]]),
        says=("again (first on line 2)",),
    ),
    FalseGreen(
        id="report-footer-counts-disagree",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a footer whose counts are not its rows: the file is not what the run wrote",
        prepare=_edited(lambda lines: [*lines[:-1], _footer({"identical": 14})]),
        says=("the footer counts",),
    ),
    FalseGreen(
        id="report-timing-sensitive-claimed-identical",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a judge's time limits where lcb_runner passes, called identical because the "
        "machine's load may have decided them: a timing-sensitive difference still differs",
        prepare=_judge_rows_claimed_identical("time_limit_everywhere", rechecked=False),
        says=("says identical, but its answer against its golden is differs",),
    ),
    FalseGreen(
        id="report-re-run-forged-on-a-wrong-answer",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a judge's wrong answers, each row given a re-run alone that answered the golden: "
        "a re-run counts only where the first answer was timing-sensitive",
        prepare=_judge_rows_claimed_identical("wrong_answer_everywhere", rechecked=True),
        says=("says identical, but its answer against its golden is differs",),
    ),
    FalseGreen(
        id="report-differs-claimed-identical",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="rows that differ, their status edited to identical and the footer recounted, "
        "still hold their answer: compared with the golden, it differs",
        prepare=_forged("differing_adapter", _claiming(results.IDENTICAL)),
        says=(":2: reference-impl/decode_context/", "says identical, but its answer against "
              "its golden is differs"),  # fmt: skip
    ),
    FalseGreen(
        id="report-differs-claimed-not-provided",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a row that differs, edited to not-provided (its cell then identical where "
        "provided) and the footer recounted, holds an answer, which differs",
        prepare=_forged("differing_adapter", _claiming(results.NOT_PROVIDED)),
        says=("says not-provided, but its answer against its golden is differs",),
    ),
    FalseGreen(
        id="report-not-provided-claimed-identical",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="rows of a function the adapter lacks, edited to identical and the footer "
        "recounted: its header says it does not provide the function",
        prepare=_forged(
            "nothing_adapter", lambda result: result.update(status=results.IDENTICAL, reason="")
        ),
        says=("says identical, but its header says nothing_adapter does not provide "
              "decode_context",),  # fmt: skip
    ),
    FalseGreen(
        id="report-deviation-erased",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="rows identical only to a declared deviation's golden, edited to claim lcb_runner's "
        "own: the headline would say identical to lcb_runner",
        prepare=_deviation_erased,
        says=("says identical, but its (deviation, upstream_identical) are (None, None), its "
              "answer's ('think', False)",),  # fmt: skip
    ),
    FalseGreen(
        id="report-rows-removed-footer-fixed",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a failing row removed and the footer recounted still lacks a planned case",
        prepare=_edited(
            lambda lines: [lines[0], *lines[2:-1], _footer({"identical": 12})]
        ),
        says=("holds 12 of the 13 cases its header planned",),
    ),
    FalseGreen(
        id="report-a-case-the-index-lacks",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a result for a case this suite does not have was not held to any golden of it",
        prepare=_edited(_first_result(lambda result: result.update(id=f"{ONLY}/no_such_case"))),
        says=("is no case of this suite's index",),
    ),
    FalseGreen(
        id="report-another-golden-set",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="results held to another golden set say nothing about these goldens",
        prepare=_edited(_with_header(lambda head: head["suite"].update(goldens="0" * 64))),
        says=("run against another golden set",),
    ),
    FalseGreen(
        id="report-another-case-index",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="results of another case index may lack cases this one holds",
        prepare=_edited(_with_header(lambda head: head["suite"].update(case_index="0" * 64))),
        says=("run against another case index",),
    ),
    FalseGreen(
        id="report-another-suite-version",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="another version of the suite computed these statuses",
        prepare=_edited(_with_header(lambda head: head["suite"].update(version="0.0.0"))),
        says=("written by lcb-conformance 0.0.0",),
    ),
    FalseGreen(
        id="report-schema-1",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="a /1 file records neither its plan nor its goldens: nothing to check it against",
        prepare=_edited(_with_header(lambda head: head.update(schema=results.EARLIER_SCHEMAS[0]))),
        says=("written by an earlier lcb-conformance",),
    ),
    FalseGreen(
        id="report-nothing-answered",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.INCOMPLETE,
        why="a finished run in which every case was not provided compared nothing",
        prepare=_nothing_answered_run,
        says=("INCOMPLETE: no golden case ran",),
    ),
    FalseGreen(
        id="report-plugin-session-narrowed-by-k",
        command="report",
        argv=(RESULTS,),
        expect=exit_codes.INCOMPLETE,
        why="a plugin session's -k ran some of the planned cases: its file is not the verdict",
        prepare=_narrowed_plugin_session,
        says=("the run did not finish: it holds 1 of the 13 cases it planned",),
    ),
    # --- run ------------------------------------------------------------------------------
    FalseGreen(
        id="run-nothing-answered",
        command="run",
        argv=("--impl", "nothing_adapter", "--impl-path", "{tmp}", "--only", ONLY),
        expect=exit_codes.INCOMPLETE,
        why="an adapter that provides none of the selected cases is not identical: untested",
        prepare=_nothing_adapter,
        says=("INCOMPLETE: no golden case ran",),
    ),
    # --- the plugin -----------------------------------------------------------------------
    FalseGreen(
        id="plugin-nothing-answered",
        command="pytest-plugin",
        argv=("-p", "no:randomly", "--lcb-impl", "nothing_adapter", "--lcb-impl-path", "{tmp}",
              "--lcb-only", ONLY),  # fmt: skip
        expect=exit_codes.DIFFERS,  # pytest's TESTS_FAILED
        why="a session in which every conformance case skipped as not provided compared nothing",
        prepare=_nothing_adapter,
        says=("no golden case was answered",),
    ),
    # --- audit ----------------------------------------------------------------------------
    FalseGreen(
        id="audit-missing-file",
        command="audit",
        argv=("{tmp}/absent.json",),
        expect=exit_codes.UNUSABLE,
        why="a run that does not exist has no samples",
        says=("absent.json: no such file",),
    ),
    FalseGreen(
        id="audit-empty-file",
        command="audit",
        argv=("{tmp}/" + CODEGEN, "--style", "OpenAIChat"),
        expect=exit_codes.UNUSABLE,
        why="an empty file holds no sample",
        prepare=_text(CODEGEN, ""),
        says=("an empty file",),
    ),
    FalseGreen(
        id="audit-garbage-json",
        command="audit",
        argv=("{tmp}/" + CODEGEN, "--style", "OpenAIChat"),
        expect=exit_codes.UNUSABLE,
        why="a file that is not JSON is no run",
        prepare=_text(CODEGEN, '[{"question_id": "a", "output_list": ['),
        says=("ends early (truncated?)",),
    ),
    FalseGreen(
        id="audit-a-folder-of-another-harness",
        command="audit",
        argv=("{fixtures}/audit/lighteval/as-shipped",),
        expect=exit_codes.UNUSABLE,
        why="a folder of logs is not one run: which file is meant must be said",
        says=("a folder; pass the results file in it",),
    ),
    FalseGreen(
        id="audit-outside-lcb-runners-layout",
        command="audit",
        argv=("{tmp}/" + CODEGEN,),
        expect=exit_codes.UNUSABLE,
        why="a run whose model cannot be told has no LMStyle to be held to",
        prepare=_audit_copy("openai-chat", CODEGEN),
        says=("lcb_runner names its results folder by the model", "pass --style LMSTYLE"),
    ),
    FalseGreen(
        id="audit-metrics-only-eval-file",
        command="audit",
        argv=("{tmp}/Scenario.codegeneration_3_0.2_eval.json",),
        expect=exit_codes.UNUSABLE,
        why="lcb_runner's _eval.json holds metrics, no sample",
        prepare=_audit_copy("openai-chat", "Scenario.codegeneration_3_0.2_eval.json"),
        says=("metrics only, no sample",),
    ),
    FalseGreen(
        id="audit-an-lcb-conformance-results-file",
        command="audit",
        argv=(RESULTS,),
        expect=exit_codes.UNUSABLE,
        why="the gate's own results file is not an evaluation's samples",
        prepare=_edited(lambda lines: lines),
        says=("lcb-conformance report",),
    ),
    FalseGreen(
        id="audit-unknown-style",
        command="audit",
        argv=("{tmp}/" + CODEGEN, "--style", "NotAStyle"),
        expect=exit_codes.UNUSABLE,
        why="no LMStyle of that name: nothing to hold the samples to",
        prepare=_audit_copy("openai-chat", CODEGEN),
        needs=("upstream",),
        says=("--style NotAStyle:", "has no such LMStyle; it has OpenAIChat"),
    ),
    FalseGreen(
        id="audit-a-run-that-differs",
        command="audit",
        argv=("{tmp}/" + CODEGEN, "--style", "DeepSeekCodeInstruct"),
        expect=exit_codes.DIFFERS,
        why="a run grading the first fenced block is not lcb_runner's extraction",
        prepare=_audit_copy("first-block", CODEGEN),
        needs=("upstream",),
        says=("NOT CONFORMANT: 8 of 12 samples differ",),
    ),
]
