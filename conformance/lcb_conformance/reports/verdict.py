"""What a conformance run found: each test's outcome placed in a cell of the verdict matrix
(style x tokenizer family), the counts per cell, and every failing golden case.

A golden test's parameter id is a case id of the case index (``test_prompt[prompt/generic-
llama3/lc_x]``), and the index says the case's cell and golden (lcb_conformance.suite.index):
whatever the test function is called. Any other test is an "other checks" cell named after
its test module.

A run answers three questions, in this order (its tiers):

1. identical to lcb_runner? -- the cases whose golden lcb_runner produced, each held to
   lcb_runner's own golden; a case of a deviation the implementation declares differs by
   that declaration, so it counts as differing.
2. identical except its declared deviations? -- every golden case, a declared deviation's
   case held to that deviation's golden (and the reference's own prefix/decode goldens).
3. its API contract and other checks (bad input, properties) -- apart: never counted as
   (in)comparability with lcb_runner.

Every count's denominator is the cases that ran: not provided and skipped cases are left out.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.adapters.implementation import NOT_PROVIDED
from lcb_conformance.suite import cases, families, goldens, index, showdiff
from lcb_conformance.suite.families.judge import JUDGE_COLUMN as JUDGE
from lcb_conformance.suite.families.reference import DECODE_COLUMN as DECODE
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.suite.index import (
    MESSAGES_COLUMN,
    NO_TEMPLATE,
    NO_TOKENIZER,
    rendering_label,
)

OTHER = "other checks"
STYLE_ORDER = (*cases.EXTRACTION_LMSTYLES, DECODE, JUDGE, OTHER)

PASSED = "passed"
FAILED = "failed"
NOT_PROVIDED_OUTCOME = "not provided"
SKIPPED = "skipped"

# short names of the golden families, for the "checks" column
CHECK_NAMES = {
    goldens.PROMPT: "prompt",
    goldens.MESSAGES: "messages",
    goldens.CHAT_PROMPT: "chat-prompt",
    goldens.TOKEN_AUDIT: "token-audit",
    goldens.EXTRACT: "extract",
    goldens.EXTRACT_AFTER_THINK: "extract",
    goldens.REFERENCE_PREFIX: "prefix",
    goldens.REFERENCE_DECODE: "decode",
    goldens.JUDGE: "judge",
}


def tokenizer_columns() -> tuple[str, ...]:
    """The tokenizer-family axis of the matrix, in order."""
    return (
        NO_TOKENIZER,
        NO_TEMPLATE,
        MESSAGES_COLUMN,
        *(rendering_label(r) for r in cases.CHAT_RENDERINGS),
    )


@dataclass(frozen=True)
class Cell:
    style: str
    tokenizer: str

    def sort_key(self) -> tuple:
        columns = tokenizer_columns()
        style = STYLE_ORDER.index(self.style) if self.style in STYLE_ORDER else len(STYLE_ORDER)
        column = columns.index(self.tokenizer) if self.tokenizer in columns else len(columns)
        return (style, self.style, column, self.tokenizer)


def parse_nodeid(nodeid: str) -> tuple[str, str, str | None]:
    """(test module file name, test function, parameter id or None)."""
    path, _, name = nodeid.partition("::")
    function, bracket, parameter = name.partition("[")
    return path.rsplit("/", 1)[-1], function, parameter[:-1] if bracket else None


def case_of(nodeid: str) -> dict | None:
    """The case-index entry a test checks (None: not a golden case)."""
    _, _, parameter = parse_nodeid(nodeid)
    case = index.by_id().get(parameter or "")
    return case if case is not None and case["cell"] is not None else None


def classify(nodeid: str, deviations: tuple[str, ...] = ()) -> tuple[Cell, GoldenKey | None]:
    """The cell of a test, and the golden it compares with (None for other checks), for an
    implementation declaring these deviations."""
    case = case_of(nodeid)
    if case is None:
        return Cell(OTHER, parse_nodeid(nodeid)[0]), None
    # a declared deviation is held to another golden (upstream's extraction after </think>)
    return Cell(*case["cell"]), families.key_of(index.golden_held_to(case, deviations))




NO_ACTUAL = object()  # the test failed before comparing (an exception), or was not captured


@dataclass
class CaseResult:
    nodeid: str
    outcome: str  # PASSED, FAILED, NOT_PROVIDED_OUTCOME or SKIPPED
    message: str = ""  # the failure report, or the skip reason
    actual: object = NO_ACTUAL  # what the implementation returned, for a failed comparison
    deviations: tuple[str, ...] = ()  # the implementation's declared DEVIATIONS
    cell: Cell = field(init=False)
    key: GoldenKey | None = field(init=False)

    def __post_init__(self) -> None:
        self.cell, self.key = classify(self.nodeid, self.deviations)

    @property
    def ran(self) -> bool:
        return self.outcome in (PASSED, FAILED)

    @property
    def upstream_golden(self) -> bool:
        """Whether lcb_runner produced this case's golden (tier 1 counts it)."""
        case = case_of(self.nodeid)
        return case is not None and case["upstream"] is not None

    @property
    def declared_deviation(self) -> str | None:
        """The declared deviation this case is held to instead of lcb_runner's golden."""
        case = case_of(self.nodeid)
        if case is None or case.get("deviation") not in self.deviations:
            return None
        return case["deviation"]

    def severity(self) -> dict:
        return showdiff.severity(self.golden, self.actual_text)

    @property
    def case_id(self) -> str:
        """The golden key, or the test's id for other checks."""
        return str(self.key) if self.key is not None else self.nodeid.partition("::")[2]

    @property
    def golden(self) -> str | None:
        return goldens.read(self.key) if self.key is not None else None

    @property
    def actual_text(self) -> str | None:
        return self.actual if isinstance(self.actual, str) else None

    def mismatch_report(self) -> str:
        """showdiff's report for a failed golden comparison; the test's own report else."""
        golden, actual = self.golden, self.actual_text
        if golden is not None and actual is not None:
            spoken = (
                showdiff.messages_differences(actual, golden)
                if self.key.family == goldens.MESSAGES
                else []
            )
            return "\n".join([*spoken, showdiff.report(actual, golden, label=str(self.key))])
        if self.actual is not NO_ACTUAL:
            return f"{self.case_id}: returned {self.actual!r:.300}, not a str\n{self.message}"
        return self.message


