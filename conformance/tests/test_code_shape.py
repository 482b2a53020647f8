"""The code stays readable in pieces: no module of the package, of lcb_prompts or of the
development package over
MAX_MODULE_LINES lines, no function over MAX_FUNCTION_LINES, and no two places that repeat each
other (the `duplicates` command, where the machine has it) outside the allow-list below."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import lcb_conformance
import lcb_conformance_dev
import lcb_prompts

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest

MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 80
TREES = {
    "conformance/lcb_conformance": Path(lcb_conformance.__file__).parent,
    "impl/lcb_prompts": Path(lcb_prompts.__file__).parent,
    "dev/lcb_conformance_dev": Path(lcb_conformance_dev.__file__).parent,
}
# how the allow-list names a tree's files: the package's and lcb_prompts' relative to their
# tree, the development package's from the checkout's root (beside the package's names)
NAMED_FROM_ROOT = ("dev/lcb_conformance_dev",)

# Pairs `duplicates` lists that stay, by their two files (relative to the tree, one file when
# both places are in it), each with why the repetition is the shape of the thing, not a copy.
ALLOWED_DUPLICATES = {
    # declarations: a golden family (suite/families/: the module's header, its Family(...)
    # entries, a renderer's JSON check), a path, a record's fields
    ("suite/families/chat_prompt.py", "suite/families/messages.py"): "family headers",
    ("suite/families/chat_prompt.py", "suite/families/prompt.py"): "family headers",
    ("suite/families/messages.py", "suite/families/prompt.py"): "family headers",
    ("suite/families/scenario_extract.py", "suite/families/scenario_prompt.py"): "headers",
    ("suite/families/judge.py", "suite/families/scenario_score.py"): "Family entries",
    ("suite/families/score.py",): "its Family entries",
    ("suite/scenarios.py",): "scenario declarations",
    ("suite/families/messages.py", "suite/families/scenario_prompt.py"): "each renderer's",
    # a run format's declaration: its scenario's rows read by lcb_runner_predictions
    ("run_formats/lcb_runner_code_execution.py", "run_formats/lcb_runner_test_output.py"): (
        "run format declarations"
    ),
    ("run_audit/audit_result.py", "run_audit/request.py"): "as_json's fields",
    ("run_audit/audit_result.py", "upstream/resolver.py"): "as_json's fields",
    ("run_audit/request.py", "upstream/resolver.py"): "as_json's fields",
    # tables of checks of one form: the contract's cases, the peers survey's predictions
    ("runner/contract.py",): "registered contract cases",
    ("dev/lcb_conformance_dev/peers_predictions.py",): "prediction checks",
    # the JSON stream frames an array's elements and an object's members alike
    ("common/json_stream.py",): "array and object readers",
    # a results file is read strictly (ASCII, no blank line, its own errors), fixtures leniently
    ("runner/results.py", "suite/cases.py"): "JSON-lines readers of different strictness",
}
PAIR = re.compile(r"^D\d+ (?P<a>\S+?):\d+-\d+ ~ (?P<b>\S+?):\d+-\d+")


def sources() -> list[tuple[str, Path]]:
    return [
        (f"{tree}/{path.relative_to(root).as_posix()}", path)
        for tree, root in TREES.items()
        for path in sorted(root.rglob("*.py"))
    ]


@pytest.mark.parametrize("name,path", sources(), ids=[name for name, _ in sources()])
def test_no_module_or_function_is_too_long(name, path):
    text = path.read_text("utf-8")
    lines = len(text.splitlines())
    assert lines <= MAX_MODULE_LINES, f"{name}: {lines} lines; split it by job"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, f"{name}: functions over {MAX_FUNCTION_LINES} lines: {long}"


def duplicate_pairs(root: Path) -> set[tuple[str, ...]]:
    """`duplicates` over a tree: each pair of places by its files (one when both are in it)."""
    found = subprocess.run(
        ["duplicates", "--repo", str(root), "--most", "200", "--seconds", "300"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    incomplete = [line for line in found.stdout.splitlines() if line.startswith("incomplete:")]
    assert not incomplete, f"duplicates did not read all of {root}: {incomplete}"
    return {
        tuple(sorted({match["a"], match["b"]}))
        for match in map(PAIR.match, found.stdout.splitlines())
        if match
    }


@pytest.mark.skipif(shutil.which("duplicates") is None, reason="no `duplicates` command here")
def test_no_duplicates_outside_the_allow_list():
    found = set()
    for tree in TREES:
        root = Path(lcb_conformance.__file__).parents[2] / tree
        if not (root.parent.parent / ".git").exists():
            pytest.skip("duplicates reads a checkout's files (git)")
        prefix = f"{tree}/" if tree in NAMED_FROM_ROOT else ""
        found |= {tuple(prefix + name for name in pair) for pair in duplicate_pairs(root)}
    assert not found - set(ALLOWED_DUPLICATES), "make one piece of code serve both places"
    assert not set(ALLOWED_DUPLICATES) - found, "drop the allow-list's pairs no longer found"
