"""One typed result per case, and the JSON-lines file they stream to as a run goes.

The results file (schema ``lcb-conformance-results/1``, conformance/results.schema.json) is
one JSON object a line: a header (the implementation, the goldens' provenance, the options),
then one ``{"result": ...}`` line per case as it finishes, then a footer. A run that dies
leaves every finished case on disk and no footer, so a reader knows it is incomplete. Lines
are ASCII (``ensure_ascii``): a lone surrogate or a NUL an implementation returned is kept as
a JSON escape, never lost and never an encoding error.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

SCHEMA = "lcb-conformance-results/1"

# What happened to a case. Golden cases: identical / differs / whitespace (differs in
# whitespace only); contract cases: passed / failed; either: not-provided (the adapter lacks
# the function or the style), error (the implementation raised, or its process failed), or
# skipped (the case cannot run here; the reason says why).
IDENTICAL = "identical"
DIFFERS = "differs"
WHITESPACE = "whitespace"
PASSED = "passed"
FAILED = "failed"
NOT_PROVIDED = "not-provided"
ERROR = "error"
SKIPPED = "skipped"
STATUSES = (IDENTICAL, DIFFERS, WHITESPACE, PASSED, FAILED, NOT_PROVIDED, ERROR, SKIPPED)
STATUS_WORDS = {
    IDENTICAL: "identical",
    DIFFERS: "differs",
    WHITESPACE: "differs in whitespace only",
    PASSED: "passed",
    FAILED: "failed",
    NOT_PROVIDED: "not provided",
    ERROR: "error",
    SKIPPED: "skipped",
}
# The statuses of a case the implementation answered (the denominators of every count).
RAN = (IDENTICAL, DIFFERS, WHITESPACE, PASSED, FAILED, ERROR)
NOT_OK = (DIFFERS, WHITESPACE, FAILED, ERROR)

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
class Run:
    """What a run found: its header (implementation, provenance, options) and its results."""

    header: dict
    results: list[CaseResult] = field(default_factory=list)
    complete: bool = True  # False: the run stopped before its footer (a crash)

    @property
    def impl(self) -> dict:
        return self.header.get("impl", {})


def header(impl: dict, **details) -> dict:
    """A results file's first line: its schema, the implementation, when, and ``details``
    (the run's options)."""
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    return {"schema": SCHEMA, "impl": impl, "started": started, **details}


class ResultsWriter:
    """Streams a run's results to a JSON-lines file, one flushed line per case."""

    def __init__(self, path: Path, head: dict):
        self.path = Path(path)
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


def read(path: Path) -> Run:
    """A results file, as written by ResultsWriter (a run that crashed: complete=False)."""
    path = Path(path)
    try:
        lines = path.read_text("ascii").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise ResultsFileError(f"{path}: cannot read a results file ({error})") from None
    run: Run | None = None
    for number, line in enumerate(lines, start=1):
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise ResultsFileError(f"{path}:{number}: not JSON ({error})") from None
        if number == 1:
            head = record.get("header") if isinstance(record, dict) else None
            if not isinstance(head, dict) or head.get("schema") != SCHEMA:
                raise ResultsFileError(f"{path}:1: not a results file of schema {SCHEMA}")
            run = Run(head, complete=False)
        elif "result" in record:
            try:
                run.results.append(CaseResult.from_json(record["result"]))
            except (TypeError, ResultsFileError) as error:
                raise ResultsFileError(f"{path}:{number}: {error}") from None
        elif "footer" in record:
            run.complete = True
        else:
            raise ResultsFileError(f"{path}:{number}: neither a result nor the footer")
    if run is None:
        raise ResultsFileError(f"{path}: empty")
    return run
