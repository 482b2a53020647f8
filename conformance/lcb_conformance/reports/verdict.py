"""What a conformance run found: each test's outcome placed in a cell of the verdict matrix
(style x tokenizer family), the counts per cell, and every failing golden case.

A golden test's parameter id is a case id of the case index (``test_prompt[prompt/generic-
llama3/lc_x]``), and the index says the case's cell and golden (lcb_conformance.suite.index):
whatever the test function is called. Any other test is an "other checks" cell named after
its test module.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lcb_conformance.adapters.implementation import NOT_PROVIDED
from lcb_conformance.suite import cases, goldens, index, showdiff
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.suite.index import (
    DECODE,
    JUDGE,
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


def classify(nodeid: str) -> tuple[Cell, GoldenKey | None]:
    """The cell of a test, and the golden it compares with (None for other checks)."""
    module, _, parameter = parse_nodeid(nodeid)
    case = index.by_id().get(parameter or "")
    if case is None or case["cell"] is None:
        return Cell(OTHER, module), None
    # a listed deviation is held to another golden (upstream's extraction after </think>)
    return Cell(*case["cell"]), goldens.key_of(case["golden"])


NO_ACTUAL = object()  # the test failed before comparing (an exception), or was not captured


@dataclass
class CaseResult:
    nodeid: str
    outcome: str  # PASSED, FAILED, NOT_PROVIDED_OUTCOME or SKIPPED
    message: str = ""  # the failure report, or the skip reason
    actual: object = NO_ACTUAL  # what the implementation returned, for a failed comparison
    cell: Cell = field(init=False)
    key: GoldenKey | None = field(init=False)

    def __post_init__(self) -> None:
        self.cell, self.key = classify(self.nodeid)

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
            return showdiff.report(actual, golden, label=str(self.key))
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

    def headline(self) -> str:
        totals = self.totals()
        name = self.impl.get("name", "?")
        not_provided = (
            f"; {totals[NOT_PROVIDED_OUTCOME]} cases not provided"
            if totals[NOT_PROVIDED_OUTCOME]
            else ""
        )
        if self.pytest_exit_code not in (0, 1):
            return f"{name}: the suite did not run (pytest exit code {self.pytest_exit_code})"
        if self.exit_code():
            cells = sum(1 for s in self.summaries() if s.counts[FAILED])
            errors = (
                f", {len(self.collection_errors)} collection errors"
                if self.collection_errors
                else ""
            )
            return (
                f"{name}: NOT identical to lcb_runner: {totals[FAILED]} of {sum(totals.values())} "
                f"cases failed in {cells} cells{errors}{not_provided}"
            )
        return (
            f"{name}: identical to lcb_runner on every case it provides "
            f"({totals[PASSED]} passed{not_provided})"
        )
