"""Each kind of extension is one place (docs/layout.md, "where new work goes"): a throwaway one
is added in a temporary tree, and the case index, `lcb-conformance regen` and the case runner
pick it up with no other edit.

- A golden family is one module in suite/families/ (found by name); a function of upstream/ it
  runs is named in it and found through it.
- A style is one row of suite/styles.py's table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types

import pytest

import lcb_conformance.suite.families
import lcb_conformance.upstream
from lcb_conformance.adapters import implementation
from lcb_conformance.runner import run
from lcb_conformance.runner.results import IDENTICAL
from lcb_conformance.suite import cases, exit_codes, families, goldens, index, paths
from lcb_conformance.upstream import producers, regen

# The suite checking itself, not the implementation.
pytestmark = pytest.mark.selftest


class FakeUpstream:
    """Stands in for lcb_runner (upstream.Upstream) where regeneration reaches it."""

    checkout = None

    def __init__(self, source: str):
        self.source = source

    def is_reference(self) -> bool:
        return True

    def describe_source(self) -> str:
        return "a fake lcb_runner"

    def provenance(self) -> dict:
        return {"source": "a fake lcb_runner"}


def clear_caches() -> None:
    for cached in (families.registry, families._all_expected_keys, index.by_id, index.functions):
        cached.cache_clear()
    run._cases_by_id.cache_clear()


@pytest.fixture
def fresh_caches():
    clear_caches()
    yield
    clear_caches()


# --- a golden family ---------------------------------------------------------------------------

THROWAWAY_FAMILY = '''
"""throwaway/<question_id>: a throwaway golden family (test_extension_points.py)."""

from lcb_conformance.suite import cases, index
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import GoldenKey

NAME = "throwaway"
TITLE = "throwaway_upstream.title"  # upstream/throwaway_upstream.py


def keys():
    return [GoldenKey(NAME, "", question_id) for question_id in list(cases.problems())[:3]]


def entry(key):
    return {
        "call": {
            "function": "throwaway_title",
            "args": {"row": index.fixture(cases.PROBLEMS_FILE.name, key.case)},
        },
        "cell": ["throwaway", index.NO_TOKENIZER],
        "upstream": "the row's title, as a fake lcb_runner gives it",
    }


FAMILIES = (
    Family(
        NAME,
        "throwaway",
        "upstream/throwaway_upstream.py's title",
        keys,
        lambda source, key: source.run(TITLE, source.upstream, cases.problems()[key.case]),
        entry,
        fixtures=cases.FIXTURE_VALUES,
        runs=(TITLE,),
        provenance="throwaway_upstream.provenance",
    ),
)
'''

THROWAWAY_UPSTREAM = '''
"""What the throwaway family runs of "lcb_runner" (test_extension_points.py)."""


def title(upstream, row):
    return f"{upstream.describe_source()}: {row['question_title']}"


def provenance():
    return {"made_by": "the throwaway family's upstream function"}
'''


def test_a_family_module_in_a_temporary_tree_is_indexed_regenerated_and_run(
    tmp_path, monkeypatch, golden_copy, fresh_caches, capsys
):
    family_dir, upstream_dir = tmp_path / "families", tmp_path / "upstream"
    for folder, name, text in (
        (family_dir, "throwaway.py", THROWAWAY_FAMILY),
        (upstream_dir, "throwaway_upstream.py", THROWAWAY_UPSTREAM),
    ):
        folder.mkdir()
        (folder / name).write_text(textwrap.dedent(text), "utf-8")
    # the registry reads the module's folder only, so every golden but the throwaway family's
    # is gone from the (copied) goldens: regeneration removes them
    monkeypatch.setattr(lcb_conformance.suite.families, "__path__", [str(family_dir)])
    upstream_path = [*lcb_conformance.upstream.__path__, str(upstream_dir)]
    monkeypatch.setattr(lcb_conformance.upstream, "__path__", upstream_path)
    monkeypatch.setattr(regen, "Upstream", FakeUpstream)
    for module in ("throwaway", "throwaway_upstream"):
        for package in ("suite.families", "upstream"):
            monkeypatch.delitem(sys.modules, f"lcb_conformance.{package}.{module}", raising=False)

    keys = families.expected_keys()
    assert [key.family for key in keys] == ["throwaway"] * 3
    assert families.upstream_functions() == {
        "throwaway_upstream.title",
        "throwaway_upstream.provenance",
    }

    assert regen.main(["--upstream", "fake"]) == exit_codes.OK
    printed = capsys.readouterr().out
    for key in keys:
        assert f"NEW     {key}\n" in printed
        assert goldens.read(key).startswith("a fake lcb_runner: ")
    assert goldens.provenance()["throwaway_upstream"] == {
        "made_by": "the throwaway family's upstream function"
    }
    assert [case["id"] for case in index.held_cases()] == [str(key) for key in keys]
    assert index.by_id()[str(keys[0])]["call"]["function"] == "throwaway_title"

    adapter = types.SimpleNamespace(
        throwaway_title=lambda row: f"a fake lcb_runner: {row['question_title']}"
    )
    impl = implementation.wrap("throwaway-adapter", adapter)
    results = list(run.run(impl, run.Selection(contract=False)))
    assert [(result.id, result.status) for result in results] == [
        (str(key), IDENTICAL) for key in keys
    ]


def test_every_upstream_function_a_family_names_exists():
    for name in families.upstream_functions():
        assert callable(producers.upstream_function(name)), name


def test_an_upstream_function_a_family_misnames_is_a_clear_error():
    with pytest.raises(LookupError, match="has no module 'no_such_module'"):
        producers.upstream_function("no_such_module.run")
    with pytest.raises(LookupError, match="lcb_conformance.upstream.judge has no 'no_such'"):
        producers.upstream_function("judge.no_such")


# --- a style -----------------------------------------------------------------------------------

THROWAWAY_ROW = (
    '    "Throwaway": _raw("throwaway", "a throwaway prompt string", "test_extension_points.py"),\n'
)
ROWS_END = '    "GenericOAIServer": StyleMapping(\n'

# Run in a child: the style table is read when the suite is imported. The child loads the
# temporary tree's styles.py in place of the suite's, keeps the families a string style has
# goldens in (prompt, extract), regenerates them from a fake lcb_runner that answers the
# throwaway LMStyle and gives every other key its golden, and runs the new cases.
STYLE_CHILD = r'''
import importlib.util, json, sys, types
from pathlib import Path

styles_file, goldens_copy = sys.argv[1:3]
spec = importlib.util.spec_from_file_location("lcb_conformance.suite.styles", styles_file)
table = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = table
spec.loader.exec_module(table)

import lcb_conformance.suite
lcb_conformance.suite.styles = table
from lcb_conformance.adapters import implementation
from lcb_conformance.runner import run
from lcb_conformance.suite import cases, families, goldens, index
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import regen
import lcb_prompts

copy = Path(goldens_copy)
goldens.GOLDENS_DIR = copy
goldens.MANIFEST_FILE = copy / goldens.MANIFEST_FILE.name
goldens.PROVENANCE_FILE = copy / goldens.PROVENANCE_FILE.name
every = families.registry()
kept = (goldens.PROMPT, goldens.EXTRACT, goldens.EXTRACT_AFTER_THINK)
families.registry = lambda: {name: every[name] for name in kept}

outputs = {output.output: output.id for output in cases.outputs().values()}
answers = {goldens.answer_after_think(o.output): o.id for o in cases.outputs().values()}


class FakeUpstream:
    checkout = None

    def __init__(self, source):
        self.source = source

    def is_reference(self):
        return True

    def describe_source(self):
        return "a fake lcb_runner"

    def provenance(self):
        return {}

    def prompt(self, variant, row):
        if variant.lmstyle == "Throwaway":
            return f"Throwaway's prompt of {row['question_id']}"
        return goldens.read(GoldenKey(goldens.PROMPT, variant.name, row["question_id"]))

    def extract(self, style, output):
        if style == "throwaway":
            return f"Throwaway extracts {output.strip()}"
        if output in outputs:
            return goldens.read(GoldenKey(goldens.EXTRACT, style, outputs[output]))
        return goldens.read(GoldenKey(goldens.EXTRACT_AFTER_THINK, style, answers[output]))


def format_lcb_prompt(row, tokenizer=None, chat_template=False, style="generic",
                      enable_thinking=None):
    if style == "throwaway":
        return f"Throwaway's prompt of {row['question_id']}"
    return lcb_prompts.format_lcb_prompt(row, tokenizer, chat_template, style, enable_thinking)


def extract_code(model_output, style="generic"):
    if style == "throwaway":
        return f"Throwaway extracts {model_output.strip()}"
    return lcb_prompts.extract_code(model_output, style)


regen.Upstream = FakeUpstream
exit_code = regen.main(["--upstream", "fake"])
new = [case for case in index.held_cases() if case["cell"][0] == "throwaway"]
adapter = types.SimpleNamespace(format_lcb_prompt=format_lcb_prompt, extract_code=extract_code)
selection = run.Selection(contract=False, ids=frozenset(case["id"] for case in new))
results = run.run(implementation.wrap("throwaway-adapter", adapter), selection)
print(json.dumps({
    "regen": exit_code,
    "known_styles": implementation.KNOWN_STYLES,
    "cases": {case["id"]: [case["call"]["function"], case.get("lmstyles")] for case in new},
    "results": {result.id: result.status for result in results},
}))
'''


def test_a_style_row_in_a_temporary_tree_is_indexed_regenerated_and_run(tmp_path, golden_copy):
    table = (paths.PACKAGE_DIR / "suite" / "styles.py").read_text("utf-8")
    assert table.count(ROWS_END) == 1
    styles_file = tmp_path / "styles.py"
    styles_file.write_text(table.replace(ROWS_END, THROWAWAY_ROW + ROWS_END), "utf-8")
    done = subprocess.run(
        [sys.executable, "-c", STYLE_CHILD, str(styles_file), str(golden_copy)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    *printed, last = done.stdout.splitlines()
    found = json.loads(last)
    assert found["regen"] == exit_codes.OK, "\n".join(printed[-20:])
    assert "throwaway" in found["known_styles"]
    problems, outputs = len(cases.problems()), len(cases.outputs())
    expected = {f"prompt/throwaway/{question_id}" for question_id in cases.problems()} | {
        f"extract/throwaway/{output}" for output in cases.outputs()
    }
    assert set(found["cases"]) == expected and len(expected) == problems + outputs
    assert {(function, *lmstyles) for function, lmstyles in found["cases"].values()} == {
        ("format_lcb_prompt", "Throwaway"),
        ("extract_code", "Throwaway"),
    }
    after_think = {  # the think deviation's goldens (suite/families/extract.py)
        f"extract-after-think/throwaway/{output.id}"
        for output in cases.outputs().values()
        if goldens.THINK_CLOSE in output.output
    }
    new = sorted(line for line in printed if line.startswith("NEW "))
    assert new == sorted(f"NEW     {golden}" for golden in expected | after_think)
    # nothing else changes: every other golden is what the fake gives, the index gains the cases
    changed = [line for line in printed if line.startswith(("CHANGED", "FAILED"))]
    assert changed == [f"CHANGED {index.INDEX_NAME} (the case index)"]
    assert found["results"] == dict.fromkeys(found["cases"], IDENTICAL)
