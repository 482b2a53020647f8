"""lcb_runner's self-repair results as a run format (run_formats/lcb_runner_self_repair.py):
read by content or by lcb_runner's name, never as code generation; `regrade` of them graded as
code generation's and named self-repair in every view, reproducing the regrade golden of the
self-repair fixture run; `score` of them labelled self-repair."""

from __future__ import annotations

import json

import pytest
import regrade_inputs as inputs

from lcb_conformance import cli
from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import regrade
from lcb_conformance.reports import score
from lcb_conformance.run_formats import (
    lcb_runner,
    lcb_runner_files,
    lcb_runner_self_repair,
    registry,
)
from lcb_conformance.run_formats.samples import LogError

pytestmark = pytest.mark.transformers_independent

FOLDER = inputs.AUDIT / "lcb_runner" / "self-repair" / "output" / "GPT-4O-2024-08-06"
EVAL_ALL = FOLDER / "Scenario.selfrepair_1_0.2_eval_all.json"
RESULTS = FOLDER / "Scenario.selfrepair_1_0.2.json"
REPAIRED = FOLDER / "Scenario.codegeneration_3_0.2_eval_all.json"


def _rows(path=EVAL_ALL) -> list[dict]:
    return json.loads(path.read_text("utf-8"))


@pytest.mark.parametrize("path", [EVAL_ALL, RESULTS], ids=lambda p: p.name)
def test_self_repair_results_are_read_as_self_repair(path):
    """Every attempt's repair (or kept output), its code and, in the _eval_all, its verdict."""
    fmt = registry.detect(path)
    assert fmt is lcb_runner_self_repair
    assert registry.scenario(fmt) == "selfrepair" and registry.programs(fmt)
    rows = _rows(path)
    samples = list(fmt.samples(path))
    assert [s.output for s in samples] == [o for row in rows for o in row["output_list"]]
    assert [s.scored for s in samples] == [c for row in rows for c in row["code_list"]]
    graded = [row.get("graded_list") for row in rows]
    expected = [None] * len(samples) if None in graded else [g for gs in graded for g in gs]
    assert [s.passed for s in samples] == expected


def test_a_renamed_self_repair_eval_all_is_still_self_repair(tmp_path):
    renamed = tmp_path / "Scenario.codegeneration_3_0.2_eval_all.json"
    renamed.write_bytes(EVAL_ALL.read_bytes())
    assert registry.detect(renamed) is lcb_runner_self_repair
    assert registry.detect(REPAIRED) is lcb_runner


def test_the_code_generation_reader_sends_self_repair_rows_to_theirs():
    with pytest.raises(LogError, match="--format lcb_runner_self_repair"):
        list(lcb_runner.samples(EVAL_ALL))
    with pytest.raises(LogError, match="--format lcb_runner_self_repair"):
        list(lcb_runner.samples(RESULTS))


def test_a_repairs_list_is_its_first_output_as_combine_results_keeps_it(tmp_path):
    """lcb_runner's combine_results keeps ``output[0]`` of a repair (a list) and a kept
    attempt's output as it is."""
    rows = _rows()
    rows[0]["output_list"][1] = [rows[0]["output_list"][1]]
    path = tmp_path / EVAL_ALL.name
    path.write_text(json.dumps(rows), "utf-8")
    outputs = [s.output for s in lcb_runner_self_repair.samples(path)]
    assert outputs == [o for row in _rows() for o in row["output_list"]]


def test_a_problem_with_attempts_missing_is_refused(tmp_path):
    rows = _rows()
    for name in ("output_list", "code_list", "graded_list", "metadata", "original_code_list"):
        rows[1][name] = rows[1][name][:2]
    path = tmp_path / EVAL_ALL.name
    path.write_text(json.dumps(rows), "utf-8")
    with pytest.raises(LogError, match="j_two_numbers' has 2 attempts, the first problem 3"):
        list(lcb_runner_self_repair.samples(path))


MISALIGNED = inputs.AUDIT / "lcb_runner" / "self-repair-misaligned" / "output" / "GPT-4O-2024-08-06"


