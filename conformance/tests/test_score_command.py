"""`lcb-conformance score`: on the public O1-Mini submission over 2024-09-01..2025-02-01 it prints
lcb_runner's number and the leaderboard's, both as their goldens say, and why they differ; a
run on the wrong release names the missing problems; a claim holds only when it is a figure at
its own precision, over every problem of the window (issue 25); --published compares with the
site's own per-problem data and names the problems that differ; bad input and impossible
claims exit 2 naming what is wrong; a report that cannot be written exits 6 and leaves nothing
behind."""

from __future__ import annotations

import json

import pytest

import lcb_prompts.score
from lcb_conformance import releases
from lcb_conformance.reports import score
from lcb_conformance.suite import goldens, score_cases
from lcb_conformance.suite.families import score as score_family
from lcb_conformance.suite.goldens import GoldenKey

pytestmark = pytest.mark.selftest

O1_MINI = score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json"
PUBLISHED = score_cases.SCORE_FIXTURES_DIR / "published-2025-01-15.json"
SOURCES = score_cases.SCORE_FIXTURES_DIR / "sources.json"
O1_MINI_MODEL = "O1-Mini-2024-09-12 (N=1)"
WINDOW = ("2024-09-01", "2025-02-01")


def golden(family: str, group: str, case: str) -> dict:
    return json.loads(goldens.read(GoldenKey(family, group, case)))


@pytest.fixture(scope="module")
def o1_mini_report():
    lcb_runner = golden(score_family.LCB_RUNNER, "o1_mini", "_".join(WINDOW))
    leaderboard = golden(score_family.LEADERBOARD, "UTC", "o1_mini__" + "_".join(WINDOW))
    return lcb_runner, leaderboard


def run_score(capsys, *argv: str) -> tuple[int, str, str]:
    code = score.main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_both_numbers_and_why_they_differ(capsys, o1_mini_report):
    lcb_runner, leaderboard = o1_mini_report
    code, out, _ = run_score(capsys, O1_MINI, "--window", ":".join(WINDOW))
    assert code == 0
    # the numbers, which the goldens (real compute_scores, builder and site) give
    assert (lcb_runner["count"], leaderboard["count"]) == (213, 227)
    assert round(lcb_runner["pass@k"]["1"]["all"] * 100, 2) == 52.58
    assert leaderboard["Pass@1"] == 53.7
    assert "lcb_runner's compute_scores on this file            213   52.58" in out
    assert "the leaderboard's computation on this file          227   53.74" in out
    assert "  as the site shows it (toFixed 1)                         53.7" in out
    assert "14 problems dated 2024-08-31 are in the leaderboard's window" in out
    assert "adds one day to every contest date" in out
    assert "= release_v5 (exact)" in out


def test_the_report_agrees_with_the_goldens(tmp_path, capsys, o1_mini_report):
    lcb_runner, leaderboard = o1_mini_report
    code, _, _ = run_score(
        capsys, O1_MINI, "--window", ":".join(WINDOW), "--json", tmp_path / "r.json"
    )
    report = json.loads((tmp_path / "r.json").read_text())
    assert code == 0 and report["schema"] == score.SCHEMA
    assert report["leaderboard"]["question_ids"] == leaderboard["question_ids"]
    assert report["leaderboard"]["shown"]["Pass@1"] == leaderboard["Pass@1"]
    assert report["lcb_runner"]["count"] == lcb_runner["count"]
    assert report["problems"]["sha256_equals"] == ["release_v5", "v1_v5"]


def test_a_run_on_the_wrong_release_names_the_missing_problems(capsys):
    code, out, _ = run_score(capsys, O1_MINI, "--release", "release_v6")
    missing = sorted(r["question_id"] for r in releases.members("v6"))
    assert code == 1
    assert "not release_v6 (exact): 175 missing, 0 extra" in out
    assert f"missing: {', '.join(missing[:3])}" in out


