"""lcb-conformance regrade: every format's fixture run read through run_formats with the
harness's own verdicts; the dataset checked against the release manifests before anything is
graded; lcb_runner's own verdicts reproduced on its own run; slices merged equal to the whole
run, byte for byte (but for what was measured); merge refusing slices that do not make one run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import regrade_inputs as inputs

from lcb_conformance import cli, releases
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.regrade import dataset as datasets
from lcb_conformance.regrade import regrade, results_file
from lcb_conformance.run_formats import registry
from lcb_conformance.suite import goldens
from lcb_conformance.suite.families import regrade as regrade_family
from lcb_conformance.upstream import grading

# lcb_runner's extraction and judge on the fixture runs: no tokenizer touches them (the
# compat-tf* envs leave them to the upstream env)
pytestmark = pytest.mark.transformers_independent

FORMATS = {
    inputs.LCB_RUNNER_RUN: ("lcb_runner", 12),
    inputs.EVALSCOPE_RUN: ("evalscope", 12),
    inputs.OPENCOMPASS_RUN: ("opencompass", 12),
    inputs.LM_EVAL_RUN: ("lm-eval", 12),
    inputs.LIGHTEVAL_RUN: ("lighteval", 4),
}


# lighteval's details are parquet: pyarrow comes with datasets, in the upstream extra
_PARQUET = {inputs.LIGHTEVAL_RUN: [pytest.mark.upstream]}


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(run, id=name, marks=_PARQUET.get(run, []))
        for run, (name, _) in FORMATS.items()
    ],
)
def test_every_formats_fixture_run_is_read_with_the_harness_own_verdicts(run):
    fmt = registry.detect(run)
    samples = list(fmt.samples(run))
    name, count = FORMATS[run]
    assert (fmt.NAME, len(samples)) == (name, count)
    for sample in samples:
        assert isinstance(sample.output, str)
        judged = sample.passed is not None or sample.problem_score is not None
        assert judged or sample.unjudged


def test_lcb_runners_verdicts_are_its_graded_list():
    fmt = registry.detect(inputs.LCB_RUNNER_RUN)
    recorded = json.loads(inputs.LCB_RUNNER_RUN.read_text("utf-8"))
    expected = [verdict for row in recorded for verdict in row["graded_list"]]
    assert [sample.passed for sample in fmt.samples(inputs.LCB_RUNNER_RUN)] == expected


def test_a_release_dataset_passes_the_check(tmp_path, monkeypatch):
    folder = inputs.write(tmp_path, inputs.release_rows("release_v1"), "test.jsonl")
    inputs.as_published(monkeypatch, folder)
    dataset = datasets.read(folder)
    assert datasets.release_of(dataset) == "release_v1"
    assert datasets.check(dataset, "release_v1") == []
    assert len(dataset.entries) == len(releases.members("release_v1"))


@pytest.mark.parametrize(
    ("given", "said"),
    [("absent", ": no such file or folder; "), ("empty", ": a folder without .jsonl files; "),
     ("blank", ": no problems in test.jsonl; ")],
)  # fmt: skip
def test_a_dataset_that_is_no_dataset_folder_says_what_is_wanted_and_where_it_comes_from(
    tmp_path, capsys, given, said
):
    # tests the console's contract: what --dataset was given, what it wants, where to get it
    (tmp_path / "empty").mkdir()
    (tmp_path / "blank").mkdir()
    (tmp_path / "blank" / "test.jsonl").write_text("\n", "utf-8")
    results = tmp_path / "regrade.jsonl"
    argv = [str(inputs.LCB_RUNNER_RUN), "--dataset", str(tmp_path / given)]
    code = cli.main(["regrade", *argv, "--results", str(results)])
    out, err = capsys.readouterr()
    assert code == exit_codes.UNUSABLE and not results.exists()
    [line] = (out + err).splitlines()
    assert f"{tmp_path / given}{said}--dataset wants a folder of LiveCodeBench's dataset" in line
    assert "test.jsonl .. test6.jsonl" in line and "livecodebench/code_generation_lite" in line
    assert datasets.HUB_FOLDER in line


def test_a_file_of_rows_is_a_dataset_of_that_one_file(tmp_path):
    """What a user has (one JSON lines file of rows, plain or published) is read as it is: its
    rows in file order, a release's only by its name (test.jsonl alone is release_v1's)."""
    folder = inputs.write(tmp_path, inputs.release_rows("release_v1"), "test.jsonl")
    inputs.write(tmp_path, inputs.rows(), "test2.jsonl")  # beside it, not read
    dataset = datasets.read(folder / "test.jsonl")
    assert dataset.files == ["test.jsonl"] and datasets.release_of(dataset) == "release_v1"
    assert len(dataset.entries) == len(releases.members("release_v1"))
    plain = datasets.read(inputs.RUN_ROWS)  # the fixture runs' rows, private tests as JSON
    assert list(plain.entries) == [row["question_id"] for row in inputs.rows()]
    assert datasets.release_of(plain) is None
    assert plain.row(inputs.rows()[0]["question_id"]) == inputs.rows()[0]


def test_a_dataset_of_no_release_says_whose_files_a_release_is(tmp_path, capsys):
    folder = inputs.write(tmp_path / "mine", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"), "mine.jsonl")  # noqa: E501
    results = tmp_path / "regrade.jsonl"
    argv = [str(inputs.LCB_RUNNER_RUN), "--dataset", str(folder), "--results", str(results)]
    assert cli.main(["regrade", *argv]) == exit_codes.UNUSABLE and not results.exists()
    out, err = capsys.readouterr()
    [line] = (out + err).splitlines()
    assert "are no release of LiveCodeBench's (test.jsonl .. test6.jsonl of Hugging Face's " in line
    assert "livecodebench/code_generation_lite)" in line and "--not-a-release" in line


def test_a_missing_problem_and_other_metadata_are_named_with_the_release(tmp_path, monkeypatch):
    table = inputs.release_rows("release_v1")
    gone = table.pop(7)["question_id"]
    table[0]["contest_date"] = "2030-01-01T00:00:00"
    folder = inputs.write(tmp_path, table, "test.jsonl")
    inputs.as_published(monkeypatch, folder)
    found = datasets.check(datasets.read(folder), "release_v1")
    assert found[0] == f"1 problems of release_v1 missing: {gone}"
    assert table[0]["question_id"] in found[1] and "2030-01-01" in found[1]


def test_a_test_case_changed_in_a_hub_cache_is_named(tmp_path, monkeypatch):
    folder = inputs.hub_cache(tmp_path, inputs.release_rows("release_v1"))
    inputs.as_published(monkeypatch, folder)
    assert datasets.check(datasets.read(folder), "release_v1") == []
    inputs.change_a_test(folder / inputs.HUB / "snapshots" / inputs.REVISION / "test.jsonl")
    (found,) = datasets.check(datasets.read(folder), "release_v1")
    assert found.startswith("test.jsonl changed since download")


def test_a_rows_tests_are_read_back_whole(tmp_path):
    table = inputs.rows()
    dataset = datasets.read(inputs.write(tmp_path, table))
    assert list(dataset.entries) == [row["question_id"] for row in table]
    for row in table:
        assert dataset.row(row["question_id"]) == inputs.published(row)


@pytest.mark.parametrize(
    ("harness", "regraded", "extraction", "harness_code", "reasons"),
    [
        (True, True, "differs", False, []),
        (None, False, "same", None, []),
        (True, False, "same", None, ["judge"]),
        (True, False, "differs", True, ["extraction"]),
        (True, False, "differs", False, ["judge"]),
        (False, True, "differs", True, ["judge"]),
        (True, False, "not recorded", None, ["extraction", "judge"]),
    ],
)
def test_why_a_verdict_changed(harness, regraded, extraction, harness_code, reasons):
    assert regrade.why(harness, regraded, extraction, harness_code) == reasons


def _slice(path, run: str, shard) -> None:
    writer = results_file.Writer(
        path, {**inputs.REGRADE_HEADER, "run": run, "run_sha256": run, "shard": shard}
    )
    writer.write(inputs.regrade_sample(0, False))
    writer.close()


def test_merge_refuses_slices_that_do_not_make_one_run(tmp_path):
    one, two, other = tmp_path / "1.jsonl", tmp_path / "2.jsonl", tmp_path / "x.jsonl"
    _slice(one, "a", [1, 2])
    _slice(two, "a", [2, 2])
    _slice(other, "b", [2, 2])
    out = tmp_path / "whole.jsonl"
    with pytest.raises(results_file.RegradeFileError, match="another regrade"):
        results_file.merge([one, other], out)
    with pytest.raises(results_file.RegradeFileError, match="both slice 1/2"):
        results_file.merge([one, one], out)
    with pytest.raises(results_file.ShardsIncomplete, match="slice 2/2 missing"):
        results_file.merge([one], out)
    assert not out.exists()
    assert results_file.merge([two, one], out) == 2


def _regrade_file(path, samples, shard=None) -> None:
    writer = results_file.Writer(path, {**inputs.REGRADE_HEADER, "shard": shard})
    for sample in samples:
        writer.write(sample)
    writer.close()


def test_a_regrade_file_is_read_as_it_holds_and_an_edit_is_refused_before_a_merge(tmp_path):
    """Each sample's verdicts are re-derived from its graded list (the false-green table holds
    the forgeries); what a regrade writes is read back, and a slice edited merges nothing."""
    samples = [inputs.regrade_sample(0, True), inputs.regrade_sample(1, False, harness=True)]
    whole = tmp_path / "whole.jsonl"
    _regrade_file(whole, samples)
    assert results_file.read(whole).samples == samples
    one, two = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    _regrade_file(one, samples[:1], [1, 2])
    _regrade_file(two, samples[1:], [2, 2])
    two.write_text(two.read_text("ascii").replace('"passed": false', '"passed": true', 1))
    out = tmp_path / "merged.jsonl"
    with pytest.raises(results_file.RegradeFileError, match="2.jsonl:2: sample 1 says "):
        results_file.merge([one, two], out)
    assert not out.exists()


# --- end to end: lcb_runner's judge --------------------------------------------------------


def _regrade(pytestconfig, upstream, *argv) -> int:
    accept = ["--accept-judge-differences"] if upstream.checkout is None else []
    return cli.main(["regrade", *argv, "--upstream", pytestconfig.getoption("--upstream"),
                     "--workers", "2", *accept])  # fmt: skip


@pytest.mark.upstream
def test_lcb_runners_own_run_regrades_to_its_own_verdicts(pytestconfig, upstream, tmp_path):
    """The fixture run lcb_runner 28fef95 graded itself: the regrade agrees on every sample."""
    dataset = inputs.write(tmp_path / "dataset", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"))  # noqa: E501
    results = tmp_path / "regrade.jsonl"
    code = _regrade(pytestconfig, upstream, str(inputs.LCB_RUNNER_RUN), "--dataset",
                    str(dataset), "--not-a-release", "--results", str(results))  # fmt: skip
    regraded = results_file.read(results)
    recorded = json.loads(inputs.LCB_RUNNER_RUN.read_text("utf-8"))
    expected = [verdict for row in recorded for verdict in row["graded_list"]]
    assert [s["regrade"]["passed"] for s in regraded.samples] == expected
    assert code == inputs.agreeing_exit(upstream)
    assert regraded.header["dataset"]["not_a_release"] is True
    schema = json.loads(paths.REGRADE_SCHEMA.read_text("utf-8"))
    assert schema["$id"] == results_file.SCHEMA
    raw = results.read_bytes()
    assert raw.isascii()
    for line in raw.decode("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)


@pytest.mark.upstream
def test_the_samples_the_harness_graded_otherwise_are_named_with_why(
    pytestconfig, upstream, tmp_path
):
    dataset, run = inputs.judged_otherwise(tmp_path)
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    code = _regrade(pytestconfig, upstream, str(run), "--dataset", str(dataset),
                    "--not-a-release", "--style", "OpenAIChat", "--json", str(out),
                    "--html", str(page))  # fmt: skip
    report = json.loads(out.read_text("utf-8"))
    assert "<td>j_sum</td><td>differs</td>" in page.read_text("utf-8")
    assert code == exit_codes.DIFFERS == report["exit_code"]
    (problem,) = report["problems"]
    assert problem["status"] == "differs"
    assert [(c["sample"], c["why"]) for c in problem["changed"]] == [
        (0, ["judge"]), (1, ["extraction"])
    ]
    assert [p["extraction_differs"] for p in report["problems"]] == [1]
    assert report["regrade"]["lcb_runner"]["pass@1"]["all"] == 100.0
    assert round(report["harness"]["lcb_runner"]["pass@1"]["all"], 2) == 33.33


def _evalscope_run(folder: Path) -> list[str]:
    """evalscope's fixture run on its rows: no program passes."""
    dataset = inputs.write(folder / "dataset", inputs.rows())
    return [str(inputs.EVALSCOPE_RUN), "--dataset", str(dataset), "--style", "OpenAIChat"]


