"""The score goldens: compute_metrics_from_results, compute_scores, the leaderboard (builder +
site).

How verdicts become the number, three ways upstream computes it, over the runs and inputs
of fixtures/score (suite/score_cases.py):

- score-pass-k/<input>: lcb_runner's compute_metrics_from_results(results, k_list);
- score-lcb-runner/<run>/<window>: lcb_runner's compute_scores over a date window, its
  printout as data;
- score-leaderboard/<builder time zone>/<run>__<start>_<end>: the public leaderboard, its
  builder (build_leaderboard_json.py) and site (leaderboardLib.tsx through node).

Goldens are canonical JSON with every float to 12 significant digits and NaN as "nan"
(SCORE_JSON): upstream averages with numpy's pairwise sum and Python's sum, an
implementation may add in another order; the digits kept are far beyond what is shown. An
implementation is held to them through pass_at_k, score_run and leaderboard_score (the
reference: lcb_prompts.score).
"""

from __future__ import annotations

import math

from lcb_conformance.suite import goldens, index, score_cases
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

PASS_K = "score-pass-k"
LCB_RUNNER = "score-lcb-runner"
LEADERBOARD = "score-leaderboard"
# compare: canonical JSON of the value with floats to 12 significant digits, NaN as "nan", and
# the leaderboard's column values as floats (JavaScript has no integers).
SCORE_JSON = "score-json"
SIGNIFICANT_DIGITS = 12
K_LIST = "__k_list"  # a pass_k fixture id's suffix: that input's k_list, not its results
LEADERBOARD_FACTS = ("listed", "count", "question_ids")  # the rest are the site's columns
# upstream/: lcb_runner's pass@k and compute_scores (score.py), the leaderboard's builder and
# site (leaderboard.py: the builder once for all runs, the site once for all windows)
COMPUTE_METRICS = "score.compute_metrics"
COMPUTE_SCORES = "score.compute_scores"
LEADERBOARD_ANSWERS = "leaderboard.answers"