def claim_on_o1_mini(capsys, claim: str, *argv) -> tuple[int, str, str]:
    return run_score(capsys, O1_MINI, "--window", ":".join(WINDOW), f"--claim={claim}", *argv)


def test_a_claim_is_the_leaderboards_computation_on_this_file(capsys, o1_mini_report):
    _, leaderboard = o1_mini_report
    assert leaderboard["Pass@1"] == 53.7  # the site's code on this file (the golden)
    code, out, _ = claim_on_o1_mini(capsys, "53.7")
    assert code == 0
    assert "claim 53.7: is the leaderboard's computation on this file (53.74" in out


def test_a_claim_is_compute_scores(capsys, o1_mini_report):
    lcb_runner, _ = o1_mini_report
    assert round(lcb_runner["pass@k"]["1"]["all"] * 100, 1) == 52.6  # the golden
    code, out, _ = claim_on_o1_mini(capsys, "52.6")
    assert code == 0
    assert "claim 52.6: is lcb_runner's compute_scores on this file (52.58" in out
    code, out, _ = claim_on_o1_mini(capsys, "0.5258")  # a fraction, as lcb_runner writes it
    assert code == 0 and "(a fraction: 52.58%)" in out


# Within one standard error (±3.4) of a figure, yet no figure: 55.0, 49.2 and 56.9 (the issue's),
# 53.5 (not 53.74 at one decimal), 53.70 (finer than the site's 53.7: the mean is 53.74).
@pytest.mark.parametrize("claim", ["55.0", "49.2", "56.9", "53.5", "53.70"])
def test_a_claim_that_is_no_figure_exits_1(capsys, claim):
    code, out, _ = claim_on_o1_mini(capsys, claim)
    assert code == 1
    assert f"claim {claim}: INCONSISTENT: no figure is {claim} at its precision" in out


@pytest.mark.parametrize("claim", ["-5", "150", "101%", "nan", "inf", "fifty", "0.5", "1"])
def test_an_impossible_or_vague_claim_is_refused(capsys, claim):
    with pytest.raises(SystemExit) as stopped:
        claim_on_o1_mini(capsys, claim)
    assert stopped.value.code == 2
    assert f"--claim: {claim!r}" in capsys.readouterr().err


def without_failing_problems(tmp_path, count: int) -> tuple[str, list[str]]:
    """The O1-Mini file without its first ``count`` failing problems of compute_scores'
    window: a run that did not finish them."""
    rows = json.loads(O1_MINI.read_text())
    in_window = {r["question_id"] for r in lcb_prompts.score.lcb_runner_rows(rows, *WINDOW)}
    failing = [r["question_id"] for r in rows if r["question_id"] in in_window and not r["pass@1"]]
    dropped = failing[:count]
    return write_run(tmp_path, [r for r in rows if r["question_id"] not in dropped]), dropped


def test_a_claim_on_a_run_lacking_problems_of_the_window_exits_1(tmp_path, capsys, o1_mini_report):
    lcb_runner, _ = o1_mini_report
    run, dropped = without_failing_problems(tmp_path, 20)
    counted = lcb_runner["count"] - len(dropped)
    passed = round(lcb_runner["pass@k"]["1"]["all"] * lcb_runner["count"])
    claim = f"{100 * passed / counted:.1f}"  # what compute_scores gives the rest
    code, out, _ = run_score(capsys, run, "--window", ":".join(WINDOW), "--claim", claim)
    headline = out.strip().splitlines()[-1]
    assert code == 1
    assert headline.startswith("FAILED: compute_scores")
    assert f"on {counted} of {lcb_runner['count']} problems" in headline
    assert f"the run lacks {len(dropped)} ({', '.join(sorted(dropped)[:3])}" in headline
    # said so, the claim holds on what the run has
    code, out, _ = run_score(
        capsys, run, "--window", ":".join(WINDOW), "--claim", claim, "--allow-missing"
    )
    assert code == 0
    assert out.strip().splitlines()[-1].startswith("OK (--allow-missing): claim")
    assert f"on {counted} of {lcb_runner['count']} problems" in out


