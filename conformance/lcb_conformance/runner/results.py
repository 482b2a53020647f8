"""The typed result of a case, and the JSON-lines results file they stream to as a run goes.

The results file (schema ``lcb-conformance-results/2``, conformance/results.schema.json) is
one JSON object a line: a header (the implementation, the options, how many cases the run
planned, and the suite it ran against: its version and digests of its golden set and case
index), then one ``{"result": ...}`` line per case as it finishes, then a footer. A run that
dies leaves every finished case on disk and no footer, so a reader knows it is incomplete and
how much of it is missing. Lines are ASCII (``ensure_ascii``): a lone surrogate or a NUL an
implementation returned is kept as a JSON escape, never lost and never an encoding error.

A verdict is only as good as the file it is read from, so :func:`read` refuses a file that is
not one whole run of this suite (a footer whose counts are not its rows, a case twice, a case
this suite's index does not hold, another golden set or suite version): a results file is
data anyone can edit, and a green must not rest on an edit. Nor are its statuses believed:
runner/records.py's ``rederive`` re-derives each from the answer the row holds.
"""

from __future__ import annotations

import importlib.metadata
import json
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from functools import cache
from pathlib import Path

from lcb_conformance.runner.contract import contract_cases
from lcb_conformance.suite import goldens, index

# /2: the header records the planned cases and the suite (a /1 file cannot be checked for
# either, so it is refused with a word on why, never read as a verdict).
SCHEMA = "lcb-conformance-results/2"
EARLIER_SCHEMAS = ("lcb-conformance-results/1",)
DISTRIBUTION = "lcb-conformance"

# What happened to a case. Golden cases: identical / differs / whitespace (differs in
# whitespace only) / declined (a function it provides raised NotProvided for this input);
# contract cases: passed / failed; either: not-provided (the adapter lacks the function or the
# style), error (the implementation raised, or its process failed), timed-out (an in-process
# case over the case time limit, --case-timeout), or skipped (the case cannot run here; the
# reason says why).
IDENTICAL = "identical"
DIFFERS = "differs"
WHITESPACE = "whitespace"
PASSED = "passed"
FAILED = "failed"
NOT_PROVIDED = "not-provided"
DECLINED = "declined"
ERROR = "error"
TIMED_OUT = "timed-out"
SKIPPED = "skipped"
STATUSES = (
    IDENTICAL, DIFFERS, WHITESPACE, PASSED, FAILED, NOT_PROVIDED, DECLINED, ERROR, TIMED_OUT,
    SKIPPED,
)  # fmt: skip
STATUS_WORDS = {
    IDENTICAL: "identical",
    DIFFERS: "differs",
    WHITESPACE: "differs in whitespace only",
    PASSED: "passed",
    FAILED: "failed",
    NOT_PROVIDED: "not provided",
    DECLINED: "declined by a function it provides",
    ERROR: "error",
    TIMED_OUT: "over the case time limit",
    SKIPPED: "skipped",
}
# The statuses of a case the implementation answered (the denominators of every count).
RAN = (IDENTICAL, DIFFERS, WHITESPACE, PASSED, FAILED, DECLINED, ERROR, TIMED_OUT)
NOT_OK = (DIFFERS, WHITESPACE, FAILED, DECLINED, ERROR, TIMED_OUT)

# Where a case's expected answer comes from: lcb_runner (its goldens), the reference
# lcb_prompts (goldens without an upstream twin), or the implementation's own API contract
# (bad input, properties; apart from comparability).
UPSTREAM = "upstream"
REFERENCE = "reference"
CONTRACT = "contract"
TIERS = (UPSTREAM, REFERENCE, CONTRACT)


