"""The statement-digest manifest (conformance/releases/statements.json) and the check of a
run's statements against it: a rewritten statement or a foreign problem is named, problem by
problem; real rows pass; a file without statements is "could not be checked", never a match."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest

from lcb_conformance import releases, statements
from lcb_conformance.common import paths

pytestmark = pytest.mark.selftest

# Real rows of the O1-Mini submission's eval_all (written by the builder from the mirror).
SAMPLE = json.loads((paths.FIXTURES_DIR / "score" / "statements-sample.json").read_text("utf-8"))
V6 = {row["question_id"] for row in releases.members("release_v6")}
MIRROR_ROOT = Path(os.environ.get("LCB_MIRROR_ROOT", "/work/.mirror"))


def test_every_v6_problem_is_covered_or_named():
    manifest = statements.manifest()
    covered, named = set(manifest["problems"]), set(manifest["uncovered"])
    assert not covered & named
    assert covered | named == V6
    assert manifest["covered"] == len(covered)
    sources = range(len(manifest["sources"]))
    assert all(
        entry["agree"] == len(set(entry["sources"])) >= 2 and set(entry["sources"]) <= set(sources)
        for entry in manifest["problems"].values()
    )
    assert all(reason.strip() for reason in manifest["uncovered"].values())


def test_every_v6_problem_is_digested_from_two_independent_files():
    """All 1,055 covered, none named uncovered: each digest from two or more files, no two of
    them one file (one git blob) or one model's run (one folder of one repository)."""
    manifest = statements.manifest()
    assert set(manifest["problems"]) == V6 and not manifest["uncovered"]
    sources = manifest["sources"]
    assert len({source["blob"] for source in sources}) == len(sources)
    runs = {(source["repository"], source["path"].rsplit("/", 1)[0]) for source in sources}
    assert len(runs) == len(sources)


def test_sources_that_disagree_leave_a_problem_uncovered():
    lcb_statements = pytest.importorskip("lcb_conformance_dev.statements")
    seen = {
        "agreed": {"d1": [0, 1]},
        "disputed": {"d1": [0, 1, 2], "d2": [3]},
        "single": {"d1": [4]},
    }
    problems, uncovered = lcb_statements.classify(seen, ["agreed", "disputed", "single", "none"])
    assert problems == {"agreed": {"digest": "d1", "sources": [0, 1], "agree": 2}}
    assert uncovered["disputed"].startswith("the sources disagree: [[0, 1, 2], [3]]")
    assert uncovered["single"].startswith("in one source only")
    assert uncovered["none"] == "in no source"


def test_real_rows_pass():
    result = statements.check(SAMPLE, V6)
    assert result.matches, result
    assert result.checked == len(SAMPLE)


def test_one_rewritten_statement_is_named():
    rows = copy.deepcopy(SAMPLE)
    rows[1]["question_content"] = rows[1]["question_content"].replace("YES", "Yes", 1) + " "
    result = statements.check(rows, V6)
    assert result.rewritten == (rows[1]["question_id"],)
    assert not result.matches and result.differs
    assert rows[1]["question_id"] in result.summary()


def test_foreign_problems_are_named():
    rows = copy.deepcopy(SAMPLE) + [dict(SAMPLE[0], question_id="cf_9999_Z")]
    result = statements.check(rows, V6)
    assert result.foreign == ("cf_9999_Z",)
    assert not result.matches


def test_a_null_starter_code_is_the_empty_one_lcb_runner_shows():
    """starter_code null (what lcb_runner writes back for a dataset row holding None) is the
    release's statement, not a missing field: lcb_runner's prompt is the same as with ""."""
    rows = copy.deepcopy(SAMPLE)
    stdin = next(row for row in rows if row["starter_code"] == "")
    stdin["starter_code"] = None
    result = statements.check(rows, V6)
    assert result.matches and result.missing_fields == (), result
    assert result.checked == len(SAMPLE)
    absent = [{k: v for k, v in row.items() if k != "starter_code"} for row in SAMPLE[:1]]
    assert statements.check(absent + SAMPLE[1:], V6).missing_fields == (SAMPLE[0]["question_id"],)


