"""A run's problem set as it is (issue 34): a subset of a release is that release's subset
("100 of release_v1's 400 problems"), the nearest release chosen by containment first, and a
run whose problems are in no release, or whose lists are empty or uneven, is named and never
exit 0. Every run here is derived, in tmp_path, from the public O1-Mini submission
(fixtures/score/o1-mini-2024-09-12.json: LiveCodeBench/submissions); the tests read the
command's record (its exit code and --json report)."""

from __future__ import annotations

import json

import pytest

from lcb_conformance import releases
from lcb_conformance.common import exit_codes
from lcb_conformance.reports import score
from lcb_conformance.suite import score_cases
from lcb_prompts import score as scoring

# string and set work on the run's rows, and OpenAIChat's extraction: no tokenizer touches them
pytestmark = [pytest.mark.selftest, pytest.mark.transformers_independent]

O1_MINI = score_cases.SCORE_FIXTURES_DIR / "o1-mini-2024-09-12.json"
RUN_NAME = "Scenario.codegeneration_1_0.2_eval_all.json"
WINDOW = ("2024-09-01", "2025-02-01")


def o1_mini() -> list[dict]:
    return json.loads(O1_MINI.read_text("utf-8"))


def of_release_v1(count: int) -> list[dict]:
    """The submission's first ``count`` rows of release_v1's problems (test.jsonl)."""
    v1 = {row["question_id"] for row in releases.members("release_v1")}
    return [row for row in o1_mini() if row["question_id"] in v1][:count]


def write(tmp_path, rows) -> str:
    path = tmp_path / RUN_NAME
    path.write_text(json.dumps(rows), "utf-8")
    return str(path)


def score_record(tmp_path, capsys, *argv: str) -> tuple[int, dict, str]:
    """The command's exit code, its --json record and its console text."""
    target = tmp_path / "score.json"
    code = score.main([*argv, "--json", str(target)])
    out = capsys.readouterr().out
    return code, json.loads(target.read_text("utf-8")), out


# --- the relation, in releases.py ---


def test_a_subset_of_release_v1_is_release_v1s_subset():
    ids = [row["question_id"] for row in of_release_v1(100)]
    nearest = releases.closest(ids)
    assert [m.tag for m in nearest] == ["release_v1", "v1"]  # the same 400 problems
    match = nearest[0]
    assert match.relation == releases.Relation.SUBSET
    assert (match.shared, match.size, len(match.missing), match.extra) == (100, 400, 300, ())
    assert match.words() == "100 of release_v1's 400 problems (a subset)"
    assert releases.nearest(ids) == "release_v1"


def test_containment_beats_a_small_release_sharing_nothing():
    """Fewest missing-plus-extra would pick a 101-problem tag holding none of these 100; the
    400-problem release holding every one is the run's."""
    ids = [row["question_id"] for row in of_release_v1(100)]
    smallest = min(releases.tag_files(), key=lambda tag: len(releases.members(tag)))
    assert not releases.compare(ids, smallest).shared
    assert releases.closest(ids)[0].tag == "release_v1"


def test_one_problem_is_a_subset_of_the_smallest_release_holding_it():
    (row,) = o1_mini()[:1]
    match = releases.closest([row["question_id"]])[0]
    assert (match.tag, match.relation, match.shared) == ("release_v1", "subset", 1)


def test_ids_in_no_release_are_named_and_some_of_them_make_an_overlap():
    ids = [row["question_id"] for row in of_release_v1(90)]
    foreign = [f"cf_{n}" for n in range(10)]
    assert releases.foreign([*ids, *foreign]) == tuple(sorted(foreign))
    match = releases.closest([*ids, *foreign])[0]
    assert (match.tag, match.relation) == ("release_v1", releases.Relation.OVERLAP)
    assert match.words() == "90 of release_v1's 400 problems and 10 in no release (an overlap)"
    (none,) = releases.closest(foreign)
    assert none.relation == releases.Relation.IN_NO_RELEASE and releases.nearest(foreign) is None


# --- score on runs derived from the submission ---


