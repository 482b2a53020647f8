"""Real lcb_runner output committed by others (fixtures/real-runs/, PROVENANCE.json): `audit` and
`score` on each, every expected outcome derived from the file itself (its rows, its own
_eval.json) or from lcb_runner's code (compute_metrics_from_results, compute_scores,
extract_code, CodeGenerationProblem.insert_output_evaluation), never written here."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import regrade
from lcb_conformance.reports import score
from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_audit import auditor
from lcb_conformance.run_formats import registry
from lcb_conformance.suite import cases
from lcb_conformance.upstream import score as upstream_score

REAL_RUNS = cases.FIXTURES_DIR / "real-runs"
PROVENANCE = json.loads((REAL_RUNS / "PROVENANCE.json").read_text("utf-8"))["files"]
FILES = [REAL_RUNS / entry["file"] for entry in PROVENANCE]
# what a clone without git-lfs holds in place of a file (git-lfs' spec/v1 opening)
POINTERS = [path for path in FILES if path.read_bytes().startswith(registry.LFS_OPENING)]
EVAL_ALL = [p for p in FILES if p.name.endswith("_eval_all.json") and p not in POINTERS]
CODE_GENERATION, REWRITTEN, REPAIRED, SELF_REPAIR, CUSTOM = (
    next(path for path in EVAL_ALL if part in str(path))
    for part in (
        "output_test6/", "_gpt_content/", "Scenario.codegeneration_1_", "Scenario.selfrepair_",
        "_output_eval_all",
    )
)
STYLE = "CodeQwenInstruct"  # the custom_evaluator run's folder names no model: its model's style
MAX_BYTES = 200_000


def _named(path: Path) -> str:
    """A fixture's test id: its model folder and file."""
    return f"{path.parent.name}/{path.name}"


def _rows(path: Path) -> list[dict]:
    return json.loads(path.read_text("utf-8"))


def _own_eval(path: Path) -> Path | None:
    """The _eval.json lcb_runner wrote beside the eval_all, when it was kept."""
    candidate = path.with_name(path.name.replace("_eval_all.json", "_eval.json"))
    return candidate if candidate.is_file() else None


def _pass_1(rows: list[dict]) -> float:
    """pass@1 as the file's own verdicts give it: each problem's passing share, averaged (%)."""
    return 100 * sum(r["graded_list"].count(True) / len(r["graded_list"]) for r in rows) / len(rows)


def _score(path: Path, tmp_path: Path, capsys, *argv: str) -> tuple[int, dict, str]:
    report = tmp_path / "score.json"
    code = score.main([str(path), "--json", str(report), *argv])
    out = capsys.readouterr().out
    return code, json.loads(report.read_text("utf-8")), out


def _audit(path: Path, tmp_path: Path, capsys, *argv: str) -> tuple[int, dict | None, tuple]:
    """The exit code, the --json report (None when none was written), (stdout, stderr)."""
    report = tmp_path / "audit.json"
    code = run_audit.main([str(path), "--json", str(report), *argv])
    printed = capsys.readouterr()
    data = json.loads(report.read_text("utf-8")) if report.is_file() else None
    return code, data, printed


def test_provenance_names_every_file_as_it_is():
    """Every fixture is listed with its source and held to the sha256 recorded, each < 200 KB."""
    listed = {entry["file"] for entry in PROVENANCE}
    files = (p for p in REAL_RUNS.rglob("*.json") if p.name != "PROVENANCE.json")
    on_disk = {str(p.relative_to(REAL_RUNS)) for p in files}
    assert listed == on_disk
    for entry in PROVENANCE:
        path = REAL_RUNS / entry["file"]
        assert path.stat().st_size < MAX_BYTES, entry["file"]
        assert hashlib.sha256(path.read_bytes()).hexdigest() == entry["sha256"], entry["file"]
        assert {"repository", "commit", "path", "blob", "trimmed"} <= set(entry)
        if path in EVAL_ALL:
            assert [r["question_id"] for r in _rows(path)] == entry["kept"]