def test_lcb_runner_writes_original_code_list_by_position_not_by_problem():
    """Pinned upstream behaviour (fixtures/audit/lcb_runner/self-repair-misaligned, written by
    lcb_runner 28fef95's own main()): its code generation holds j_sum_encoded, which it did not
    repair; main() zips original_code_list with the code-generation rows by position, so
    j_two_numbers' is j_sum_encoded's attempts. The reader does not read it: each problem's
    samples are its own repairs and verdicts."""
    generated = _rows(MISALIGNED / REPAIRED.name)
    repaired = _rows(MISALIGNED / EVAL_ALL.name)
    assert [r["question_id"] for r in generated] == ["j_sum", "j_sum_encoded", "j_two_numbers"]
    assert [r["question_id"] for r in repaired] == ["j_sum", "j_two_numbers"]
    assert repaired[1]["original_code_list"] == generated[1]["code_list"]  # j_sum_encoded's
    assert repaired[1]["original_code_list"] != generated[2]["code_list"]
    samples = list(registry.detect(MISALIGNED / EVAL_ALL.name).samples(MISALIGNED / EVAL_ALL.name))
    assert [(s.question_id, s.scored, s.passed) for s in samples] == [
        (row["question_id"], code, passed)
        for row in repaired
        for code, passed in zip(row["code_list"], row["graded_list"], strict=True)
    ]


def test_score_labels_a_self_repair_run_even_renamed(tmp_path):
    renamed = tmp_path / "run.json"
    renamed.write_bytes(EVAL_ALL.read_bytes())
    report = score.report_on(score.read_run(renamed))
    assert report["scenario"] == "selfrepair" and not report["listed"]
    assert {f["label"] for f in report["figures"]} == {
        "lcb_runner's compute_scores on this self-repair file",
        "the leaderboard's computation on this self-repair file",
    }
    assert score.headline(report).startswith("FAILED: self-repair: compute_scores 16.67")
    lines = score.render(report).splitlines()
    assert "lcb_runner's self-repair results" in lines[0]
    # the table's labels keep code generation's width: a line above it says whose figures
    table = next(n for n, line in enumerate(lines) if line.lstrip().startswith("problems"))
    assert lines[table - 1] == "the figures are lcb_runner's self-repair scenario's:"


def test_score_refuses_a_file_mixing_self_repair_and_code_generation_rows(tmp_path):
    mixed = tmp_path / "run.json"
    mixed.write_text(json.dumps([_rows(REPAIRED)[0], _rows()[1]]), "utf-8")
    with pytest.raises(score.RunError, match="no one run of either scenario"):
        score.read_run(mixed)


# --- end to end: lcb_runner's judge --------------------------------------------------------


def _regrade(pytestconfig, upstream, *argv) -> int:
    accept = ["--accept-judge-differences"] if upstream.checkout is None else []
    return cli.main(["regrade", *argv, "--upstream", pytestconfig.getoption("--upstream"),
                     "--workers", "2", *accept])  # fmt: skip


def _judge_rows(folder):
    table = inputs.rows(inputs.cases.FIXTURES_DIR / "judge" / "problems.jsonl")
    wanted = {row["question_id"] for row in _rows()}
    return inputs.write(folder, [row for row in table if row["question_id"] in wanted])


@pytest.mark.upstream
def test_a_self_repair_run_regrades_as_self_repair_in_every_view(
    pytestconfig, upstream, tmp_path, capsys
):
    """lcb_runner graded this run itself: the regrade agrees on every sample (exit 0), and the
    text, JSON, HTML and results file say the number is self-repair's; slices merged equal the
    whole run's results file byte for byte (but for the timings, kept as each slice's)."""
    dataset = _judge_rows(tmp_path / "dataset")
    common = [str(EVAL_ALL), "--dataset", str(dataset), "--not-a-release", "--style",
              "OpenAIChat"]  # fmt: skip
    whole, first, second = (tmp_path / f"{name}.jsonl" for name in ("whole", "1", "2"))
    out, page = tmp_path / "report.json", tmp_path / "report.html"
    code = _regrade(pytestconfig, upstream, *common, "--results", str(whole), "--json", str(out),
                    "--html", str(page))  # fmt: skip
    text = capsys.readouterr().out
    report = json.loads(out.read_text("utf-8"))
    assert code == inputs.agreeing_exit(upstream) == report["exit_code"], text
    assert report["header"]["scenario"] == "selfrepair"
    assert report["header"]["format"] == "lcb_runner_self_repair"
    assert "(lcb_runner's self-repair scenario; lcb_runner_self_repair, LMStyle" in text
    assert f"{inputs.agreeing_state(upstream)}: lcb_runner's self-repair regrade 16.67" in text
    assert "s self-repair regrade 16.67" in page.read_text("utf-8")
    recorded = [g for row in _rows() for g in row["graded_list"]]
    assert [p["regrade_passed"] for p in report["problems"]] == [recorded[:3].count(True), 0]
    slices = [
        _regrade(pytestconfig, upstream, *common, "--shard", f"{i}/2", "--results", str(path))
        for i, path in ((1, first), (2, second))
    ]
    merged = tmp_path / "merged.jsonl"
    assert cli.main(["regrade", "merge", str(second), str(first), "--results", str(merged)]) == (
        inputs.agreeing_exit(upstream)
    )
    assert slices == [inputs.agreeing_exit(upstream)] * 2
    assert inputs.unmeasured(merged) == inputs.unmeasured(whole)  # but for what was measured
    assert inputs.sample_lines(merged) == inputs.sample_lines(first, second)


