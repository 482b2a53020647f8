"""The other three scenarios' inputs (fixtures/scenarios/): self-repair attempts, test output
prediction and code execution rows, model outputs, grading cases; every LMStyle.

The cases of lcb_runner's scenarios beside code generation, read from their fixture files
(fixtures/scenarios/), which each scenario's declaration names (suite/scenarios.py).

Each scenario's inputs are rows in the shape lcb_runner reads them:

- an attempt (self-repair): one attempt of a code-generation run's ``eval_all.json`` entry
  (the question, one program of ``code_list``, its ``graded_list`` verdict and its
  ``metadata`` JSON string). An attempt names a judge corpus case (fixtures/judge/): the
  problem's question and the program come from there, and its metadata is what lcb_runner's
  judge writes for that program (the judge goldens; test_scenarios.py holds them equal),
  unless ``judge_metadata`` is false (metadata an older lcb_runner judge wrote).
- a dataset row: livecodebench/test_generation's (``test`` a JSON string), execution-v2's.

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
from lcb_conformance.suite.scenarios import ATTEMPT, SCENARIOS, get

# What a prompt builder did with an input: returned a prompt, or raised (both are goldens).
RETURNED, RAISED = "returned", "raised"

# Every LMStyle of lcb_runner (the style table's, in its order): each scenario has a golden
# per LMStyle, a prompt or the error lcb_runner raises.
LMSTYLES = tuple(name for name in styles.MAPPINGS if name not in styles.NOT_LCB_RUNNER)
# The LMStyles whose scenario prompts lcb_runner renders with a chat template, and the
# tokenizer it loads for them (as for code generation).
CHAT_TEMPLATES = {"LLaMa3": styles.LLAMA3_TOKENIZER}


def groups(scenario: str) -> list[str]:
    """The golden groups of a scenario's per-LMStyle families: the LMStyle, under the prompt
    variant where it has two ("direct/OpenAIChat")."""
    modes = get(scenario).modes or (None,)
    return [f"{mode}/{lmstyle}" if mode else lmstyle for mode in modes for lmstyle in LMSTYLES]


def parse_group(group: str) -> tuple[str | None, str]:
    """(the prompt variant or None, LMStyle) of a golden group."""
    mode, _, lmstyle = group.rpartition("/")
    return mode or None, lmstyle


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


def fixture_file(name: str) -> Path:
    """A fixture file a declaration names (relative to fixtures/)."""
    return FIXTURES_DIR / name


@cache
def attempts(scenario: str) -> dict[str, Attempt]:
    """attempt id -> Attempt, of a scenario whose inputs are attempts (self-repair)."""
    path = fixture_file(get(scenario).inputs)
    found: dict[str, Attempt] = {}
    for number, entry in _entries(path):
        attempt_id = _id(path, number, entry.get("id"), found)
        check_fields(path, number, entry, {"judge_case": str, "graded": bool})
        if entry["judge_case"] not in judge_cases.judge_cases():
            raise FixtureError(
                f"{path}:{number}: judge_case {entry['judge_case']!r} is not a case of "
                f"{judge_cases.CASES_FILE.name}"
            )
        try:
            json.loads(entry["metadata"])
        except (KeyError, TypeError, ValueError):
            raise FixtureError(f"{path}:{number}: 'metadata' must be a JSON string") from None
        found[attempt_id] = Attempt(
            attempt_id,
            entry["judge_case"],
            entry["graded"],
            entry["metadata"],
            entry.get("covers", ""),
            entry.get("judge_metadata", True),
        )
    return found


@cache
def problems(scenario: str) -> dict[str, dict]:
    """row id -> dataset row (test_generation's question_id, execution-v2's id), of a
    scenario whose inputs are dataset rows."""
    declared = get(scenario)
    path = fixture_file(declared.inputs)
    rows: dict[str, dict] = {}
    for number, row in _entries(path):
        check_fields(path, number, row, declared.dataset.fields)
        rows[_id(path, number, row[declared.dataset.id_field], rows)] = row
    return rows


def inputs(scenario: str) -> dict[str, Attempt] | dict[str, dict]:
    """id -> a prompt's input: an Attempt, or a dataset row."""
    return attempts(scenario) if get(scenario).prompt.argument == ATTEMPT else problems(scenario)


@cache
def outputs(scenario: str) -> dict[str, ModelOutput]:
    return read_outputs(fixture_file(get(scenario).extraction.outputs))


@cache
def gradings(scenario: str) -> dict[str, Grading]:
    path = fixture_file(get(scenario).scoring.gradings)
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


def _input_value(scenario: str, entry_id: str) -> object:
    found = inputs(scenario)[entry_id]
    return found.value() if isinstance(found, Attempt) else found


# fixture file (relative to fixtures/) -> the value one of its entries stands for in a call
FIXTURE_VALUES = {
    **{
        declared.inputs: lambda entry_id, s=name: _input_value(s, entry_id)
        for name, declared in SCENARIOS.items()
    },
    **{
        declared.extraction.outputs: lambda entry_id, s=name: outputs(s)[entry_id].output
        for name, declared in SCENARIOS.items()
        if declared.extraction
    },
    **{
        declared.scoring.gradings: lambda entry_id, s=name: list(gradings(s)[entry_id].generations)
        for name, declared in SCENARIOS.items()
        if declared.scoring
    },
}