def test_score_on_a_100_problem_subset_names_it_and_is_green(tmp_path, capsys):
    code, report, out = score_record(tmp_path, capsys, write(tmp_path, of_release_v1(100)))
    assert code == report["exit_code"] == exit_codes.OK and report["failures"] == []
    nearest = report["problems"]["matches"][0]
    assert (nearest["tag"], nearest["relation"], nearest["shared"]) == ("release_v1", "subset", 100)
    assert report["scope"]["release"] == "release_v1"
    assert report["lcb_runner"]["count"] == 100 and report["lcb_runner"]["expected"] == 400
    assert "100 of release_v1's 400 problems (a subset)" in score.headline(report)
    assert report["not_checked"] == ["statements", "outputs"]  # the trimmed file holds neither
    assert " 0 of " not in out


def test_the_submissions_first_440_rows_are_a_subset_of_release_v5(tmp_path, capsys):
    """They span test.jsonl..test5.jsonl: release_v5 is the smallest release holding them."""
    code, report, out = score_record(tmp_path, capsys, write(tmp_path, o1_mini()[:440]))
    assert code == exit_codes.OK
    nearest = report["problems"]["matches"][0]
    assert nearest["words"] == "440 of release_v5's 880 problems (a subset)"
    assert " 0 of 0 " not in out
    assert "<td>440 of release_v5&#x27;s 880 problems (a subset)</td>" in score.to_html(report)
    run = str(tmp_path / RUN_NAME)
    code, report, out = score_record(tmp_path, capsys, run, "--window", ":".join(WINDOW))
    ours = report["lcb_runner"]  # the window held to release_v5's problems, not release_v1's
    assert code == exit_codes.DIFFERS and ours["expected"] == 213 and ours["count"] > 0
    assert " 0 of 0 " not in out


def test_a_window_and_a_claim_work_on_a_subset(tmp_path, capsys):
    rows = of_release_v1(100)
    run = write(tmp_path, rows)
    window = "2023-05-01:2023-09-01"
    code, report, _ = score_record(tmp_path, capsys, run, "--window", window)
    kept = scoring.lcb_runner_rows(rows, "2023-05-01", "2023-09-01")
    v1 = scoring.lcb_runner_rows(releases.members("release_v1"), "2023-05-01", "2023-09-01")
    assert (report["lcb_runner"]["count"], report["lcb_runner"]["expected"]) == (len(kept), len(v1))
    assert code == exit_codes.DIFFERS  # the window named: the run lacks some of its problems
    assert f"the run lacks {len(v1) - len(kept)}" in report["failures"][0]
    value = report["lcb_runner"]["value"]
    code, report, _ = score_record(
        tmp_path, capsys, run, "--window", window, "--allow-missing", f"--claim={value:.1f}"
    )
    assert code == exit_codes.OK and report["claim"]["consistent"]


def test_a_subset_is_not_the_release_it_is_a_subset_of(tmp_path, capsys):
    run = write(tmp_path, of_release_v1(100))
    code, report, _ = score_record(tmp_path, capsys, run, "--release", "release_v1")
    assert code == exit_codes.DIFFERS
    assert report["failures"][0] == (
        "the run is not release_v1: it holds 100 of release_v1's 400 problems (a subset); "
        "300 missing, 0 extra"
    )


def test_a_one_problem_run_is_scored(tmp_path, capsys):
    code, report, out = score_record(tmp_path, capsys, write(tmp_path, o1_mini()[:1]))
    assert code == exit_codes.OK
    assert report["problems"]["matches"][0]["words"] == "1 of release_v1's 400 problems (a subset)"
    assert " 0 of " not in out


def test_problems_in_no_release_fail_and_never_read_0_of(tmp_path, capsys):
    rows = [row | {"question_id": f"cf_{row['question_id']}"} for row in o1_mini()[:157]]
    code, report, out = score_record(tmp_path, capsys, write(tmp_path, rows))
    assert code == report["exit_code"] == exit_codes.DIFFERS
    assert report["problems"]["matches"][0]["relation"] == "in_no_release"
    assert len(report["problems"]["in_no_release"]) == 157
    assert report["scope"]["release"] is None
    assert report["failures"] == [
        "none of the run's 157 problems is in any release: no figure here is a LiveCodeBench "
        "number"
    ]
    assert " 0 of " not in out and report["lcb_runner"]["count"] == 157