@pytest.mark.parametrize("path", EVAL_ALL, ids=_named)
def test_every_real_file_is_recognised_for_what_it_is(path):
    found = registry.recognise(path)
    rows = _rows(path)
    custom = all(r["output_list"] == r["code_list"] for r in rows)
    assert found.kind == (registry.CUSTOM_EVALUATOR if custom else registry.EVAL_ALL)
    assert found.graded
    scenario = "selfrepair" if "original_code_list" in rows[0] else "codegeneration"
    assert found.scenario == scenario


@pytest.mark.parametrize("path", POINTERS, ids=_named)
@pytest.mark.parametrize("command", ["audit", "score", "regrade"])
def test_a_real_lfs_pointer_is_named_by_every_command(path, command, tmp_path, capsys):
    main = {"audit": run_audit.main, "score": score.main, "regrade": regrade.main}[command]
    argv = [str(path)] + (["--dataset", str(tmp_path)] if command == "regrade" else [])
    assert main(argv) == exit_codes.UNUSABLE
    captured = capsys.readouterr()
    assert "is a Git LFS pointer, not the file: git lfs pull" in captured.out + captured.err


def test_score_never_takes_rewritten_statements_for_the_releases(tmp_path, capsys):
    """The fork's perturbation run: the same problem ids as the run beside it, every statement
    rewritten (the two files say so); score names each as rewritten, problem by problem (the
    manifest digests every v6 problem), and the run beside it, as it is, as the release's."""
    original = {r["question_id"]: r["question_content"] for r in _rows(CODE_GENERATION)}
    rewritten = {r["question_id"]: r["question_content"] for r in _rows(REWRITTEN)}
    assert all(original[qid] != text for qid, text in rewritten.items())
    _, report, _ = _score(REWRITTEN, tmp_path, capsys)
    record = report["statements"]
    assert record["rewritten"] == sorted(rewritten)
    assert not record["not_covered"] and not record["matches"]
    _, report, _ = _score(CODE_GENERATION, tmp_path, capsys)
    assert report["statements"]["matches"]
    assert report["statements"]["checked"] == len(original)


def test_a_real_run_and_its_rewritten_twin_as_sources_cover_none_of_their_problems():
    """Were the perturbation run taken as a source beside the real one, the two disagree on
    every problem both hold: the statement builder digests none of the real run's, naming why."""
    builder = pytest.importorskip("lcb_conformance_dev.statements")
    real, rewritten = _rows(CODE_GENERATION), _rows(REWRITTEN)
    ids = [row["question_id"] for row in real]
    problems, uncovered = builder.classify(builder.tally([real, rewritten]), ids)
    assert not problems
    both = {row["question_id"] for row in rewritten}
    assert both and set(ids) >= both
    for qid in ids:
        why = "the sources disagree: [[0], [1]]" if qid in both else "in one source only (0)"
        assert uncovered[qid].startswith(why)


@pytest.mark.parametrize(
    "path", [CODE_GENERATION, REWRITTEN, SELF_REPAIR, CUSTOM], ids=_named
)
def test_score_computes_each_real_runs_pass_at_1_from_its_verdicts(path, tmp_path, capsys):
    """score's pass@1 is the file's own graded_list's, its rows' pass@1 agree with it, and the
    figures cover every problem the file holds."""
    rows = _rows(path)
    _, report, _ = _score(path, tmp_path, capsys)
    assert report["lcb_runner"]["count"] == len(rows)
    assert report["lcb_runner"]["value"] == pytest.approx(_pass_1(rows), abs=0.005)
    assert report["inconsistent"] == []
    assert report["file"]["kind"] == registry.recognise(path).kind


def test_score_names_custom_evaluator_output_in_its_header(tmp_path, capsys):
    _, report, out = _score(CUSTOM, tmp_path, capsys)
    assert report["file"]["kind"] == registry.CUSTOM_EVALUATOR
    header = next(line for line in out.splitlines() if line.startswith("score: "))
    assert header.startswith(f"score: {CUSTOM} ({registry.CUSTOM_WORDS})")


