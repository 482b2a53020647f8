"""`lcb-conformance score`: on the public O1-Mini submission over 2024-09-01..2025-02-01 it prints
lcb_runner's number and the leaderboard's, both as their goldens say, and why they differ; a
run on the wrong release names the missing problems; a claim outside the standard error exits 1;
bad input exits 2 naming what is wrong; a report that cannot be written exits 6 and leaves
nothing behind."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.reports import score
from lcb_conformance.suite import goldens, releases, score_cases
from lcb_conformance.suite.families import score as score_family
from lcb_conformance.suite.goldens import GoldenKey

pytestmark = pytest.mark.selftest

O1_MINI = score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json"
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
    assert "lcb_runner (compute_scores)             213   52.58" in out
    assert "leaderboard (mean of pass@1)            227   53.74" in out
    assert "leaderboard, as shown (toFixed 1)              53.7" in out
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


@pytest.mark.parametrize(("claim", "code"), [("53.7", 0), ("0.5258", 0), ("60", 1), ("45", 1)])
def test_a_claim_outside_the_standard_error_exits_1(capsys, claim, code):
    found, out, _ = run_score(capsys, O1_MINI, "--window", ":".join(WINDOW), "--claim", claim)
    assert found == code
    assert ("INCONSISTENT" in out) == (code == 1)


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
    assert "would not be on it" in out  # not 880 rows: the builder skips it


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
