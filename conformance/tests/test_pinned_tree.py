"""What a regrade's verdict rests on, checked before it runs (issue 33): the tree given by
``--upstream PATH`` is held file by file to the pinned commit's lcb_runner
(conformance/pinned-tree.json, upstream/pinned_tree.py), not to what its .git says. A changed
testing_util.py is refused by name; graded anyway with --allow-modified-upstream, never green;
an exported tree equal to the manifest is 28fef95, its judge check not re-run."""

from __future__ import annotations

import html
import json
import subprocess
import sys
from pathlib import Path

import pytest
import regrade_inputs as inputs
import upstream_trees
from upstream_trees import TESTING_UTIL

from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import regrade
from lcb_conformance.suite import scenario_cases, scenarios
from lcb_conformance.suite.families import regrade as regrade_family
from lcb_conformance.upstream import PINNED_COMMIT, Upstream, grading, pinned_tree
from lcb_conformance.upstream.source import named

pytestmark = pytest.mark.transformers_independent  # no tokenizer touches a tree's files


def _regrade_argv(tmp_path: Path, tree: Path, *more: str) -> list[str]:
    dataset = inputs.write(tmp_path / "dataset", inputs.rows())
    return [str(inputs.LCB_RUNNER_RUN), "--dataset", str(dataset), "--not-a-release",
            "--upstream", str(tree), *more]  # fmt: skip


def _regrade_apart(argv: list[str], judge_check: bool = True) -> subprocess.CompletedProcess:
    """regrade in its own interpreter: it imports lcb_runner from the tree, which this process
    may already hold from another path. ``judge_check=False``: check_judge agrees (it is
    test_grading's; these tests are about what rests on it)."""
    patch = "" if judge_check else "grading.check_judge = lambda upstream, workers=1: []; "
    argv = argv if judge_check else [*argv, "--no-judge-cache"]  # check_judge, not the cache's
    script = (
        "import sys; from lcb_conformance import cli; from lcb_conformance.upstream import "
        f"grading; {patch}sys.exit(cli.main(['regrade', *sys.argv[1:]]))"
    )
    return subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=600
    )


@pytest.mark.selftest
def test_blob_ids_are_gits(tmp_path):
    for content in (b"", b"print(1)\n", "ü\r\n".encode() * 1000):
        (tmp_path / "f").write_bytes(content)
        hashed = subprocess.run(
            ["git", "hash-object", str(tmp_path / "f")], capture_output=True, text=True, check=True
        ).stdout.strip()
        assert pinned_tree.blob_sha1(content) == hashed


@pytest.mark.selftest
def test_the_manifest_says_how_it_was_made():
    recorded = pinned_tree.manifest()
    assert recorded["commit"] == PINNED_COMMIT
    assert recorded["how"] == pinned_tree.HOW
    assert recorded["made_by"] == f"git ls-tree -r {PINNED_COMMIT} lcb_runner"
    assert "lcb_runner/evaluation/testing_util.py" in recorded["files"]
    assert all(len(blob) == 40 for blob in recorded["files"].values())


@pytest.mark.upstream
def test_the_manifest_is_the_pinned_commits_tree(pinned_clone):
    assert pinned_tree.ls_tree(pinned_clone, PINNED_COMMIT) == pinned_tree.manifest()["files"]


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, "utf-8")
    return root


@pytest.mark.selftest
def test_a_tree_is_held_to_the_manifest_file_by_file(tmp_path, monkeypatch):
    tree = _tree(tmp_path, {"lcb_runner/prompts/a.py": "a", "lcb_runner/b.py": "b",
                            "lcb_runner/one_shot.json": "{}"})  # fmt: skip
    pinned = {"commit": PINNED_COMMIT, "files": pinned_tree.files_of(tree)}
    monkeypatch.setattr(pinned_tree, "manifest", lambda: pinned)
    assert pinned_tree.compare(tree).equal_to == PINNED_COMMIT
    _tree(tree, {"lcb_runner/__pycache__/b.cpython-311.pyc": "x", "lcb_runner/notes.txt": "x"})
    unchanged = pinned_tree.compare(tree)
    assert unchanged.changes == ()  # bytecode caches, data nothing imports
    # what a results file's reader re-derives "no change" from (pinned_tree.disagreement)
    assert unchanged.sha256 == pinned_tree.pinned_digest()
    (tree / "lcb_runner/b.py").write_text("b2", "utf-8")
    (tree / "lcb_runner/one_shot.json").unlink()
    _tree(tree, {"lcb_runner/prompts/sitecustomize.py": ""})
    found = pinned_tree.compare(tree)
    assert found.changes == (
        "changed lcb_runner/b.py", "missing lcb_runner/one_shot.json",
        "extra lcb_runner/prompts/sitecustomize.py",
    )  # fmt: skip
    assert found.equal_to is None
    recorded = {"sha256": found.sha256, "equal_to": None, "changes": list(found.changes)}
    assert pinned_tree.disagreement(recorded) == ""
    said = pinned_tree.disagreement({**recorded, "changes": [], "equal_to": PINNED_COMMIT})
    assert said.startswith("lcb_runner tree's changes [] and equal_to ")
    assert said.endswith(f"is not the digest of {PINNED_COMMIT[:7]}'s files")


