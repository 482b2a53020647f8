"""lcb_runner's self-repair, test output prediction and code execution results, sample by sample
against its scenario prompt builders and extractors; where lcb_runner 28fef95 raises for the
LMStyle.

What lcb_runner 28fef95's main() writes (``output/<model_repr>/``, run_formats.lcb_runner_files),
one row per problem, ``output_list`` the raw outputs and, what was graded:

- self-repair, ``Scenario.selfrepair_1_<t>.json``: code generation's row (CodeGenerationProblem
  .insert_output), one repair per attempt of the code-generation run it repaired, and
  ``code_list``; its ``_eval_all`` adds ``original_code_list`` (the attempts' code). Each
  attempt's prompt is built from that run's ``_eval_all`` (question_content, code, graded,
  metadata), as base_runner.run_main_repair does: an accepted attempt gets no prompt and
  keeps its output. Extraction: extract_code with the LMStyle, as code generation's.
- test output prediction, ``Scenario.testoutputprediction_<n>_<t>.json``: question_id,
  test_id, the statement, starter_code and function_name, ``pred_list``. The prompt quotes the
  row's test input (``test[0].input``), which the results do not keep: only ``--dataset``
  (livecodebench/test_generation rows) gives it. Extraction: extract_test_output_code.
- code execution, ``Scenario.codeexecution_<n>_<t>[_cot].json``: the execution-v2 row (code,
  input, ...) and ``pred_list``: the prompt is rebuilt from the row itself (or ``--dataset``).
  Extraction: extract_execution_code with ``cot`` as the file name says.

The prompt lcb_runner sent is recorded only in its ``--use_cache`` file, keyed by it (one
entry per problem, or per repaired attempt), as for code generation. Where lcb_runner's
builder raises (most LMStyles at 28fef95; a self-repair attempt whose metadata it cannot
quote) its main() stops and writes nothing: a sample there is not lcb_runner's, and its
prompt is not compared, there being none of lcb_runner's ("lcb_runner raises ..."): the run
fails all the same; the audit also names, from the expected-error goldens
(run_formats.lcb_runner_files.lcb_runner_raises, which score asks too), where lcb_runner
28fef95 raises for the run's LMStyle in the scenario.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.common import json_stream
from lcb_conformance.run_audit import auditor
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit.audit_result import CANNOT, DIFFERS, IDENTICAL, Audit, Sample
from lcb_conformance.run_audit.auditor import NO_CACHE, AuditInputError, CacheIndex
from lcb_conformance.run_audit.request_logs import LCB_RUNNER
from lcb_conformance.run_formats import lcb_runner_files
from lcb_conformance.suite import cases
from lcb_conformance.suite import scenario_cases as scenarios
from lcb_conformance.suite.scenarios import (
    REPAIRED_RUN,
    SCENARIOS,
    Scenario,
    by_lcb_runner,
)
from lcb_conformance.upstream import scenarios as upstream_scenarios
from lcb_conformance.upstream.source import UpstreamMissing

OUTPUTS = {"output_list": list}
PREDICTION = ("a prediction", "another prediction")
# the fields of code generation's eval_all that self-repair reads (base_runner.run_main_repair)
REPAIRED_FIELDS = {
    "question_id": str, "question_content": str, "output_list": list, "code_list": list,
    "graded_list": list, "metadata": list,
}  # fmt: skip
NO_REPAIRED_RUN = (
    "the self-repair results do not record the attempts they repaired: the code-generation "
    "Scenario.codegeneration_<n>_<temperature>_eval_all.json it read is not beside them "
    "(--codegen-eval FILE)"
)
ACCEPTED = "an accepted attempt: lcb_runner sends no prompt and keeps its output"
ACCEPTED_CHANGED = "an accepted attempt, whose output lcb_runner keeps: the run has another"
SELF_REPAIR_N = (
    "one repair per attempt: lcb_runner's self-repair asserts --n 1, and a problem's attempts "
    "are the repaired run's n"
)


def needs_dataset(declared: Scenario) -> str:
    """Why a prompt of a scenario whose results lack part of its input cannot be checked."""
    return (
        f"lcb_runner's {declared.words} results do not keep {declared.audit.not_in_results}: "
        f"pass --dataset ({declared.dataset.hub_name} rows)"
    )


def repairs(scenario: str) -> bool:
    """Whether lcb_runner's ``scenario`` repairs a code-generation run (self-repair)."""
    return any(
        declared.lcb_runner == scenario and declared.audit.prompt_from == REPAIRED_RUN
        for declared in SCENARIOS.values()
    )


