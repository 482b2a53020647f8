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
serial, in parallel and over --impl-cmd, timings aside. Given the Spec it was loaded from (the
command and the pytest plugin give it), an in-process implementation's golden and contract
cases run in child processes the run outlives, each under the case time limit
(runner/case_child.py); over --impl-cmd the program is that other process.
"""

from __future__ import annotations

import concurrent.futures
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache

from lcb_conformance.adapters import impl_options, implementation, process, sandbox
from lcb_conformance.adapters.implementation import Declined, NotProvided
from lcb_conformance.common import exit_codes, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.runner import case_child, contract, judge_timing, properties
from lcb_conformance.runner.options import Selection, Spec
from lcb_conformance.runner.results import (
    CONTRACT,
    DECLINED,
    DIFFERS,
    ERROR,
    FAILED,
    IDENTICAL,
    NOT_PROVIDED,
    PASSED,
    REFERENCE,
    SKIPPED,
    TIMED_OUT,
    UPSTREAM,
    WHITESPACE,
    CaseResult,
)
from lcb_conformance.suite import families, goldens, index, judge_cases
from lcb_conformance.suite.families import judge as judge_family
from lcb_conformance.upstream import judge

CONTRACT_ROW = "API contract"  # the contract's rows of the verdict, by group
CHUNKS_PER_JOB = 4
# Seconds per call of the sandboxed families other than the judge (a scorer running one
# problem's generations), all made in one child: start-up plus a few seconds a generation.
CHILD_SECONDS_PER_CALL = 60


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
        except Declined as declined:
            return _result(case, DECLINED, reason=str(declined))
        except Exception as error:  # the implementation's failure is a result; SystemExit
            # ends the process it runs in, as os._exit would (case_child.py)
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
            if implementation.declined(answer["raised"]):
                return _result(case, DECLINED, reason=answer["raised"]["message"])
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
        outcomes = self._judge(judged)
        each = round((time.perf_counter() - started) / len(cases), 6)
        found = []
        for case in cases:
            outcome = outcomes[goldens.key_of(case["id"]).case]
            found.append(self._judged(case, outcome))
            found[-1].seconds = each
            found[-1].timing_sensitive = judge_timing.sensitivity(found[-1])
        pairs = {case["id"]: (case, one) for case, one in zip(cases, judged, strict=True)}
        self._recheck(found, pairs)
        return found

    def _recheck(self, found: list[CaseResult], by_id: dict) -> None:
        """The timing-sensitive differences re-run after the batch, one at a time, each in a
        child of its own (runner/judge_timing.py); a re-run giving no verdict settles nothing."""
        for result in judge_timing.to_recheck(found):
            case, judged = by_id[result.id]
            verdict = self._judge([judged])[judged.id].get("verdict")
            if verdict is not None:
                rechecked = families.get(case["family"]).render(verdict, {})
                compared = compare(case, rechecked, self.impl.deviations)
                judge_timing.settled(result, rechecked, compared)

    def _judge(self, judged: list[judge_cases.JudgeCase]) -> dict[str, dict]:
        if self.over_process:
            return judge.run_served(self.impl.module.command, judged)
        return judge.run_batch(judge.impl_spec(self.impl.name), judged)

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
        result = _contract_result(case, PASSED)
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
            except Exception as error:  # the implementation's failure: a result (SystemExit,
                # or Hypothesis' group of one, ends the process: case_child.py)
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


def _contract_result(case: contract.ContractCase, status: str, **details) -> CaseResult:
    return CaseResult(
        id=case.id,
        tier=CONTRACT,
        family=case.group,
        function=",".join(case.functions),
        cell=(CONTRACT_ROW, case.group),
        status=status,
        **details,
    )


def _serve_cases(spec: Spec, connection) -> None:
    """A case child's work (case_child.CaseChild): load the implementation, then answer each
    (case id, first calls decided so far) with (its result as JSON, first calls)."""
    found = None
    try:
        runner = Runner(spec.load())
        while True:
            case_id, first_calls = connection.recv()
            for function, first in first_calls.items():
                runner.impl.first_calls.setdefault(function, first)
            [found] = runner.by_ids([case_id])
            connection.send((found, dict(runner.impl.first_calls)))
    except EOFError:  # the caller is done with this child
        return
    except BaseException as ending:  # noqa: BLE001 - SystemExit, a group holding it: the
        # adapter ending this process; the caller says it in one line (no traceback here)
        connection.send((None, f"it raised {type(ending).__name__}: {ending}"))
        os._exit(exit_codes.INCOMPLETE)


class InChild:
    """An in-process implementation's golden and contract cases, each run in a case child
    under the time limit (case_child.py): the caller outlives whatever the adapter does."""

    def __init__(self, spec: Spec, first_calls: dict | None = None):
        self.spec = spec
        self.child = case_child.CaseChild(spec, _serve_cases, spec.case_timeout)
        self.first_calls = dict(first_calls or {})  # what every child holds of first calls

    def result(self, case: dict | contract.ContractCase) -> CaseResult:
        """The case's result (AdapterEnded when the adapter ended the child)."""
        case_id = case["id"] if isinstance(case, dict) else case.id
        answer = self.child.ask(case_id, self.first_calls)
        if answer is None:
            reason = (
                f"no answer within the case time limit of {self.spec.case_timeout:g} s "
                "(--case-timeout; killed)"
            )
            if isinstance(case, dict):
                return _result(case, TIMED_OUT, reason=reason, seconds=self.spec.case_timeout)
            return _contract_result(case, TIMED_OUT, reason=reason, seconds=self.spec.case_timeout)
        found, first_calls = answer
        for function, first in first_calls.items():
            self.first_calls.setdefault(function, first)
        return CaseResult.from_json(found)

    def close(self) -> None:
        self.child.close()


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
    sandboxed cases, then the contract's. With the ``spec`` the implementation was loaded
    from, an in-process implementation's golden and contract cases run in case children
    (``jobs`` of them; case_child.AdapterEnded when the adapter ends one), and over
    --impl-cmd ``jobs`` > 1 starts the program in that many children; without it, all in this
    process."""
    plan = plan or Plan.of(selection)
    runner = Runner(impl)
    if spec is None or (runner.over_process and jobs <= 1):
        for case in plan.golden:
            yield runner.golden(case)
        yield from runner.sandboxed(plan.sandboxed)
        for case in plan.contract:
            yield runner.contract(case)
        return
    yield from _in_children(spec, plan.golden, max(jobs, 1))
    yield from runner.sandboxed(plan.sandboxed)
    yield from _in_children(spec, plan.contract, max(jobs, 1))


def _functions(case: dict | contract.ContractCase) -> tuple[str, ...]:
    return (case["call"]["function"],) if isinstance(case, dict) else case.functions


def _in_children(spec: Spec, cases: list, jobs: int) -> Iterator[CaseResult]:
    """The cases' results in their order, from ``jobs`` case children. The first case of each
    function runs first, in one child, so that what its first call decides
    (Implementation.first_calls) holds in every child, whichever runs the rest."""
    deciding = {}
    for case in cases:
        for function in _functions(case):
            deciding.setdefault(function, case)
    children = [InChild(spec)]
    try:
        if jobs == 1:  # each result as it comes: a run ended early keeps all it answered
            for case in cases:
                yield children[0].result(case)
            return
        done: dict[int, CaseResult] = {}
        for case in cases:  # in their order: a function's first case is its first call
            if any(deciding[function] is case for function in _functions(case)):
                done[id(case)] = children[0].result(case)
        children += [InChild(spec, children[0].first_calls) for _ in range(jobs - 1)]
        free = list(children)  # at most len(children) chunks run at once: never empty

        def answer(chunk: list) -> dict[int, CaseResult]:
            child = free.pop()
            try:
                return {id(case): child.result(case) for case in chunk}
            finally:
                free.append(child)

        rest = [case for case in cases if id(case) not in done]
        pool = concurrent.futures.ThreadPoolExecutor(len(children))
        try:
            pending = [pool.submit(answer, c) for c in _chunks(rest, jobs * CHUNKS_PER_JOB)]
            for case in cases:
                while id(case) not in done:
                    done |= pending.pop(0).result()
                yield done.pop(id(case))
        finally:
            for child in children:  # first: a thread waiting on a killed child returns
                child.close()
            pool.shutdown(cancel_futures=True)
    finally:
        for child in children:
            child.close()


def _chunks(items: list, count: int) -> list[list]:
    size = max(1, -(-len(items) // count))
    return [items[start : start + size] for start in range(0, len(items), size)]