@pytest.mark.selftest
def test_a_module_at_the_trees_root_is_held_as_lcb_runners_own(tmp_path, monkeypatch):
    """The root goes on sys.path first: a module or package there shadows what lcb_runner
    imports (numpy, tqdm), so lcb_runner's files alone do not make a tree 28fef95's."""
    tree = _tree(tmp_path, {"lcb_runner/b.py": "b", "README.md": "", "output/x.json": "{}",
                            "assets/logo.txt": ""})  # fmt: skip
    pinned = {"commit": PINNED_COMMIT, "files": pinned_tree.files_of(tree)}
    monkeypatch.setattr(pinned_tree, "manifest", lambda: pinned)
    clean = pinned_tree.compare(tree)
    assert clean.equal_to == PINNED_COMMIT  # data and namespace folders yield to packages
    _tree(tree, {"numpy.py": "", "tqdm/__init__.py": ""})
    (tree / "_judge.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    found = pinned_tree.compare(tree)
    assert found.changes == (
        "importable beside lcb_runner: _judge.cpython-311-x86_64-linux-gnu.so",
        "importable beside lcb_runner: numpy.py",
        "importable beside lcb_runner: tqdm/__init__.py",
    )  # fmt: skip
    assert found.equal_to is None and found.sha256 != clean.sha256  # the judge cache's key


@pytest.mark.upstream
def test_an_appended_testing_util_is_refused_naming_it(pinned_clone, tmp_path, capsys):
    """A copy of the clone whose .git still says 28fef95; its judge would pass the judge check."""
    tree = upstream_trees.forge(upstream_trees.checkout_copy(pinned_clone, tmp_path / "lcb"))
    assert regrade.main(_regrade_argv(tmp_path, tree)) == exit_codes.UNUSABLE
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert f"changed {TESTING_UTIL}" in err
    assert "--allow-modified-upstream" in err


@pytest.mark.upstream
def test_a_modified_tree_graded_anyway_is_never_green_and_says_so(pinned_clone, tmp_path):
    tree = upstream_trees.forge(upstream_trees.exported(pinned_clone, tmp_path / "lcb"))
    report = tmp_path / "report.json"
    argv = _regrade_argv(tmp_path, tree, "--allow-modified-upstream", "--json", str(report),
                         "--html", str(tmp_path / "report.html"))  # fmt: skip
    done = _regrade_apart(argv, judge_check=False)
    assert done.returncode == exit_codes.INCOMPLETE, done.stdout + done.stderr
    said = (
        f"MODIFIED lcb_runner tree at {tree}, no git metadata, not 28fef95's: changed "
        f"{TESTING_UTIL}"
    )
    assert said in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("INCOMPLETE:")
    assert "--allow-modified-upstream" in done.stdout.strip().splitlines()[-1]
    written = json.loads(report.read_text("utf-8"))
    assert written["upstream_modified"] == [f"changed {TESTING_UTIL}"]
    assert written["exit_code"] == exit_codes.INCOMPLETE
    assert html.escape(said) in (tmp_path / "report.html").read_text("utf-8")


@pytest.mark.upstream
def test_an_exported_tree_is_named_by_its_commit_and_not_rechecked(
    pinned_clone, tmp_path, monkeypatch
):
    """regrade on a tree without .git (git archive) names it by its files, in its results
    header and in the console line made from it (it printed "LiveCodeBench checkout at None")."""
    tree = upstream_trees.exported(pinned_clone, tmp_path / "lcb")
    done = _regrade_apart(_regrade_argv(tmp_path, tree, "--json", str(tmp_path / "r.json")))
    assert done.returncode == exit_codes.OK, done.stdout + done.stderr
    [said] = [line for line in done.stdout.splitlines() if line.startswith("upstream: ")]
    assert said == f"upstream: lcb_runner tree equal to 28fef95 ({tree}, no git metadata)"
    recorded = json.loads((tmp_path / "r.json").read_text("utf-8"))["header"]["upstream"]
    assert recorded["path"] == str(tree) and recorded["commit"] is None  # no .git: git says nothing
    assert recorded["tree"]["equal_to"] == PINNED_COMMIT and recorded["tree"]["changes"] == []
    assert said == f"upstream: {named(recorded)}"
    exported = Upstream(str(tree))
    assert exported.provenance()["tree"] == recorded["tree"]
    assert exported.describe_source() == named(recorded)
    checked = []
    monkeypatch.setattr(grading, "check_judge", lambda upstream: checked.append(upstream) or [])
    for _ in range(2):
        assert regrade.judge_differences(Upstream(str(tree)), False) == ([], None)
    assert checked == []  # its files are 28fef95's: the judge goldens' own judge


@pytest.mark.upstream
def test_a_scenario_regrade_holds_its_tree_as_the_judges(pinned_clone, tmp_path):
    """Test output prediction is scored, not judged, by the tree's code: held to it too."""
    tree = upstream_trees.forge(upstream_trees.exported(pinned_clone, tmp_path / "lcb"))
    key = regrade_family.scenario_key_of("lcb_runner/test-output", cot=False)
    run = regrade_family.scenario_runs()[key]
    (path,) = (inputs.AUDIT / run["run"] / "output").glob(
        "*/" + run["file"].replace(".json", "_eval_all.json")
    )
    rows = scenario_cases.fixture_file(scenarios.SCENARIOS[run["scenario"]].inputs)
    argv = [str(path), "--dataset", str(rows), "--not-a-release", "--upstream", str(tree)]
    refused = _regrade_apart(argv)
    assert refused.returncode == exit_codes.UNUSABLE, refused.stdout + refused.stderr
    assert f"changed {TESTING_UTIL}" in refused.stderr
    allowed = _regrade_apart([*argv, "--allow-modified-upstream"])
    assert allowed.returncode == exit_codes.INCOMPLETE, allowed.stdout + allowed.stderr
    assert "upstream: MODIFIED lcb_runner tree" in allowed.stdout
    assert "INCOMPLETE: scored by a MODIFIED lcb_runner" in allowed.stdout