def test_some_foreign_ids_among_a_release_fail_named(tmp_path, capsys):
    rows = o1_mini()
    for row in rows[:3]:
        row["question_id"] = f"cf_{row['question_id']}"
    code, report, _ = score_record(tmp_path, capsys, write(tmp_path, rows))
    assert code == exit_codes.DIFFERS
    assert report["problems"]["in_no_release"] == sorted(r["question_id"] for r in rows[:3])
    assert report["failures"][0].startswith("3 of the run's 880 problems are in no release (cf_")


def _in_window(rows) -> list[dict]:
    return scoring.lcb_runner_rows(rows, *WINDOW)


def test_emptied_lists_are_named_and_fail(tmp_path, capsys):
    """20 in-window problems' output_list and code_list emptied, their verdicts kept."""
    rows = o1_mini()
    emptied = {row["question_id"] for row in _in_window(rows)[:20]}
    for row in rows:
        if row["question_id"] in emptied:
            row["output_list"], row["code_list"] = [], []
    run = write(tmp_path, rows)
    code, report, _ = score_record(tmp_path, capsys, run, "--window", ":".join(WINDOW))
    assert code == report["exit_code"] == exit_codes.DIFFERS
    assert report["uneven"] == sorted(emptied, key=[r["question_id"] for r in rows].index)
    (flag,) = [f for f in report["flags"] if f["kind"] == "lists_uneven"]
    assert flag["count"] == 20
    assert any("20 problems' output_list or code_list" in f for f in report["failures"])


def test_three_outputs_against_one_verdict_fail(tmp_path, capsys):
    rows = o1_mini()
    rows[0]["output_list"] = ["```python\nprint(1)\n```"] * 3
    rows[0]["code_list"] = ["print(1)"] * 3  # graded_list holds one verdict
    code, report, _ = score_record(tmp_path, capsys, write(tmp_path, rows))
    assert code == exit_codes.DIFFERS and report["uneven"] == [rows[0]["question_id"]]


def test_problems_without_generations_fail_named(tmp_path, capsys):
    rows = o1_mini()
    for row in rows[:2]:
        row["graded_list"], row["pass@1"] = [], 0.0
    code, report, _ = score_record(tmp_path, capsys, write(tmp_path, rows))
    assert code == exit_codes.DIFFERS
    ids = ", ".join(sorted(r["question_id"] for r in rows[:2]))
    assert report["failures"][0].startswith(f"2 problems have no generations ({ids})")


# --- audit checks the problem set as score does ---

RESULTS_NAME = "Scenario.codegeneration_1_0.2.json"  # lcb_runner's results, before grading
ANSWER, CODE = "```python\nprint(input())\n```", "print(input())"  # OpenAIChat extracts CODE


def audited_rows(count: int = 3) -> list[dict]:
    """The submission's first rows with their real statements (statements-sample.json, from
    the submission's eval_all) and one answer each, as lcb_runner's results hold them."""
    sample = json.loads((score_cases.SCORE_FIXTURES_DIR / "statements-sample.json").read_text())
    by_id = {row["question_id"]: row for row in o1_mini()}
    verdicts = ("graded_list", "pass@1")  # the eval_all's, not in the results lcb_runner writes
    return [
        {k: v for k, v in by_id[row["question_id"]].items() if k not in verdicts}
        | row
        | {"output_list": [ANSWER], "code_list": [CODE]}
        for row in sample[:count]
    ]


def audit_record(pytestconfig, tmp_path, capsys, rows, *argv: str, name=RESULTS_NAME):
    """The audit's exit code, its --json record (None when it wrote none) and its text
    (stdout, stderr)."""
    from lcb_conformance.run_audit import audit as run_audit

    run = tmp_path / "output" / "O1-Mini-2024-09-12" / name
    run.parent.mkdir(parents=True, exist_ok=True)
    run.write_text(json.dumps(rows), "utf-8")
    target = tmp_path / "audit.json"
    code = run_audit.main([str(run), "--style", "OpenAIChat", *argv, "--json", str(target),
                           "--upstream", pytestconfig.getoption("--upstream")])  # fmt: skip
    printed = capsys.readouterr()
    record = json.loads(target.read_text("utf-8")) if target.exists() else None
    return code, record, printed


