"""`lcb-conformance score --published`: the leaderboard site's own per-problem data for a
model (its performances_generation.json) over the window, and the problems where it differs
from the run's file."""

from __future__ import annotations

import json
import math
import zoneinfo
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from lcb_conformance.reports.score_figures import mean_fields
from lcb_conformance.reports.score_run import RunError, as_written, listed_ids
from lcb_prompts import score as scoring


@dataclass
class Published:
    """A model's records in the leaderboard site's performances_generation.json."""

    path: Path
    model: str
    records: dict[str, dict]  # question_id -> the site's record (date in ms, pass@1 x100)
    marks: list[int]  # the builder's date marks, epoch ms


def read_published(path: Path, model: str | None, run: Path) -> Published:
    """The site's data for ``model``; unnamed, the model the run's folder is named after (as
    lcb_runner and the submissions name it), else the file's only model."""
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise RunError(f"{path}: {error}") from None
    shape = "the leaderboard site's performances_generation.json"
    if not isinstance(data, dict) or not isinstance(data.get("performances"), list):
        raise RunError(f"{path}: no 'performances' list: not {shape}")
    marks = data.get("date_marks")
    if not isinstance(marks, list) or not marks or not all(isinstance(m, int) for m in marks):
        raise RunError(f"{path}: no 'date_marks' (epoch ms): not {shape}")
    fields = ("question_id", "model", "date", "difficulty", "pass@1")
    for index, record in enumerate(data["performances"]):
        if not isinstance(record, dict) or any(f not in record for f in fields):
            raise RunError(f"{path}: performances[{index}] lacks one of {', '.join(fields)}")
    models = sorted({record["model"] for record in data["performances"]})
    if model is None:
        folder = run.resolve().parent.name
        if folder in models or len(models) == 1:
            model = folder if folder in models else models[0]
        else:
            raise RunError(
                f"{path} holds {len(models)} models and none is the run's folder {folder!r}: "
                f"name one with --model ({listed_ids(models)})"
            )
    if model not in models:
        raise RunError(f"{path} has no records of model {model!r} (it has: {listed_ids(models)})")
    records: dict[str, dict] = {}
    for record in data["performances"]:
        if record["model"] == model:
            qid = str(record["question_id"])
            if qid in records:
                raise RunError(f"{path}: {model!r} has problem {qid} twice")
            records[qid] = record
    return Published(path, model, records, sorted(marks))


def _mark_dates(published: Published, zone: str) -> dict[str, int]:
    local = zoneinfo.ZoneInfo(zone)
    return {datetime.fromtimestamp(m / 1000, local).date().isoformat(): m for m in published.marks}


def published_window(published: Published, zone: str) -> tuple[str, str]:
    dates = list(_mark_dates(published, zone))
    return dates[0], dates[-1]


def published_view(published: Published, rows, start: str, end: str, zone: str) -> dict:
    """The site's figure for the model over [start, end] from its own records, and every
    problem where its data and the run's file differ (in the window or not)."""
    marks = _mark_dates(published, zone)
    unknown = [day for day in (start, end) if day not in marks]
    if unknown:
        first, last = next(iter(marks)), list(marks)[-1]
        raise RunError(
            f"{published.path}: {', '.join(unknown)} is no date mark of its builder (its marks: "
            f"{first}..{last}, month starts in {zone}): give --window between marks"
        )
    low, high = marks[start], marks[end]
    shown = [r for r in published.records.values() if low <= r["date"] <= high]
    by_id = {r["question_id"]: r for r in rows}
    found = []
    for qid in sorted(set(by_id) | set(published.records)):
        record, row = published.records.get(qid), by_id.get(qid)
        dates = [record["date"]] if record else []
        if row is not None:
            dates.append(scoring.builder_date(row["contest_date"]))
        what = _how_they_differ(record, row)
        if what:
            found.append(
                {
                    "question_id": qid,
                    "what": what,
                    "in_window": any(low <= d <= high for d in dates),
                }
            )
    values = [r["pass@1"] for r in shown]
    return {
        "file": str(published.path),
        "model": published.model,
        **mean_fields(start, end, shown, values, [as_written(v) for v in values]),
        "shown": scoring.site_columns(shown),
        "differences": found,
        "differing_in_window": [d["question_id"] for d in found if d["in_window"]],
    }


def _how_they_differ(record: dict | None, row: dict | None) -> str | None:
    if record is None:
        return "in the run, not published"
    if row is None:
        return "published, not in the run"
    parts = []
    here = scoring.row_pass_at_1(row)
    if not math.isclose(here, record["pass@1"], abs_tol=1e-9):
        parts.append(f"pass@1 {here:g} here, {record['pass@1']:g} published")
    if scoring.builder_date(row["contest_date"]) != record["date"]:
        parts.append("another date")
    if row["difficulty"] != record["difficulty"]:
        parts.append(f"{row['difficulty']} here, {record['difficulty']} published")
    return "; ".join(parts) or None
