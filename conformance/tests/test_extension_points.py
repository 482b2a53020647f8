"""Each kind of extension is one place (docs/layout.md, "where new work goes"): a throwaway one
is added in a temporary tree, and the case index, `lcb-conformance regen` and the case runner
pick it up with no other edit.

- A golden family is one module in suite/families/ (found by name); a function of upstream/ it
  runs is named in it and found through it.
- A style is one row of suite/styles.py's table.
- A harness log format is one module in run_formats/ (found by the registry): `score`, the
  audit's and the regrade's reader, picks it up.
- A scenario is one declaration (suite/scenarios.py). The throwaway scenario is test output
  prediction declared again under another name, registered in a fresh interpreter before
  anything reads the registry (a monkeypatched registry: the package's files are not touched).
  Its goldens, in a temporary golden tree, are copies of test output prediction's, which
  upstream wrote for the same builders on the same fixture inputs.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import types

import pytest

import lcb_conformance.suite.families
import lcb_conformance.upstream
from lcb_conformance import releases
from lcb_conformance.adapters import implementation
from lcb_conformance.common import exit_codes, paths
from lcb_conformance.runner import run
from lcb_conformance.runner.results import IDENTICAL
from lcb_conformance.suite import cases, families, goldens, index, scenarios
from lcb_conformance.upstream import producers, regen

# The suite checking itself, not the implementation.
pytestmark = pytest.mark.selftest


class FakeUpstream:
    """Stands in for lcb_runner (upstream.Upstream) where regeneration reaches it."""

    checkout = None

    def __init__(self, source: str):
        self.source = source

    def is_pinned(self) -> bool:
        return True

    def check_importable(self) -> None:  # nothing to import: the fake is all of it
        pass

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
    tmp_path, monkeypatch, golden_copy, fresh_caches
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

    record_file = tmp_path / "regen-record.json"
    assert regen.main(["--upstream", "fake", "--json", str(record_file)]) == exit_codes.OK
    record = json.loads(record_file.read_text("utf-8"))
    produced = [g for g in record["goldens"] if g["outcome"] != regen.REMOVED]  # the others'
    assert [(golden["id"], golden["outcome"]) for golden in produced] == [
        (str(key), regen.NEW) for key in keys
    ]
    for key in keys:
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

    def is_pinned(self):
        return True

    def check_importable(self):
        pass

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
record_file = copy.parent / "regen-record.json"
exit_code = regen.main(["--upstream", "fake", "--json", str(record_file)])
record = json.loads(record_file.read_text("utf-8"))
new = [case for case in index.held_cases() if case["cell"][0] == "throwaway"]
adapter = types.SimpleNamespace(format_lcb_prompt=format_lcb_prompt, extract_code=extract_code)
selection = run.Selection(contract=False, ids=frozenset(case["id"] for case in new))
results = run.run(implementation.wrap("throwaway-adapter", adapter), selection)
print(json.dumps({
    "regen": exit_code,
    "outcomes": {golden["id"]: golden["outcome"] for golden in record["goldens"]},
    "case_index": record["case_index"]["outcome"],
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
    outcomes = found["outcomes"]
    assert {golden for golden, outcome in outcomes.items() if outcome == regen.NEW} == (
        expected | after_think
    )
    # nothing else changes: every other golden is what the fake gives, the index gains the cases
    assert not {regen.CHANGED, regen.FAILED} & set(outcomes.values())
    assert found["case_index"] == regen.CHANGED
    assert found["results"] == dict.fromkeys(found["cases"], IDENTICAL)


THROWAWAY_SCENARIO = "throwaway-scenario"

# Run in a child interpreter: argv[1] the temporary golden tree, argv[2] an upstream source
# ("" for none). Prints what the case index, regeneration and the runner made of it.
SCENARIO_SCRIPT = textwrap.dedent(
    """
    import dataclasses, json, shutil, sys
    from pathlib import Path

    from lcb_conformance.suite import scenarios

    declared = dataclasses.replace(
        scenarios.TEST_OUTPUT, name=sys.argv[3], lcb_runner="throwaway", run_format=None
    )
    scenarios.SCENARIOS[declared.name] = declared  # the one addition

    from lcb_conformance.run_formats import lcb_runner_files
    from lcb_conformance.runner import run as runner
    from lcb_conformance.suite import families, goldens, index
    from lcb_conformance.suite.goldens import GoldenKey

    tree = Path(sys.argv[1])
    shutil.copytree(goldens.GOLDENS_DIR / scenarios.TEST_OUTPUT.name, tree / declared.name)
    goldens.GOLDENS_DIR = tree
    # what regen writes beside the goldens: the case index of every expected key
    index.index_file().write_text(index.render(index.build()), "utf-8")

    own = set(declared.families)
    cases = runner.golden_cases(runner.Selection(families=frozenset(own)))
    case_runner = runner.Runner(runner.Spec().load())  # the reference lcb_prompts
    in_process = [case_runner.golden(c) for c in cases if not families.get(c["family"]).sandboxed]
    sandboxed = case_runner.sandboxed(
        [c for c in cases if families.get(c["family"]).sandboxed]
    )
    produced = {}
    if sys.argv[2]:
        from lcb_conformance.upstream import Upstream
        from lcb_conformance.upstream.producers import Producer

        produce = Producer(Upstream(sys.argv[2]))
        for key in families.expected_keys():
            # an LMStyle every lcb_runner has; no scorer (the stand-in's scores differently)
            on_openai = key.group.rpartition("/")[2] == "OpenAIChat"
            if key.family in own and key.family.endswith(("/prompt", "/extract")) and on_openai:
                kind = key.family.rpartition("/")[2]
                original = GoldenKey(f"{scenarios.TEST_OUTPUT.name}/{kind}", key.group, key.case)
                produced[str(key)] = produce(key) == produce(original)
    print(json.dumps({
        "regen_families": [name for name in families.registry() if name in own],
        "regen_keys": sum(1 for key in families.expected_keys() if key.family in own),
        "index": [c for c in index.read()["cases"] if c["family"] in own],
        "results": {r.id: r.status for r in in_process + sandboxed},
        "file_name": lcb_runner_files.parse("Scenario.throwaway_3_0.2.json").scenario,
        "produced_equal": produced,
    }))
    """
)


def _with_throwaway_scenario(tmp_path, upstream_source: str = "") -> dict:
    done = subprocess.run(
        [sys.executable, "-c", SCENARIO_SCRIPT, str(tmp_path), upstream_source,
         THROWAWAY_SCENARIO],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_scenario_declaration_is_picked_up_by_the_index_regen_and_the_runner(tmp_path):
    found = _with_throwaway_scenario(tmp_path)
    own = [f"{THROWAWAY_SCENARIO}/{kind}" for kind in ("prompt", "extract", "score")]
    assert sorted(found["regen_families"]) == sorted(own)
    originals = scenarios.TEST_OUTPUT.families
    assert found["regen_keys"] == sum(len(families.expected_keys(f)) for f in originals)
    # the case index holds its cases: the declared lcb_prompts calls, in its own cells
    entries = found["index"]
    assert len(entries) == found["regen_keys"]
    assert {entry["family"] for entry in entries} == set(own)
    assert {entry["call"]["function"] for entry in entries} == {
        "format_test_output_prompt",
        "extract_test_output",
        "score_test_output",
    }
    assert {entry["cell"][0] for entry in entries} == {THROWAWAY_SCENARIO}
    # the runner runs every one of them (the scorer's sandboxed), the reference meeting each
    assert found["results"].keys() == {entry["id"] for entry in entries if "same_as" not in entry}
    assert set(found["results"].values()) == {"identical"}
    # lcb_runner's file names of it are read as its
    assert found["file_name"] == "throwaway"


@pytest.mark.upstream
def test_regen_produces_a_declared_scenarios_goldens_from_upstream(tmp_path, upstream):
    """Regeneration's producer reaches lcb_runner through the declaration alone: the
    throwaway's goldens are what upstream gives test output prediction's."""
    found = _with_throwaway_scenario(tmp_path, str(upstream.checkout or upstream.source))
    assert found["produced_equal"]
    assert all(found["produced_equal"].values())


THROWAWAY_FORMAT = '''
"""A throwaway log format: JSON lines of question_id, output and the harness's verdict."""

