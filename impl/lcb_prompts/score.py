"""How graded generations become LiveCodeBench's number, three ways upstream computes it.

- :func:`pass_at_k`: lcb_runner's ``evaluation/pass_k_utils.compute_metrics_from_results``,
  what its runner writes as a run's pass@k (``{"pass@1": ..., "detail": {...}}``).
- :func:`score_run`: lcb_runner's ``evaluation/compute_scores.py``, the script that scores an
  eval_all file over a date window, overall and per difficulty.
- :func:`leaderboard_score`: the public leaderboard: ``build_leaderboard_json.py``
  (LiveCodeBench/submissions) turns eval_all files into per-problem records whose date is the
  contest date plus one day in epoch milliseconds, the naive date read as UTC (a pandas
  Timestamp's ``timestamp()``), while its date marks (the windows' ends) are midnights of its
  local time zone; the site (``src/leaderboardLib.tsx``) keeps the records with
  ``start <= date <= end`` and shows the mean of per-problem pass@1, x100, with ``toFixed(1)``.
  West of UTC a problem at 00:00 the day before a window's start falls out of it.

Each reproduces upstream's quirks, pinned by the score goldens: a problem without generations
makes compute_metrics_from_results report no pass@k at all; a generation with an empty
verdict list passes; the estimator gives 1.0 when n - c < k (so pass@k is 1.0 for n < k); the
published builder (LiveCodeBench/submissions 4d04b02) lists only runs of exactly 880 problems.
Standard library only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from decimal import ROUND_HALF_UP, Decimal

DIFFICULTIES = ("easy", "medium", "hard")
# compute_scores' k values, and compute_metrics_from_results' default k_list.
COMPUTE_SCORES_K = (1, 5, 10, 25, 50, 100, 150, 200)
DEFAULT_K_LIST = (1, 5)
# build_leaderboard_json.py (submissions 4d04b02, the only one published) skips every eval_all
# file without exactly this many rows.
LEADERBOARD_ROWS = 880
LEADERBOARD_COLUMNS = ("Pass@1", "Easy-Pass@1", "Medium-Pass@1", "Hard-Pass@1")
NOT_SHOWN = -1  # the site's value for a column without problems (its mean is NaN)
ZERO_DIVISION = "ZeroDivisionError: division by zero"
DATE_FORMAT = "%Y-%m-%d"


def estimate(n: int, c: int, k: int) -> float:
    """The unbiased pass@k of one problem with n generations, c correct, as lcb_runner
    computes it: 1 - prod(1 - k / i for i in n-c+1..n), and 1.0 when n - c < k."""
    if n - c < k:
        return 1.0
    product = 1.0
    for i in range(n - c + 1, n + 1):
        product *= 1.0 - k / i
    return 1.0 - product


def _mean(values: Sequence[float]) -> float:
    return math.fsum(values) / len(values) if values else math.nan


def _passes(grades: Iterable) -> bool:
    """A generation passes when every test grade is > 0 (an empty list passes: all([]))."""
    return all(grade > 0 for grade in grades)


def pass_at_k(results: Mapping[str, Sequence[Sequence]], k_list=DEFAULT_K_LIST) -> dict:
    """compute_metrics_from_results(results, k_list): results maps a task id to its
    generations' per-test grades. A k is reported only when every task has at least k
    generations; "detail" maps each reported k to the per-task estimates."""
    totals = [len(generations) for generations in results.values()]
    corrects = [sum(map(_passes, generations)) for generations in results.values()]
    reported = [k for k in k_list if all(total >= k for total in totals)]
    metrics: dict = {}
    detail: dict = {}
    for k in reported:
        estimates = [estimate(n, c, k) for n, c in zip(totals, corrects, strict=True)]
        metrics[f"pass@{k}"] = _mean(estimates)
        detail[f"pass@{k}"] = dict(zip(results, estimates, strict=True))
    metrics["detail"] = detail
    return metrics


def _in_window(rows: Iterable[Mapping], start_date: str | None, end_date: str | None):
    for row in rows:
        date = datetime.fromisoformat(row["contest_date"])
        if start_date is not None and date < datetime.strptime(start_date, DATE_FORMAT):
            continue
        if end_date is not None and date > datetime.strptime(end_date, DATE_FORMAT):
            continue
        yield row


def lcb_runner_rows(rows, start_date=None, end_date=None, platform=None) -> list[Mapping]:
    """The eval_all rows compute_scores scores: start_date <= contest_date <= end_date, the
    dates read as midnight (a problem at 19:30 on end_date is out), then the platform."""
    kept = list(_in_window(rows, start_date, end_date))
    return [row for row in kept if platform is None or row["platform"] == platform]


def score_run(rows, start_date=None, end_date=None, platform=None) -> dict:
    """What compute_scores prints for an eval_all file: the problem count; pass@k over the
    graded lists (overall and per difficulty, for each of COMPUTE_SCORES_K; NaN for a
    difficulty without problems); the mean of the rows' own "pass@1" fields (keys only for
    non-empty groups). An empty window ends as upstream's does, in ZeroDivisionError."""
    kept = lcb_runner_rows(rows, start_date, end_date, platform)
    groups = {"all": kept, **{d: [r for r in kept if r["difficulty"] == d] for d in DIFFICULTIES}}
    scores: dict = {"count": len(kept), "pass@k": {}, "pass@1 from rows": {}}
    for k in COMPUTE_SCORES_K:
        scores["pass@k"][str(k)] = {
            group: _mean(
                [estimate(len(r["graded_list"]), sum(r["graded_list"]), k) for r in members]
            )
            for group, members in groups.items()
        }
    for group, members in groups.items():
        if members:
            scores["pass@1 from rows"][group] = _mean([r["pass@1"] for r in members])
        elif group == "all":
            scores["raised"] = ZERO_DIVISION
            break
    return scores