def row_fields(declared: Scenario) -> dict:
    """The fields a results row of the scenario is checked for (not code generation's)."""
    return {**declared.audit.results_fields, **OUTPUTS, declared.audit.scored: list}


def read_dataset(path: Path, scenario: str) -> dict[str, dict]:
    """The dataset rows (test_generation's, execution-v2's) of lcb_runner's ``scenario`` by
    problem name."""
    declared = by_lcb_runner(scenario)
    fields = declared.dataset.fields
    rows: dict[str, dict] = {}
    for number, row in cases.iter_jsonl(path, AuditInputError):
        scenarios.check_fields(path, number, row, fields, AuditInputError)
        rows[declared.name_problem(row)] = {name: row[name] for name in fields}
    if not rows:
        raise AuditInputError(f"{path}: no rows")
    return rows


@dataclass
class Attempts:
    """One problem of the code-generation run a self-repair run repaired."""

    question_content: str
    codes: list[str]
    graded: list
    metadata: list[str]
    outputs: list[str]  # digest of each output, for the accepted attempts'


def read_repaired(path: Path) -> dict[str, Attempts]:
    """question_id -> its attempts, from lcb_runner's code-generation eval_all (streamed)."""
    found: dict[str, Attempts] = {}
    try:
        for line, row in json_stream.iter_array(path):
            if not isinstance(row, dict):
                raise AuditInputError(f"{path}:{line}: a row is not an object")
            missing = [name for name in REPAIRED_FIELDS if name not in row]
            if {"graded_list", "metadata"} & set(missing):
                raise AuditInputError(
                    f"{path}:{line}: no graded_list and metadata: not lcb_runner's "
                    "code-generation _eval_all.json, which its self-repair reads"
                )
            scenarios.check_fields(path, line, row, REPAIRED_FIELDS, AuditInputError)
            lengths = {len(row[name]) for name in REPAIRED_FIELDS if name.endswith("list")}
            if len(lengths | {len(row["metadata"])}) != 1:
                raise AuditInputError(
                    f"{path}:{line}: problem {row['question_id']!r}: output_list, code_list, "
                    "graded_list and metadata of different lengths"
                )
            found[row["question_id"]] = Attempts(
                row["question_content"],
                row["code_list"],
                row["graded_list"],
                row["metadata"],
                [auditor.outputs_digest([output]) for output in row["output_list"]],
            )
    except json_stream.JsonStreamError as error:
        raise AuditInputError(str(error)) from None
    return found