def test_a_named_window_the_run_does_not_cover_exits_1_without_a_claim(tmp_path, capsys):
    run, dropped = without_failing_problems(tmp_path, 1)
    code, out, _ = run_score(capsys, run, "--window", ":".join(WINDOW))
    assert code == 1 and f"the run lacks 1 ({dropped[0]})" in out


def site_shows(window=WINDOW) -> dict:
    """What the site's own code shows on its published data (fixtures/score/build.py)."""
    published = json.loads(SOURCES.read_text())[PUBLISHED.name]
    return published["site_shows"][score_cases.window_id(*window)]


def test_published_shows_the_sites_figure_and_the_problems_that_differ(tmp_path, capsys):
    shown = site_shows()[O1_MINI_MODEL]
    assert shown["Pass@1"] == 52.9  # the issue's: what the site published for O1-Mini
    code, out, _ = run_score(
        capsys, O1_MINI, "--window", ":".join(WINDOW), "--published", PUBLISHED,
        "--model", O1_MINI_MODEL, "--claim", "52.9", "--json", tmp_path / "r.json",
    )  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["published"]["shown"] == shown
    assert "the leaderboard site's published data               227   52.86" in out
    assert "  as the site shows it (toFixed 1)                         52.9    90.9" in out
    # the site's records against the file, problem by problem (the issue names two)
    records = json.loads(PUBLISHED.read_text())["performances"]
    ours = {r["question_id"]: r["pass@1"] * 100 for r in json.loads(O1_MINI.read_text())}
    differing = sorted(
        r["question_id"]
        for r in records
        if r["model"] == O1_MINI_MODEL and r["pass@1"] != ours[r["question_id"]]
    )
    assert {"abc374_b", "arc185_e"} <= set(differing)
    assert f"{len(differing)} problems differ between the site's data and this file" in out
    for qid in differing:
        assert f"    {qid}: pass@1" in out
    # 52.9 is what was published, not what this file gives: the file is not the published run
    assert code == 1
    assert "claim 52.9: is the leaderboard site's published data (52.86" in out
    assert "the file is not what the site published for O1-Mini" in out.splitlines()[-1]


@pytest.mark.parametrize("window", score_cases.LEADERBOARD_WINDOWS)
@pytest.mark.parametrize("model", [O1_MINI_MODEL, "O1-Preview-2024-09-12 (N=1)"])
def test_published_columns_are_the_sites(tmp_path, capsys, window, model):
    run_score(
        capsys, O1_MINI, "--window", ":".join(window), "--published", PUBLISHED,
        "--model", model, "--json", tmp_path / "r.json",
    )  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["published"]["shown"] == site_shows(window)[model]


def test_published_on_another_model_exits_1(capsys):
    code, out, _ = run_score(
        capsys, O1_MINI, "--published", PUBLISHED, "--model", "O1-Preview-2024-09-12 (N=1)"
    )
    assert code == 1
    assert "the file is not what the site published for O1-Preview" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "GPT-2"], "has no records of model 'GPT-2'"),
        ([], "holds 2 models and none is the run's folder"),
        (["--model", O1_MINI_MODEL, "--window", "2024-09-15:2025-02-01"], "is no date mark"),
    ],
)
def test_published_refuses_what_it_cannot_compare(capsys, argv, message):
    code, _, err = run_score(capsys, O1_MINI, "--published", PUBLISHED, *argv)
    assert code == 2 and message in err


def test_release_narrowing_is_said(capsys):
    code, out, _ = run_score(capsys, O1_MINI, "--release", "release_v4")
    v4 = len(releases.members("release_v4"))
    assert code == 1  # the run is not release_v4
    assert f"the figures count the run's {v4} problems of release_v4" in out
    assert "compute_scores on the whole file would count 880" in out


def test_a_window_with_no_problem_is_refused(capsys):
    code, _, err = run_score(capsys, O1_MINI, "--window", "2026-01-01:2026-12-31", "--claim", "50")
    assert code == 2 and "nothing to score" in err


