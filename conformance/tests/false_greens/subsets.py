"""A run's problem set and its lists as they are (issue 34): on the public O1-Mini submission
(fixtures/score/o1-mini-2024-09-12.json) with its lists emptied or uneven, its ids renamed out
of every release, or a statement rewritten, neither `score` nor `audit` is green."""

from __future__ import annotations

import json
from pathlib import Path

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import score_cases
from lcb_prompts import score as scoring

EVAL_ALL = "Scenario.codegeneration_1_0.2_eval_all.json"
RESULTS = "Scenario.codegeneration_1_0.2.json"
WINDOW = ("2024-09-01", "2025-02-01")
ANSWER, CODE = "```python\nprint(input())\n```", "print(input())"  # OpenAIChat extracts CODE


def _o1_mini() -> list[dict]:
    return json.loads((score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json").read_text())


def _write(tmp: Path, name: str, rows) -> None:
    (tmp / name).write_text(json.dumps(rows), "utf-8")


def _twenty_emptied(tmp: Path) -> None:
    """20 problems of the window with output_list and code_list emptied, their verdicts kept."""
    rows = _o1_mini()
    emptied = {r["question_id"] for r in scoring.lcb_runner_rows(rows, *WINDOW)[:20]}
    for row in rows:
        if row["question_id"] in emptied:
            row["output_list"], row["code_list"] = [], []
    _write(tmp, EVAL_ALL, rows)


def _three_outputs_one_verdict(tmp: Path) -> None:
    rows = _o1_mini()
    rows[0] |= {"output_list": [ANSWER] * 3, "code_list": [CODE] * 3}
    _write(tmp, EVAL_ALL, rows)


def _renamed(tmp: Path) -> None:
    """157 of its problems renamed out of every release (a set that is not LiveCodeBench)."""
    _write(tmp, EVAL_ALL, [r | {"question_id": f"cf_{r['question_id']}"} for r in _o1_mini()[:157]])


def _results(rewrite: bool = False, rename: bool = False, empty: str = ""):
    """lcb_runner's results of the submission's first rows with their real statements
    (statements-sample.json) and one answer each; one statement rewritten, the ids renamed, or
    the lists of one problem (``empty`` "one") or all ("all") emptied."""

    def prepare(tmp: Path) -> None:
        sample = json.loads((score_cases.SCORE_FIXTURES_DIR / "statements-sample.json").read_text())
        by_id = {row["question_id"]: row for row in _o1_mini()}
        rows = []
        for index, row in enumerate(sample):
            found = {k: v for k, v in by_id[row["question_id"]].items() if k != "graded_list"}
            found |= row | {"output_list": [ANSWER], "code_list": [CODE]}
            if empty == "all" or (empty == "one" and index == 0):
                found["output_list"], found["code_list"] = [], []
            if rename:
                found["question_id"] = f"cf_{found['question_id']}"
            rows.append(found)
        if rewrite:
            rows[1]["question_content"] += " (rewritten)"
        _write(tmp, RESULTS, rows)

    return prepare


def _score(id, prepare, why, says, *more) -> FalseGreen:
    argv = ("{tmp}/" + EVAL_ALL, *more)
    return FalseGreen(f"score-{id}", "score", argv, exit_codes.DIFFERS, why, prepare, says=says)


def _first_block(tmp: Path) -> None:
    """lcb_runner's run of the project's own problems graded by the first fenced block."""
    runs = score_cases.SCORE_FIXTURES_DIR.parent / "audit" / "lcb_runner" / "first-block"
    (found,) = (runs / "output").glob("*/Scenario.codegeneration_3_0.2.json")
    (tmp / RESULTS).write_bytes(found.read_bytes())


def _audit(id, prepare, expect, why, says, style="OpenAIChat", *more) -> FalseGreen:
    argv = ("{tmp}/" + RESULTS, "--style", style, *more)
    return FalseGreen(f"audit-{id}", "audit", argv, expect, why, prepare, ("upstream",), says)


CASES = [
    _score("twenty-lists-emptied", _twenty_emptied,
           "20 problems of the window hold no output and no code: what was graded is not there",
           ("20 problems' output_list or code_list",), "--window", ":".join(WINDOW)),
    _score("three-outputs-one-verdict", _three_outputs_one_verdict,
           "three outputs graded by one verdict: two of them were never graded",
           ("not one entry per graded_list verdict",)),
    _score("ids-in-no-release", _renamed,
           "157 problems of no release: no figure on them is a LiveCodeBench number",
           ("none of the run's 157 problems is in any release",)),
    _audit("statement-rewritten", _results(rewrite=True), exit_codes.DIFFERS,
           "the model saw another problem than the release's: its samples are no audit of "
           "a LiveCodeBench run", ("1 rewritten: 1873_B",)),
    _audit("ids-in-no-release", _results(rename=True), exit_codes.DIFFERS,
           "identical samples of problems in no release: not a LiveCodeBench run",
           ("none of the run's 3 problems is in any release",)),
    _audit("one-problem-emptied", _results(empty="one"), exit_codes.INCOMPLETE,
           "a problem holding no sample was not audited", ("INCOMPLETE: 1 of the 3 problems",)),
    _audit("every-list-emptied", _results(empty="all"), exit_codes.UNUSABLE,
           "no sample: nothing was checked", ("no sample to audit",)),
    _audit("not-a-release-hides-a-difference", _first_block, exit_codes.DIFFERS,
           "--not-a-release excuses the problem set only, never a sample that differs",
           ("NOT A RELEASE", "NOT CONFORMANT: 8 of 12 samples differ"), "DeepSeekCodeInstruct",
           "--not-a-release"),
]  # fmt: skip