@pytest.mark.upstream
def test_a_repaired_programs_verdict_a_harness_changed_is_named(pytestconfig, upstream, tmp_path):
    """The run's file says j_two_numbers' first repair passed: lcb_runner's judge fails it."""
    rows = _rows()
    rows[1]["graded_list"][0] = True
    run = tmp_path / EVAL_ALL.name
    run.write_text(json.dumps(rows), "utf-8")
    out = tmp_path / "report.json"
    code = _regrade(pytestconfig, upstream, str(run), "--dataset",
                    str(_judge_rows(tmp_path / "dataset")), "--not-a-release", "--style",
                    "OpenAIChat", "--json", str(out))  # fmt: skip
    report = json.loads(out.read_text("utf-8"))
    assert code == exit_codes.DIFFERS == report["exit_code"]
    changed = {p["question_id"]: p["changed"] for p in report["problems"] if p["changed"]}
    assert [(c["sample"], c["why"]) for c in changed["j_two_numbers"]] == [(0, ["judge"])]
    assert list(changed) == ["j_two_numbers"]


# --- a self-repair run lcb_runner could not have written: one verdict with audit and score ---

# the fork's real self-repair run (fixtures/real-runs/PROVENANCE.json): its folder's model has
# an LMStyle (CodeQwenInstruct) lcb_runner 28fef95 raises for building self-repair prompts
REAL_FOLDER = inputs.cases.FIXTURES_DIR / "real-runs" / "xiangww0108-LiveCodeBench" / "output"
REAL_SELF_REPAIR = REAL_FOLDER / "Qwen2.5-Ins-7B" / EVAL_ALL.name


def test_regrade_resolves_the_real_self_repair_run_to_the_pair_score_fails():
    """regrade reads the real run as score does (self-repair, its folder's LMStyle), so its
    header records the very words score fails the file with; its problems are in no fixture
    dataset, so the grading itself is shown on the fixture run moved under its folder below."""
    fmt = registry.detect(REAL_SELF_REPAIR)
    lmstyle = regrade.lmstyle_of(fmt, REAL_SELF_REPAIR, None, None)
    raised = lcb_runner_files.lcb_runner_raises(registry.scenario(fmt), False, lmstyle)
    assert registry.scenario(fmt) == "selfrepair" and lmstyle == "CodeQwenInstruct"
    assert raised and raised == score.read_run(REAL_SELF_REPAIR).lcb_runner_raises


@pytest.mark.upstream
def test_a_self_repair_run_lcb_runner_raises_for_is_never_green(
    pytestconfig, upstream, tmp_path, capsys
):
    """The fixture self-repair run (which lcb_runner graded itself, exit 0 as OpenAIChat's)
    under the real run's model folder: every sample agrees, but no run of that folder's
    model is lcb_runner's (it raises building the prompts), so every view names it and the
    exit is 1, as audit's and score's; `regrade show` of its results file derives it again."""
    run = tmp_path / "output" / REAL_SELF_REPAIR.parent.name / EVAL_ALL.name
    run.parent.mkdir(parents=True)
    run.write_bytes(EVAL_ALL.read_bytes())
    results, out, page = (tmp_path / name for name in ("r.jsonl", "r.json", "r.html"))
    code = _regrade(pytestconfig, upstream, str(run), "--dataset",
                    str(_judge_rows(tmp_path / "dataset")), "--not-a-release", "--results",
                    str(results), "--json", str(out), "--html", str(page))  # fmt: skip
    text = capsys.readouterr().out
    report = json.loads(out.read_text("utf-8"))
    raised = score.read_run(run).lcb_runner_raises
    assert raised and report["header"]["lmstyle"] == "CodeQwenInstruct"
    assert report["header"]["lcb_runner_raises"] == raised == report["lcb_runner_raises"]
    assert code == exit_codes.DIFFERS == report["exit_code"], text
    lines = text.splitlines()
    first = next(n for n, line in enumerate(lines) if line.startswith("regrade: "))
    assert lines[first + 1].startswith(f"NOT LCB_RUNNER'S RUN: {raised}")  # before the numbers
    headline = "DIFFERS: no run lcb_runner could have written (28fef95 raises building"
    assert lines[-1].startswith(headline)
    assert "no run lcb_runner could have written" in page.read_text("utf-8")
    assert cli.main(["regrade", "show", str(results)]) == exit_codes.DIFFERS
