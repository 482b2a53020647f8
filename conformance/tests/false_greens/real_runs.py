"""Real lcb_runner output others committed (fixtures/real-runs/, PROVENANCE.json): a fork's
self-repair run of an LMStyle lcb_runner 28fef95 raises for, custom_evaluator's output (no raw
output), and a real run with its code copied into output_list; none is a checked, conformant
run, whichever command reads it."""

from __future__ import annotations

import json
from pathlib import Path

from false_greens import FalseGreen
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import cases

REAL_RUNS = cases.FIXTURES_DIR / "real-runs"
SELF_REPAIR = (
    "{fixtures}/real-runs/xiangww0108-LiveCodeBench/output/Qwen2.5-Ins-7B/"
    "Scenario.selfrepair_1_0.2_eval_all.json"
)
CUSTOM = (
    "{fixtures}/real-runs/xiangww0108-LiveCodeBench/finetune_e2e_new/data/"
    "Qwen2-1_5B_repaired_extrinsic_codegeneration_output_eval_all.json"
)
CODE_GENERATION = (
    REAL_RUNS / "gu-ni-LiveCodeBench" / "output_test6" / "Qwen2.5-Coder-Ins-7B"
    / "Scenario.codegeneration_10_0.2_eval_all.json"
)  # fmt: skip
RAISES = "building the self-repair prompt for LMStyle.CodeQwenInstruct"


def _code_as_output(tmp: Path) -> None:
    """The real code-generation run with every raw output replaced by its extracted code: the
    shape of custom_evaluator's output, which hides what lcb_runner would have extracted."""
    rows = json.loads(CODE_GENERATION.read_text("utf-8"))
    for row in rows:
        row["output_list"] = list(row["code_list"])
    folder = tmp / "output" / CODE_GENERATION.parent.name
    folder.mkdir(parents=True)
    (folder / CODE_GENERATION.name).write_text(json.dumps(rows), "utf-8")


def _custom_with_a_cache_of_other_prompts(tmp: Path) -> None:
    """custom_evaluator's real output, with a --use_cache file holding each problem's outputs
    under a prompt that is not lcb_runner's: the one part left to check differs."""
    path = Path(CUSTOM.format(fixtures=cases.FIXTURES_DIR))
    rows = json.loads(path.read_text("utf-8"))
    cache = {f"solve this: {row['question_id']}": row["output_list"] for row in rows}
    (tmp / path.name).write_bytes(path.read_bytes())
    (tmp / "cache.json").write_text(json.dumps(cache), "utf-8")


CASES = [
    FalseGreen(
        id="audit-real-self-repair-lcb-runner-raises-for-its-lmstyle",
        command="audit",
        argv=(SELF_REPAIR,),
        expect=exit_codes.DIFFERS,
        why="lcb_runner 28fef95 raises building self-repair prompts for CodeQwenInstruct: it "
        "writes no such run, and no prompt of its was compared",
        needs=("upstream",),
        says=(RAISES, "prompts not compared"),
    ),
    FalseGreen(
        id="score-real-self-repair-lcb-runner-raises-for-its-lmstyle",
        command="score",
        argv=(SELF_REPAIR,),
        expect=exit_codes.DIFFERS,
        why="the file audit fails (lcb_runner 28fef95 writes no self-repair run for "
        "CodeQwenInstruct) is no comparable self-repair number either",
        says=(RAISES, "could not be checked"),
    ),
    FalseGreen(
        id="audit-real-custom-evaluator-output-nothing-checked",
        command="audit",
        argv=(CUSTOM, "--style", "CodeQwenInstruct"),
        expect=exit_codes.UNUSABLE,
        why="custom_evaluator's output has no raw output to re-extract and no prompt recorded: "
        "nothing was checked",
        needs=("upstream",),
        says=("not checkable (no raw output)",),
    ),
    FalseGreen(
        id="audit-real-custom-evaluator-output-its-prompts-not-lcb-runners",
        command="audit",
        argv=(
            "{tmp}/" + Path(CUSTOM).name, "--style", "CodeQwenInstruct",
            "--cache", "{tmp}/cache.json",
        ),  # fmt: skip
        expect=exit_codes.DIFFERS,
        why="with its extraction not checkable, custom_evaluator's output is green only on its "
        "prompts: here they are not lcb_runner's",
        prepare=_custom_with_a_cache_of_other_prompts,
        needs=("upstream",),
        says=("3 of 3 samples differ", "extraction not checked for 3 samples: not checkable"),
    ),
    FalseGreen(
        id="audit-real-run-code-copied-into-output-list",
        command="audit",
        argv=("{tmp}/output/Qwen2.5-Coder-Ins-7B/" + CODE_GENERATION.name,),
        expect=exit_codes.UNUSABLE,
        why="raw outputs replaced by their code hide the extraction: not checkable, and nothing "
        "else was checked",
        prepare=_code_as_output,
        needs=("upstream",),
        says=("not checkable (no raw output)",),
    ),
]
