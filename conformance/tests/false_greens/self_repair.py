"""lcb_runner's self-repair runs (run_formats/lcb_runner_self_repair.py): read as code generation,
regraded with a repaired program's verdict changed, missing attempts, or mixed with code
generation's rows in one file; each a number that is not the self-repair run's."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import regrade_inputs as inputs

from false_greens import FalseGreen
from lcb_conformance import releases
from lcb_conformance.common import exit_codes

REPAIRED_RUN = inputs.AUDIT / "lcb_runner" / "self-repair" / "output" / "GPT-4O-2024-08-06"
EVAL_ALL = REPAIRED_RUN / "Scenario.selfrepair_1_0.2_eval_all.json"
MISALIGNED = inputs.AUDIT / "lcb_runner" / "self-repair-misaligned"
# lcb_runner's own name for a code generation eval_all: the name a renamed file hides behind
AS_CODE_GENERATION = "Scenario.codegeneration_3_0.2_eval_all.json"
REGRADE = ("--dataset", "{tmp}/dataset", "--not-a-release", "--style", "OpenAIChat")


def _judge_rows(tmp: Path) -> None:
    wanted = {"j_sum", "j_two_numbers"}
    table = inputs.rows(inputs.cases.FIXTURES_DIR / "judge" / "problems.jsonl")
    inputs.write(tmp / "dataset", [row for row in table if row["question_id"] in wanted])


def _edited(tmp: Path, edit) -> None:
    """The fixture self-repair eval_all, edited, as a code generation eval_all's name."""
    _judge_rows(tmp)
    rows = json.loads(EVAL_ALL.read_text("utf-8"))
    edit(rows)
    (tmp / AS_CODE_GENERATION).write_text(json.dumps(rows), "utf-8")


def _first_repair_passed(rows: list[dict]) -> None:
    rows[1]["graded_list"][0] = True  # j_two_numbers' first repair fails lcb_runner's judge


def _attempt_missing(rows: list[dict]) -> None:
    for name in ("output_list", "code_list", "graded_list", "metadata", "original_code_list"):
        rows[1][name] = rows[1][name][:2]


def _original_code_list_unexplained(tmp: Path) -> None:
    """lcb_runner's own misaligned self-repair run (main() took j_two_numbers'
    original_code_list from the row at its position, which audit names and accepts), with
    that list made one no position of the code-generation run explains."""
    shutil.copytree(MISALIGNED, tmp / "run")
    eval_all = next((tmp / "run").glob("output/*/" + EVAL_ALL.name))
    rows = json.loads(eval_all.read_text("utf-8"))
    rows[1]["original_code_list"] = ["print(0)"] * len(rows[1]["original_code_list"])
    eval_all.write_text(json.dumps(rows), "utf-8")


def _mixed_release_run(tmp: Path) -> None:
    """release_v1's every problem graded once, half of the rows self-repair's."""
    table = [
        {
            "question_id": row["question_id"], "contest_date": row["contest_date"],
            "difficulty": row["difficulty"], "platform": row["platform"],
            "graded_list": [True], "pass@1": 1.0,
            **({"original_code_list": ["print(1)"]} if index % 2 else {}),
        }
        for index, row in enumerate(releases.members("release_v1"))
    ]  # fmt: skip
    (tmp / AS_CODE_GENERATION).write_text(json.dumps(table), "utf-8")


CASES = [
    FalseGreen(
        id="regrade-self-repair-read-as-code-generation",
        command="regrade",
        argv=("{tmp}/" + AS_CODE_GENERATION, "--format", "lcb_runner", *REGRADE),
        prepare=lambda tmp: _edited(tmp, lambda rows: None),
        expect=exit_codes.UNUSABLE,
        why="repaired programs graded as first attempts are another scenario's number",
        says=("--format lcb_runner_self_repair",),
    ),
    FalseGreen(
        id="regrade-self-repair-verdict-changed-by-harness",
        command="regrade",
        argv=("{tmp}/" + AS_CODE_GENERATION, *REGRADE, "--accept-judge-differences"),
        prepare=lambda tmp: _edited(tmp, _first_repair_passed),
        expect=exit_codes.DIFFERS,
        why="a self-repair number with a failing repair counted passed is not lcb_runner's",
        needs=("upstream",),
        says=("self-repair scenario", "j_two_numbers: differs", "sample 0", "judge differs"),
    ),
    FalseGreen(
        id="regrade-self-repair-attempts-missing",
        command="regrade",
        argv=("{tmp}/" + AS_CODE_GENERATION, *REGRADE),
        prepare=lambda tmp: _edited(tmp, _attempt_missing),
        expect=exit_codes.UNUSABLE,
        why="a problem short of an attempt's repair is a pass@1 over other samples",
        says=("attempts are missing",),
    ),
    FalseGreen(
        id="audit-self-repair-original-code-list-unexplained",
        command="audit",
        argv=("{tmp}/run/output/GPT-4O-2024-08-06/" + EVAL_ALL.name,),
        prepare=_original_code_list_unexplained,
        expect=exit_codes.UNUSABLE,
        why="repairs of attempts neither this problem's nor its position's are another run's",
        needs=("upstream",),
        says=("not the run it repaired",),
    ),
    FalseGreen(
        id="score-self-repair-and-code-generation-rows-mixed",
        command="score",
        argv=("{tmp}/" + AS_CODE_GENERATION,),
        prepare=_mixed_release_run,
        expect=exit_codes.UNUSABLE,
        why="half self-repair's rows and half code generation's is neither scenario's number",
        says=("no one run of either scenario",),
    ),
]