@dataclass
class CaseResult:
    id: str  # the case id: a golden key, or contract/<group>/<name>
    tier: str  # UPSTREAM, REFERENCE or CONTRACT
    family: str  # the golden family, or the contract group
    function: str  # the adapter function the case calls
    cell: tuple[str, str]  # (style or row, tokenizer column) of the verdict matrix
    status: str
    reason: str = ""  # why: the error, what is not provided, the falsifying example, ...
    lmstyles: tuple[str, ...] = ()  # the lcb_runner LMStyles the case stands for
    shared_with: tuple[str, ...] = ()  # other goldens it stands for (same call, same bytes)
    golden: str | None = None  # the golden file it was held to, relative to the goldens
    deviation: str | None = None  # the declared deviation it was held to instead
    # with a deviation: whether the answer is lcb_runner's own golden all the same
    upstream_identical: bool | None = None
    actual: str | None = None  # the answer as golden text (None: it raised, or is no text)
    actual_repr: str | None = None  # an answer that is not text, as repr
    difference: dict | None = None  # how it differs: kind, offset, detail (showdiff.describe)
    seconds: float = 0.0
    # a judge case whose first answer differs where either side is a time limit: why ("time
    # limit vs wrong answer"), from its golden and answer (runner/judge_timing.py)
    timing_sensitive: str | None = None
    # such a case's answer when re-run alone, as golden text (None: not re-run, or no verdict);
    # identical only when it is the golden
    rechecked: str | None = None

    @property
    def ran(self) -> bool:
        return self.status in RAN

    @property
    def ok(self) -> bool:
        return self.status in (IDENTICAL, PASSED)

    @property
    def not_ok(self) -> bool:
        return self.status in NOT_OK

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> CaseResult:
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ResultsFileError(f"a result has unknown fields {sorted(unknown)}")
        found = cls(**data)
        found.cell = tuple(found.cell)
        found.lmstyles = tuple(found.lmstyles)
        found.shared_with = tuple(found.shared_with)
        if found.status not in STATUSES or found.tier not in TIERS:
            raise ResultsFileError(f"{found.id}: status {found.status!r}, tier {found.tier!r}")
        return found


class ResultsFileError(ValueError):
    """A results file that is not one, or not of this schema; the message says where."""


@dataclass
class ConformanceRun:
    """What a conformance run (the cases against an implementation) found:
    its header (implementation, provenance, options) and its results."""

    header: dict
    results: list[CaseResult] = field(default_factory=list)
    complete: bool = True  # False: the run stopped before its footer (a crash)

    @property
    def impl(self) -> dict:
        return self.header.get("impl", {})

    @property
    def planned(self) -> int | None:
        """The cases the run was asked to run (None: a run built in memory without a plan)."""
        return self.header.get("planned")

    @property
    def unfinished(self) -> str:
        """ "" for a finished run; else what it holds, in words ("the run did not finish: it
        holds 120 of the 1311 cases it planned")."""
        if self.complete:
            return ""
        planned = "" if self.planned is None else f" of the {self.planned} cases it planned"
        return f"the run did not finish: it holds {len(self.results)}{planned}"


def suite_version() -> str:
    try:
        return importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        return "unknown (not installed)"


def suite_identity() -> dict:
    """What a run's results are held to: this suite's version and the sha256 of its golden
    set (MANIFEST.sha256, as the last regeneration wrote it) and of its case index."""
    return {
        "version": suite_version(),
        "goldens": goldens.sha256_of(goldens.MANIFEST_FILE),
        "case_index": goldens.sha256_of(index.index_file()),
    }


def header(impl: dict, planned: int, **details) -> dict:
    """A results file's first line: its schema, the implementation, when, how many cases
    the run is to run, the suite it runs against, and ``details`` (the run's options)."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return {
        "schema": SCHEMA,
        "impl": impl,
        "started": started,
        "planned": planned,
        "suite": suite_identity(),
        **details,
    }


class ResultsWriter:
    """Streams a run's results to a JSON-lines file, one flushed line per case."""

    def __init__(self, path: Path, head: dict):
        self.path = Path(path)
        self.planned = head["planned"]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._stream = self.path.open("w", encoding="ascii", newline="\n")
        self._line({"header": head})

    def _line(self, record: dict) -> None:
        self._stream.write(json.dumps(record, ensure_ascii=True, sort_keys=True) + "\n")
        self._stream.flush()

    def write(self, result: CaseResult) -> None:
        self._line({"result": result.to_json()})

    def close(self, counts: dict[str, int]) -> None:
        self._line({"footer": {"complete": True, "counts": counts}})
        self._stream.close()

    def abandon(self) -> None:
        """Close without a footer: the file says the run did not finish."""
        self._stream.close()