def test_the_listing_rule_is_the_builders_and_the_sites(tmp_path, capsys):
    rows = [
        row(r["question_id"], [True], contest_date=r["contest_date"], difficulty=r["difficulty"])
        for r in releases.members("release_v6")
    ]
    code, out, _ = run_score(capsys, write_run(tmp_path, rows))
    assert code == 0
    assert "keeps only files of exactly 880 rows" in out
    assert "the site's v6 leaderboard lists runs of 1,055 problems" in out
    assert "would not be on it" not in out


def test_a_file_that_disagrees_with_itself_exits_1(tmp_path, capsys):
    rows = json.loads(O1_MINI.read_text())
    rows[0]["pass@1"] = 1.0 - rows[0]["pass@1"]
    code, out, _ = run_score(capsys, write_run(tmp_path, rows))
    assert code == 1
    assert "the file disagrees with itself: 1 rows' pass@1" in out.splitlines()[-1]
    assert f"on 1 rows ({rows[0]['question_id']})" in out


def write_run(tmp_path, rows) -> str:
    path = tmp_path / "Scenario.codegeneration_10_0.2_eval_all.json"
    path.write_text(json.dumps(rows))
    return str(path)


def row(qid, graded, **fields):
    base = {
        "question_id": qid,
        "contest_date": "2024-09-07T00:00:00",
        "difficulty": "easy",
        "platform": "atcoder",
        "graded_list": graded,
        "pass@1": graded.count(True) / len(graded) if graded else 0.0,
    }
    return base | fields


def test_flags_mixed_n_no_generations_no_code_and_cut_outputs(tmp_path, capsys):
    rows = [
        row(
            "abc370_a",
            [True, False],
            output_list=["```python\nprint(1)\n```", "```python\nx"],
            code_list=["print(1)", ""],
        ),
        row("abc370_b", [], output_list=[], code_list=[]),
        row("abc370_c", [True], output_list=["```python\nprint(2)\n```"], code_list=["print(2)"]),
    ]
    code, out, _ = run_score(capsys, write_run(tmp_path, rows))
    assert code == 0
    assert "mixed n (n=0: 1, n=1: 1, n=2: 1)" in out
    assert "1 problems without generations (abc370_b)" in out
    assert "1 outputs with no code extracted" in out
    assert "1 outputs look cut off" in out
    assert "no leaderboard edition lists a run of 3 problems" in out  # the builder skips it


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        (
            [{"question_id": "x", "contest_date": "2024-01-01T00:00:00", "difficulty": "easy"}],
            "row 0 (x) lacks graded_list",
        ),
        ([row("x", [True], difficulty="trivial")], "difficulty 'trivial'"),
        ([row("x", [True], contest_date="yesterday")], "contest_date 'yesterday' is not ISO"),
        ([row("x", [True]), row("x", [False])], "question_id x appears twice"),
        ([], "no rows"),
        ({"not": "an array"}, "array"),
    ],
)
def test_unusable_input_exits_2_naming_it(tmp_path, capsys, rows, message):
    code, _, err = run_score(capsys, write_run(tmp_path, rows))
    assert code == 2
    assert message in err


@pytest.mark.parametrize(
    "argv",
    [
        ["--window", "2025-02-01:2024-09-01"],
        ["--release", "release_v7"],
        ["--builder-tz", "Mars/X"],
    ],
)
def test_bad_options_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as stopped:
        score.main([str(O1_MINI), *argv])
    assert stopped.value.code == 2


def test_a_report_not_written_exits_6_and_leaves_nothing(tmp_path, capsys):
    blocked = tmp_path / "file"
    blocked.write_text("")
    target = blocked / "report.json"  # a file where a folder should be
    code, out, err = run_score(capsys, O1_MINI, "--json", target, "--html", tmp_path / "r.html")
    assert code == 6
    assert "JSON report not written" in err and not target.exists()
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