class ScenarioAuditor(auditor.Auditor):
    """The samples of one scenario's results rows, against upstream's builder and
    extractor for it."""

    def __init__(
        self,
        upstream,
        lmstyle: str,
        scenario: str,
        cot: bool,
        cache: CacheIndex | None,
        dataset: dict | None,
        repaired: dict[str, Attempts] | None,
        show: int,
    ):
        super().__init__(upstream, lmstyle, cache, dataset, show)
        self.declared, self.cot, self.repaired = by_lcb_runner(scenario), cot, repaired
        # the code-generation rows in their file's order: lcb_runner's main() takes a
        # self-repair row's original_code_list from the row at its position
        self.repaired_order = list(repaired or ())
        self.position = -1  # the row's position in the self-repair file
        self.mode = lcb_runner_files.mode(self.declared, cot)
        self.raised: set[str] = set()  # the words of each error lcb_runner raised
        if self.declared.extraction:
            self.extracted = PREDICTION

    def extract(self, output: str) -> str:
        if not self.declared.extraction:  # code generation's extract_code
            return super().extract(output)
        return upstream_scenarios.extract(
            self.upstream, self.declared.name, self.mode, self.lmstyle, output
        )

    def built(self, value: dict) -> tuple[str, object]:
        """(RETURNED, the prompt) or (RAISED, what lcb_runner raised) for one input; (None,
        why) when upstream cannot say (no such builder, a tokenizer it cannot load)."""
        try:
            return upstream_scenarios.prompt(
                self.upstream, self.declared.name, self.mode, self.lmstyle, value
            )
        except (UpstreamMissing, *upstream_scenarios.ENVIRONMENT_ERRORS) as error:
            return None, f"upstream cannot build the prompt ({error!r:.200})"

    def expected(self, outcome, built, outputs: list, label: str, audit: Audit):
        """(outcome, why) of a prompt against what upstream did with its input."""
        if outcome is None:
            return CANNOT, built
        if outcome == scenarios.RAISED:  # no prompt of lcb_runner's exists to compare
            why = (
                f"lcb_runner raises {built['type']} ({built['message']:.200}) building this "
                "prompt: its main() stops there and writes no results, so there is no prompt "
                "of lcb_runner's to compare"
            )
            self.raised.add(why)
            return CANNOT, why
        if self.cache is None:
            return CANNOT, NO_CACHE
        return self.cached(built, outputs, label, audit)

    def problem_prompt(self, name: str, row: dict, label: str, audit: Audit) -> tuple[str, str]:
        """(outcome, why) of the prompt of a problem of a dataset-row scenario (test output
        prediction, code execution)."""
        if self.dataset is not None:
            if name not in self.dataset:
                return CANNOT, f"problem {name} is not in the dataset"
            value = self.dataset[name]
        elif self.declared.audit.not_in_results:
            return CANNOT, needs_dataset(self.declared)
        else:
            value = {field: row[field] for field in self.declared.dataset.fields}
        return self.expected(*self.built(value), row["output_list"], label, audit)

    def attempt_prompt(self, attempts: Attempts, index: int, output: str, label: str, audit):
        """(outcome, why) of the prompt repairing one attempt (base_runner.run_main_repair)."""
        value = {
            "question_content": attempts.question_content,
            "code": attempts.codes[index],
            "graded": attempts.graded[index],
            "metadata": attempts.metadata[index],
        }
        outcome, built = self.built(value)
        if outcome == scenarios.RETURNED and built == "":
            if auditor.outputs_digest([output]) == attempts.outputs[index]:
                return IDENTICAL, ACCEPTED
            return DIFFERS, ACCEPTED_CHANGED
        return self.expected(outcome, built, [output], label, audit)

    def repaired_attempts(
        self, path: Path, line: int, row: dict, audit: Audit
    ) -> tuple[Attempts | None, str]:
        """The attempts a self-repair row repaired (its problem's, as run_main_repair matches
        them by question_id), or why they are unknown; AuditInputError when the
        code-generation file is not the run it repaired."""
        if self.repaired is None:
            return None, NO_REPAIRED_RUN
        attempts = self.repaired.get(row["question_id"])
        if attempts is None:
            return None, f"problem {row['question_id']} is not in the repaired code-generation run"
        label = f"{path}:{line}: problem {row['question_id']!r}"
        if len(attempts.codes) != len(row["output_list"]):
            raise AuditInputError(
                f"{label}: {len(row['output_list'])} repairs, but the code-generation run has "
                f"{len(attempts.codes)} attempts"
            )
        recorded = row.get("original_code_list", attempts.codes)
        if recorded != attempts.codes and recorded == self._code_list_at(self.position):
            # upstream's own misalignment (main() zips the rows by position): the prompts
            # were built from this problem's attempts all the same
            audit.paired_by_position[row["question_id"]] = self.repaired_order[self.position]
        elif recorded != attempts.codes:
            raise AuditInputError(
                f"{label}: its original_code_list is not the code-generation run's code_list: "
                "not the run it repaired"
            )
        return attempts, ""

    def _code_list_at(self, position: int) -> list[str] | None:
        if not 0 <= position < len(self.repaired_order):
            return None
        return self.repaired[self.repaired_order[position]].codes

    def row(self, path: Path, line: int, row: dict, audit: Audit) -> None:
        name = self.declared.name_problem(row)
        where = f"{path}:{line}: {name}"
        scored = row[self.declared.audit.scored]
        repaired = repairs(self.declared.lcb_runner)
        self.position += 1
        if repaired:
            attempts, why = self.repaired_attempts(path, line, row, audit)
        else:
            prompt, why = self.problem_prompt(name, row, where, audit)
        for index, (output, graded) in enumerate(zip(row["output_list"], scored, strict=True)):
            label = f"{where} sample {index}"
            if repaired:
                prompt, why = (
                    self.attempt_prompt(attempts, index, output, label, audit)
                    if attempts
                    else (CANNOT, why)
                )
            if why in self.raised:  # not compared, and no sample lcb_runner writes
                audit.prompt_raised[why] += 1
            elif prompt == CANNOT:
                audit.prompt_unchecked[why] += 1
            extraction, kind = self.extraction(output, graded, label, audit)
            notes = "; ".join(note for note in (kind, why) if note)
            audit.samples.append(Sample(name, index, prompt, extraction, notes))


