"""`lcb-conformance score`: on the public O1-Mini submission over 2024-09-01..2025-02-01 it prints
lcb_runner's number and the leaderboard's, both as their goldens say, and why they differ; a
run on the wrong release names the missing problems; a claim holds only when it is a figure at
its own precision, over every problem of the window (issue 25); --published compares with the
site's own per-problem data and names the problems that differ; bad input and impossible
claims exit 2 naming what is wrong; a report that cannot be written exits 6 and leaves nothing
behind."""

from __future__ import annotations

import json
from collections import Counter
from fractions import Fraction

import pytest

import lcb_prompts.score
from lcb_conformance import releases
from lcb_conformance.reports import score, score_figures
from lcb_conformance.reports.page_style import escape
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


def score_report(tmp_path, capsys, *argv) -> tuple[int, dict]:
    """The command's exit code and its JSON report (--json FILE): the record the tests read."""
    target = tmp_path / "score-report.json"
    code = score.main([*map(str, argv), "--json", str(target)])
    capsys.readouterr()  # the console's view: test_the_console_shows_the_reports_figures
    return code, json.loads(target.read_text("utf-8"))


def o1_mini_dates() -> dict[str, str]:
    return {r["question_id"]: r["contest_date"][:10] for r in json.loads(O1_MINI.read_text())}


def test_a_folder_given_as_the_run_is_said_to_be_a_folder(tmp_path, capsys):
    # tests the console's contract: what RUN is, and what score wants instead
    code, out, err = run_score(capsys, tmp_path, "--json", tmp_path / "r.json")
    assert code == score.EXIT_INPUT and not (tmp_path / "r.json").exists()
    [line] = (out + err).splitlines()
    assert line.startswith(f"score: {tmp_path}: a folder; pass the results file in it")
    assert "_eval_all.json" in line


def test_both_numbers_and_why_they_differ(tmp_path, capsys, o1_mini_report):
    lcb_runner, leaderboard = o1_mini_report
    code, report = score_report(tmp_path, capsys, O1_MINI, "--window", ":".join(WINDOW))
    assert code == report["exit_code"] == 0
    # the numbers, which the goldens (real compute_scores, builder and site) give
    assert (lcb_runner["count"], leaderboard["count"]) == (213, 227)
    assert round(lcb_runner["pass@k"]["1"]["all"] * 100, 2) == 52.58
    assert leaderboard["Pass@1"] == 53.7
    ours, board = report["lcb_runner"], report["leaderboard"]
    assert (ours["count"], ours["pass@1"]["all"]) == (213, 52.58)
    assert (board["count"], board["mean"], board["shown"]["Pass@1"]) == (227, 53.74, 53.7)
    # why: the leaderboard's window holds the 14 problems of the day before, none fewer
    dates = o1_mini_dates()
    only_board = set(board["question_ids"]) - set(ours["question_ids"])
    assert Counter(dates[q] for q in only_board) == {"2024-08-31": 14}
    assert set(ours["question_ids"]) <= set(board["question_ids"])
    assert "+ 1 day" in board["rule"]
    match = report["problems"]["matches"][0]  # the nearest release first
    assert (match["tag"], match["equal"], match["membership"]) == ("release_v5", True, "exact")


def test_the_console_shows_the_reports_figures(capsys):
    # tests the console's contract: the table and the headline show the report's own figures
    argv = [str(O1_MINI), "--window", ":".join(WINDOW), "--claim", "53.7"]
    report = score.build(score.parser().parse_args(argv))
    code, out, _ = run_score(capsys, *argv)
    assert code == report["exit_code"] == 0
    assert out.rstrip().splitlines()[-1] == score.headline(report)
    ours, board = report["lcb_runner"], report["leaderboard"]
    for name, figure, value in (
        (score_figures.COMPUTE_SCORES, ours, ours["pass@1"]["all"]),
        (score_figures.LEADERBOARD, board, board["mean"]),
    ):
        assert f"{score_figures.LABELS[name]:46}{figure['count']:>9}{value:>8.2f}" in out
    assert score.claim_sentence(report) in out


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


def test_a_run_on_the_wrong_release_names_the_missing_problems(tmp_path, capsys):
    code, report = score_report(tmp_path, capsys, O1_MINI, "--release", "release_v6")
    v6 = {r["question_id"] for r in releases.members("v6")}
    assert code == report["exit_code"] == 1
    (match,) = report["problems"]["matches"]
    assert (match["tag"], match["equal"], match["membership"]) == ("release_v6", False, "exact")
    assert match["missing"] == sorted(v6 - set(o1_mini_dates())) and len(match["missing"]) == 175
    assert match["extra"] == []


