"""What a run found, read from its typed results (runner/results.py): the verdict matrix (style
x tokenizer family), the tiers, the exit code, and the failures ordered by what matters and
grouped by the kind of their first difference.

A run answers, in this order (its tiers):

1. identical to lcb_runner? -- the cases whose golden lcb_runner produced, each held to
   lcb_runner's own golden; a case of a deviation the implementation declares counts as
   differing unless its answer is lcb_runner's all the same.
2. identical except its declared deviations? -- every golden case (lcb_runner's and the
   reference's), a declared deviation's case held to that deviation's golden.
3. its API contract (bad input, properties): apart, never counted as (in)comparability, and
   in the exit code only when asked (``strict_contract``).

Every count's denominator is the cases the implementation answered: not provided and skipped
cases are left out. A golden several LMStyles share is one case (its result lists them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.common import exit_codes, showdiff
from lcb_conformance.runner.results import (
    CONTRACT,
    DIFFERS,
    ERROR,
    IDENTICAL,
    NOT_PROVIDED,
    PASSED,
    SKIPPED,
    STATUS_WORDS,
    UPSTREAM,
    WHITESPACE,
    CaseResult,
    ConformanceRun,
)
from lcb_conformance.suite import cases, families, goldens, styles
from lcb_conformance.suite.index import MESSAGES_COLUMN, NO_TEMPLATE, NO_TOKENIZER, rendering_label

# The run's exit codes (common/exit_codes.py): comparable, a golden case differs (or, with
# --strict-contract, a contract case failed), the adapter or an input unusable, the suite
# broken, nothing differs but the run did not finish or answered no golden case, a report
# not written.
COMPARABLE = exit_codes.OK
DIFFERENT = exit_codes.DIFFERS
UNUSABLE = exit_codes.UNUSABLE
SUITE_BROKEN = exit_codes.SUITE_BROKEN
INCOMPLETE = exit_codes.INCOMPLETE

# Families whose differences a reader needs first: what the model is sent.
PROMPT_FAMILIES = (goldens.PROMPT, goldens.MESSAGES, goldens.CHAT_PROMPT, goldens.TOKENIZATION)


def tokenizer_columns() -> tuple[str, ...]:
    """The tokenizer-family axis of the matrix, in order (others follow as first met)."""
    return (
        NO_TOKENIZER,
        NO_TEMPLATE,
        MESSAGES_COLUMN,
        *(rendering_label(r) for r in cases.CHAT_RENDERINGS),
    )


NOT_PROVIDED_CELL = "not provided"  # a cell's status when none of its cases was provided
# A judge case differing at a time limit (CaseResult.timing_sensitive): named as such in every
# view, and a failure group of its own; it still differs
TIMING_SENSITIVE = "timing-sensitive"
MACHINE_LOAD = "may be the machine's load"


@dataclass(frozen=True)
class Cell:
    style: str
    tokenizer: str


def _order(values, known: tuple[str, ...]) -> dict[str, int]:
    """Known values first in their order, the rest as first met."""
    ranks = {value: rank for rank, value in enumerate(known)}
    for value in values:
        ranks.setdefault(value, len(ranks))
    return ranks


def golden_text(result: CaseResult) -> str | None:
    """The golden a result was held to (None for contract cases)."""
    return goldens.read(goldens.key_of(result.golden)) if result.golden else None


def answer(result: CaseResult) -> str | None:
    """What the implementation answered, as golden text: an identical answer is its golden."""
    if result.actual is not None:
        return result.actual
    return golden_text(result) if result.status == IDENTICAL else None


@dataclass
class CellSummary:
    cell: Cell
    checks: tuple[str, ...]  # the family labels of its cases
    counts: Counter
    first_failure: CaseResult | None

    @property
    def cases(self) -> int:
        return sum(self.counts.values())

    @property
    def run(self) -> int:
        """The cases the implementation answered: the cell's denominator."""
        return sum(n for status, n in self.counts.items() if status not in (NOT_PROVIDED, SKIPPED))

    @property
    def ok(self) -> int:
        return self.counts[IDENTICAL] + self.counts[PASSED]

    @property
    def status(self) -> str:
        """fail, pass, not provided (nothing ran) or skipped."""
        if self.first_failure is not None:
            return "fail"
        if self.ok:
            return "pass"
        return NOT_PROVIDED_CELL if self.counts[NOT_PROVIDED] else "skipped"


@dataclass
class FailureGroup:
    """Failures alike: the same status, kind of first difference and family."""

    status: str
    kind: str
    family: str
    results: list[CaseResult] = field(default_factory=list)

    def title(self) -> str:
        what = STATUS_WORDS[self.status]
        kind = f" ({self.kind})" if self.kind and self.kind != "content" else ""
        return f"{self.family}: {what}{kind}, {len(self.results)} case(s)"


def _priority(result: CaseResult) -> int:
    """What a reader needs first: content differences in what the model is sent, other
    content differences, errors, contract failures, whitespace-only differences last."""
    if result.tier == CONTRACT:
        return 3
    if result.status == WHITESPACE:
        return 4
    if result.status == ERROR:
        return 2
    return 0 if result.family in PROMPT_FAMILIES else 1