def read(path: Path) -> ConformanceRun:
    """A results file, as written by ResultsWriter (a run that crashed: complete=False);
    ResultsFileError when it is not one whole run of this suite (the module's docstring)."""
    path = Path(path)
    try:
        lines = path.read_text("ascii").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsFileError(f"{path}: cannot read a results file ({error})") from None
    if not lines:
        raise ResultsFileError(f"{path}: empty")
    run: ConformanceRun | None = None
    footer: dict | None = None
    seen: dict[str, int] = {}  # case id -> its line
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ResultsFileError(f"{path}:{number}: not JSON ({error})") from None
        if not isinstance(record, dict):
            raise ResultsFileError(f"{path}:{number}: not a results file's line")
        if number == 1:
            run = ConformanceRun(_header(path, record.get("header")), complete=False)
            continue
        if footer is not None:
            raise ResultsFileError(f"{path}:{number}: a line after the footer")
        if "result" in record:
            try:
                found = CaseResult.from_json(record["result"])
            except (TypeError, ResultsFileError) as error:
                raise ResultsFileError(f"{path}:{number}: {error}") from None
            if found.id in seen:
                raise ResultsFileError(
                    f"{path}:{number}: case {found.id} again (first on line {seen[found.id]}): "
                    "a run gives one result per case"
                )
            seen[found.id] = number
            _check_known(path, number, found)
            run.results.append(found)
        elif isinstance(record.get("footer"), dict):
            footer = record["footer"]
        else:
            raise ResultsFileError(f"{path}:{number}: neither a result nor the footer")
    _check_total(path, run, footer)
    run.complete = footer is not None
    return run


def _header(path: Path, head: object) -> dict:
    """The header, checked: this schema, a planned count, and this suite's golden set."""
    schema = head.get("schema") if isinstance(head, dict) else None
    if schema in EARLIER_SCHEMAS:
        raise ResultsFileError(
            f"{path}: written by an earlier lcb-conformance (schema {schema}), which did not "
            "record the cases it planned or the goldens it ran against: run it again"
        )
    if schema != SCHEMA:
        raise ResultsFileError(f"{path}:1: not a results file of schema {SCHEMA}")
    planned = head.get("planned")
    if not isinstance(planned, int) or isinstance(planned, bool) or planned < 0:
        raise ResultsFileError(f"{path}:1: the header has no planned case count")
    recorded, here = head.get("suite"), suite_identity()
    if not isinstance(recorded, dict):
        raise ResultsFileError(f"{path}:1: the header does not name the suite it ran against")
    for name, what in (("goldens", "golden set"), ("case_index", "case index")):
        if recorded.get(name) != here[name]:
            raise ResultsFileError(
                f"{path}: run against another {what} (sha256 {str(recorded.get(name))[:12]}…, "
                f"this suite's {here[name][:12]}…): its verdict is not this suite's; run it "
                "again"
            )
    if recorded.get("version") != here["version"]:
        raise ResultsFileError(
            f"{path}: written by lcb-conformance {recorded.get('version')}, this is "
            f"{here['version']}: report it with that version, or run it again"
        )
    return head


@cache
def _golden_families() -> dict[str, str]:
    """Every golden case id of the suite's index -> its family."""
    return {case["id"]: case["family"] for case in index.held_cases()}


@cache
def _contract_ids() -> frozenset[str]:
    return frozenset(case.id for case in contract_cases())


def _check_known(path: Path, number: int, found: CaseResult) -> None:
    if found.tier == CONTRACT:
        if found.id not in _contract_ids():
            raise ResultsFileError(f"{path}:{number}: {found.id} is no contract case of this suite")
    elif _golden_families().get(found.id) != found.family:
        raise ResultsFileError(
            f"{path}:{number}: {found.id} ({found.family}) is no case of this suite's index"
        )


def _check_total(path: Path, run: ConformanceRun, footer: dict | None) -> None:
    """Rows against the header's plan and the footer's counts."""
    held = len(run.results)
    if held > run.planned:
        raise ResultsFileError(
            f"{path}: {held} results, but its header planned {run.planned} cases"
        )
    if footer is None:
        return
    if footer.get("complete") is not True:
        raise ResultsFileError(f"{path}: a footer that does not say the run finished")
    counts = Counter(result.status for result in run.results)
    if footer.get("counts") != dict(counts):
        raise ResultsFileError(
            f"{path}: the footer counts {footer.get('counts')}, but its results are "
            f"{dict(sorted(counts.items()))}: the file is not the run that wrote it"
        )
    if held != run.planned:
        raise ResultsFileError(
            f"{path}: the footer says the run finished, but it holds {held} of the "
            f"{run.planned} cases its header planned"
        )