def claim_on_o1_mini(capsys, claim: str, *argv) -> tuple[int, str, str]:
    return run_score(capsys, O1_MINI, "--window", ":".join(WINDOW), f"--claim={claim}", *argv)


def claim_report(tmp_path, capsys, claim: str) -> tuple[int, dict]:
    return score_report(tmp_path, capsys, O1_MINI, "--window", ":".join(WINDOW), f"--claim={claim}")


def test_a_claim_is_the_leaderboards_computation_on_this_file(tmp_path, capsys, o1_mini_report):
    _, leaderboard = o1_mini_report
    assert leaderboard["Pass@1"] == 53.7  # the site's code on this file (the golden)
    code, report = claim_report(tmp_path, capsys, "53.7")
    assert code == report["exit_code"] == 0
    claim = report["claim"]
    assert claim["is"] == claim["holds_with"] == [score_figures.LEADERBOARD] and claim["consistent"]
    assert report["leaderboard"]["mean"] == 53.74


def test_a_claim_is_compute_scores(tmp_path, capsys, o1_mini_report):
    lcb_runner, _ = o1_mini_report
    assert round(lcb_runner["pass@k"]["1"]["all"] * 100, 1) == 52.6  # the golden
    for given in ("52.6", "0.5258"):  # a percent; a fraction, as lcb_runner writes it
        code, report = claim_report(tmp_path, capsys, given)
        claim = report["claim"]
        assert code == report["exit_code"] == 0
        assert claim["is"] == claim["holds_with"] == [score_figures.COMPUTE_SCORES]
        assert claim["read_as_fraction"] == (given == "0.5258")
    assert claim["claimed_percent"] == 52.58


# Within one standard error (±3.4) of a figure, yet no figure: 55.0, 49.2 and 56.9 (the issue's),
# 53.5 (not 53.74 at one decimal), 53.70 (finer than the site's 53.7: the mean is 53.74).
@pytest.mark.parametrize("claim", ["55.0", "49.2", "56.9", "53.5", "53.70"])
def test_a_claim_that_is_no_figure_exits_1(tmp_path, capsys, claim):
    code, report = claim_report(tmp_path, capsys, claim)
    assert code == report["exit_code"] == 1
    assert report["claim"]["is"] == [] and not report["claim"]["consistent"]
    assert report["failures"] == [score.claim_sentence(report)]


@pytest.mark.parametrize("claim", ["-5", "150", "101%", "nan", "inf", "fifty", "0.5", "1.0"])
def test_an_impossible_or_vague_claim_is_refused(capsys, claim):
    # tests the console's contract: an argument error names the option and the value
    with pytest.raises(SystemExit) as stopped:
        claim_on_o1_mini(capsys, claim)
    assert stopped.value.code == 2
    assert f"--claim: {claim!r}" in capsys.readouterr().err


# An integer is whole percent points, the figure rounded to them (exactly, not in floats):
# compute_scores' 52.58 is 53, the leaderboard's 53.74 is 54; 0 and 1 are percents too.
@pytest.mark.parametrize(
    ("claim", "figures"),
    [("53", [score_figures.COMPUTE_SCORES]), ("54", [score_figures.LEADERBOARD]), ("52", []),
     ("0", []), ("1", []), ("53%", [score_figures.COMPUTE_SCORES])],
)  # fmt: skip
def test_an_integer_claim_is_whole_percent_points_said_so(tmp_path, capsys, claim, figures):
    code, report = claim_report(tmp_path, capsys, claim)
    assert code == report["exit_code"] == (0 if figures else 1)
    read = report["claim"]
    assert read["is"] == figures and not read["read_as_fraction"] and read["precision"] == 1
    assert read["claimed_percent"] == int(claim.removesuffix("%"))
    assert read["read_as"].startswith(f"a whole percent: {claim.removesuffix('%')}%")


