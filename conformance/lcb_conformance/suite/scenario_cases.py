"""The other three scenarios' inputs (fixtures/scenarios/): self-repair attempts, test output
prediction and code execution rows, model outputs, grading cases; every LMStyle.

The cases of lcb_runner's three other leaderboard scenarios: self-repair, test output
prediction and code execution (fixtures/scenarios/).

Each scenario's inputs are rows in the shape lcb_runner reads them:

- self-repair: one attempt of a code-generation run's ``eval_all.json`` entry (the question,
  one program of ``code_list``, its ``graded_list`` verdict and its ``metadata`` JSON string).
  An attempt names a judge corpus case (fixtures/judge/): the problem's question and the
  program come from there, and its metadata is what lcb_runner's judge writes for that program
  (the judge goldens; test_scenarios.py holds them equal), unless ``judge_metadata`` is false
  (metadata an older lcb_runner judge wrote).
- test output prediction: rows of livecodebench/test_generation (``test`` a JSON string).
- code execution: rows of livecodebench/execution-v2.

Model outputs feed each scenario's extractor; grading cases (a problem and its generations)
feed each scenario's scorer.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lcb_conformance.suite import judge_cases, styles
from lcb_conformance.suite.cases import (
    CASE_ID,
    FIXTURES_DIR,
    FixtureError,
    ModelOutput,
    iter_jsonl,
    read_outputs,
)

SCENARIOS_DIR = FIXTURES_DIR / "scenarios"
SELF_REPAIR_FILE = SCENARIOS_DIR / "self_repair.jsonl"
TEST_OUTPUT_FILE = SCENARIOS_DIR / "test_output.jsonl"
EXECUTION_FILE = SCENARIOS_DIR / "execution.jsonl"
TEST_OUTPUT_OUTPUTS_FILE = SCENARIOS_DIR / "test_output_outputs.jsonl"
EXECUTION_OUTPUTS_FILE = SCENARIOS_DIR / "execution_outputs.jsonl"
TEST_OUTPUT_GRADES_FILE = SCENARIOS_DIR / "test_output_grades.jsonl"
EXECUTION_GRADES_FILE = SCENARIOS_DIR / "execution_grades.jsonl"

# The scenarios, by their golden folder
SELF_REPAIR = "self-repair"
TEST_OUTPUT = "test-output"
CODE_EXECUTION = "code-execution"
SCENARIOS = (SELF_REPAIR, TEST_OUTPUT, CODE_EXECUTION)
# lcb_runner's name of each (its Scenario enum's values: --scenario, and its file names)
LCB_RUNNER_NAMES = {
    SELF_REPAIR: "selfrepair",
    TEST_OUTPUT: "testoutputprediction",
    CODE_EXECUTION: "codeexecution",
}
# code execution's two prompts: format_prompt_execution and format_prompt_execution_cot
DIRECT, COT = "direct", "cot"
EXECUTION_MODES = (DIRECT, COT)

# What a prompt builder did with an input: returned a prompt, or raised (both are goldens).
RETURNED, RAISED = "returned", "raised"

# Every LMStyle of lcb_runner (the style table's, in its order): each scenario has a golden
# per LMStyle, a prompt or the error lcb_runner raises.
LMSTYLES = tuple(name for name in styles.MAPPINGS if name not in styles.NOT_LCB_RUNNER)
# The LMStyles whose scenario prompts lcb_runner renders with a chat template, and the
# tokenizer it loads for them (as for code generation).
CHAT_TEMPLATES = {"LLaMa3": styles.LLAMA3_TOKENIZER}


def groups(scenario: str) -> list[str]:
    """The golden groups of a scenario's per-LMStyle families: the LMStyle, under code
    execution's mode ("direct/OpenAIChat")."""
    modes = EXECUTION_MODES if scenario == CODE_EXECUTION else (None,)
    return [f"{mode}/{lmstyle}" if mode else lmstyle for mode in modes for lmstyle in LMSTYLES]


def parse_group(group: str) -> tuple[str | None, str]:
    """(code execution's mode or None, LMStyle) of a golden group."""
    mode, _, lmstyle = group.rpartition("/")
    return mode or None, lmstyle


# livecodebench/test_generation and livecodebench/execution-v2 row fields, typed as the
# fixtures spell them (contest_date an ISO string; the problem classes do not parse it).
TEST_OUTPUT_FIELDS = {
    "question_title": str,
    "question_content": str,
    "question_id": str,
    "contest_id": str,
    "contest_date": str,
    "difficulty": str,
    "test": str,
    "starter_code": str,
    "function_name": str,
    "test_id": int,
}
EXECUTION_FIELDS = {
    "question_id": str,
    "contest_id": str,
    "contest_date": str,
    "difficulty": str,
    "function_name": str,
    "code": str,
    "input": str,
    "output": str,
    "id": str,
    "problem_id": str,
    "numsteps": int,
}


@dataclass(frozen=True)
class Attempt:
    """One self-repair input: a graded program of a code-generation run."""

    id: str
    judge_case: str  # the judge corpus case giving problem and program
    graded: bool
    metadata: str  # the judge's metadata for it, as the JSON string eval_all.json holds
    covers: str
    judge_metadata: bool = True  # the metadata is what today's judge writes for the program

    def value(self) -> dict:
        """The attempt as lcb_prompts.format_self_repair_prompt takes it."""
        case = judge_cases.judge_cases()[self.judge_case]
        return {
            "question_content": case.row()["question_content"],
            "code": case.program,
            "graded": self.graded,
            "metadata": self.metadata,
        }


