"""The case runner: every case against an implementation, one typed result each, serial or in
workers.

A golden case calls the adapter function the index names with keyword arguments (fixture
pointers resolved, a tokenizer as the loaded snapshot in-process or its repo id over
--impl-cmd), turns the answer into golden text by its family's ``render``, and compares it with
the golden it is held to: lcb_runner's own, or a deviation's the implementation declares. The
judge family's calls run untrusted programs, so they run in sandboxed child processes, or over
--impl-cmd in the implementation's own process started afresh under the same limits
(upstream/judge.py), all at once. ``jobs`` > 1 spreads the cases over that many worker
processes; the results come back in index order either way, so a run's results file is the same
serial, in parallel and over --impl-cmd, timings aside.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lcb_conformance.adapters import impl_options, implementation, process, sandbox
from lcb_conformance.adapters.implementation import NotProvided
from lcb_conformance.common import showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.runner import contract, properties
from lcb_conformance.runner.results import (
    CONTRACT,
    DIFFERS,
    ERROR,
    FAILED,
    IDENTICAL,
    NOT_PROVIDED,
    PASSED,
    REFERENCE,
    SKIPPED,
    UPSTREAM,
    WHITESPACE,
    CaseResult,
    ConformanceRun,
    ResultsFileError,
)
from lcb_conformance.suite import families, goldens, index, judge_cases
from lcb_conformance.suite.families import judge as judge_family
from lcb_conformance.upstream import judge

CONTRACT_ROW = "API contract"  # the contract's rows of the verdict, by group
CHUNKS_PER_JOB = 4
# Seconds per call of the sandboxed families other than the judge (a scorer running one
# problem's generations), all made in one child: start-up plus a few seconds a generation.
CHILD_SECONDS_PER_CALL = 60


@dataclass(frozen=True)
class Spec:
    """How to load the implementation under test, in this process or a worker."""

    impl: str = implementation.REFERENCE
    impl_path: tuple[str, ...] = ()
    impl_cmd: str | None = None
    impl_timeout: float = process.DEFAULT_TIMEOUT
    impl_memory_mb: int = process.DEFAULT_MEMORY_MB
    tokenizers: str = str(hf_cache.SNAPSHOTS_DIR)

    def missing_folder(self, flag=lambda name: f"--{name}") -> str | None:
        """Which folder option (spelt by ``flag``) names no folder, or None: a typo must not
        run as a run without snapshots, or import the adapter from elsewhere."""
        if not Path(self.tokenizers).is_dir():
            return f"{flag('tokenizers')} {self.tokenizers}: no such folder"
        return impl_options.missing_folder(self.impl_path, flag)

    def load(self) -> implementation.Implementation:
        """The implementation (ImportError, one line, when it cannot be loaded)."""
        if (missing := self.missing_folder()) is not None:
            raise ImportError(missing)
        hf_cache.serve(Path(self.tokenizers))
        return impl_options.load(lambda name: getattr(self, name.replace("-", "_")))


@dataclass
class Selection:
    """Which cases run: the golden families (None: all), the contract, case ids (None: all)."""

    families: frozenset[str] | None = None
    contract: bool = True
    ids: frozenset[str] | None = None

    def wants(self, case_id: str, family: str | None) -> bool:
        if self.ids is not None and case_id not in self.ids:
            return False
        return family is None or self.families is None or family in self.families


def golden_cases(selection: Selection | None = None) -> list[dict]:
    """The golden cases an implementation is held to in this environment, in index order."""
    selection = selection or Selection()
    return [
        case
        for case in index.held_cases()
        if families.in_this_environment(goldens.key_of(case["id"]))
        and selection.wants(case["id"], case["family"])
    ]


def contract_cases(selection: Selection | None = None) -> list[contract.ContractCase]:
    selection = selection or Selection()
    if not selection.contract:
        return []
    return [case for case in contract.contract_cases() if selection.wants(case.id, None)]


# --- one golden case --------------------------------------------------------------------------


def _tier(case: dict) -> str:
    return UPSTREAM if case["upstream"] else REFERENCE


def _result(case: dict, status: str, **details) -> CaseResult:
    return CaseResult(
        id=case["id"],
        tier=_tier(case),
        family=case["family"],
        function=case["call"]["function"],
        cell=tuple(case["cell"]),
        status=status,
        lmstyles=tuple(case.get("lmstyles", ())),
        shared_with=tuple(case.get("shared_with", ())),
        **details,
    )


def compare(case: dict, actual: str, deviations: tuple[str, ...]) -> dict:
    """The status of an answer (as golden text) and how it differs from the golden it is
    held to: lcb_runner's, or the deviation's when the implementation declares it."""
    held_to = index.golden_held_to(case, deviations)
    golden = goldens.read(goldens.key_of(held_to))
    details: dict = {"golden": held_to}
    if held_to != goldens.key_of(case["id"]).relative:
        details["deviation"] = case["deviation"]
        details["upstream_identical"] = actual == goldens.read(goldens.key_of(case["id"]))
    if actual == golden:
        return details | {"status": IDENTICAL}  # the answer is the golden: not kept twice
    details["actual"] = actual
    if golden is None:
        return details | {"status": ERROR, "reason": f"the golden {held_to} is missing"}
    difference = showdiff.describe(golden, actual)
    status = WHITESPACE if difference["whitespace_only"] else DIFFERS
    return details | {"status": status, "difference": difference, "reason": difference["kind"]}


# The statuses a golden case's row may claim holding no answer: what the file cannot disprove
# (an answer equal to its golden is not kept; an error, a skip, a NotProvided the adapter
# raised for the case hold none). A contract case never holds an answer.
_WITHOUT_ANSWER = (IDENTICAL, NOT_PROVIDED, ERROR, SKIPPED)
_CONTRACT_STATUSES = (PASSED, FAILED, NOT_PROVIDED, SKIPPED)


def _answer(result: CaseResult, case: dict, deviations: tuple[str, ...]) -> str | None:
    """The answer a row holds as golden text: its actual, or an identical row's golden (not
    kept twice; unless lcb_runner raises there and so did the implementation); None: none."""
    if result.actual is not None or result.status != IDENTICAL:
        return result.actual
    held = goldens.read(goldens.key_of(index.golden_held_to(case, deviations)))
    met_by_raising = families.get(case["family"]).met_by_raising
    return None if held is None or (met_by_raising and met_by_raising(held)) else held


def _disagreement(result: CaseResult, deviations: tuple[str, ...]) -> str:
    """How a row's contents disagree with what it claims ("": they do not): its status, and
    the deviation it was held to and whether it is lcb_runner's own (tier 1), its answer
    compared with its golden as the run compared it."""
    answered = any(v is not None for v in (result.actual, result.actual_repr, result.difference))
    if result.tier == CONTRACT:
        if answered or result.status not in _CONTRACT_STATUSES:
            return "a contract case holds no answer and is passed, failed, not provided or skipped"
        return ""
    if result.actual is None and answered:  # an answer that was no text: the difference says
        return "" if result.status == DIFFERS else "it holds an answer that is no text: differs"
    case = _cases_by_id()[0][result.id]
    answer = _answer(result, case, deviations)
    if answer is not None:
        found = compare(case, answer, deviations)
        if found["status"] != result.status:
            return f"its answer against its golden is {found['status']}"
        claimed = (result.deviation, result.upstream_identical)
        derived = (found.get("deviation"), found.get("upstream_identical"))
        if claimed != derived:
            return f"its (deviation, upstream_identical) are {claimed}, its answer's {derived}"
        return ""
    return "" if result.status in _WITHOUT_ANSWER else "it holds no answer"


def rederive(found: ConformanceRun, path: Path) -> None:
    """Every row's status re-derived from what the file holds (:func:`_disagreement`, with the
    deviations its header declares), and no row claiming to have run a function its header
    says the implementation does not provide. ResultsFileError names the first row that
    disagrees: a results file is data anyone can edit, and a verdict is read from it."""
    impl = found.impl
    deviations = tuple(impl.get("deviations", ()))
    lacks = set(impl.get("not_provided", ()))
    for number, result in enumerate(found.results, start=2):  # line 1 is the header
        what = _disagreement(result, deviations)
        if not what and result.ran and lacks & set(result.function.split(",")):
            what = f"its header says {impl.get('name')} does not provide {result.function}"
        if what:
            raise ResultsFileError(
                f"{path}:{number}: {result.id} says {result.status}, but {what}: the file is "
                "not what the run found"
            )


class Runner:
    """Runs cases against one loaded implementation."""

    def __init__(self, impl: implementation.Implementation, examples: int | None = None):
        self.impl = impl
        self.over_process = isinstance(impl.module, process.ProcessAdapter)
        self.examples = examples or properties.BUDGET  # per contract property

    def arguments(self, call: dict) -> dict:
        arguments = index.arguments(call)
        if arguments.get("tokenizer") is not None and impl_options.loads_tokenizer_here(
            self.impl, call["function"]
        ):
            arguments["tokenizer"] = hf_cache.load_tokenizer(arguments["tokenizer"])
        return arguments

    def golden(self, case: dict) -> CaseResult:
        started = time.perf_counter()
        found = self._golden(case)
        found.seconds = round(time.perf_counter() - started, 6)
        return found

    def _golden(self, case: dict) -> CaseResult:
        function = case["call"]["function"]
        try:
            arguments = self.arguments(case["call"])
        except OSError as error:  # a tokenizer the served snapshots lack (--tokenizers DIR)
            return _result(case, SKIPPED, reason=f"cannot load its tokenizer: {error}")
        try:
            value = getattr(self.impl, function)(**arguments)
        except NotProvided as missing:
            return _result(case, NOT_PROVIDED, reason=str(missing))
        except (Exception, SystemExit) as error:  # the implementation's failure is a result
            return self._raised(case, _describe_error(error))
        family = families.get(case["family"])
        try:
            actual = family.render(value, arguments)
        except families.NotText as not_text:
            return _result(
                case,
                DIFFERS,
                reason=str(not_text),
                actual_repr=repr(value)[:2000],
                golden=index.golden_held_to(case, self.impl.deviations),
                difference=showdiff.no_text(str(not_text)),
            )
        return _result(case, **compare(case, actual, self.impl.deviations))

    def _raised(self, case: dict, error: str) -> CaseResult:
        """An implementation that raised: identical where lcb_runner raises too (the family's
        met_by_raising says so from the golden), an error otherwise."""
        met_by_raising = families.get(case["family"]).met_by_raising
        held_to = index.golden_held_to(case, self.impl.deviations)
        golden = goldens.read(goldens.key_of(held_to))
        if met_by_raising is not None and golden is not None and met_by_raising(golden):
            # the same result in-process and over --impl-cmd: not the error's own wording
            return _result(case, IDENTICAL, golden=held_to, reason="raises, as lcb_runner does")
        return _result(case, ERROR, reason=error)

    def sandboxed(self, cases: list[dict]) -> list[CaseResult]:
        """The sandboxed families' cases, in their order: the judge's (judge_program on every
        program at once, upstream/judge.py) and the others' (their calls in one sandboxed
        child, adapters/sandbox.py)."""
        found = {
            result.id: result
            for result in self._judged_batch([c for c in cases if c["family"] == goldens.JUDGE])
        }
        others = [case for case in cases if case["family"] != goldens.JUDGE]
        found |= {result.id: result for result in self._in_child(others)}
        return [found[case["id"]] for case in cases]

    def _in_child(self, cases: list[dict]) -> list[CaseResult]:
        """Cases whose calls run in one sandboxed child, in order; over --impl-cmd the
        implementation's own process (time and memory limits) is that child."""
        if self.over_process:
            return [self.golden(case) for case in cases]
        provided = []
        found = {}
        for case in cases:
            function = case["call"]["function"]
            if self.impl.provides(function):
                provided.append(case)
            else:
                reason = f"{self.impl.name} {implementation.NOT_PROVIDED} {function}"
                found[case["id"]] = _result(case, NOT_PROVIDED, reason=reason)
        if provided:
            started = time.perf_counter()
            calls = [(c["call"]["function"], index.arguments(c["call"])) for c in provided]
            try:
                answers = sandbox.calls_in_child(
                    self.impl.name, calls, CHILD_SECONDS_PER_CALL * len(calls)
                )
            except sandbox.ChildFailed as failed:
                answers = [{"failed": str(failed)}] * len(calls)
            each = round((time.perf_counter() - started) / len(calls), 6)
            for case, (_, arguments), answer in zip(provided, calls, answers, strict=True):
                found[case["id"]] = self._answered(case, arguments, answer)
                found[case["id"]].seconds = each
        return [found[case["id"]] for case in cases]

    def _answered(self, case: dict, arguments: dict, answer: dict) -> CaseResult:
        if "failed" in answer:
            return _result(case, ERROR, reason=answer["failed"])
        if "raised" in answer:
            if implementation.not_provided(answer["raised"]):
                return _result(case, NOT_PROVIDED, reason=answer["raised"]["message"])
            return self._raised(case, implementation.describe_raised(answer["raised"]))
        try:
            actual = families.get(case["family"]).render(answer["value"], arguments)
        except families.NotText as not_text:
            return _result(
                case,
                DIFFERS,
                reason=str(not_text),
                golden=case["golden"],
                difference=showdiff.no_text(str(not_text)),
            )
        return _result(case, **compare(case, actual, self.impl.deviations))

    def _judged_batch(self, cases: list[dict]) -> list[CaseResult]:
        """The judge family's cases: the implementation's judge_program run on every program
        at once, in sandboxed child processes, or over --impl-cmd in its own process started
        afresh under the same limits (upstream/judge.py)."""
        if not cases:
            return []
        if not self.impl.provides("judge_program"):
            reason = f"{self.impl.name} {implementation.NOT_PROVIDED} judge_program"
            return [_result(case, NOT_PROVIDED, reason=reason) for case in cases]
        corpus = judge_cases.judge_cases()
        judged = [corpus[goldens.key_of(c["id"]).case] for c in cases]
        started = time.perf_counter()
        if self.over_process:
            outcomes = judge.run_served(self.impl.module.command, judged)
        else:
            outcomes = judge.run_batch(judge.impl_spec(self.impl.name), judged)
        each = round((time.perf_counter() - started) / len(cases), 6)
        found = []
        for case in cases:
            outcome = outcomes[goldens.key_of(case["id"]).case]
            found.append(self._judged(case, outcome))
            found[-1].seconds = each
        return found

    def _judged(self, case: dict, outcome: dict) -> CaseResult:
        """A judge outcome against its golden. Where lcb_runner raises (a "rejected" golden:
        what it raised, as data) a judge that raised is held to it in the same form, type
        and message; anywhere else a raise is an error."""
        rejects = judge_family.rejects(goldens.read(goldens.key_of(case["golden"])) or "{}")
        if "failed" in outcome:
            return _result(case, ERROR, reason=outcome["failed"], golden=case["golden"])
        if "raised" in outcome:
            raised = outcome["raised"]
            if implementation.not_provided(raised):
                return _result(case, NOT_PROVIDED, reason=raised["message"])
            if not rejects:
                reason = implementation.describe_raised(raised)
                return _result(case, ERROR, reason=reason, golden=case["golden"])
            actual = families.get(case["family"]).render(judge.rejected(raised), {})
            return _result(case, **compare(case, actual, self.impl.deviations))
        actual = families.get(case["family"]).render(outcome["verdict"], {})
        if rejects:
            return _result(
                case,
                DIFFERS,
                golden=case["golden"],
                actual=actual,
                reason="lcb_runner rejects this row's tests (it raises); the implementation "
                "graded it",
            )
        return _result(case, **compare(case, actual, self.impl.deviations))

    def contract(self, case: contract.ContractCase) -> CaseResult:
        result = CaseResult(
            id=case.id,
            tier=CONTRACT,
            family=case.group,
            function=",".join(case.functions),
            cell=(CONTRACT_ROW, case.group),
            status=PASSED,
        )
        started = time.perf_counter()
        missing = [f for f in case.functions if not self.impl.provides(f)]
        if missing:
            result.status = NOT_PROVIDED
            result.reason = f"{self.impl.name} {implementation.NOT_PROVIDED} {', '.join(missing)}"
        elif case.in_process and self.over_process:
            result.status = SKIPPED
            result.reason = "passes a Python object no process boundary carries"
        else:
            try:
                case.check(contract.Functions(self.impl, hf_cache.load_tokenizer, self.examples))
            except NotProvided as not_provided:
                result.status, result.reason = NOT_PROVIDED, str(not_provided)
            except AssertionError as broken:
                result.status, result.reason = FAILED, _with_notes(broken, str(broken))
            except (Exception, SystemExit) as error:  # the implementation's failure: a result
                result.status, result.reason = FAILED, _describe_error(error)
        result.seconds = round(time.perf_counter() - started, 6)
        return result

    def by_ids(self, ids: list[str]) -> list[dict]:
        """Golden and contract cases by id, as JSON results (a worker's job)."""
        golden, contracts = _cases_by_id()
        found = []
        for case_id in ids:
            if case_id in golden:
                found.append(self.golden(golden[case_id]).to_json())
            else:
                found.append(self.contract(contracts[case_id]).to_json())
        return found