def test_a_claim_is_compared_as_a_decimal_at_its_own_precision(tmp_path, capsys, o1_mini_report):
    """compute_scores' figure is a mean of c/n: its exact value is upstream's figure, and a
    claim of its first 45 digits is it (compared in floats, it was INCONSISTENT: exit 1);
    one unit off in the 45th, not. The report's "exact" is that value."""
    lcb_runner, _ = o1_mini_report
    rows = json.loads(O1_MINI.read_text())
    kept = lcb_prompts.score.lcb_runner_rows(rows, *WINDOW)
    exact = sum(Fraction(r["graded_list"].count(True), len(r["graded_list"])) for r in kept)
    exact = exact * 100 / len(kept)
    assert abs(float(exact) - lcb_runner["pass@k"]["1"]["all"] * 100) < 1e-9  # the golden's
    digits = int(exact * 10**43)  # its first 45 digits (2 before the point), cut
    digits += exact * 10**43 - digits >= Fraction(1, 2)  # and rounded half up
    for last, holds in ((0, True), (1, False)):
        given = f"{digits + last}"
        given = f"{given[:-43]}.{given[-43:]}"
        assert len(given.replace(".", "")) == 45
        code, report = claim_report(tmp_path, capsys, given)
        assert report["claim"]["consistent"] is holds and code == (0 if holds else 1), given
        assert report["claim"]["is"] == ([score_figures.COMPUTE_SCORES] if holds else [])
    [figure] = [f for f in report["figures"] if f["name"] == score_figures.COMPUTE_SCORES]
    assert Fraction(figure["exact"]) == exact


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
    window = ("--window", ":".join(WINDOW))
    code, report = score_report(tmp_path, capsys, run, *window, "--claim", claim)
    figure = figure_named(report, score_figures.COMPUTE_SCORES)
    assert code == report["exit_code"] == 1
    assert report["claim"]["is"] == [score_figures.COMPUTE_SCORES]
    assert report["claim"]["holds_with"] == []
    assert (figure["count"], figure["expected"]) == (counted, lcb_runner["count"])
    assert figure["missing"] == sorted(dropped)
    # said so, the claim holds on what the run has
    code, report = score_report(tmp_path, capsys, run, *window, "--claim", claim, "--allow-missing")
    assert code == report["exit_code"] == 0
    assert report["allow_missing"]
    assert report["claim"]["holds_with"] == [score_figures.COMPUTE_SCORES]
    assert figure_named(report, score_figures.COMPUTE_SCORES)["missing"] == sorted(dropped)


def figure_named(report: dict, name: str) -> dict:
    (figure,) = [f for f in report["figures"] if f["name"] == name]
    return figure


def test_a_named_window_the_run_does_not_cover_exits_1_without_a_claim(tmp_path, capsys):
    run, dropped = without_failing_problems(tmp_path, 1)
    code, report = score_report(tmp_path, capsys, run, "--window", ":".join(WINDOW))
    assert code == report["exit_code"] == 1 and "claim" not in report
    for name in (score_figures.COMPUTE_SCORES, score_figures.LEADERBOARD):
        assert figure_named(report, name)["missing"] == dropped
    assert len(report["failures"]) == 2  # one per figure lacking the problem


def site_shows(window=WINDOW) -> dict:
    """What the site's own code shows on its published data (fixtures/score/build.py)."""
    published = json.loads(SOURCES.read_text())[PUBLISHED.name]
    return published["site_shows"][score_cases.window_id(*window)]


def test_published_shows_the_sites_figure_and_the_problems_that_differ(tmp_path, capsys):
    shown = site_shows()[O1_MINI_MODEL]
    assert shown["Pass@1"] == 52.9  # the issue's: what the site published for O1-Mini
    code, report = score_report(
        tmp_path, capsys, O1_MINI, "--window", ":".join(WINDOW), "--published", PUBLISHED,
        "--model", O1_MINI_MODEL, "--claim", "52.9",
    )  # fmt: skip
    published = report["published"]
    assert published["shown"] == shown
    assert (published["count"], published["mean"]) == (227, 52.86)
    # the site's records against the file, problem by problem (the issue names two)
    records = json.loads(PUBLISHED.read_text())["performances"]
    ours = {r["question_id"]: r["pass@1"] * 100 for r in json.loads(O1_MINI.read_text())}
    differing = sorted(
        r["question_id"]
        for r in records
        if r["model"] == O1_MINI_MODEL and r["pass@1"] != ours[r["question_id"]]
    )
    assert {"abc374_b", "arc185_e"} <= set(differing)
    found = {d["question_id"]: d for d in published["differences"]}
    assert sorted(found) == differing
    assert all(found[qid]["what"].startswith("pass@1 ") for qid in differing)
    assert published["differing_in_window"] == [q for q in differing if found[q]["in_window"]]
    # 52.9 is what was published, not what this file gives: the file is not the published run
    assert code == report["exit_code"] == 1
    assert report["claim"]["is"] == report["claim"]["holds_with"] == [score.PUBLISHED]
    assert len(report["failures"]) == 1 and O1_MINI_MODEL in report["failures"][0]