from lcb_conformance.run_formats.samples import Logged, LogError
from lcb_conformance.suite import cases

NAME = "throwaway-log"
DESCRIBED = "a throwaway log (JSON lines with throwaway_verdict)"


def detect(peek) -> bool:
    return peek.suffix == ".jsonl" and "throwaway_verdict" in peek.first


def model(path):
    return None


def samples(path):
    for number, row in cases.iter_jsonl(path, LogError):
        yield Logged(
            where=f"{path}:{number}", index=row["index"], sent=None, output=row["output"],
            scored=None, question_id=row["question_id"], passed=row["throwaway_verdict"],
        )
'''

# argv[1] the folder holding the format's module, argv[2] the run, argv[3] the report file
FORMAT_CHILD = r'''
import json, sys
from pathlib import Path

import lcb_conformance.run_formats as formats_package

formats_package.__path__.insert(0, sys.argv[1])  # the one addition: the module's folder

from lcb_conformance import cli
from lcb_conformance.run_formats import registry

code = cli.main(["score", sys.argv[2], "--allow-missing", "--json", sys.argv[3]])
detected = registry.detect(Path(sys.argv[2])).NAME
print(json.dumps({"score": code, "detected": detected, "known": registry.known()}))
'''


def test_a_log_format_module_in_a_temporary_tree_is_read_by_score(tmp_path):
    folder = tmp_path / "formats"
    folder.mkdir()
    (folder / "throwaway_log.py").write_text(THROWAWAY_FORMAT, "utf-8")
    problems = sorted(row["question_id"] for row in releases.members("release_v1"))[:3]
    verdicts = [True, False, True, True, False, False]
    lines = [
        {"question_id": qid, "index": i, "output": "print(1)", "throwaway_verdict": verdict}
        for qid, pair in zip(problems, (verdicts[0:2], verdicts[2:4], verdicts[4:6]), strict=True)
        for i, verdict in enumerate(pair)
    ]
    run = tmp_path / "run.jsonl"
    run.write_text("".join(json.dumps(line) + "\n" for line in lines), "utf-8")
    report_file = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", FORMAT_CHILD, str(folder), str(run), str(report_file)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.splitlines()[-1])
    report = json.loads(report_file.read_text("utf-8"))
    assert found["detected"] == "throwaway-log"
    assert "a throwaway log" in found["known"]
    assert report["format"] == "throwaway-log"
    assert found["score"] == report["exit_code"]
    # its own verdicts, aggregated as lcb_runner's compute_scores does (the same n everywhere)
    assert report["lcb_runner"]["question_ids"] == problems
    assert report["lcb_runner"]["value"] == 100 * verdicts.count(True) / len(verdicts)


# What the throwaway tests above add, and where: the page's "Where new work goes" must say the same.
SHOWN_HERE = {
    "a scenario of lcb_runner": "suite/scenarios.py",
    "a golden family": "suite/families/",
    "an LMStyle or style": "suite/styles.py",
    "a harness log format": "run_formats/",
}


def test_the_layout_page_names_the_one_place_each_throwaway_used():
    page = (paths.ROOT / "docs" / "layout.md").read_text("utf-8")
    section = page.split("## Where new work goes", 1)[1]
    rows = {
        cells[0]: cells[1]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| to add")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    for kind, place in SHOWN_HERE.items():
        assert f"`{place}`" in rows[kind], (kind, rows.get(kind))
    named = {p for cell in rows.values() for p in re.findall(r"`([a-z_/]+(?:\.py|/))`", cell)}
    missing = [
        p for p in named if not (paths.PACKAGE_DIR / p).exists() and not (paths.ROOT / p).exists()
    ]
    assert not missing, f"docs/layout.md names places that do not exist: {sorted(missing)}"