def _passing_run(folder: Path) -> list[str]:
    """Six problems each answered by a program that passes: lcb_runner's metadata then holds
    the program's measured execution time, which no two runs share."""
    run = inputs.release_run(folder, count=6)
    graded = {row["question_id"] for row in json.loads(run.read_text("utf-8"))}
    table = [row for row in inputs.release_rows("release_v1") if row["question_id"] in graded]
    dataset = inputs.write(folder / "dataset", table)
    return [str(run), "--dataset", str(dataset), "--style", "OpenAIChat"]


@pytest.mark.upstream
@pytest.mark.parametrize("make_run", [_evalscope_run, _passing_run], ids=["none-pass", "all-pass"])
def test_slices_merged_equal_the_whole_run_byte_for_byte(pytestconfig, upstream, tmp_path,
                                                         make_run):  # fmt: skip
    common = [*make_run(tmp_path), "--not-a-release"]
    whole, first, second = (tmp_path / f"{name}.jsonl" for name in ("whole", "1", "2"))
    codes = [
        _regrade(pytestconfig, upstream, *common, "--results", str(whole)),
        _regrade(pytestconfig, upstream, *common, "--shard", "1/2", "--results", str(first)),
        _regrade(pytestconfig, upstream, *common, "--shard", "2/2", "--results", str(second)),
    ]
    merged = tmp_path / "merged.jsonl"
    codes.append(cli.main(["regrade", "merge", str(second), str(first), "--results", str(merged)]))
    agreeing = (inputs.agreeing_exit(upstream), exit_codes.DIFFERS)
    assert len(set(codes)) == 1 and codes[0] in agreeing, codes
    # byte for byte but for what was measured, which the merge keeps as each slice holds it
    assert inputs.unmeasured(merged) == inputs.unmeasured(whole)
    assert inputs.sample_lines(merged) == inputs.sample_lines(first, second)
    passing = [s for s in results_file.read(whole).samples if s["regrade"]["passed"]]
    assert bool(passing) == (make_run is _passing_run)
    schema = json.loads(paths.REGRADE_SCHEMA.read_text("utf-8"))
    for line in whole.read_text("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)
    assert {s["question_id"] for s in results_file.read(first).samples}.isdisjoint(
        s["question_id"] for s in results_file.read(second).samples
    )


@pytest.mark.upstream
def test_every_format_regrades_end_to_end(pytestconfig, upstream, tmp_path, capsys):
    """The problem-named formats and the position-named ones, each with a verdict or a
    per-problem score of the harness compared (lm-eval's fixture task scores 'extracted')."""
    dataset = inputs.write(tmp_path / "dataset", inputs.rows())
    for run in (inputs.OPENCOMPASS_RUN, inputs.LM_EVAL_RUN, inputs.LIGHTEVAL_RUN):
        out = tmp_path / f"{run.stem}.json"
        code = _regrade(pytestconfig, upstream, str(run), "--dataset", str(dataset),
                        "--not-a-release", "--style", "OpenAIChat", "--json", str(out))  # fmt: skip
        report = json.loads(out.read_text("utf-8"))
        assert report["regrade"]["lcb_runner"]["count"] == 4, run
        assert code in (inputs.agreeing_exit(upstream), exit_codes.DIFFERS), capsys.readouterr()
        assert code == report["exit_code"]
    shutil.rmtree(dataset)


# the run file of each fixture run folder (regrade goldens' keys: fixtures/regrade/runs.jsonl)
RUN_FILES = {
    "lcb_runner": "output/*/Scenario.codegeneration_*_eval_all.json",
    "lcb_runner_self_repair": "output/*/Scenario.selfrepair_*_eval_all.json",
    "evalscope": "reviews/*/*.jsonl",
    "opencompass": "predictions/*/*.json",
    "lm_eval": "samples_*.jsonl",
    "lighteval": "details_*.parquet",
}


@pytest.mark.upstream
@pytest.mark.parametrize("key", regrade_family.keys(), ids=lambda key: f"{key.group}/{key.case}")
def test_each_fixture_run_regrades_to_lcb_runners_own_evaluation(
    key, pytestconfig, upstream, tmp_path
):
    """The regrade golden (lcb_runner's extract_code and codegen_metrics on the run's raw
    outputs, by regen): the same code, graded lists and metadata for every sample."""
    run = regrade_family.runs()[key]
    folder = inputs.AUDIT / run["run"]
    (path,) = folder.glob(RUN_FILES[key.group])
    # the order the run read its problems in (position-named formats), else the golden's rows
    ordered = [folder / "dataset.jsonl", folder.parent / "dataset.jsonl"]
    table = next((inputs.rows(p) for p in ordered if p.is_file()), list(run["rows"].values()))
    dataset = inputs.write(tmp_path / "dataset", table)
    results = tmp_path / "regrade.jsonl"
    _regrade(pytestconfig, upstream, str(path), "--dataset", str(dataset), "--not-a-release",
             "--style", run["lmstyle"], "--results", str(results))  # fmt: skip
    golden = json.loads(goldens.read(key))
    found: dict[str, list] = {}
    for sample in results_file.read(results).samples:
        found.setdefault(sample["question_id"], []).append(sample)
    assert sorted(found) == sorted(golden["graded"])
    for problem, samples in found.items():
        samples.sort(key=lambda s: s["index"])
        assert [s["code"] for s in samples] == golden["code"][problem]
        assert [s["regrade"]["graded"] for s in samples] == golden["graded"][problem]
        metadata = [grading.comparable_metadata(s["regrade"]["metadata"]) for s in samples]
        assert metadata == golden["metadata"][problem]


# reads the expected output from lcb_runner's grade_stdio frame and prints it: lcb_runner
# passes it, and so does regrade, naming it
READS_THE_JUDGES_FRAMES = (
    "import sys\nframe = sys._getframe()\nwhile 'gt_out' not in frame.f_locals:\n"
    "    frame = frame.f_back\nprint(frame.f_locals['gt_out'])\n"
)


@pytest.mark.upstream
def test_a_judge_aware_sample_is_named_and_its_verdict_is_lcb_runners(
    pytestconfig, upstream, tmp_path, capsys
):
    """Every view names the sample that read the judge's frames, and only it; the number,
    the per-problem status and the exit code are lcb_runner's verdicts' as before."""
    dataset, run = inputs.judged_otherwise(tmp_path)
    (row,) = json.loads(run.read_text("utf-8"))
    row["output_list"] = [row["output_list"][0], f"```python\n{READS_THE_JUDGES_FRAMES}```\n"]
    row["code_list"] = [row["code_list"][0], READS_THE_JUDGES_FRAMES.rstrip("\n")]
    row["graded_list"] = [True, True]
    run.write_text(json.dumps([row]), "utf-8")
    out, page, results = tmp_path / "report.json", tmp_path / "report.html", tmp_path / "r.jsonl"
    code = _regrade(pytestconfig, upstream, str(run), "--dataset", str(dataset),
                    "--not-a-release", "--style", "OpenAIChat", "--json", str(out),
                    "--html", str(page), "--results", str(results))  # fmt: skip
    console = capsys.readouterr().out
    report = json.loads(out.read_text("utf-8"))
    assert code == inputs.agreeing_exit(upstream) == report["exit_code"]
    assert report["regrade"]["lcb_runner"]["pass@1"]["all"] == 100.0
    (problem,) = report["problems"]
    assert problem["status"] == "same" and report["judge_aware"] == 1
    (aware,) = problem["judge_aware"]
    assert (aware["sample"], aware["lcb_runner"], set(aware["touched"])) == (1, True, {"frames"})
    assert "j_sum sample 1 (passed): read the judge's frames" in console
    assert "1 judge-aware samples named" in console
    assert "sample 1 judge-aware: read the judge&#x27;s frames" in page.read_text("utf-8")
    samples = results_file.read(results).samples
    assert ["judge_aware" in s for s in samples] == [False, True]
    schema = json.loads(paths.REGRADE_SCHEMA.read_text("utf-8"))
    for line in results.read_text("ascii").splitlines():
        jsonschema.validate(json.loads(line), schema)
    # a results file of schema /1 (before judge_aware) still reads, naming nothing
    older = tmp_path / "older.jsonl"
    lines = [json.loads(line) for line in results.read_text("ascii").splitlines()]
    lines[0]["header"]["schema"] = "lcb-conformance-regrade/1"
    lines[0]["header"].pop("recheck")
    lines[2]["sample"].pop("judge_aware")
    for line in lines[1:-1]:  # nor its timings (/2)
        for name in inputs.MEASURED:
            line["sample"].pop(name, None)
    older.write_text("".join(json.dumps(line) + "\n" for line in lines), "ascii")
    assert cli.main(["regrade", "show", str(older), "--json", str(out)]) == inputs.agreeing_exit(
        upstream
    )
    assert json.loads(out.read_text("utf-8"))["judge_aware"] == 0
