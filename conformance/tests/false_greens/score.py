"""`lcb-conformance score RUN`: claims that are no figure, runs that lack the window's problems,
data that is not what the leaderboard published, and input that is impossible (issue 25)."""

from __future__ import annotations

import json
from pathlib import Path

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import score_cases
from lcb_prompts import score as scoring

O1_MINI = "{fixtures}/score/o1-mini-2024-09-12.json"
PUBLISHED = "{fixtures}/score/published-2025-01-15.json"
O1_MINI_MODEL = "O1-Mini-2024-09-12 (N=1)"
WINDOW = ("--window", "2024-09-01:2025-02-01")
RUN = "{tmp}/Scenario.codegeneration_1_0.2_eval_all.json"


def _o1_mini() -> list[dict]:
    return json.loads((score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json").read_text())


def _write(tmp: Path, rows) -> None:
    (tmp / Path(RUN).name).write_text(json.dumps(rows), "utf-8")


def _without_20_failing(tmp: Path) -> None:
    """The O1-Mini run without 20 of its failing problems of compute_scores' window: its pass@1
    rises to 58.0 (the leaderboard's computation: 58.9)."""
    rows = _o1_mini()
    in_window = {
        r["question_id"] for r in scoring.lcb_runner_rows(rows, "2024-09-01", "2025-02-01")
    }
    failing = [r["question_id"] for r in rows if r["question_id"] in in_window and not r["pass@1"]]
    _write(tmp, [r for r in rows if r["question_id"] not in failing[:20]])


def _failures_not_generated(tmp: Path) -> None:
    """The O1-Mini run with its failing problems' generations dropped (graded_list []):
    compute_scores' estimator counts a problem with n=0 as passed."""
    rows = _o1_mini()
    for row in rows:
        if not row["pass@1"]:
            row["graded_list"] = []
    _write(tmp, rows)


def _duplicated(tmp: Path) -> None:
    rows = _o1_mini()
    _write(tmp, [*rows, rows[0]])


def _pass_1_not_graded_list(tmp: Path) -> None:
    rows = _o1_mini()
    rows[0]["pass@1"] = 1.0 - rows[0]["pass@1"]
    _write(tmp, rows)


def _without_20_failing_cut(tmp: Path) -> None:
    """_without_20_failing with every output cut inside its code block (one ``` fence, no code
    extracted), as a "###" stop cuts Qwen3's "### Solution code": the lint names them."""
    _without_20_failing(tmp)
    rows = json.loads((tmp / Path(RUN).name).read_text("utf-8"))
    for row in rows:
        row["output_list"] = ["### Solution code\n```python\nprint(1)"] * len(row["graded_list"])
        row["code_list"] = [""] * len(row["graded_list"])
    _write(tmp, rows)


def _graded_list_of_words(tmp: Path) -> None:
    rows = _o1_mini()
    rows[0]["graded_list"] = ["PASS"]
    _write(tmp, rows)


def _pass_1_in_percent(tmp: Path) -> None:
    rows = _o1_mini()
    for row in rows:
        row["pass@1"] *= 100
    _write(tmp, rows)


def _an_object(tmp: Path) -> None:
    _write(tmp, {"pass@1": 0.5374, "detail": {}})


def _samples_jsonl(tmp: Path) -> None:
    """Another harness's per-sample log (one JSON object per line), not an eval_all array."""
    rows = _o1_mini()[:3]
    (tmp / Path(RUN).name).write_text("".join(json.dumps(r) + "\n" for r in rows), "utf-8")


def _statement_rewritten(tmp: Path) -> None:
    """The O1-Mini submission's first rows with their real statements (statements-sample.json),
    the second one's question_content rewritten: the ids, dates and verdicts all the release's."""
    sample = json.loads((score_cases.SCORE_FIXTURES_DIR / "statements-sample.json").read_text())
    sample[1]["question_content"] += " (rewritten)"
    by_id = {row["question_id"]: row for row in _o1_mini()}
    _write(tmp, [by_id[row["question_id"]] | row for row in sample])


def _claim(claim: str, *more: str, run: str = O1_MINI) -> tuple[str, ...]:
    return (run, *WINDOW, f"--claim={claim}", *more)


def _row(id, argv, expect, why, prepare=None, says=()) -> FalseGreen:
    return FalseGreen(f"score-{id}", "score", argv, expect, why, prepare, says=says)


DIFFERS, UNUSABLE = exit_codes.DIFFERS, exit_codes.UNUSABLE
CASES = [
    # claims within one standard error of a figure, yet no figure
    _row("claim-49.2", _claim("49.2"), DIFFERS, "49.2 is no figure: 3.4 below compute_scores'",
         says=("INCONSISTENT",)),
    _row("claim-56.9", _claim("56.9"), DIFFERS, "56.9 is no figure: 3.2 above the leaderboard's",
         says=("INCONSISTENT",)),
    _row("claim-55.0", _claim("55.0"), DIFFERS, "55.0 is neither 52.58 nor 53.74"),
    _row("claim-53.5", _claim("53.5"), DIFFERS, "53.74 at one decimal is 53.7, not 53.5"),
    _row("claim-finer-than-the-figure", _claim("53.70"), DIFFERS,
         "the site shows 53.7, but the figure is 53.74: 53.70 claims a precision it lacks"),
    # impossible or vague claims: refused, never judged
    _row("claim-negative", _claim("-5"), UNUSABLE, "a pass@1 below 0 is impossible",
         says=("is no pass@1",)),
    _row("claim-above-100", _claim("150"), UNUSABLE, "a pass@1 above 100 is impossible",
         says=("is no pass@1",)),
    _row("claim-nan", _claim("nan"), UNUSABLE, "NaN is no claim", says=("is not a number",)),
    _row("claim-vague-fraction", _claim("0.5"), UNUSABLE,
         "0.5 is 50% give or take 5 points: it would match anything from 45 to 55"),
    _row("claim-empty-window", (O1_MINI, "--window", "2026-01-01:2026-12-31", "--claim=50"),
         UNUSABLE, "no problem is in the window: there is no figure to hold a claim to",
         says=("nothing to score",)),
    # a run lacking problems of the window or release
    _row("incomplete-run-claim", _claim("58.0", run=RUN), DIFFERS,
         "58.0 is compute_scores' on 193 of the window's 213 problems", _without_20_failing,
         says=("on 193 of 213 problems",)),
    _row("incomplete-run-leaderboard-claim", _claim("58.9", run=RUN), DIFFERS,
         "58.9 is the leaderboard's computation on 207 of the window's 227 problems",
         _without_20_failing, says=("on 207 of 227 problems",)),
    _row("incomplete-run-no-claim", (RUN, *WINDOW), DIFFERS,
         "the window named is not covered: 20 of its problems are not in the run",
         _without_20_failing, says=("the run lacks 20",)),
    _row("incomplete-run-no-window", (RUN, "--claim=58.0"), DIFFERS,
         "a claim over the whole run, which is release_v5 without 20 problems",
         _without_20_failing, says=("the run lacks 20",)),
    _row("failures-not-generated", _claim("100", run=RUN), DIFFERS,
         "compute_scores gives 100 when the failing problems have no generations: they are "
         "missing, not passed", _failures_not_generated, says=("without generations",)),
    _row("release-latest-window", _claim("53.7", "--release", "release_latest"), DIFFERS,
         "release_latest holds problems of the window that this release_v5 run does not"),
    _row("release-v4-from-880", (O1_MINI, "--release", "release_v4", "--claim=72.9"), DIFFERS,
         "the 880-problem run is not release_v4, though its 713 v4 problems give 72.93",
         says=("the run is not release_v4",)),
    _row("wrong-release", (O1_MINI, "--release", "release_v6"), DIFFERS,
         "the run lacks release_v6's 175 newest problems"),
    # the run's own faults (reports/run_lint.py): named, never a figure, never a green
    _row("claim-without-errata", _claim("53.1"), DIFFERS,
         "53.08 is compute_scores' without ERRATA.md's arc185_c and arc189_a: the lint's figure "
         "beside the official one, not the run's number", says=("INCONSISTENT", "arc189_a")),
    _row("cut-answers-incomplete-run", (RUN, *WINDOW), DIFFERS,
         "every answer cut by a stop string is named by the lint; the run still lacks 20 of the "
         "window's problems", _without_20_failing_cut,
         says=("end inside an open code block", "the run lacks 20")),
    # the published data
    _row("published-claim-52.9", _claim("52.9", "--published", PUBLISHED, "--model", O1_MINI_MODEL),
         DIFFERS, "52.9 was published, but from data that differs from this file on 2 problems "
         "of the window", says=("abc374_b", "arc185_e")),
    _row("published-another-model",
         (O1_MINI, *WINDOW, "--published", PUBLISHED, "--model", "O1-Preview-2024-09-12 (N=1)"),
         DIFFERS, "O1-Preview's published data is not this O1-Mini file",
         says=("the file is not what the site published for O1-Preview",)),
    _row("published-unknown-model", (O1_MINI, "--published", PUBLISHED, "--model", "GPT-2"),
         UNUSABLE, "no data of that model to compare with", says=("has no records of model",)),
    _row("published-no-model", (O1_MINI, "--published", PUBLISHED), UNUSABLE,
         "two models in the file, none named: comparing with either would be a guess",
         says=("name one with --model",)),
    _row("published-not-site-data", (O1_MINI, "--published", O1_MINI), UNUSABLE,
         "an eval_all file is not the site's performances_generation.json",
         says=("not the leaderboard site's performances_generation.json",)),
    _row("model-without-published", (O1_MINI, "--model", O1_MINI_MODEL), UNUSABLE,
         "--model names the model of a --published that is not given"),
    # files that are not a finished lcb_runner run, or disagree with themselves
    _row("duplicate-problems", (RUN, *WINDOW), UNUSABLE,
         "a problem counted twice weighs twice in the mean", _duplicated,
         says=("appears twice",)),
    _row("pass-1-not-graded-list", (RUN, *WINDOW, "--claim=53.7"), DIFFERS,
         "compute_scores reads graded_list and the leaderboard pass@1: a file whose two disagree "
         "is not comparable", _pass_1_not_graded_list, says=("disagrees with itself",)),
    _row("graded-list-of-words", (RUN, *WINDOW), UNUSABLE,
         "graded_list holds lcb_runner's true/false verdicts", _graded_list_of_words,
         says=("not a list of true/false",)),
    _row("pass-1-in-percent", (RUN, *WINDOW), UNUSABLE,
         "pass@1 is a fraction in lcb_runner's files; x100 again it would be 5374",
         _pass_1_in_percent, says=("is not a fraction",)),
    _row("an-object", (RUN,), UNUSABLE, "a metrics object is no eval_all file", _an_object),
    _row("samples-jsonl", (RUN,), UNUSABLE, "JSON lines are no eval_all array", _samples_jsonl),
]  # fmt: skip

TEST_OUTPUT_RUN = (
    "{fixtures}/audit/lcb_runner/test-output-opencompass/output/GPT-4O-2024-08-06/"
    "Scenario.testoutputprediction_3_0.2_eval_all.json"
)


def _test_output_renamed(tmp: Path) -> None:
    """lcb_runner's test output prediction results under a code generation file's name."""
    source = Path(TEST_OUTPUT_RUN.format(fixtures=score_cases.SCORE_FIXTURES_DIR.parent))
    (tmp / Path(RUN).name).write_bytes(source.read_bytes())


CASES += [
    _row("one-statement-rewritten", (RUN,), DIFFERS,
         "a statement is not the release's: the model saw another problem",
         _statement_rewritten, says=("1 rewritten: 1873_B",)),
    FalseGreen(
        id="score-another-scenario",
        command="score",
        argv=(TEST_OUTPUT_RUN,),
        expect=exit_codes.UNUSABLE,
        why="a test output prediction run scored as code generation: a figure over none of "
        "the releases' problems",
        says=("(test output prediction)", "regrade"),
    ),
    FalseGreen(
        id="score-test-output-renamed-as-code-generation",
        command="score",
        argv=(RUN,),
        prepare=_test_output_renamed,
        expect=exit_codes.UNUSABLE,
        why="test output prediction results under a code generation file's name are read for "
        "what their rows are (run_formats/registry.py), not scored as code generation",
        says=("(test output prediction)", "regrade"),
    ),
]