@cache
def _cases_by_id() -> tuple[dict[str, dict], dict[str, contract.ContractCase]]:
    golden = {case["id"]: case for case in index.held_cases()}
    return golden, {case.id: case for case in contract.contract_cases()}


def _describe_error(error: BaseException) -> str:
    return _with_notes(error, f"{type(error).__name__}: {error}")


def _with_notes(error: BaseException, text: str) -> str:
    """The text, and what Hypothesis noted (its falsifying example) or the exception chain."""
    notes = [note for note in getattr(error, "__notes__", ()) if note.strip()]
    return "\n".join([text, *notes])[:4000]


# --- a whole run ------------------------------------------------------------------------------


@dataclass
class Plan:
    """What a run will do, in order: golden cases (sandboxed ones apart) and contract cases."""

    golden: list[dict] = field(default_factory=list)
    sandboxed: list[dict] = field(default_factory=list)
    contract: list[contract.ContractCase] = field(default_factory=list)

    @classmethod
    def of(cls, selection: Selection | None = None) -> Plan:
        plan = cls(contract=contract_cases(selection))
        for case in golden_cases(selection):
            sandboxed = families.get(case["family"]).sandboxed
            (plan.sandboxed if sandboxed else plan.golden).append(case)
        return plan

    def __len__(self) -> int:
        return len(self.golden) + len(self.sandboxed) + len(self.contract)


