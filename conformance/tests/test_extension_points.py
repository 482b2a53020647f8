"""Each kind of extension is one place (docs/layout.md, "where new work goes"): a throwaway one,
added there alone, is picked up by the case index, regeneration and the case runner with no
other edit.

A scenario is one declaration (suite/scenarios.py). The throwaway scenario is test output
prediction declared again under another name, registered in a fresh interpreter before
anything reads the registry (a monkeypatched registry: the package's files are not touched).
Its goldens, in a temporary golden tree, are copies of test output prediction's, which
upstream wrote for the same builders on the same fixture inputs.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from lcb_conformance.suite import families, scenarios

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
