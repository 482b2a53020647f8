"""Every lcb_runner output file recognised for what it is, by one module (run_formats.registry),
and refused by audit, score and regrade alike in one line naming it and what to pass instead
(exit 2): derived from the committed lcb_runner fixture runs and the public O1-Mini submission."""

from __future__ import annotations

import json
import shutil

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import regrade, score_logs
from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_formats import registry
from lcb_conformance.suite import cases

pytestmark = pytest.mark.transformers_independent  # what a file is

RUN = cases.FIXTURES_DIR / "audit" / "lcb_runner" / "openai-chat" / "output" / "GPT-4O-2024-08-06"
GENERATIONS = RUN / "Scenario.codegeneration_3_0.2.json"
EVAL = RUN / "Scenario.codegeneration_3_0.2_eval.json"
EVAL_ALL = RUN / "Scenario.codegeneration_3_0.2_eval_all.json"
O1_MINI = cases.FIXTURES_DIR / "score" / "o1-mini-2024-09-12.json"
LFS_POINTER = (
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 132689\n"
)


def _copy(source, tmp_path, name=None):
    folder = tmp_path / "output" / RUN.name
    folder.mkdir(parents=True, exist_ok=True)
    return shutil.copy(source, folder / (name or source.name))


def _custom_evaluator(tmp_path, graded: bool):
    """The eval_all as custom_evaluator writes it: the code as both output_list and code_list."""
    rows = json.loads(EVAL_ALL.read_text("utf-8"))
    for row in rows:
        row["output_list"] = list(row["code_list"])
        if not graded:
            del row["graded_list"], row["pass@1"], row["metadata"]
    name = "custom_codegeneration_output" + ("_eval_all" if graded else "") + ".json"
    path = tmp_path / "output" / RUN.name / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, indent=4), "utf-8")
    return path


@pytest.mark.parametrize(
    ("path", "kind", "graded"),
    [(GENERATIONS, registry.GENERATIONS, False), (EVAL, registry.METRICS, False),
     (EVAL_ALL, registry.EVAL_ALL, True), (O1_MINI, registry.EVAL_ALL, True)],
)  # fmt: skip
def test_lcb_runners_files_are_recognised(path, kind, graded):
    found = registry.recognise(path)
    assert (found.kind, found.graded) == (kind, graded)


def test_derived_files_are_recognised(tmp_path):
    pointer = tmp_path / "Scenario.codegeneration_10_0.2_eval_all.json"
    pointer.write_text(LFS_POINTER, "utf-8")
    assert registry.recognise(pointer).kind == registry.LFS_POINTER
    renamed_metrics = tmp_path / "metrics.json"
    shutil.copy(EVAL, renamed_metrics)
    assert registry.recognise(renamed_metrics).kind == registry.METRICS
    custom = registry.recognise(_custom_evaluator(tmp_path, graded=True))
    assert (custom.kind, custom.graded) == (registry.CUSTOM_EVALUATOR, True)


def _score(path, capsys) -> tuple[int, str]:
    code = score_logs.main([str(path)])
    return code, capsys.readouterr().err.strip()


def test_score_on_a_generations_file_points_to_its_eval_all(tmp_path, capsys):
    code, line = _score(GENERATIONS, capsys)
    assert code == exit_codes.UNUSABLE
    assert line == (
        f"score: {GENERATIONS} is lcb_runner's generations file (no graded_list): pass its "
        "Scenario.codegeneration_3_0.2_eval_all.json"
    )
    # O1-Mini's submission without graded_list: the same file kind, the same line
    rows = json.loads(O1_MINI.read_text("utf-8"))
    trimmed = tmp_path / "Scenario.codegeneration_1_0.2.json"
    for row in rows:
        del row["graded_list"], row["pass@1"]
    trimmed.write_text(json.dumps([{**r, "output_list": [], "code_list": []} for r in rows]))
    code, line = _score(trimmed, capsys)
    assert code == exit_codes.UNUSABLE and "generations file (no graded_list)" in line


def test_score_on_eval_json_says_metrics_only(capsys):
    code, line = _score(EVAL, capsys)
    assert code == exit_codes.UNUSABLE
    assert line == (
        f"score: {EVAL} is lcb_runner's _eval.json (metrics only, no sample): pass its "
        "Scenario.codegeneration_3_0.2_eval_all.json"
    )


@pytest.mark.parametrize("command", ["audit", "score", "regrade"])
def test_an_lfs_pointer_is_named_by_every_command(tmp_path, capsys, command):
    pointer = tmp_path / O1_MINI.name
    pointer.write_text(LFS_POINTER, "utf-8")
    argv = {
        "audit": lambda: run_audit.main([str(pointer), "--style", "OpenAIChat"]),
        "score": lambda: score_logs.main([str(pointer)]),
        "regrade": lambda: regrade.main([str(pointer), "--dataset", str(tmp_path)]),
    }[command]
    assert argv() == exit_codes.UNUSABLE
    out, err = capsys.readouterr()
    (line,) = err.splitlines()  # one line, on stderr
    assert "Git LFS pointer" not in out and line == (
        f"{command}: {pointer} is a Git LFS pointer, not the file: git lfs pull (in its "
        "clone), then pass the file"
    )


def test_audit_and_regrade_on_eval_json_say_metrics_only(tmp_path, capsys):
    assert run_audit.main([str(EVAL)]) == exit_codes.UNUSABLE
    assert capsys.readouterr().err.strip() == (
        f"audit: {EVAL} is lcb_runner's _eval.json (metrics only, no sample): pass its "
        "Scenario.codegeneration_3_0.2.json or Scenario.codegeneration_3_0.2_eval_all.json"
    )
    assert regrade.main([str(EVAL), "--dataset", str(tmp_path)]) == exit_codes.UNUSABLE
    assert "is lcb_runner's _eval.json (metrics only" in capsys.readouterr().err


def test_custom_evaluator_output_is_scored_and_refused_by_regrade(tmp_path, capsys):
    graded = _custom_evaluator(tmp_path, graded=True)
    report = tmp_path / "score.json"
    code = score_logs.main([str(graded), "--allow-missing", "--json", str(report)])
    assert code in (exit_codes.OK, exit_codes.DIFFERS)  # scored: a report, not refused
    assert json.loads(report.read_text("utf-8"))["lcb_runner"]["count"] == 4
    capsys.readouterr()
    assert regrade.main([str(graded), "--dataset", str(tmp_path)]) == exit_codes.UNUSABLE
    assert "custom_evaluator output" in capsys.readouterr().err
    ungraded = _custom_evaluator(tmp_path, graded=False)
    code, line = _score(ungraded, capsys)
    assert code == exit_codes.UNUSABLE
    assert line.endswith(
        "without graded_list: pass its custom_codegeneration_output_eval_all.json"
    )