def _label(family: str) -> str:
    try:
        return families.get(family).label
    except ValueError:  # a contract group
        return family


class Verdict:
    """The views' one reading of a run."""

    def __init__(self, run: ConformanceRun, strict_contract: bool = False):
        self.run = run
        self.strict_contract = strict_contract
        self.golden = [r for r in run.results if r.tier != CONTRACT]
        self.contract = [r for r in run.results if r.tier == CONTRACT]

    @property
    def impl(self) -> dict:
        return self.run.impl

    # --- the matrix -------------------------------------------------------------------------

    def summaries(self, results: list[CaseResult] | None = None) -> list[CellSummary]:
        results = self.golden if results is None else results
        grouped: dict[Cell, list[CaseResult]] = {}
        for result in results:
            grouped.setdefault(Cell(*result.cell), []).append(result)
        rows = _order((c.style for c in grouped), tuple(styles.EXTRACTION_LMSTYLES))
        columns = _order((c.tokenizer for c in grouped), tokenizer_columns())
        return [
            CellSummary(
                cell,
                tuple(sorted({_label(r.family) for r in grouped[cell]})),
                Counter(r.status for r in grouped[cell]),
                next((r for r in grouped[cell] if r.not_ok), None),
            )
            for cell in sorted(grouped, key=lambda c: (rows[c.style], columns[c.tokenizer]))
        ]

    def contract_summaries(self) -> list[CellSummary]:
        return self.summaries(self.contract)

    def not_provided_line(self, summaries: list[CellSummary]) -> str:
        """The cells where nothing was provided, as one line: how many, and the functions
        their cases need ("" when there are none). The views list the other cells."""
        empty = {s.cell for s in summaries if s.status == NOT_PROVIDED_CELL}
        if not empty:
            return ""
        needed = dict.fromkeys(
            r.function for r in self.run.results if Cell(*r.cell) in empty and r.tier != CONTRACT
        )
        return (
            f"{len(empty)} more cells not provided, every case of them (they need "
            f"{', '.join(needed) or 'functions the implementation lacks'})"
        )

    # --- the answers ------------------------------------------------------------------------

    def totals(self) -> Counter:
        return Counter(result.status for result in self.run.results)

    def tiers(self) -> dict[str, dict]:
        ran = [r for r in self.golden if r.ran]
        upstream = [r for r in ran if r.tier == UPSTREAM]
        by_deviation = [r for r in upstream if r.deviation and not r.upstream_identical]
        upstream_identical = sum(
            1
            for r in upstream
            if r.status == IDENTICAL and (not r.deviation or r.upstream_identical)
        )
        golden_failed = sum(1 for r in ran if r.not_ok)
        contract = [r for r in self.contract if r.ran]
        contract_failed = sum(1 for r in contract if r.not_ok)
        return {
            "upstream": {
                "question": "identical to lcb_runner? (lcb_runner's own goldens only)",
                "identical": upstream_identical == len(upstream),
                "run": len(upstream),
                "identical_cases": upstream_identical,
                "differing": len(upstream) - upstream_identical,
                "differing_by_declared_deviations": len(by_deviation),
            },
            "declared_deviations": {
                "question": "identical except its declared deviations? (every golden case)",
                "deviations": list(self.impl.get("deviations", [])),
                "identical": golden_failed == 0,
                "run": len(ran),
                "passed": len(ran) - golden_failed,
                "failed": golden_failed,
            },
            "api_contract": {
                "question": "its API contract (bad input, properties); apart, not a "
                "comparability verdict",
                "counts_in_exit_code": self.strict_contract,
                "run": len(contract),
                "passed": len(contract) - contract_failed,
                "failed": contract_failed,
            },
        }

    def exit_code(self) -> int:
        if any(r.not_ok for r in self.golden):
            return DIFFERENT
        if self.strict_contract and any(r.not_ok for r in self.contract):
            return DIFFERENT
        if not self.run.complete or not any(r.ran for r in self.golden) or self.not_run_here():
            return INCOMPLETE  # green only on a whole run that checked all it was asked to
        return COMPARABLE

    def not_run_here(self) -> list[CaseResult]:
        """Cases of functions the implementation provides that this run could not run (its
        route, e.g. a Python object no process boundary carries, or this machine, e.g. a
        tokenizer it lacks), among those the verdict counts: a green would cover them
        without evidence."""
        provides = set(self.impl.get("provides", []))
        counted = self.golden + (self.contract if self.strict_contract else [])
        return [
            r for r in counted if r.status == SKIPPED and set(r.function.split(",")) <= provides
        ]

    def failures(self) -> list[CaseResult]:
        """Every case not ok, what matters first (_priority), then in matrix order."""
        matrix = {s.cell: rank for rank, s in enumerate(self.summaries())}
        failed = [r for r in self.run.results if r.not_ok]
        return sorted(failed, key=lambda r: (_priority(r), matrix.get(Cell(*r.cell), 0), r.id))

    def groups(self) -> list[FailureGroup]:
        """The failures grouped by status, kind of first difference and family, in the order
        of failures(): 71 trailing-newline differences are one group."""
        found: dict[tuple[str, str, str], FailureGroup] = {}
        for result in self.failures():
            kind = (result.difference or {}).get("kind", "")
            kind = TIMING_SENSITIVE if result.timing_sensitive else kind
            key = (result.status, kind, _label(result.family))
            found.setdefault(key, FailureGroup(*key)).results.append(result)
        return list(found.values())

    def headline(self) -> str:
        """The tiers in one line (the console's last line, the reports' headline)."""
        name = self.impl.get("name", "?")
        tiers = self.tiers()
        upstream, declared, contract = (
            tiers["upstream"],
            tiers["declared_deviations"],
            tiers["api_contract"],
        )
        if upstream["identical"]:
            first = (
                f"identical to lcb_runner on every case it provides "
                f"({upstream['run']} cases with lcb_runner's goldens)"
            )
        else:
            by_deviation = upstream["differing_by_declared_deviations"]
            if by_deviation == upstream["differing"]:
                why = ", all by its declared deviations"
            elif by_deviation:
                why = f", {by_deviation} of them by its declared deviations"
            else:
                why = ""
            first = (
                f"NOT identical to lcb_runner: {upstream['differing']} of {upstream['run']} "
                f"cases differ{why}"
            )
        names = ", ".join(declared["deviations"]) or "none declared"
        if declared["identical"]:
            second = (
                f"identical except its declared deviations ({names}): yes, "
                f"{declared['passed']} of {declared['run']} golden cases"
            )
        else:
            cells = sum(1 for s in self.summaries() if s.first_failure is not None)
            second = (
                f"identical except its declared deviations ({names}): NO, "
                f"{declared['failed']} of {declared['run']} golden cases differ in {cells} cells"
            )
        apart = "" if self.strict_contract else ", apart"
        third = f"API contract{apart}: {contract['failed']} of {contract['run']} failed"
        totals = self.totals()
        not_provided = totals[NOT_PROVIDED]
        skipped = totals[SKIPPED]
        tail = (f"; {not_provided} cases not provided" if not_provided else "") + (
            f"; {skipped} skipped" if skipped else ""
        )
        not_run_here = ""
        if not_run := self.not_run_here():
            functions = ", ".join(sorted({f for r in not_run for f in r.function.split(",")}))
            not_run_here = (
                f"; INCOMPLETE: {len(not_run)} cases of {functions}, which it provides, could "
                f"not run here ({not_run[0].reason})"
            )
        if not self.run.complete:
            return (
                f"{name}: INCOMPLETE, {self.run.unfinished}; {first}; {second}; {third}{tail}"
                f"{not_run_here}"
            )
        if not any(r.ran for r in self.golden):
            return (
                f"{name}: INCOMPLETE: no golden case ran (each one not provided or skipped), "
                f"nothing to compare{tail}{not_run_here}"
            )
        if self.exit_code() != COMPARABLE:
            return f"{name}: FAILED: {first}; {second}; {third}{tail}{not_run_here}"
        if upstream["identical"]:
            return f"{name}: PASSED: {first}; {second}; {third}{tail}"
        # passed on its declared deviations: that first, then what they differ by
        differing = first.removeprefix("NOT identical to lcb_runner: ")
        against = f"against lcb_runner itself, {differing}"
        return f"{name}: PASSED: {second}; {against}; {third}{tail}"