def headline(out: str) -> str:
    return [line for line in out.splitlines() if line.startswith("audit: ")][-1]


@pytest.mark.upstream
def test_audit_of_release_problems_checks_them_and_says_first_what_it_could_not(
    pytestconfig, tmp_path, capsys
):
    code, record, (out, _) = audit_record(pytestconfig, tmp_path, capsys, audited_rows())
    assert code == record["exit_code"] == exit_codes.OK
    problems = record["problem_set"]
    assert problems["nearest"]["words"] == "3 of release_v1's 400 problems (a subset)"
    assert problems["in_no_release"] == [] and problems["statements"]["checked"] == 3
    assert record["not_checked"] == ["the prompt of 3 samples"]  # no lcb_runner cache
    assert headline(out).startswith("audit: not checked on this file: the prompt of 3 samples; ")


@pytest.mark.upstream
def test_audit_names_a_rewritten_statement(pytestconfig, tmp_path, capsys):
    rows = audited_rows()
    rows[1]["question_content"] += " (rewritten)"
    code, record, (out, _) = audit_record(pytestconfig, tmp_path, capsys, rows)
    assert code == record["exit_code"] == exit_codes.DIFFERS
    assert record["problem_set"]["statements"]["rewritten"] == [rows[1]["question_id"]]
    assert "NOT CONFORMANT: the problems are not the release's" in out


@pytest.mark.upstream
def test_audit_of_problems_in_no_release_is_not_identical(pytestconfig, tmp_path, capsys):
    rows = [row | {"question_id": f"cf_{row['question_id']}"} for row in audited_rows()]
    code, record, (out, _) = audit_record(pytestconfig, tmp_path, capsys, rows)
    assert code == record["exit_code"] == exit_codes.DIFFERS
    assert record["summary"] == {"identical": 3}  # the samples themselves are lcb_runner's
    assert record["problem_set"]["in_no_release"] == sorted(r["question_id"] for r in rows)
    assert "every checkable sample identical" not in out
    assert "none of the run's 3 problems is in any release" in headline(out)
    code, record, (out, _) = audit_record(pytestconfig, tmp_path, capsys, rows, "--not-a-release")
    assert code == exit_codes.OK and record["problem_set"]["not_a_release"]
    assert "NOT A RELEASE" in headline(out)


@pytest.mark.upstream
def test_audit_of_a_file_whose_lists_are_all_empty_is_unusable(pytestconfig, tmp_path, capsys):
    rows = [row | {"output_list": [], "code_list": []} for row in audited_rows()]
    code, record, (out, err) = audit_record(pytestconfig, tmp_path, capsys, rows)
    assert code == exit_codes.UNUSABLE and record is None
    assert headline(err).endswith("no sample to audit (every problem's "
                                  "output_list is empty)")  # fmt: skip
    assert err.count("\n") == 1 and "no sample to audit" not in out


@pytest.mark.upstream
def test_audit_names_problems_without_samples_and_is_incomplete(pytestconfig, tmp_path, capsys):
    rows = audited_rows()
    rows[2]["output_list"], rows[2]["code_list"] = [], []
    code, record, (out, _) = audit_record(pytestconfig, tmp_path, capsys, rows)
    assert code == record["exit_code"] == exit_codes.INCOMPLETE
    assert record["problem_set"]["empty"] == [rows[2]["question_id"]]
    assert "INCOMPLETE: 1 of the 3 problems hold no sample" in headline(out)


@pytest.mark.upstream
def test_audit_names_outputs_not_one_per_verdict(pytestconfig, tmp_path, capsys):
    rows = [row | {"graded_list": [True]} for row in audited_rows()]  # an eval_all
    rows[0] |= {"output_list": [ANSWER] * 3, "code_list": [CODE] * 3}  # three, one verdict
    name = RESULTS_NAME.replace(".json", "_eval_all.json")
    code, record, _ = audit_record(pytestconfig, tmp_path, capsys, rows, name=name)
    assert code == record["exit_code"] == exit_codes.DIFFERS
    assert record["problem_set"]["uneven"] == [rows[0]["question_id"]]