def _zone(name: str) -> tzinfo:
    """A time zone by its IANA name. UTC needs no time zone database; zoneinfo is imported
    only for another (importing it loads sysconfig's platform data)."""
    if name == "UTC":
        return timezone.utc  # noqa: UP017 (datetime.UTC is 3.11+; lcb_prompts runs on 3.10)
    from zoneinfo import ZoneInfo

    return ZoneInfo(name)


def _epoch_ms(moment: datetime, zone: tzinfo) -> int:
    """int(moment.timestamp() * 1000) for a naive datetime read in ``zone``."""
    return int(moment.replace(tzinfo=zone).timestamp() * 1000)


def leaderboard_rows(rows, start: str, end: str, builder_tz: str = "UTC") -> list[Mapping]:
    """The rows the site averages for the window [start, end] (date marks, "YYYY-MM-DD"): the
    builder's date (contest_date read as UTC, in ms, plus one day) between the marks (midnights
    of the builder's time zone, in ms)."""
    low, high = date_mark(start, builder_tz), date_mark(end, builder_tz)
    return [row for row in rows if low <= builder_date(row["contest_date"]) <= high]


def date_mark(day: str, builder_tz: str = "UTC") -> int:
    """The builder's date mark of a day ("YYYY-MM-DD"): its local midnight, in epoch ms."""
    return _epoch_ms(datetime.strptime(day, DATE_FORMAT), _zone(builder_tz))


def builder_date(contest_date: str) -> int:
    """The date the builder gives a problem: its contest_date read as UTC, in epoch ms, plus
    one day."""
    day = int(timedelta(days=1).total_seconds() * 1000)
    return _epoch_ms(datetime.fromisoformat(contest_date), _zone("UTC")) + day


def row_pass_at_1(row: Mapping) -> float:
    """The builder's per-problem pass@1, x100: the row's "pass1" if it has one, else "pass@1"."""
    return (row["pass1"] if "pass1" in row else row["pass@1"]) * 100


def to_fixed_1(value: float) -> float:
    """JavaScript's Number(value.toFixed(1)): the exact binary value rounded half up."""
    return float(Decimal(value).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def leaderboard_columns(shown) -> dict:
    """The site's columns over the rows it averages: the mean of per-problem pass@1 x100 with
    toFixed(1), overall and per difficulty (NOT_SHOWN for a column without problems)."""
    return site_columns(
        [{"difficulty": r["difficulty"], "pass@1": row_pass_at_1(r)} for r in shown]
    )


def site_columns(records) -> dict:
    """The site's columns over the builder's records it averages (each a difficulty and a
    pass@1 already x100, as the published performances_generation.json holds them)."""
    columns = {}
    for column, difficulty in zip(LEADERBOARD_COLUMNS, (None, *DIFFICULTIES), strict=True):
        members = [r["pass@1"] for r in records if difficulty in (None, r["difficulty"])]
        columns[column] = to_fixed_1(sum(members) / len(members)) if members else NOT_SHOWN
    return columns


def leaderboard_score(rows, start: str, end: str, builder_tz: str = "UTC") -> dict:
    """The leaderboard's row for this run over [start, end]: whether the builder lists it,
    the problems the site averages, and its columns."""
    rows = list(rows)
    if len(rows) != LEADERBOARD_ROWS:
        return {"listed": False}
    shown = leaderboard_rows(rows, start, end, builder_tz)
    return {
        "listed": True,
        "count": len(shown),
        "question_ids": sorted(r["question_id"] for r in shown),
        **leaderboard_columns(shown),
    }


def standard_error(values: Sequence[float]) -> float:
    """The standard error of a mean over problems: sample standard deviation / sqrt(count)
    (0.0 for fewer than two values)."""
    if len(values) < 2:
        return 0.0
    mean = _mean(values)
    variance = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))