def provided(impl: dict) -> list[str]:
    """The functions an implementation provides, as a person reads them."""
    rendered = impl.get("prompts_rendered_from_messages")
    return [
        f"{name} (rendered from messages)" if name == "format_lcb_prompt" and rendered else name
        for name in impl.get("provides", [])
    ]


def mismatch_report(result: CaseResult) -> str:
    """What went wrong with a case, for a person: the first difference with invisible
    characters shown and a line diff, what it returned instead of text, the error it raised,
    or the broken contract (a Hypothesis failure with its own falsifying example)."""
    golden, actual = golden_text(result), answer(result)
    if result.timing_sensitive:  # first: the reader weighs the rest knowing it
        said = f"{result.id}: {result.timing_sensitive}: {TIMING_SENSITIVE}: {MACHINE_LOAD}"
        return "\n".join([said, _mismatch(result, golden, actual)])
    return _mismatch(result, golden, actual)


def _mismatch(result: CaseResult, golden: str | None, actual: str | None) -> str:
    if result.status in (DIFFERS, WHITESPACE) and golden is not None and actual is not None:
        spoken = (
            showdiff.messages_differences(actual, golden)
            if result.family == goldens.MESSAGES
            else []
        )
        return "\n".join([*spoken, showdiff.report(actual, golden, label=result.id)])
    if result.actual_repr is not None:
        return f"{result.id}: {result.reason}"
    if result.status == ERROR:
        return f"{result.id}: the implementation raised {showdiff.printable(result.reason)}"
    return f"{result.id}: {STATUS_WORDS[result.status]}: {showdiff.printable(result.reason)}"
