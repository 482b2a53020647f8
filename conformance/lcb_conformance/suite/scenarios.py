"""lcb_runner's scenarios beside code generation, one declaration each: the one place a
scenario is written down. Every table of the suite about them derives from :data:`SCENARIOS`:
the fixture readers (suite/scenario_cases.py), the golden families (families/scenario_*.py),
upstream's calls (upstream/scenarios.py), the run audit (run_audit/scenario_results.py), the
resolver's ``--scenario``, lcb_runner's file names (run_formats/lcb_runner_files.py) and the
run formats and regrade of their results. A new scenario is one :class:`Scenario` here, its
fixture files and the goldens ``lcb-conformance regen`` writes for it.

A scenario has one name in this project (its golden folder, ``resolve --scenario``, the docs):
:attr:`Scenario.name`; :attr:`Scenario.lcb_runner` is lcb_runner's own (its Scenario enum's
value: its ``--scenario`` and its file names), used only where lcb_runner's files or command
line are read or quoted.

lcb_prompts (impl/, standard library only) keeps its own list of these scenarios' names and
builders: test_scenarios.py holds it equal to this one. Standard library only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

# Code generation, lcb_runner's first scenario: its goldens are the prompt, messages, extract
# and judge families, not a declaration here.
CODE_GENERATION = "code-generation"

# The prompt variants of a scenario with two builders (code execution's
# format_prompt_execution and format_prompt_execution_cot): the first golden group's folder.
DIRECT, COT = "direct", "cot"
# What a prompt builder's input is: one graded program of a code-generation run (self-repair),
# or one row of the scenario's dataset.
ATTEMPT, ROW = "attempt", "row"
# Stand-ins in Prompt.upstream_arguments for the LMStyle member and the dataset's problem class
# built from the row.
LMSTYLE, PROBLEM = "<LMStyle>", "<problem>"
# Where the audit finds the input of a results row's prompt: the code-generation run the
# scenario repaired (its _eval_all beside the results, or --codegen-eval); the dataset's row
# (the results row itself, unless AuditTreatment.not_in_results says what it lacks; or
# --dataset).
REPAIRED_RUN, DATASET_ROW = "repaired run", "dataset row"


@dataclass(frozen=True)
class Prompt:
    """The scenario's prompt: lcb_prompts' builder and lcb_runner's."""

    function: str  # lcb_prompts' builder: the case index's call
    argument: str  # its input's argument: ATTEMPT or ROW
    upstream_module: str  # lcb_runner's module of the builder (below lcb_runner/)
    upstream: str  # lcb_runner's builder (with a CoT builder: the direct prompt's)
    # what lcb_runner passes its builder, in order: the input's fields, LMSTYLE, PROBLEM
    upstream_arguments: tuple[str, ...]
    cot_upstream: str | None = None  # lcb_runner's CoT builder: the scenario has DIRECT, COT


@dataclass(frozen=True)
class Dataset:
    """The Hugging Face dataset whose rows the scenario's prompts and scorer read."""

    hub_name: str  # on the Hugging Face Hub
    fields: Mapping[str, type]  # a row's fields, typed as the fixtures spell them
    id_field: str  # the field naming a fixture row
    upstream_module: str  # lcb_runner's benchmark module of its rows
    upstream_class: str  # the problem class built from a row


@dataclass(frozen=True)
class Extraction:
    """What the scenario keeps of a model's answer."""

    function: str  # lcb_prompts' extractor
    upstream: str  # lcb_runner's (utils/extraction_utils.py)
    outputs: str  # the fixture file of model outputs (relative to fixtures/)


@dataclass(frozen=True)
class Scoring:
    """The scenario's scorer, run on one problem's generations."""

    function: str  # lcb_prompts' scorer
    upstream_module: str  # lcb_runner's module of its metrics
    upstream: str  # lcb_runner's metrics function
    upstream_keywords: tuple[tuple[str, object], ...]  # as runner/scenario_router passes them
    gradings: str  # the fixture file of grading cases (relative to fixtures/)


@dataclass(frozen=True)
class AuditTreatment:
    """How `lcb-conformance audit` reads lcb_runner's results of the scenario."""

    prompt_from: str  # where a prompt's input is: REPAIRED_RUN, DATASET_ROW
    marker: str  # a field of its results rows no other scenario's rows have
    scored: str  # the row's list of what lcb_runner graded (code_list, pred_list)
    # a results row's fields besides output_list and the scored list; None: code
    # generation's row (run_audit.audit)
    results_fields: Mapping[str, type] | None
    # what a results row lacks of its prompt's input (then only --dataset gives the input)
    not_in_results: str = ""