def test_score_fails_the_self_repair_run_lcb_runner_raises_for(tmp_path, capsys):
    """The fork's self-repair run: its folder's model (Qwen2.5-Ins-7B) has an LMStyle lcb_runner
    28fef95 raises for building self-repair prompts, so score says so and fails, as audit does:
    never a bare OK."""
    code, report, out = _score(SELF_REPAIR, tmp_path, capsys)
    assert report["file"]["lmstyle"] == STYLE
    raised = report["file"]["lcb_runner_raises"]
    assert f"building the self-repair prompt for LMStyle.{STYLE}" in raised
    assert code == exit_codes.DIFFERS
    assert any(failure.startswith(raised) for failure in report["failures"])
    assert "could not be checked" in next(line for line in out.splitlines() if "FAILED" in line)


@pytest.mark.upstream
@pytest.mark.parametrize("path", [p for p in EVAL_ALL if _own_eval(p)], ids=_named)
def test_each_runs_own_eval_json_is_lcb_runners_metrics_of_its_results(upstream, path):
    """The file's own _eval.json: lcb_runner's compute_metrics_from_results on its results
    gives its per-problem detail, and each graded_list is its results' all-tests-passed."""
    metrics, results, _ = _rows(_own_eval(path))
    k_list = sorted(int(k.removeprefix("pass@")) for k in metrics["detail"])
    computed = upstream_score.compute_metrics(upstream, results, k_list)
    for name, detail in metrics["detail"].items():
        assert computed["detail"][name] == pytest.approx(detail), name
    for index, row in enumerate(_rows(path)):
        tests = results[str(index)]
        assert row["graded_list"] == [all(t is True or t > 0 for t in run) for run in tests]


@pytest.mark.upstream
@pytest.mark.parametrize(
    "path", [CODE_GENERATION, REWRITTEN, SELF_REPAIR, CUSTOM], ids=_named
)
def test_score_agrees_with_lcb_runners_compute_scores(upstream, path, tmp_path, capsys):
    computed = upstream_score.compute_scores(upstream, _rows(path), None, None, None)
    _, report, _ = _score(path, tmp_path, capsys)
    # compute_scores prints a fraction; score's figures are percent
    value = 100 * computed["pass@k"]["1"]["all"]
    assert report["lcb_runner"]["value"] == pytest.approx(value, abs=0.005)


@pytest.mark.upstream
def test_audit_of_the_real_code_generation_run_re_extracts_every_sample(
    pytestconfig, upstream, tmp_path, capsys
):
    """Each sample's code against upstream's extract_code of its raw output, the LMStyle its
    folder names: the audit's verdicts are exactly upstream's agreement."""
    rows = _rows(CODE_GENERATION)
    same = sum(
        upstream.extract_as(STYLE, output) == code
        for row in rows
        for output, code in zip(row["output_list"], row["code_list"], strict=True)
    )
    total = sum(len(row["output_list"]) for row in rows)
    source = pytestconfig.getoption("--upstream")
    code, data, _ = _audit(CODE_GENERATION, tmp_path, capsys, "--upstream", source)
    assert data["lmstyle"] == STYLE
    assert data["summary"].get(run_audit.IDENTICAL, 0) == same
    assert sum(data["summary"].values()) == total
    assert data["extraction_not_checked"] == {}
    assert code == (exit_codes.OK if same == total else exit_codes.DIFFERS)