@pytest.mark.parametrize("window", score_cases.LEADERBOARD_WINDOWS)
@pytest.mark.parametrize("model", [O1_MINI_MODEL, "O1-Preview-2024-09-12 (N=1)"])
def test_published_columns_are_the_sites(tmp_path, capsys, window, model):
    run_score(
        capsys, O1_MINI, "--window", ":".join(window), "--published", PUBLISHED,
        "--model", model, "--json", tmp_path / "r.json",
    )  # fmt: skip
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["published"]["shown"] == site_shows(window)[model]


def test_published_on_another_model_exits_1(tmp_path, capsys):
    model = "O1-Preview-2024-09-12 (N=1)"
    argv = (O1_MINI, "--published", PUBLISHED, "--model", model)
    code, report = score_report(tmp_path, capsys, *argv)
    assert code == report["exit_code"] == 1
    assert report["published"]["model"] == model
    assert report["published"]["differing_in_window"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--model", "GPT-2"], "has no records of model 'GPT-2'"),
        ([], "holds 2 models and none is the run's folder"),
        (["--model", O1_MINI_MODEL, "--window", "2024-09-15:2025-02-01"], "is no date mark"),
    ],
)
def test_published_refuses_what_it_cannot_compare(capsys, argv, message):
    # tests the console's contract: an input error is one line naming what is wrong
    code, _, err = run_score(capsys, O1_MINI, "--published", PUBLISHED, *argv)
    assert code == 2 and message in err


def test_release_narrowing_is_said(tmp_path, capsys):
    code, report = score_report(tmp_path, capsys, O1_MINI, "--release", "release_v4")
    v4 = {r["question_id"] for r in releases.members("release_v4")}
    assert code == report["exit_code"] == 1  # the run is not release_v4
    assert report["narrowed_to"] == "release_v4"
    assert set(report["lcb_runner"]["question_ids"]) == v4 & set(o1_mini_dates())
    assert len(o1_mini_dates()) == 880 and len(report["notes"]) == 1  # the narrowing, said


def test_a_window_with_no_problem_is_refused(capsys):
    # tests the console's contract: an input error is one line naming what is wrong
    code, _, err = run_score(capsys, O1_MINI, "--window", "2026-01-01:2026-12-31", "--claim", "50")
    assert code == 2 and "nothing to score" in err


def test_the_listing_rule_is_the_builders_and_the_sites(tmp_path, capsys):
    rows = [
        row(r["question_id"], [True], contest_date=r["contest_date"], difficulty=r["difficulty"])
        for r in releases.members("release_v6")
    ]
    code, report = score_report(tmp_path, capsys, write_run(tmp_path, rows))
    assert code == report["exit_code"] == 0
    assert report["listed"] is False  # the builder keeps only files of exactly 880 rows
    listing = report["listing"]
    assert listing["rule"] == score_figures.LISTING_RULE
    assert listing["source"] == {"repository": "LiveCodeBench/submissions", "commit": "4d04b02"}
    assert (listing["builder_rows"], listing["run_rows"]) == (
        lcb_prompts.score.LEADERBOARD_ROWS,
        1055,
    )
    assert listing["listed_by_builder"] is False
    assert listing["edition"] == {"name": "v6", "release": "release_v6", "problems": len(rows)}
    assert [e["release"] for e in listing["editions"]] == ["release_v5", "release_v6"]


SELF_REPAIR_RUN = (
    score_cases.SCORE_FIXTURES_DIR.parent
    / "audit/lcb_runner/self-repair/output/GPT-4O-2024-08-06"
    / "Scenario.selfrepair_1_0.2_eval_all.json"
)


def test_a_self_repair_run_is_listed_by_no_published_builder(tmp_path, capsys):
    _, report = score_report(tmp_path, capsys, SELF_REPAIR_RUN)
    listing = report["listing"]
    assert listing["rule"] == score_figures.SELF_REPAIR_RULE
    assert listing["scenario"] == report["scenario"] == "selfrepair"
    assert listing["listed_by_builder"] is False and listing["edition"] is None
    # tests the console's contract: the rule in words
    score.main([str(SELF_REPAIR_RUN)])
    assert "no published builder lists self-repair runs" in capsys.readouterr().out


