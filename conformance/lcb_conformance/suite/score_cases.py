"""The score cases: finished runs (fixtures/score), the windows and builder time zones each is
scored over, pass@k inputs.

The score cases: finished runs (fixtures/score/runs.json), the windows each is scored over,
the builder time zones of the leaderboard, and compute_metrics_from_results' inputs
(fixtures/score/pass_k.json). The score families (suite/families/score.py) make one golden
per (run, window) for lcb_runner's compute_scores, per (time zone, run, window) for the
leaderboard, and per pass_k input."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache

from lcb_conformance import releases
from lcb_conformance.common import paths

SCORE_FIXTURES_DIR = paths.FIXTURES_DIR / "score"
RUNS_FIXTURE = "score/runs.json"
PASS_K_FIXTURE = "score/pass_k.json"
ABOUT = "_about"


@dataclass(frozen=True)
class Window:
    """compute_scores' --start_date/--end_date/--platform (None: not given)."""

    start: str | None = None
    end: str | None = None
    platform: str | None = None

    @property
    def id(self) -> str:
        if self.start is None and self.end is None:
            dates = "all"
        else:
            dates = f"{self.start or 'any'}_{self.end or 'any'}"
        return dates + (f"_{self.platform}" if self.platform else "")

    def arguments(self) -> dict:
        return {"start_date": self.start, "end_date": self.end, "platform": self.platform}


# compute_scores' windows: everything; the issue's window; one day whose problems sit at 00:00,
# 07:30 and 19:30; a platform; v1's dates; a window without problems (upstream divides by 0).
LCB_RUNNER_WINDOWS = (
    Window(),
    Window("2024-09-01", "2025-02-01"),
    Window("2024-08-31", "2024-08-31"),
    Window("2024-09-01", "2025-02-01", "atcoder"),
    Window("2023-05-01", "2024-03-02"),
    Window("2026-01-01", "2026-12-31"),
)
# The leaderboard's windows: pairs of its date marks (month starts, 2023-05-01..2025-02-01).
LEADERBOARD_WINDOWS = (
    ("2024-09-01", "2025-02-01"),
    ("2024-08-01", "2025-02-01"),  # the site's default: date_marks[15]..last
    ("2023-05-01", "2025-02-01"),
    ("2024-04-01", "2024-10-01"),
    ("2024-01-01", "2024-04-01"),
)
# The builder's local time zone moves dates only across a DST change: UTC (what the site's
# data was built in), Los Angeles, London (DST changes on the last Sunday of March, next to a
# month mark). Every run under UTC; the runs with edge times under the others too.
UTC = "UTC"
BUILDER_TIME_ZONES = (UTC, "America/Los_Angeles", "Europe/London")
RUNS_IN_EVERY_ZONE = ("edges", "o1_mini")


def zone_folder(zone: str) -> str:
    return zone.replace("/", "__")


def zone_of(folder: str) -> str:
    return folder.replace("__", "/")


def window_id(start: str, end: str) -> str:
    return f"{start}_{end}"


class ScoreFixtureError(ValueError):
    pass


def _load(name: str) -> dict:
    path = paths.FIXTURES_DIR / name
    try:
        loaded = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as error:
        raise ScoreFixtureError(f"{path}: {error}") from error
    return {key: value for key, value in loaded.items() if key != ABOUT}


@cache
def run_specs() -> dict[str, dict]:
    return _load(RUNS_FIXTURE)


@cache
def pass_k_inputs() -> dict[str, dict]:
    return _load(PASS_K_FIXTURE)


def _fraction(*parts: object) -> float:
    """A number in [0, 1) from sha256 of the parts: the same on every machine and Python."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _made_row(spec: dict, problem: dict) -> dict:
    qid = problem["question_id"]
    n = spec["n"] if spec["n"] != "ragged" else 1 + int(_fraction(spec["seed"], qid) * 10)
    rate = spec["pass_rate"][problem["difficulty"]]
    graded = [_fraction(spec["seed"], qid, index) < rate for index in range(n)]
    row = {
        "question_id": qid,
        "contest_date": problem["contest_date"],
        "difficulty": problem["difficulty"],
        "platform": problem["platform"],
        "graded_list": graded,
        "pass@1": graded.count(True) / len(graded),
    }
    return row | spec.get("overrides", {}).get(qid, {})


@cache
def _run_rows(run_id: str) -> tuple[str, ...]:
    spec = run_specs()[run_id]
    if "file" in spec:
        rows = json.loads((SCORE_FIXTURES_DIR / spec["file"]).read_text("utf-8"))
    else:
        rows = [_made_row(spec, problem) for problem in releases.members(spec["release"])]
    return tuple(json.dumps(row) for row in rows)  # cached as text: callers may mutate rows


def run_rows(run_id: str) -> list[dict]:
    """The eval_all rows of a run (a fresh copy)."""
    if run_id not in run_specs():
        raise ScoreFixtureError(f"{RUNS_FIXTURE} has no run {run_id!r}")
    return [json.loads(row) for row in _run_rows(run_id)]


def pass_k_results(case_id: str) -> dict:
    return pass_k_inputs()[case_id]["results"]


FIXTURE_VALUES = {RUNS_FIXTURE: run_rows, PASS_K_FIXTURE: pass_k_results}


def lcb_runner_cases() -> list[tuple[str, Window]]:
    return [(run, window) for run in run_specs() for window in LCB_RUNNER_WINDOWS]


def leaderboard_cases() -> list[tuple[str, str, tuple[str, str]]]:
    """(builder time zone, run, (start, end))."""
    return [
        (zone, run, window)
        for zone in BUILDER_TIME_ZONES
        for run in run_specs()
        if zone == UTC or run in RUNS_IN_EVERY_ZONE
        for window in LEADERBOARD_WINDOWS
    ]
