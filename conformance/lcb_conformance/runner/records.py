"""A results file's rows re-derived, not believed: each status from the answer the row holds
against its golden, compared as the run compares (report's evidence); a judge case's
timing-sensitivity from its golden and first answer, and its re-run alone's answer counted only
where that first answer was timing-sensitive (runner/judge_timing.py)."""

from __future__ import annotations

from pathlib import Path

from lcb_conformance.runner import judge_timing, results
from lcb_conformance.runner.run import _cases_by_id, compare
from lcb_conformance.suite import families, goldens, index

# The statuses a golden case's row may claim holding no answer: what the file cannot disprove
# (an answer equal to its golden is not kept; an error, a skip, a NotProvided the adapter
# raised for the case hold none). A contract case never holds an answer.
_WITHOUT_ANSWER = (results.IDENTICAL, results.NOT_PROVIDED, results.ERROR, results.SKIPPED)
_CONTRACT_STATUSES = (results.PASSED, results.FAILED, results.NOT_PROVIDED, results.SKIPPED)


def _answer(result: results.CaseResult, case: dict, deviations: tuple[str, ...]) -> str | None:
    """The answer a row holds as golden text: its actual, or an identical row's golden (not
    kept twice; unless lcb_runner raises there and so did the implementation); None: none."""
    if result.actual is not None or result.status != results.IDENTICAL:
        return result.actual
    held = goldens.read(goldens.key_of(index.golden_held_to(case, deviations)))
    met_by_raising = families.get(case["family"]).met_by_raising
    return None if held is None or (met_by_raising and met_by_raising(held)) else held


def _disagreement(result: results.CaseResult, deviations: tuple[str, ...]) -> str:
    """How a row's contents disagree with what it claims ("": they do not): its status, and
    the deviation it was held to and whether it is lcb_runner's own (tier 1), its answer
    compared with its golden as the run compared it."""
    answered = any(v is not None for v in (result.actual, result.actual_repr, result.difference))
    if result.tier == results.CONTRACT:
        if answered or result.status not in _CONTRACT_STATUSES:
            return "a contract case holds no answer and is passed, failed, not provided or skipped"
        return ""
    if result.actual is None and answered:  # an answer that was no text: the difference says
        differs = result.status == results.DIFFERS
        return "" if differs else "it holds an answer that is no text: differs"
    case = _cases_by_id()[0][result.id]
    answer = _answer(result, case, deviations)
    if answer is not None:
        found = compare(case, answer, deviations)
        if result.rechecked is not None and judge_timing.sensitivity(result):
            again = compare(case, result.rechecked, deviations)  # the re-run alone settles it
            found = again if again["status"] == results.IDENTICAL else found
        if found["status"] != result.status:
            return f"its answer against its golden is {found['status']}"
        claimed = (result.deviation, result.upstream_identical)
        derived = (found.get("deviation"), found.get("upstream_identical"))
        if claimed != derived:
            return f"its (deviation, upstream_identical) are {claimed}, its answer's {derived}"
        return ""
    return "" if result.status in _WITHOUT_ANSWER else "it holds no answer"


def rederive(found: results.ConformanceRun, path: Path) -> None:
    """Every row's status re-derived from what the file holds (:func:`_disagreement`, with the
    deviations its header declares), and no row claiming to have run a function its header
    says the implementation does not provide. results.ResultsFileError names the first row that
    disagrees: a results file is data anyone can edit, and a verdict is read from it."""
    impl = found.impl
    deviations = tuple(impl.get("deviations", ()))
    lacks = set(impl.get("not_provided", ()))
    for number, result in enumerate(found.results, start=2):  # line 1 is the header
        what = _disagreement(result, deviations)
        if not what and result.ran and lacks & set(result.function.split(",")):
            what = f"its header says {impl.get('name')} does not provide {result.function}"
        derived = judge_timing.sensitivity(result)
        if not what and result.timing_sensitive != derived:
            what = f"its timing_sensitive is {result.timing_sensitive!r}, its answer's {derived!r}"
        if not what and result.rechecked is not None and not derived:
            what = "it was re-run alone, but its first answer is not timing-sensitive"
        if what:
            raise results.ResultsFileError(
                f"{path}:{number}: {result.id} says {result.status}, but {what}: the file is "
                "not what the run found"
            )