@dataclass(frozen=True)
class Scenario:
    """One scenario of lcb_runner beside code generation."""

    name: str  # this project's: its golden folder, resolve --scenario, the docs
    lcb_runner: str  # lcb_runner's Scenario enum value: its --scenario, its file names
    words: str  # in a sentence
    inputs: str  # the fixture file of the prompts' inputs (relative to fixtures/)
    problem_name: tuple[str, ...]  # the row fields naming a problem, joined by "/"
    prompt: Prompt
    audit: AuditTreatment
    dataset: Dataset | None = None  # None: its inputs are attempts, not dataset rows
    extraction: Extraction | None = None  # None: code generation's extract_code
    scoring: Scoring | None = None  # None: code generation's judge
    run_format: str | None = None  # the run_formats module (NAME) of its results, if any

    @property
    def modes(self) -> tuple[str, ...]:
        """Its prompt variants ((DIRECT, COT) with a CoT builder), each a golden group level."""
        return (DIRECT, COT) if self.prompt.cot_upstream else ()

    @property
    def families(self) -> tuple[str, ...]:
        """Its golden families (families/scenario_prompt.py, _extract.py, _score.py)."""
        kinds = ("prompt", "extract" if self.extraction else "", "score" if self.scoring else "")
        return tuple(f"{self.name}/{kind}" for kind in kinds if kind)

    def name_problem(self, row: Mapping) -> str:
        """A results or dataset row's problem, as the audit and regrade name it."""
        return "/".join(str(row[field]) for field in self.problem_name)


# livecodebench/test_generation's and livecodebench/execution-v2's rows, typed as the fixtures
# spell them (contest_date an ISO string; the problem classes do not parse it)
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

SELF_REPAIR = Scenario(
    name="self-repair",
    lcb_runner="selfrepair",
    words="self-repair",
    inputs="scenarios/self_repair.jsonl",
    problem_name=("question_id",),
    prompt=Prompt(
        "format_self_repair_prompt",
        ATTEMPT,
        "prompts.self_repair",
        "format_prompt_self_repair",
        ("question_content", LMSTYLE, "code", "graded", "metadata"),
    ),
    audit=AuditTreatment(REPAIRED_RUN, "original_code_list", "code_list", None),
)
TEST_OUTPUT = Scenario(
    name="test-output",
    lcb_runner="testoutputprediction",
    words="test output prediction",
    inputs="scenarios/test_output.jsonl",
    problem_name=("question_id", "test_id"),
    prompt=Prompt(
        "format_test_output_prompt",
        ROW,
        "prompts.test_output_prediction",
        "format_prompt_test_output",
        (PROBLEM, LMSTYLE),
    ),
    audit=AuditTreatment(
        DATASET_ROW,
        "test_id",
        "pred_list",
        {
            name: TEST_OUTPUT_FIELDS[name]
            for name in ("question_id", "test_id", "question_content", "starter_code",
                         "function_name")
        },  # fmt: skip
        not_in_results="the test input its prompt quotes",
    ),
    dataset=Dataset(
        "livecodebench/test_generation",
        TEST_OUTPUT_FIELDS,
        "question_id",
        "benchmarks.test_output_prediction",
        "TestOutputPredictionProblem",
    ),
    extraction=Extraction(
        "extract_test_output", "extract_test_output_code", "scenarios/test_output_outputs.jsonl"
    ),
    scoring=Scoring(
        "score_test_output",
        "evaluation.compute_test_output_prediction_metrics",
        "test_output_metrics",
        (("k_list", [1, 5]),),
        "scenarios/test_output_grades.jsonl",
    ),
    run_format="lcb_runner_test_output",
)
CODE_EXECUTION = Scenario(
    name="code-execution",
    lcb_runner="codeexecution",
    words="code execution",
    inputs="scenarios/execution.jsonl",
    problem_name=("id",),
    prompt=Prompt(
        "format_code_execution_prompt",
        ROW,
        "prompts.code_execution",
        "format_prompt_execution",
        (PROBLEM, LMSTYLE),
        cot_upstream="format_prompt_execution_cot",
    ),
    audit=AuditTreatment(DATASET_ROW, "numsteps", "pred_list", EXECUTION_FIELDS),
    dataset=Dataset(
        "livecodebench/execution-v2",
        EXECUTION_FIELDS,
        "id",
        "benchmarks.code_execution",
        "CodeExecutionProblem",
    ),
    extraction=Extraction(
        "extract_execution_answer", "extract_execution_code", "scenarios/execution_outputs.jsonl"
    ),
    scoring=Scoring(
        "score_code_execution",
        "evaluation.compute_code_execution_metrics",
        "code_execution_metrics",
        (),
        "scenarios/execution_grades.jsonl",
    ),
    run_format="lcb_runner_code_execution",
)

# The registry: name -> declaration, in the order the suite lists them.
SCENARIOS: dict[str, Scenario] = {
    scenario.name: scenario for scenario in (SELF_REPAIR, TEST_OUTPUT, CODE_EXECUTION)
}


def get(name: str) -> Scenario:
    """The declaration of a scenario by this project's name."""
    try:
        return SCENARIOS[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a scenario ({', '.join(SCENARIOS)})") from None


def by_lcb_runner(value: str) -> Scenario:
    """The declaration of lcb_runner's Scenario value (its --scenario, its file names)."""
    for scenario in SCENARIOS.values():
        if scenario.lcb_runner == value:
            return scenario
    raise ValueError(f"lcb_runner's scenario {value!r} is not declared here")


def by_run_format(name: str) -> Scenario:
    """The declaration whose results the run format module ``name`` (its NAME) reads."""
    for scenario in SCENARIOS.values():
        if scenario.run_format == name:
            return scenario
    raise ValueError(f"no scenario's results are in the run format {name!r}")
