"""The judge corpus: (problem, candidate program) pairs from fixtures/judge/, each a case whose
golden is what lcb_runner's own judge returns for it (lcb_conformance.upstream.judge runs it).

Problems are rows in the dataset's schema (public tests as JSON, private tests as JSON or in the
dataset's base64(zlib(pickle(json))) form, LeetCode's ``func_name`` in metadata); cases name a
problem, give a program and say what they cover.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from lcb_conformance.suite.cases import (
    CASE_ID,
    FIXTURES_DIR,
    FixtureError,
    check_problem_row,
    iter_jsonl,
)

JUDGE_FIXTURES_DIR = FIXTURES_DIR / "judge"
PROBLEMS_FILE = JUDGE_FIXTURES_DIR / "problems.jsonl"
CASES_FILE = JUDGE_FIXTURES_DIR / "cases.jsonl"

# lcb_runner's default per-test timeout (codegen_metrics, runner/parser.py --timeout): the
# leaderboard's. A case may set another only to keep a run-forever case cheap.
DEFAULT_TIMEOUT = 6
# What the case covers, one of these; every category has at least one case.
CATEGORIES = (
    "correct",
    "wrong-answer",
    "whitespace",
    "decimal",
    "crlf",
    "stdin-reader",
    "exit",
    "main-guard",
    "compile-error",
    "runtime-error",
    "timeout",
    "call-based-output",
    "missing-method",
    "recursion",
    "huge-output",
    "reliability-guard",
    "empty-tests",
    "malformed-tests",
    "encoding",
)
@dataclass(frozen=True)
class JudgeCase:
    id: str
    problem: str  # question_id of a row in problems.jsonl
    program: str
    category: str
    covers: str
    timeout: int = DEFAULT_TIMEOUT
    # upstream commits whose judge behaviour this case exercises (e.g. 16de2a1 for
    # sys.stdin.buffer): an upstream without them is expected to differ on it
    needs: tuple[str, ...] = field(default=())

    def row(self) -> dict:
        return problems()[self.problem]


@cache
def problems() -> dict[str, dict]:
    """question_id -> row, in file order; rows are in the dataset's schema."""
    rows: dict[str, dict] = {}
    for number, row in _lines(PROBLEMS_FILE):
        check_problem_row(PROBLEMS_FILE, number, row)
        _check_id(PROBLEMS_FILE, number, row["question_id"], rows)
        rows[row["question_id"]] = row
    return rows


@cache
def judge_cases() -> dict[str, JudgeCase]:
    found: dict[str, JudgeCase] = {}
    for number, entry in _lines(CASES_FILE):
        where = f"{CASES_FILE}:{number}"
        case_id = _check_id(CASES_FILE, number, entry.get("id"), found)
        if entry.get("problem") not in problems():
            raise FixtureError(f"{where}: problem {entry.get('problem')!r} not in {PROBLEMS_FILE}")
        if not isinstance(entry.get("program"), str):
            raise FixtureError(f"{where}: 'program' must be a string")
        if entry.get("category") not in CATEGORIES:
            raise FixtureError(
                f"{where}: category {entry.get('category')!r} is not one of {', '.join(CATEGORIES)}"
            )
        if not str(entry.get("covers", "")).strip():
            raise FixtureError(f"{where}: say what the case covers ('covers')")
        timeout = entry.get("timeout", DEFAULT_TIMEOUT)
        if not isinstance(timeout, int) or isinstance(timeout, bool) or timeout < 1:
            raise FixtureError(f"{where}: 'timeout' must be a whole number of seconds >= 1")
        needs = entry.get("needs", [])
        if not isinstance(needs, list) or not all(isinstance(c, str) for c in needs):
            raise FixtureError(f"{where}: 'needs' must be a list of upstream commit hashes")
        found[case_id] = JudgeCase(
            case_id,
            entry["problem"],
            entry["program"],
            entry["category"],
            entry["covers"],
            timeout,
            tuple(needs),
        )
    return found


def _lines(path: Path) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise FixtureError(f"{path}: missing fixture file")
    return list(iter_jsonl(path))


def _check_id(path: Path, number: int, value: object, seen) -> str:
    if not isinstance(value, str) or not CASE_ID.match(value):
        raise FixtureError(f"{path}:{number}: id {value!r} must match {CASE_ID.pattern}")
    if value in seen:
        raise FixtureError(f"{path}:{number}: duplicate id {value!r}")
    return value


# fixture file (relative to fixtures/) -> the value one of its entries stands for in a call
PROBLEMS_FIXTURE = PROBLEMS_FILE.relative_to(FIXTURES_DIR).as_posix()
CASES_FIXTURE = CASES_FILE.relative_to(FIXTURES_DIR).as_posix()
FIXTURE_VALUES = {
    PROBLEMS_FIXTURE: lambda entry_id: problems()[entry_id],
    CASES_FIXTURE: lambda entry_id: judge_cases()[entry_id].program,
}