def check_row(path: Path, line: int, element: object, scenario: str) -> dict:
    """A results row with the scenario's fields, outputs and graded values paired."""
    declared = by_lcb_runner(scenario)
    if declared.audit.results_fields is None:  # code generation's row
        return auditor.check_row(path, line, element)
    if not isinstance(element, dict):
        raise AuditInputError(f"{path}:{line}: a row is {type(element).__name__}, not an object")
    scenarios.check_fields(path, line, element, row_fields(declared), AuditInputError)
    label = f"{path}:{line}: problem {declared.name_problem(element)!r}"
    scored = element[declared.audit.scored]
    auditor.check_paired(label, element["output_list"], scored, ("predictions", "prediction"))
    return element


def audit_scenario_run(
    path: Path,
    upstream,
    lmstyle: str,
    scenario: str,
    cot: bool = False,
    cache: CacheIndex | None = None,
    dataset: dict | None = None,
    repaired: dict[str, Attempts] | None = None,
    show: int = 5,
    variant: str = requested.DEFAULT_VARIANT,
) -> Audit:
    """Every sample of an lcb_runner results file of ``scenario`` (lcb_runner's name), and
    the request its file name records; AuditInputError on unusable input."""
    audit = Audit(
        str(path),
        LCB_RUNNER,
        lmstyle,
        upstream.describe_source(),
        cache and str(cache.path),
        scenario,
        cot,
        lcb_runner_files.lcb_runner_raises(scenario, cot, lmstyle),
    )
    scenario_auditor = ScenarioAuditor(
        upstream, lmstyle, scenario, cot, cache, dataset, repaired, show
    )
    seen: set[str] = set()
    with auditor.tokenizers_memoised(lmstyle):
        try:
            for line, element in json_stream.iter_array(path):
                row = check_row(path, line, element, scenario)
                name = scenario_auditor.declared.name_problem(row)
                if name in seen:
                    raise AuditInputError(f"{path}:{line}: problem {name!r} appears twice")
                seen.add(name)
                scenario_auditor.row(path, line, row, audit)
        except json_stream.JsonStreamError as error:
            raise AuditInputError(str(error)) from None
    if not seen:
        raise AuditInputError(f"{path}: no rows")
    n_why = SELF_REPAIR_N if repairs(scenario) else ""
    auditor.check_request(audit, path, Counter(), variant=variant, n_why=n_why)
    return audit


def first_row(path: Path) -> dict:
    """The results' first row ({} when there is none)."""
    rows = json_stream.iter_array(path)
    try:
        _, first = next(rows, (0, {}))
    except json_stream.JsonStreamError as error:
        raise AuditInputError(str(error)) from None
    finally:
        rows.close()
    return first if isinstance(first, dict) else {}


def scenario_of(path: Path) -> tuple[str, bool]:
    """(lcb_runner's scenario, CoT) of a results file: its name, or for a renamed file the
    first row's fields (code execution's CoT is recorded only in the name)."""
    named = lcb_runner_files.parse(path.name)
    if named is not None:
        return named.scenario, named.cot
    first = first_row(path)
    for declared in SCENARIOS.values():
        if declared.audit.marker not in first:
            continue
        if declared.modes:
            raise AuditInputError(
                f"{path}: {declared.words} results under another name than lcb_runner's "
                f"({lcb_runner_files.NAME_PATTERN}): only the name records "
                "--cot_code_execution"
            )
        return declared.lcb_runner, False
    return lcb_runner_files.CODE_GENERATION, False


def default_repaired(path: Path, scenario: str) -> Path | None:
    """The code-generation eval_all a self-repair run repaired, beside it as lcb_runner names
    it (its n: the first row's attempts); None for another scenario or when it is not there."""
    if not repairs(scenario):
        return None
    outputs = first_row(path).get("output_list")
    if not isinstance(outputs, list):
        return None
    return lcb_runner_files.repaired_results(path, len(outputs))


def check_options(args, scenario: str) -> None:
    """AuditInputError for an option the scenario's audit does not read."""
    if args.codegen_eval is not None and not repairs(scenario):
        raise AuditInputError(
            f"--codegen-eval: only a self-repair run repairs a code-generation run; "
            f"{args.run} is --scenario {scenario}"
        )
    if args.dataset is not None and repairs(scenario):
        raise AuditInputError(
            "--dataset: lcb_runner builds self-repair prompts from the code-generation "
            "_eval_all.json it repaired (--codegen-eval), not from dataset rows"
        )