def run(
    impl: implementation.Implementation,
    selection: Selection | None = None,
    *,
    plan: Plan | None = None,
    spec: Spec | None = None,
    jobs: int = 1,
) -> Iterator[CaseResult]:
    """Every selected case's result (or the ``plan``'s), in index order: golden cases, the
    sandboxed cases, then the contract's. ``jobs`` > 1 needs the ``spec`` the
    implementation was loaded from, so that each worker loads its own."""
    plan = plan or Plan.of(selection)
    runner = Runner(impl)
    if jobs > 1 and spec is not None:
        yield from _in_workers(spec, plan, jobs, runner)
        return
    for case in plan.golden:
        yield runner.golden(case)
    yield from runner.sandboxed(plan.sandboxed)
    for case in plan.contract:
        yield runner.contract(case)


_worker: Runner | None = None


def _start_worker(spec: Spec) -> None:
    global _worker
    _worker = Runner(spec.load())


def _work(ids: list[str]) -> list[dict]:
    return _worker.by_ids(ids)


def _chunks(ids: list[str], count: int) -> list[list[str]]:
    size = max(1, -(-len(ids) // count))
    return [ids[start : start + size] for start in range(0, len(ids), size)]


def _in_workers(spec: Spec, plan: Plan, jobs: int, runner: Runner) -> Iterator[CaseResult]:
    ids = [case["id"] for case in plan.golden]
    contract_ids = [case.id for case in plan.contract]
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing inherited
    with concurrent.futures.ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker, initargs=(spec,)
    ) as pool:
        golden = pool.map(_work, _chunks(ids, jobs * CHUNKS_PER_JOB))
        contracts = pool.map(_work, _chunks(contract_ids, jobs * CHUNKS_PER_JOB))
        for chunk in golden:
            yield from map(CaseResult.from_json, chunk)
        yield from runner.sandboxed(plan.sandboxed)
        for chunk in contracts:
            yield from map(CaseResult.from_json, chunk)
