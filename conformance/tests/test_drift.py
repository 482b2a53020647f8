"""Drift verdicts (lcb_conformance.upstream.drift): a changed prompt is red; a changed model
list, or a style an older upstream lacks, is told apart and named, never a false red or a
silent pass."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from lcb_conformance.common import paths
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream, UpstreamMissing, UpstreamSourceError, drift

# The suite checking its own tooling, not the implementation: tox -e upstream runs it.
pytestmark = pytest.mark.selftest

PROMPT = GoldenKey(goldens.PROMPT, "deepseek", next(iter(cases.problems())))
RESOLVER = GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE)
LM_STYLES = GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE)


def producing(**texts):
    """A stand-in for producers.Producer: each key's text, the golden unless overridden;
    an exception instance is raised."""

    def produce(key):
        produced = texts.get(key.family.replace("-", "_"), goldens.read(key))
        if isinstance(produced, Exception):
            raise produced
        return produced

    return produce


def without_first_model(table: str) -> str:
    lines = table.splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if line.startswith("models ("))
    return "".join(lines[: header + 1] + lines[header + 2 :])


def test_a_reproduced_golden_is_identical():
    assert drift.judge(PROMPT, producing(), pinned=False).status == drift.IDENTICAL


def test_a_changed_prompt_differs():
    verdict = drift.judge(PROMPT, producing(prompt="changed"), pinned=False)
    assert verdict.status == drift.DIFFERS


def test_a_style_the_upstream_lacks_is_missing_and_says_why():
    verdict = drift.judge(PROMPT, producing(prompt=UpstreamMissing("no LMStyle.X")), False)
    assert (verdict.status, verdict.detail) == (drift.MISSING, "no LMStyle.X")


def test_a_model_list_change_is_told_apart_from_a_prompt_change():
    table = without_first_model(goldens.read(RESOLVER))
    verdict = drift.judge(RESOLVER, producing(resolver=table), pinned=False)
    assert verdict.status == drift.MODEL_LIST
    assert verdict.detail.startswith("1 not listed any more (")


def test_the_pinned_commit_must_reproduce_its_own_model_list():
    table = without_first_model(goldens.read(RESOLVER))
    assert drift.judge(RESOLVER, producing(resolver=table), pinned=True).status == drift.DIFFERS


def test_a_remapped_lmstyle_is_a_difference_not_a_list_change():
    table = goldens.read(RESOLVER).replace("QwQ -> qwq", "QwQ -> codeqwen", 1)
    assert drift.judge(RESOLVER, producing(resolver=table), pinned=False).status == drift.DIFFERS


def test_the_lm_styles_data_counts_entries_in_and_out():
    data = json.loads(goldens.read(LM_STYLES))
    data["LanguageModelList"] = data["LanguageModelList"][2:] + [["new/model", "New", "LLaMa3"]]
    verdict = drift.judge(
        LM_STYLES, producing(lm_styles=goldens.canonical_json(data)), pinned=False
    )
    assert (verdict.status, verdict.detail) == (
        drift.MODEL_LIST,
        "LanguageModelList: 2 entries not listed any more, 1 new",
    )


def test_the_overall_verdict_is_the_worst_one():
    verdicts = [drift.DriftVerdict("a", drift.IDENTICAL), drift.DriftVerdict("b", drift.MISSING)]
    assert drift.overall(verdicts) == drift.MISSING
    assert drift.overall([*verdicts, drift.DriftVerdict("c", drift.MODEL_LIST)]) == drift.MODEL_LIST
    assert drift.overall([*verdicts, drift.DriftVerdict("d", drift.DIFFERS)]) == drift.DIFFERS
    assert drift.overall(verdicts[:1]) == drift.IDENTICAL


# ---- an upstream that cannot be imported --------------------------------------------------


def unimportable_tree(root, lm_styles: str):
    """An lcb_runner tree whose lm_styles.py is ``lm_styles`` (as c08325e's has a syntax
    error at line 693)."""
    (root / "lcb_runner" / "prompts").mkdir(parents=True)
    (root / "lcb_runner" / "lm_styles.py").write_text(lm_styles, "utf-8")
    return root


@pytest.fixture
def fresh_lcb_runner(monkeypatch):
    """lcb_runner importable afresh in this process for one test, then as it was (a real
    --upstream checkout imported by other tests stays the one in use)."""

    def loaded():
        return [name for name in sys.modules if name.split(".")[0] == "lcb_runner"]

    for name in loaded():
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "path", list(sys.path))
    yield
    for name in loaded():
        del sys.modules[name]  # monkeypatch then puts the previous ones back


BROKEN_SYNTAX = "from enum import Enum\n\n\nclass LMStyle(Enum):\n    A = 1\n    B = (\n"
BROKEN_AT_IMPORT = "from enum import Enum\n\nSTYLES = {}\nDEFAULT = STYLES['generic']\n"


def test_a_syntax_error_upstream_is_named_by_file_and_line(tmp_path, fresh_lcb_runner):
    tree = unimportable_tree(tmp_path, BROKEN_SYNTAX)
    with pytest.raises(UpstreamSourceError) as raised:
        Upstream(str(tree)).check_importable()
    assert str(raised.value) == (
        f"cannot import upstream from LiveCodeBench checkout {tree}: "
        f"{tree / 'lcb_runner' / 'lm_styles.py'}, line 6: SyntaxError: '(' was never closed"
    )


def test_an_upstream_raising_at_import_is_named_by_its_frame(tmp_path, fresh_lcb_runner):
    tree = unimportable_tree(tmp_path, BROKEN_AT_IMPORT)
    with pytest.raises(UpstreamSourceError, match=(
        rf"{tree / 'lcb_runner' / 'lm_styles.py'}, line 4: KeyError: 'generic'$"
    )):  # fmt: skip
        Upstream(str(tree)).lm_styles()


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_an_unimportable_upstream_stops_the_drift_run_with_one_message(tmp_path, workers):
    """Not a failure per case: the run stops before its first test, exit code 2, naming the
    file and line once (with pytest-xdist too)."""
    if workers and importlib.util.find_spec("xdist") is None:
        pytest.skip("pytest-xdist is not installed (the suite extra has it)")
    tree = unimportable_tree(tmp_path / "tree", BROKEN_SYNTAX)
    run = subprocess.run(
        [
            sys.executable, "-m", "pytest", str(Path(__file__).parent / "test_upstream_drift.py"),
            f"--rootdir={paths.ROOT}", "-c", str(paths.CHECKOUT / "pyproject.toml"),
            "-p", "no:randomly", "-p", "no:cacheprovider", "-m", "upstream",
            f"--upstream={tree}", *workers,
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )  # fmt: skip
    output = run.stdout + run.stderr
    assert run.returncode == 2, output[-3000:]
    named = f"{tree / 'lcb_runner' / 'lm_styles.py'}, line 6: SyntaxError"
    assert output.count(named) == 1, output[-3000:]
    assert " passed" not in output and " failed" not in output