def normalised(value):
    if isinstance(value, dict):
        return {str(k): normalised(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [normalised(v) for v in value]
    if isinstance(value, float):
        return "nan" if math.isnan(value) else float(f"{value:.{SIGNIFICANT_DIGITS}g}")
    return value


def score_json(value, arguments=None) -> str:
    return goldens.canonical_json(normalised(value))


def leaderboard_json(value, arguments=None) -> str:
    columns = {k: float(v) for k, v in value.items() if k not in LEADERBOARD_FACTS}
    return score_json({**value, **columns})


def pass_k_value(entry_id: str):
    case, k_list, _ = entry_id.partition(K_LIST)
    found = score_cases.pass_k_inputs()[case]
    return found["k_list"] if k_list else found["results"]


def _run_fixture(run: str) -> dict:
    return index.fixture(score_cases.RUNS_FIXTURE, run)


# --- score-pass-k -------------------------------------------------------------------------


def pass_k_entry(key: GoldenKey) -> dict:
    return {
        "call": {
            "function": "pass_at_k",
            "args": {
                "results": index.fixture(score_cases.PASS_K_FIXTURE, key.case),
                "k_list": index.fixture(score_cases.PASS_K_FIXTURE, key.case + K_LIST),
            },
        },
        "cell": ["pass_at_k", index.NO_TOKENIZER],
        "upstream": "evaluation.pass_k_utils.compute_metrics_from_results(results, k_list)",
    }


def pass_k_produce(source, key: GoldenKey) -> str:
    inputs = score_cases.pass_k_inputs()[key.case]
    metrics = source.run(COMPUTE_METRICS, source.upstream, inputs["results"], inputs["k_list"])
    return score_json(metrics)


# --- score-lcb-runner -----------------------------------------------------------------------


def _lcb_runner_window(key: GoldenKey) -> score_cases.Window:
    return {w.id: w for w in score_cases.LCB_RUNNER_WINDOWS}[key.case]


def lcb_runner_entry(key: GoldenKey) -> dict:
    window = _lcb_runner_window(key)
    return {
        "call": {
            "function": "score_run",
            "args": {"rows": _run_fixture(key.group), **window.arguments()},
        },
        "cell": ["score_run", index.NO_TOKENIZER],
        "upstream": "evaluation.compute_scores.compute_scores(args) on the run's eval_all file "
        "with --start_date, --end_date, --platform (its printout)",
    }


def lcb_runner_produce(source, key: GoldenKey) -> str:
    window = _lcb_runner_window(key)
    rows = score_cases.run_rows(key.group)
    return score_json(
        source.run(
            COMPUTE_SCORES, source.upstream, rows, window.start, window.end, window.platform
        )
    )


# --- score-leaderboard ----------------------------------------------------------------------


def _leaderboard_case(key: GoldenKey) -> tuple[str, str, tuple[str, str]]:
    run, _, window = key.case.partition("__")
    start, _, end = window.partition("_")
    return score_cases.zone_of(key.group), run, (start, end)


def leaderboard_keys():
    return (
        GoldenKey(
            LEADERBOARD,
            score_cases.zone_folder(zone),
            f"{run}__{score_cases.window_id(*window)}",
        )
        for zone, run, window in score_cases.leaderboard_cases()
    )


def leaderboard_entry(key: GoldenKey) -> dict:
    zone, run, (start, end) = _leaderboard_case(key)
    return {
        "call": {
            "function": "leaderboard_score",
            "args": {"rows": _run_fixture(run), "start": start, "end": end, "builder_tz": zone},
        },
        "cell": ["leaderboard_score", zone],
        "upstream": "build_leaderboard_json.py (LiveCodeBench/submissions) with TZ set, then "
        "getLeaderboard(performances, models, start, end) of leaderboardLib.tsx "
        "(LiveCodeBench/livecodebench.github.io) in node",
    }


def leaderboard_produce(source, key: GoldenKey) -> str:
    zone, run, window = _leaderboard_case(key)
    specs = score_cases.run_specs()
    runs = {specs[r]["model_repr"]: score_cases.run_rows(r) for r in specs}
    windows = list(score_cases.LEADERBOARD_WINDOWS)
    answers = source.once(
        (LEADERBOARD, zone),
        lambda: source.run(LEADERBOARD_ANSWERS, source.upstream, runs, zone, windows),
    )
    return leaderboard_json(answers[(specs[run]["model_repr"], window)])


FIXTURES = {
    score_cases.RUNS_FIXTURE: score_cases.run_rows,
    score_cases.PASS_K_FIXTURE: pass_k_value,
}

FAMILIES = (
    Family(
        PASS_K,
        "pass@k",
        "upstream evaluation.pass_k_utils.compute_metrics_from_results on fixtures/score/"
        "pass_k.json, as canonical JSON (floats to 12 significant digits)",
        lambda: (GoldenKey(PASS_K, "", case) for case in score_cases.pass_k_inputs()),
        pass_k_produce,
        pass_k_entry,
        render=score_json,
        suffix=JSON_SUFFIX,
        compare=SCORE_JSON,
        fixtures=FIXTURES,
        runs=(COMPUTE_METRICS,),
    ),
    Family(
        LCB_RUNNER,
        "compute_scores",
        "upstream evaluation.compute_scores.compute_scores on the runs of fixtures/score/"
        "runs.json over each window, its printout as canonical JSON",
        lambda: (
            GoldenKey(LCB_RUNNER, run, window.id)
            for run, window in score_cases.lcb_runner_cases()
        ),
        lcb_runner_produce,
        lcb_runner_entry,
        render=score_json,
        suffix=JSON_SUFFIX,
        compare=SCORE_JSON,
        fixtures=FIXTURES,
        runs=(COMPUTE_SCORES,),
    ),
    Family(
        LEADERBOARD,
        "leaderboard",
        "the leaderboard's build_leaderboard_json.py (LiveCodeBench/submissions 4d04b02, with "
        "lcb_runner's model list, TZ set) and leaderboardLib.tsx (livecodebench.github.io "
        "f186ab5, transpiled by npm typescript 4.9.5, run by node) on fixtures/score/runs.json",
        leaderboard_keys,
        leaderboard_produce,
        leaderboard_entry,
        render=leaderboard_json,
        suffix=JSON_SUFFIX,
        compare=SCORE_JSON,
        fixtures=FIXTURES,
        runs=(LEADERBOARD_ANSWERS,),
        provenance="leaderboard.provenance",
    ),
)