@pytest.mark.upstream
def test_audit_of_the_real_self_repair_run_compares_no_prompt_lcb_runner_cannot_build(
    pytestconfig, tmp_path, capsys
):
    """The fork's self-repair run for CodeQwenInstruct: every repaired attempt's prompt is one
    lcb_runner 28fef95 raises on (not compared, never "prompt differs"); an attempt the
    repaired run passed gets no prompt and keeps its output, compared with that run's."""
    repaired = {row["question_id"]: row for row in _rows(REPAIRED)}
    source = pytestconfig.getoption("--upstream")
    code, data, (out, _) = _audit(SELF_REPAIR, tmp_path, capsys, "--upstream", source)
    assert code == exit_codes.DIFFERS
    assert f"LMStyle.{STYLE}" in data["lcb_runner_raises"]
    failed = kept = 0
    for row in _rows(SELF_REPAIR):
        attempts = repaired[row["question_id"]]
        for index, output in enumerate(row["output_list"]):
            if attempts["graded_list"][index]:
                kept += output == attempts["output_list"][index]
            else:
                failed += 1
    assert sum(data["prompt_raised"].values()) == failed
    assert run_audit.PROMPT_DIFFERS not in "".join(data["summary"])
    prompts = [s["prompt"] for s in data["samples"]]
    assert prompts.count(run_audit.CANNOT) == failed and prompts.count(run_audit.IDENTICAL) == kept
    headline = next(line for line in out.splitlines() if line.startswith("audit: NOT CONFORMANT"))
    assert headline.endswith(f"({failed} samples' prompts not compared)")


@pytest.mark.upstream
def test_custom_evaluator_output_is_custom_evaluators_own_shape(upstream):
    """Each row is what custom_evaluator.py writes: CodeGenerationProblem.insert_output_evaluation
    (upstream's, run here) of the code given as both the outputs and the code."""
    problem = upstream.module("benchmarks.code_generation").CodeGenerationProblem
    for row in _rows(CUSTOM):
        fields = {name: row[name] for name in (
            "question_title", "question_content", "platform", "question_id", "contest_id",
            "contest_date", "starter_code", "difficulty",
        )}  # fmt: skip
        instance = problem(**fields, public_test_cases="[]", private_test_cases="[]", metadata="{}")
        written = instance.insert_output_evaluation(
            row["code_list"], row["code_list"], row["graded_list"], metadata=row["metadata"]
        )
        assert json.loads(json.dumps(written)) == row


@pytest.mark.upstream
def test_audit_reports_custom_evaluator_extraction_as_not_checkable(
    pytestconfig, tmp_path, capsys
):
    """No raw output: the extraction is "not checkable (no raw output)", never "differs"; with
    no prompt recorded either, nothing was checked: not exit 0."""
    source = pytestconfig.getoption("--upstream")
    code, data, (out, err) = _audit(
        CUSTOM, tmp_path, capsys, "--style", STYLE, "--upstream", source
    )
    assert code == exit_codes.UNUSABLE and data is None
    assert "not checkable (no raw output)" in err and "differ" not in out + err
    assert registry.CUSTOM_WORDS in out.splitlines()[0]  # the header names what the file is


@pytest.mark.upstream
def test_audit_with_the_prompts_checked_never_counts_custom_code_as_differing(
    upstream, tmp_path
):
    """Given a cache holding its prompts, the custom_evaluator output's prompts are checked and
    its extraction still only "not checkable": no sample differs."""
    path = tmp_path / CUSTOM.name
    path.write_bytes(CUSTOM.read_bytes())
    recorded = {}
    for row in _rows(CUSTOM):
        prompt = auditor.Auditor(upstream, STYLE, None, None, 0).upstream_prompt(row)
        recorded[run_audit.cache_key(prompt)] = row["output_list"]
    cache = tmp_path / "cache.json"
    cache.write_text(json.dumps(recorded), "utf-8")
    audit = run_audit.audit_run(path, upstream, STYLE, run_audit.CacheIndex.read(cache))
    assert not audit.samples_differ()
    assert {s.extraction for s in audit.samples} == {run_audit.CANNOT}
    assert {s.prompt for s in audit.samples} == {run_audit.IDENTICAL}
    assert audit.extraction_unchecked == {auditor.NO_RAW_OUTPUT: len(audit.samples)}