@dataclass
class CellSummary:
    cell: Cell
    checks: tuple[str, ...]
    counts: Counter
    first_failure: CaseResult | None

    @property
    def cases(self) -> int:
        return sum(self.counts.values())

    @property
    def run(self) -> int:
        """The cases that ran (passed or failed): the denominator of the cell."""
        return self.counts[PASSED] + self.counts[FAILED]

    @property
    def status(self) -> str:
        """fail, pass, not provided (nothing ran) or skipped."""
        if self.counts[FAILED]:
            return "fail"
        if self.counts[PASSED]:
            return "pass"
        if self.counts[NOT_PROVIDED_OUTCOME]:
            return "not provided"
        return "skipped"


def summarise(results: list[CaseResult]) -> list[CellSummary]:
    grouped: dict[Cell, list[CaseResult]] = {}
    for result in results:
        grouped.setdefault(result.cell, []).append(result)
    summaries = []
    for cell in sorted(grouped, key=Cell.sort_key):
        members = grouped[cell]
        checks = sorted(
            {CHECK_NAMES.get(r.key.family, r.key.family) for r in members if r.key is not None}
        )
        summaries.append(
            CellSummary(
                cell,
                tuple(checks),
                Counter(r.outcome for r in members),
                next((r for r in members if r.outcome == FAILED), None),
            )
        )
    return summaries


def skip_outcome(reason: str) -> str:
    return NOT_PROVIDED_OUTCOME if NOT_PROVIDED in reason else SKIPPED


# ANSI colours for the terminal table
_COLOURS = {"pass": "32", "fail": "31;1", "not provided": "33", "skipped": "2"}


