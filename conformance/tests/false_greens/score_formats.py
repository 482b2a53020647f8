"""`lcb-conformance score` on other harnesses' logs: a claim on a log recording no verdict per
sample, a run missing problems of the window, a run that is not the release named, problems
named by position without the dataset they index, or against a dataset in another order."""

from __future__ import annotations

import json
from pathlib import Path

import regrade_inputs as inputs

from false_greens import FalseGreen
from lcb_conformance import releases
from lcb_conformance.common import exit_codes
from lcb_prompts import score as scoring

RELEASE = "release_v1"
WINDOW = ("2023-06-01", "2023-06-30")
MODEL = "stub-model"
PREDICTIONS = f"{{tmp}}/predictions/{MODEL}/lcb_code_generation.json"
SAMPLES = 2  # per problem


def window_problems() -> list[dict]:
    """release_v1's problems in WINDOW by compute_scores' rule, as its manifest has them."""
    return scoring.lcb_runner_rows(releases.members(RELEASE), *WINDOW)


def passes(position: int) -> int:
    """How many of a problem's SAMPLES the harness passed: 2, 1, 0 in turn."""
    return (SAMPLES - position % 3) if position % 3 < SAMPLES else 0


def opencompass_run(tmp: Path, ids: list[str], results: bool = True) -> Path:
    """An OpenCompass work dir (predictions and, with ``results``, results with its verdicts
    per replica) on ``ids``, ``passes(position)`` of each problem's samples passed."""
    folder = Path(PREDICTIONS.format(tmp=tmp)).parent
    folder.mkdir(parents=True)
    predictions = {
        str(replica * len(ids) + position): {
            "origin_prompt": f"solve {qid}", "prediction": "```python\nprint(1)\n```", "gold": qid,
        }
        for replica in range(SAMPLES) for position, qid in enumerate(ids)
    }  # fmt: skip
    (folder / "lcb_code_generation.json").write_text(json.dumps(predictions), "utf-8")
    if results:
        details = [
            {"extracted_prediction": ["print(1)"] * SAMPLES,
             "correct": [replica < passes(position) for replica in range(SAMPLES)]}
            for position in range(len(ids))
        ]  # fmt: skip
        scored = tmp / "results" / MODEL
        scored.mkdir(parents=True)
        (scored / "lcb_code_generation.json").write_text(json.dumps({"details": details}))
    return folder / "lcb_code_generation.json"


def expected_percent(ids: list[str]) -> float:
    """The harness's verdicts aggregated: the mean of per-problem passed/n, in percent."""
    return 100 * sum(passes(p) / SAMPLES for p in range(len(ids))) / len(ids)


def _window_ids() -> list[str]:
    return [r["question_id"] for r in window_problems()]


def _missing_two(tmp: Path) -> None:
    """The window's problems but two failing ones (position 2 and 5 pass none)."""
    ids = _window_ids()
    kept = [qid for position, qid in enumerate(ids) if position not in (2, 5)]
    opencompass_run(tmp, kept)
    (tmp / "claim").write_text(f"{expected_percent(kept):.2f}")


def _whole_window(tmp: Path) -> None:
    opencompass_run(tmp, _window_ids())


def _without_results(tmp: Path) -> None:
    opencompass_run(tmp, _window_ids(), results=False)


def _dataset(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows())


def _dataset_reordered(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows()[::-1])


def _claim_of_missing_two() -> str:
    ids = [qid for position, qid in enumerate(_window_ids()) if position not in (2, 5)]
    return f"{expected_percent(ids):.2f}"


LM_EVAL = str(inputs.LM_EVAL_RUN)
LIGHTEVAL = str(inputs.LIGHTEVAL_RUN)
EVALSCOPE = str(inputs.EVALSCOPE_RUN)
NOT_HELD = "NOT HELD"

CASES = [
    FalseGreen(
        id="score-formats-claim-on-lm-eval-metric",
        command="score",
        argv=(LM_EVAL, "--claim", "100"),
        expect=exit_codes.INCOMPLETE,
        why="lm-eval records a metric per document, no verdict per sample: its mean (100) is "
        "no figure of compute_scores or the leaderboard, so a claim of 100 is not held",
        says=(NOT_HELD, "NOT COMPUTED"),
    ),
    FalseGreen(
        id="score-formats-claim-on-lighteval-metric",
        command="score",
        argv=(LIGHTEVAL, "--dataset", "{tmp}/dataset", "--claim", "0.0%"),
        expect=exit_codes.INCOMPLETE,
        why="lighteval records codegen_pass@1:16 per document, not its verdicts: the claim 0 "
        "equals the metric's mean and is still no computed figure",
        prepare=_dataset,
        says=(NOT_HELD,),
    ),
    FalseGreen(
        id="score-formats-no-claim-on-lm-eval-is-not-green",
        command="score",
        argv=(LM_EVAL,),
        expect=exit_codes.INCOMPLETE,
        why="nothing failed, but no figure was computed: an exit 0 would read as a score given",
        says=("no figure computed",),
    ),
    FalseGreen(
        id="score-formats-opencompass-without-results-claim",
        command="score",
        argv=(PREDICTIONS, "--claim", "50"),
        expect=exit_codes.INCOMPLETE,
        why="OpenCompass's predictions without its results file hold no verdict: no number",
        prepare=_without_results,
        says=(NOT_HELD,),
    ),
    FalseGreen(
        id="score-formats-opencompass-missing-problems-of-the-window",
        command="score",
        argv=(
            PREDICTIONS,
            "--release",
            RELEASE,
            "--window",
            ":".join(WINDOW),
            "--claim",
            _claim_of_missing_two(),
        ),
        expect=exit_codes.DIFFERS,
        why="the claim is OpenCompass's own verdicts aggregated as compute_scores does, but "
        "the run dropped two failing problems of the window: it is a figure on fewer problems",
        prepare=_missing_two,
        says=("the run lacks 2",),
    ),
    FalseGreen(
        id="score-formats-opencompass-not-the-release-named",
        command="score",
        argv=(PREDICTIONS, "--release", RELEASE),
        expect=exit_codes.DIFFERS,
        why="a run of one month's problems is not release_v1",
        prepare=_whole_window,
        says=(f"the run is not {RELEASE}",),
    ),
    FalseGreen(
        id="score-formats-evalscope-positions-without-dataset",
        command="score",
        argv=(EVALSCOPE, "--claim", "0.0%"),
        expect=exit_codes.UNUSABLE,
        why="evalscope names problems by position in the dataset it read: without it, no "
        "problem is known, and a number over unknown problems is no score",
        says=("pass --dataset PATH",),
    ),
    FalseGreen(
        id="score-formats-evalscope-dataset-in-another-order",
        command="score",
        argv=(EVALSCOPE, "--dataset", "{tmp}/dataset", "--claim", "0.0%"),
        expect=exit_codes.UNUSABLE,
        why="the dataset reversed maps each group_id to another problem: the regrade's guard "
        "(the statement in the prompt sent) names it before any number",
        prepare=_dataset_reordered,
        says=("the prompt sent is not its statement",),
    ),
]
