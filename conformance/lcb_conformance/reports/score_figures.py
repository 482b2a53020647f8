"""`lcb-conformance score`'s figures: the problem set, the scope, both pass@1 figures.

`lcb-conformance score`'s figures: a run's problem set against the release manifests, the
scope it is scored over (a release's window, or the run's own), and its pass@1 as lcb_runner's
compute_scores and as the leaderboard compute it over that scope, with what each lacks of it
and why the two differ."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from fractions import Fraction

from lcb_conformance import releases
from lcb_conformance.reports.score_run import (
    Run,
    as_percent,
    as_written,
    exact_mean,
    listed_ids,
    mean_of,
)
from lcb_conformance.run_formats.lcb_runner_files import CODE_GENERATION, SCENARIO_WORDS
from lcb_prompts import score as scoring

# The leaderboard's widest window: its first date mark, and a mark after any problem.
FIRST_MARK = "2023-05-01"


# The figures, by name; what each is, as the output names it.
COMPUTE_SCORES, LEADERBOARD, PUBLISHED = "compute_scores", "leaderboard", "published"


LABELS = {
    COMPUTE_SCORES: "lcb_runner's compute_scores on this file",
    LEADERBOARD: "the leaderboard's computation on this file",
    PUBLISHED: "the leaderboard site's published data",
}


# the only builder LiveCodeBench published
PUBLISHED_BUILDER = {"repository": "LiveCodeBench/submissions", "commit": "4d04b02"}


def problem_set(run: Run, release: str | None) -> dict:
    """The run's problems against the release tags (or the one asked for); its sha256 over the
    run's own question ids, dates, difficulties and platforms, and the tags whose manifest has
    the same (same problems, same metadata)."""
    ids = [r["question_id"] for r in run.rows]
    matches = [releases.compare(ids, release)] if release else releases.closest(ids)
    digest = releases.problem_set_sha256([{**r, "platform": r["platform"] or ""} for r in run.rows])
    return {
        "count": len(ids),
        "sha256": digest,
        "sha256_equals": [
            tag for tag, m in releases.manifest()["tags"].items() if m["sha256"] == digest
        ],
        "asked_for": release,
        # the run's ids no release holds: no figure on them is a LiveCodeBench number
        "in_no_release": list(releases.foreign(ids)),
        "matches": [
            {
                "tag": m.tag,
                "equal": m.equal,
                "relation": m.relation.value,
                "words": m.words(),
                "shared": m.shared,
                "size": m.size,
                "membership": "exact" if m.exact else "derived by date (docs/score-goldens.md)",
                "missing": list(m.missing),
                "extra": list(m.extra),
            }
            for m in matches
        ],
    }


@dataclass(frozen=True)
class Scope:
    """The problems the figures are held to: a release's, within the window (if any); no
    release (None) when none holds a problem of the run and none was named. ``named``: the
    user named the window or the release (else it is the run's nearest)."""

    release: str | None
    start: str | None
    end: str | None
    named: bool

    @property
    def rows(self) -> list[dict]:
        return releases.members(self.release) if self.release else []

    def describe(self) -> str:
        dates = f" dated {self.start}..{self.end}" if self.start else ""
        if self.release is None:
            return f"the run's own problems{dates} (in no release)"
        return f"{self.release}'s problems{dates}"


def scope_of(problems: dict, release: str | None, window) -> Scope:
    """--release's problems, or (unnamed) the release nearest the run's problem set (none when
    no release holds any of its problems)."""
    start, end = window or (None, None)
    nearest = problems["matches"][0]
    in_none = nearest["relation"] == releases.Relation.IN_NO_RELEASE
    tag = release or (None if in_none else nearest["tag"])
    return Scope(tag, start, end, named=bool(release or window))


def _coverage(counted, expected_ids) -> dict:
    """What the rows a figure counts lack of the scope's problems, and hold beyond them. A
    problem without generations is missing: compute_scores' estimator counts it as passed."""
    scored = {r["question_id"] for r in counted if r["graded_list"]}
    expected = set(expected_ids)
    return {
        "expected": len(expected),
        "missing": sorted(expected - scored),
        "without_generations": sorted(expected & {r["question_id"] for r in counted} - scored),
        "extra": sorted({r["question_id"] for r in counted} - expected),
    }


def board_window(scope: Scope, rows) -> tuple[str, str]:
    """The leaderboard's window: the one named, else from its first mark to a mark after every
    problem of the run and of the scope."""
    if scope.start is not None:
        return scope.start, scope.end
    last = max(r["contest_date"] for r in [*rows, *scope.rows])
    return FIRST_MARK, _month_after(last)


def lcb_runner_view(rows, scope: Scope) -> dict:
    """compute_scores' numbers (percent) over the run's rows in the scope's window, the
    problems it counts, and what it lacks of the scope's."""
    start, end = scope.start, scope.end
    scores = scoring.score_run(rows, start, end)
    kept = scoring.lcb_runner_rows(rows, start, end)
    sizes = [len(r["graded_list"]) for r in kept]
    by_problem = [r["graded_list"].count(True) / n for r, n in zip(kept, sizes, strict=True) if n]
    value = scores["pass@k"]["1"]["all"]
    expected = [r["question_id"] for r in scoring.lcb_runner_rows(scope.rows, start, end)]
    return {
        "rule": "compute_scores: start <= contest_date <= end, the dates at midnight",
        "count": scores["count"],
        "question_ids": sorted(r["question_id"] for r in kept),
        "value": None if value != value else value * 100,
        "exact": exact_mean([_pass_at_1(r["graded_list"]) * 100 for r in kept]),
        "pass@1": {group: as_percent(v) for group, v in scores["pass@k"]["1"].items()},
        # k above the smallest n: the estimator counts those problems as passed (1.0)
        "pass@k": {
            k: as_percent(groups["all"])
            for k, groups in scores["pass@k"].items()
            if k != "1" and sizes and int(k) <= min(sizes)
        },
        "pass@k_counting_n_below_k_as_passed": [
            int(k) for k in scores["pass@k"] if sizes and int(k) > min(sizes)
        ],
        "standard_error": as_percent(scoring.standard_error(by_problem)),
        "raised": scores.get("raised"),
        **_coverage(kept, expected),
    }


def _pass_at_1(graded: list) -> Fraction:
    """A problem's pass@1 as compute_scores' estimator gives it, exactly: c/n (1 when n - c
    < 1, as the estimator has it for no generations)."""
    return Fraction(1) if not graded else Fraction(graded.count(True), len(graded))


def mean_fields(
    start: str, end: str, shown: list[dict], values: list[float], exact: list[Fraction]
) -> dict:
    """A per-problem mean's fields (the leaderboard's, the site's): its window, the problems it
    counts, its value, its exact value (of ``exact``, the values as their file writes them)
    and its value as shown (two decimals)."""
    return {
        "window": [start, end],
        "count": len(shown),
        "question_ids": sorted(r["question_id"] for r in shown),
        "value": mean_of(values),
        "exact": exact_mean(exact),
        "mean": None if not values else round(mean_of(values), 2),
    }


def leaderboard_view(rows, scope: Scope, start: str, end: str, zone: str) -> dict:
    """The leaderboard's computation on the run over [start, end] (its builder in ``zone``):
    what its site would show for this file, and what the run lacks of the scope's problems;
    """
    shown = scoring.leaderboard_rows(rows, start, end, zone)
    values = [scoring.row_pass_at_1(r) for r in shown]
    exact = [as_written(r["pass1"] if "pass1" in r else r["pass@1"]) * 100 for r in shown]
    expected = scoring.leaderboard_rows(scope.rows, start, end, zone)
    return {
        "rule": "build_leaderboard_json.py + leaderboardLib.tsx: contest_date (as UTC) + 1 day "
        f"between the date marks (midnights in {zone})",
        **mean_fields(start, end, shown, values, exact),
        "shown": scoring.leaderboard_columns(shown),
        "standard_error": as_percent(scoring.standard_error([v / 100 for v in values])),
        **_coverage(shown, [r["question_id"] for r in expected]),
    }


def label(name: str, narrowed_to: str | None, scenario: str = CODE_GENERATION) -> str:
    """What a figure is; of a self-repair run, and on a run narrowed to --release's problems,
    said."""
    if name == PUBLISHED:
        return LABELS[name]
    found = LABELS[name]
    if scenario != CODE_GENERATION:
        found = found.replace("this file", f"this {SCENARIO_WORDS[scenario]} file")
    if narrowed_to is not None:
        found = found.replace("this ", f"{narrowed_to}'s problems of this ", 1)
    return found


def figures(report: dict) -> list[dict]:
    """The report's figures, each named, with its value (percent, full precision), the problems
    it counts and what it lacks of the scope's: what a claim is held to."""
    found = []
    for name in (COMPUTE_SCORES, LEADERBOARD, PUBLISHED):
        view = report.get({COMPUTE_SCORES: "lcb_runner"}.get(name, name))
        if view is None:
            continue
        found.append(
            {
                "name": name,
                "label": label(name, report["narrowed_to"], report["scenario"]),
                "value": view["value"],
                "exact": view["exact"],
                "count": view["count"],
                "expected": view["expected"],
                "missing": view["missing"],
                "without_generations": view["without_generations"],
                "extra": view["extra"],
            }
        )
    return found


def differences(lcb_runner: dict, leaderboard: dict, rows) -> list[str]:
    """Which problems only one number counts, by contest date, and why."""
    dates = {r["question_id"]: r["contest_date"] for r in rows}
    ours, theirs = set(lcb_runner["question_ids"]), set(leaderboard["question_ids"])
    lines = []
    for ids, only, other in (
        (theirs - ours, "the leaderboard's", "compute_scores'"),
        (ours - theirs, "compute_scores'", "the leaderboard's"),
    ):
        by_day = Counter(dates[q][:10] for q in ids)
        for day, count in sorted(by_day.items()):
            lines.append(f"{count} problems dated {day} are in {only} window, not {other}")
    if lines:
        lines.append(
            "why: compute_scores keeps start <= contest_date <= end (midnight); the leaderboard's "
            "builder adds one day to every contest date (read as UTC) and the site keeps "
            "start <= date <= end between its builder's local midnights"
        )
    ours_value, theirs_value = lcb_runner["pass@1"]["all"], leaderboard["mean"]
    if ours_value is not None and theirs_value is not None:
        gap = theirs_value - ours_value
        lines.append(f"the leaderboard's mean is {gap:+.2f} points from compute_scores' pass@1")
    return lines


# The listing's rule: the builder keeps code generation files of exactly so many rows
LISTING_RULE = "published_builder_rows"
# a self-repair run: the builder reads only code generation's files (the site's Self Repair tab
# was built by a builder not published)
SELF_REPAIR_RULE = "published_builder_reads_code_generation_only"


def listing(count: int, scenario: str = CODE_GENERATION) -> dict:
    """Whether a leaderboard edition lists a run of ``count`` problems, by the published
    builder's rule (its source, the rows it keeps) and the sizes the site's editions list
    (conformance/releases): the edition of that size, if any (its builder not published); a
    self-repair run: by no published builder."""
    manifest = releases.manifest()
    editions = [
        {
            "name": name,
            "release": edition["release"],
            "problems": manifest["tags"][edition["release"]]["count"],
        }
        for name, edition in manifest["leaderboards"].items()
    ]
    code_generation = scenario == CODE_GENERATION
    return {
        "rule": LISTING_RULE if code_generation else SELF_REPAIR_RULE,
        "source": PUBLISHED_BUILDER,
        "scenario": scenario,
        "builder_rows": scoring.LEADERBOARD_ROWS,
        "run_rows": count,
        "listed_by_builder": code_generation and count == scoring.LEADERBOARD_ROWS,
        "edition": next((e for e in editions if code_generation and e["problems"] == count), None),
        "editions": sorted(editions, key=lambda e: e["problems"]),
    }


def lacks_problems(figure: dict, allow_missing: bool) -> bool:
    """The figure is not over the scope's problems: some extra, some without generations (the
    figure counts them, as passed), or some missing (unless allowed)."""
    return bool(
        figure["extra"]
        or figure["without_generations"]
        or (figure["missing"] and not allow_missing)
    )


def covered_count(figure: dict) -> int:
    """How many of the scope's problems the figure has generations for."""
    return figure["expected"] - len(figure["missing"])


def coverage_words(figure: dict) -> str:
    if not figure["expected"]:  # the scope holds none (no release holds the run's problems)
        words = [f"on {figure['count']:,} problems, none of them a release's"]
    else:
        words = [f"on {covered_count(figure):,} of {figure['expected']:,} problems"]
    if figure["missing"]:
        words.append(f"the run lacks {len(figure['missing']):,} ({listed_ids(figure['missing'])})")
    if figure["without_generations"]:
        words.append(
            f"{len(figure['without_generations']):,} of them are in the file without "
            "generations (compute_scores counts them as passed; --allow-missing does not help)"
        )
    if figure["extra"]:
        words.append(f"{len(figure['extra']):,} not of the scope ({listed_ids(figure['extra'])})")
    return "; ".join(words)


def _month_after(contest_date: str) -> str:
    """The first month start after a contest date plus one day: a date mark holding it."""
    moment = datetime.fromisoformat(contest_date) + timedelta(days=1)
    year, month = (moment.year + 1, 1) if moment.month == 12 else (moment.year, moment.month + 1)
    return f"{year:04d}-{month:02d}-01"