def test_the_console_says_the_listing_and_the_flags_in_words(tmp_path, capsys):
    # tests the console's contract: the listing and each flag, rendered from the report's data
    without_pass_1 = {k: v for k, v in row("abc370_c", [True]).items() if k != "pass@1"}
    rows = [row("abc370_a", [True, False]), without_pass_1]
    run = write_run(tmp_path, rows)
    report = score.build(score.parser().parse_args([run]))
    code, out, _ = run_score(capsys, run)
    assert code == report["exit_code"] == 0
    assert [flag["kind"] for flag in report["flags"]] == ["pass_at_1_derived"]
    assert "no leaderboard edition lists a run of 2 problems: the published builder " in out
    assert "(LiveCodeBench/submissions 4d04b02) keeps only files of exactly 880 rows" in out
    assert "editions list runs of one release each (v5: 880, v6: 1,055)" in out
    assert "  - 1 rows lack pass@1: taken as graded_list.count(True)/len" in out
    assert "  - problems with different numbers of samples: 1 with n=1, 1 with n=2" in out
    assert "  - raw outputs not recorded: cut answers, unclosed <think> and missing" in out


def test_a_file_that_disagrees_with_itself_exits_1(tmp_path, capsys):
    rows = json.loads(O1_MINI.read_text())
    rows[0]["pass@1"] = 1.0 - rows[0]["pass@1"]
    code, report = score_report(tmp_path, capsys, write_run(tmp_path, rows))
    assert code == report["exit_code"] == 1
    assert report["inconsistent"] == [rows[0]["question_id"]]
    assert len(report["failures"]) == 1


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


def test_no_generations_is_flagged_mixed_n_no_code_and_cut_outputs_linted(tmp_path, capsys):
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
    code, report = score_report(tmp_path, capsys, write_run(tmp_path, rows))
    # a problem without generations is named and fails the run (compute_scores counts it passed)
    assert code == report["exit_code"] == 1
    (failure,) = report["failures"]
    assert failure.startswith("1 problems have no generations (abc370_b)")
    assert report["flags"] == [
        {"kind": "without_generations", "count": 1, "question_ids": ["abc370_b"]},
    ]
    lint = {finding["kind"]: finding for finding in report["lint"]}
    assert lint["mixed_n"]["problems_by_n"] == [{"n": n, "problems": 1} for n in (1, 2)]
    assert lint["no_code"]["samples"] == ["abc370_a#1"]
    assert lint["cut_in_code_block"]["samples"] == ["abc370_a#1"]
    assert report["listed"] is False and report["listing"] == score.listing(3)  # not listed
    assert report["listing"]["edition"] is None


def test_the_samples_faults_are_said_once_by_the_lint_in_every_view(tmp_path, capsys):
    # mixed n, no code and cut answers are the lint's findings, no flag beside them; the page
    # shows the lint as its table only, and the flags' heading points to the lint
    rows = [
        row("abc370_a", [True, False], output_list=["```python\nx", "y"], code_list=["", "y"]),
        {k: v for k, v in row("abc370_c", [True]).items() if k != "pass@1"},
    ]
    run = write_run(tmp_path, rows)
    page = tmp_path / "score.html"
    code, report = score_report(tmp_path, capsys, run, "--html", page)
    assert code == report["exit_code"] == 0
    assert report["schema"] == "lcb-conformance-score/4"
    assert [flag["kind"] for flag in report["flags"]] == ["pass_at_1_derived"]
    said = [f["words"] for f in report["lint"] if f["kind"] in ("mixed_n", "no_code",
            "cut_in_code_block")]  # fmt: skip
    assert len(said) == 3 and all(said)
    _, out, _ = run_score(capsys, run)
    html = page.read_text("utf-8")
    for words in said:
        assert out.count(words) == 1
        assert html.count(escape(words)) == 1
    assert "flags (the rows'; mixed n, no code and cut answers are the lint's, below):" in out
    assert html.count("lint (the run's own faults") == 0 and 'id="lint"' in html


def test_an_output_that_is_no_string_is_no_output_to_the_lint(tmp_path, capsys):
    rows = [row("abc370_a", [True, False], output_list=["```python\nx", None],
                code_list=["x", None])]  # fmt: skip
    code, report = score_report(tmp_path, capsys, write_run(tmp_path, rows))
    assert code == report["exit_code"] == 0
    lint = {finding["kind"]: finding for finding in report["lint"]}
    assert lint["cut_in_code_block"]["samples"] == ["abc370_a#0"]


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
    # tests the console's contract: an input error is one line naming file, row and field
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
    # tests the console's contract: a report not written is said on stderr
    blocked = tmp_path / "file"
    blocked.write_text("")
    target = blocked / "report.json"  # a file where a folder should be
    code, out, err = run_score(capsys, O1_MINI, "--json", target, "--html", tmp_path / "r.html")
    assert code == 6
    assert "JSON report not written" in err and not target.exists()
    assert (tmp_path / "r.html").read_text().startswith("<!DOCTYPE html>")
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".partial")]