@dataclass(frozen=True)
class Grading:
    """Generations for one problem, as a scenario's scorer takes them."""

    id: str
    problem: str  # a row id of the scenario's problem file
    generations: tuple[str, ...]
    covers: str


def _entries(path: Path) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise FixtureError(f"{path}: missing fixture file")
    return list(iter_jsonl(path))


def _id(path: Path, number: int, value: object, seen: dict) -> str:
    if not isinstance(value, str) or not CASE_ID.match(value):
        raise FixtureError(f"{path}:{number}: id {value!r} must match {CASE_ID.pattern}")
    if value in seen:
        raise FixtureError(f"{path}:{number}: duplicate id {value!r}")
    return value


def check_fields(
    path: Path, number: int, entry: dict, fields: dict, error: type[ValueError] = FixtureError
) -> None:
    """Each of ``fields`` (name -> type) present in the entry with that type (a bool is no
    int); ``error`` naming file, line and field otherwise."""
    for name, kind in fields.items():
        if not isinstance(entry.get(name), kind) or isinstance(entry.get(name), bool) != (
            kind is bool
        ):
            raise error(f"{path}:{number}: {name!r} must be {kind.__name__}")


@cache
def attempts() -> dict[str, Attempt]:
    found: dict[str, Attempt] = {}
    for number, entry in _entries(SELF_REPAIR_FILE):
        attempt_id = _id(SELF_REPAIR_FILE, number, entry.get("id"), found)
        check_fields(SELF_REPAIR_FILE, number, entry, {"judge_case": str, "graded": bool})
        if entry["judge_case"] not in judge_cases.judge_cases():
            raise FixtureError(
                f"{SELF_REPAIR_FILE}:{number}: judge_case {entry['judge_case']!r} is not a "
                f"case of {judge_cases.CASES_FILE.name}"
            )
        try:
            json.loads(entry["metadata"])
        except (KeyError, TypeError, ValueError):
            raise FixtureError(
                f"{SELF_REPAIR_FILE}:{number}: 'metadata' must be a JSON string"
            ) from None
        found[attempt_id] = Attempt(
            attempt_id,
            entry["judge_case"],
            entry["graded"],
            entry["metadata"],
            entry.get("covers", ""),
            entry.get("judge_metadata", True),
        )
    return found


@dataclass(frozen=True)
class ScenarioFiles:
    """The fixture files of test output prediction or code execution."""

    problems: Path  # the dataset's rows
    id_field: str  # the field naming a row
    fields: dict  # the row schema
    outputs: Path  # model outputs for the extractor
    gradings: Path  # generations for the scorer


FILES = {
    TEST_OUTPUT: ScenarioFiles(
        TEST_OUTPUT_FILE,
        "question_id",
        TEST_OUTPUT_FIELDS,
        TEST_OUTPUT_OUTPUTS_FILE,
        TEST_OUTPUT_GRADES_FILE,
    ),
    CODE_EXECUTION: ScenarioFiles(
        EXECUTION_FILE, "id", EXECUTION_FIELDS, EXECUTION_OUTPUTS_FILE, EXECUTION_GRADES_FILE
    ),
}


@cache
def problems(scenario: str) -> dict[str, dict]:
    """row id -> dataset row (test_generation's question_id, execution-v2's id)."""
    files = FILES[scenario]
    rows: dict[str, dict] = {}
    for number, row in _entries(files.problems):
        check_fields(files.problems, number, row, files.fields)
        rows[_id(files.problems, number, row[files.id_field], rows)] = row
    return rows


@cache
def outputs(scenario: str) -> dict[str, ModelOutput]:
    return read_outputs(FILES[scenario].outputs)


@cache
def gradings(scenario: str) -> dict[str, Grading]:
    path = FILES[scenario].gradings
    found: dict[str, Grading] = {}
    for number, entry in _entries(path):
        grading_id = _id(path, number, entry.get("id"), found)
        generations = entry.get("generations")
        if not isinstance(generations, list) or not all(isinstance(g, str) for g in generations):
            raise FixtureError(f"{path}:{number}: 'generations' must be a list of strings")
        if entry.get("problem") not in problems(scenario):
            raise FixtureError(f"{path}:{number}: problem {entry.get('problem')!r} is unknown")
        found[grading_id] = Grading(
            grading_id, entry["problem"], tuple(generations), entry.get("covers", "")
        )
    return found


def fixture_name(path: Path) -> str:
    """A fixture file as the case index names it (relative to fixtures/)."""
    return path.relative_to(FIXTURES_DIR).as_posix()


# fixture file -> the value one of its entries stands for in a call
FIXTURE_VALUES = {
    fixture_name(SELF_REPAIR_FILE): lambda entry_id: attempts()[entry_id].value(),
    **{
        fixture_name(files.problems): lambda entry_id, s=scenario: problems(s)[entry_id]
        for scenario, files in FILES.items()
    },
    **{
        fixture_name(files.outputs): lambda entry_id, s=scenario: outputs(s)[entry_id].output
        for scenario, files in FILES.items()
    },
    **{
        fixture_name(files.gradings): lambda entry_id, s=scenario: list(
            gradings(s)[entry_id].generations
        )
        for scenario, files in FILES.items()
    },
}