def render_table(summaries: list[CellSummary], color: bool = False) -> str:
    """The verdict as a text table, one line per cell, coloured by result when asked."""
    # a "skipped" column only when something skipped for another reason than not provided
    skips = any(s.counts[SKIPPED] for s in summaries)
    header = (
        "style",
        "tokenizer",
        "checks",
        "cases",
        "passed",
        "failed",
        "not provided",
        *(("skipped",) if skips else ()),
        "first failing case",
    )
    rows = [
        (
            s.cell.style,
            s.cell.tokenizer,
            ",".join(s.checks) or "-",
            str(s.cases),
            str(s.counts[PASSED]),
            str(s.counts[FAILED]),
            str(s.counts[NOT_PROVIDED_OUTCOME]),
            *((str(s.counts[SKIPPED]),) if skips else ()),
            s.first_failure.case_id if s.first_failure else "-",
        )
        for s in summaries
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    lines = []
    for number, row in enumerate([header, *rows]):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        line = "  ".join([*cells, row[-1]]).rstrip()
        if color and number:
            line = f"\x1b[{_COLOURS[summaries[number - 1].status]}m{line}\x1b[0m"
        lines.append(line)
    return "\n".join(lines)


@dataclass
class Run:
    """One run of the suite for one implementation."""

    impl: dict  # Implementation.describe()
    results: list[CaseResult]
    pytest_exit_code: int
    pytest_args: list[str] = field(default_factory=list)
    pytest_output: str = ""
    collection_errors: list[tuple[str, str]] = field(default_factory=list)
    upstream: str = "installed"  # the --upstream option given
    tokenizers: str = ""  # the --tokenizers folder served

    def summaries(self) -> list[CellSummary]:
        return summarise(self.results)

    def failures(self) -> list[CaseResult]:
        """Failed cases, golden ones in matrix order first, then the other checks."""
        failed = [result for result in self.results if result.outcome == FAILED]
        return sorted(failed, key=lambda r: (r.cell.sort_key(), r.case_id))

    def totals(self) -> Counter:
        return Counter(result.outcome for result in self.results)

    def exit_code(self) -> int:
        """0: nothing failed; 1: a case failed; pytest's own code when it could not run."""
        if self.pytest_exit_code not in (0, 1):
            return self.pytest_exit_code
        if self.totals()[FAILED] or self.collection_errors or self.pytest_exit_code:
            return 1
        return 0

    def tiers(self) -> dict[str, dict]:
        """The three questions a run answers (module docstring), counted over the cases
        that ran."""
        ran = [result for result in self.results if result.ran]
        upstream = [r for r in ran if r.upstream_golden]
        by_deviation = [r for r in upstream if r.declared_deviation]
        upstream_identical = sum(
            1 for r in upstream if r.outcome == PASSED and not r.declared_deviation
        )
        golden = [r for r in ran if r.key is not None]
        contract = [r for r in ran if r.key is None]
        golden_failed = sum(1 for r in golden if r.outcome == FAILED)
        contract_failed = sum(1 for r in contract if r.outcome == FAILED)
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
                "run": len(golden),
                "passed": len(golden) - golden_failed,
                "failed": golden_failed,
            },
            "api_contract": {
                "question": "its API contract and other checks (bad input, properties); "
                "apart, not a comparability verdict",
                "run": len(contract),
                "passed": len(contract) - contract_failed,
                "failed": contract_failed,
            },
        }

    def headline(self) -> str:
        """The three tiers in one line (the CLI's last line, the reports' headline)."""
        name = self.impl.get("name", "?")
        if self.pytest_exit_code not in (0, 1):
            return f"{name}: the suite did not run (pytest exit code {self.pytest_exit_code})"
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
            cells = sum(1 for s in self.summaries() if s.counts[FAILED] and s.cell.style != OTHER)
            second = (
                f"identical except its declared deviations ({names}): NO, "
                f"{declared['failed']} of {declared['run']} golden cases failed in {cells} cells"
            )
        third = (
            f"API contract and other checks (apart): {contract['failed']} of {contract['run']} "
            "failed"
        )
        errors = (
            f"; {len(self.collection_errors)} collection errors" if self.collection_errors else ""
        )
        not_provided = self.totals()[NOT_PROVIDED_OUTCOME]
        not_provided_text = f"; {not_provided} cases not provided" if not_provided else ""
        return f"{name}: {first}; {second}; {third}{errors}{not_provided_text}"