@pytest.mark.upstream
def test_lcb_runner_shows_a_null_starter_code_as_the_empty_one(upstream):
    """What the test above rests on, asked of lcb_runner: a row whose starter_code is None
    gets the prompt of the same row with "", and its eval_all row carries null."""
    from lcb_conformance.suite import cases

    nulls = [row for row in cases.problems().values() if row["starter_code"] is None]
    assert nulls
    for row in nulls:
        for style in ("OpenAIChat", "GenericBase"):
            assert upstream.format(style, row) == upstream.format(style, row | {"starter_code": ""})
        assert upstream.problem(row).insert_output([], [])["starter_code"] is None


def test_a_file_without_statements_is_not_checked():
    fixture = json.loads((paths.FIXTURES_DIR / "score" / "o1-mini-2024-09-12.json").read_text())
    result = statements.check(fixture, V6)
    assert not result.carried and not result.matches and result.checked == 0
    assert "could not be checked" in result.summary()


def test_an_uncovered_problem_is_never_a_match(monkeypatch):
    """A release problem the manifest names uncovered (none is, today: one is made so)."""
    qid = SAMPLE[0]["question_id"]
    manifest = copy.deepcopy(statements.manifest())
    del manifest["problems"][qid]
    manifest["uncovered"][qid] = "the sources disagree: [[0], [1]]"
    monkeypatch.setattr(statements, "manifest", lambda: manifest)
    result = statements.check([SAMPLE[0]], V6)
    assert result.not_covered == (qid,) and not result.matches and not result.differs


def test_build_check_agrees_with_the_committed_manifest():
    lcb_statements = pytest.importorskip("lcb_conformance_dev.statements")
    for repository in sorted({source[0] for source in lcb_statements.SOURCES}):
        if not lcb_statements.git_dir(MIRROR_ROOT, repository).is_dir():
            pytest.skip(f"no mirror of {repository} under {MIRROR_ROOT}")
    assert lcb_statements.main(["build", "--mirror-root", str(MIRROR_ROOT), "--check"]) == 0


def _score_run(tmp_path, sample):
    from lcb_conformance.reports import score

    fixture = json.loads((paths.FIXTURES_DIR / "score" / "o1-mini-2024-09-12.json").read_text())
    by_id = {row["question_id"]: row for row in fixture}
    run = tmp_path / "Scenario.codegeneration_1_0.2_eval_all.json"
    run.write_text(json.dumps([by_id[row["question_id"]] | row for row in sample]), "utf-8")
    return score.report_on(score.read_run(run))


def test_score_passes_the_real_statements(tmp_path):
    report = _score_run(tmp_path, SAMPLE)
    assert report["statements"]["matches"] and report["statements"]["checked"] == 3
    assert not any("as the model saw them" in line for line in report["failures"])


def test_score_names_a_rewritten_statement(tmp_path):
    rows = copy.deepcopy(SAMPLE)
    rows[2]["question_content"] = rows[2]["question_content"].replace("a", "b", 1)
    report = _score_run(tmp_path, rows)
    assert report["statements"]["rewritten"] == [rows[2]["question_id"]]
    assert report["exit_code"] == 1
    assert any(rows[2]["question_id"] in line for line in report["failures"])


def _dataset(rows):
    from lcb_conformance.regrade import dataset as datasets

    known = releases.problems()
    entries = {}
    for row in rows:
        meta = known[row["question_id"]]
        statement = {f: row[f] for f in statements.FIELDS}
        dates = (meta["contest_date"], meta["difficulty"], meta["platform"])
        entries[row["question_id"]] = datasets.Entry("test.jsonl", 0, *dates, "", statement)
    return datasets, datasets.Dataset(Path("."), ["test.jsonl"], entries)


def test_regrade_passes_the_real_dataset_rows():
    datasets, dataset = _dataset(SAMPLE)
    assert datasets.statement_check(dataset).matches
    assert datasets.statement_mismatch(dataset) == []


def test_regrade_names_a_rewritten_dataset_row():
    rows = copy.deepcopy(SAMPLE)
    rows[0]["starter_code"] = "def solve():\n    "
    datasets, dataset = _dataset(rows)
    (sentence,) = datasets.statement_mismatch(dataset)
    assert "1 rewritten: " + rows[0]["question_id"] in sentence
