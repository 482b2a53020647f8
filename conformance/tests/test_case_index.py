"""The case index (lcb_conformance.suite.index) is data a runner can trust: up to date with
the fixtures and case tables, valid against its schema, and the only source of a verdict
cell."""

from __future__ import annotations

import json

import jsonschema
import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.runner import run as runner
from lcb_conformance.suite import families, goldens, index

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest


def test_the_index_is_what_regeneration_writes_now():
    assert index.read() == json.loads(index.render(index.build())), (
        f"conformance/goldens/{index.INDEX_NAME} is stale; regenerate with "
        f"`{goldens.REGEN_COMMAND}`"
    )


def test_the_index_follows_its_schema():
    schema = json.loads(index.SCHEMA_FILE.read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(index.read())


def test_every_case_of_the_goldens_is_indexed_once():
    ids = [case["id"] for case in index.read()["cases"]]
    assert len(ids) == len(set(ids))
    assert set(ids) == {str(key) for key in families.expected_keys()}
    for case in index.read()["cases"]:
        assert (goldens.GOLDENS_DIR / case["golden"]).is_file(), case["id"]


def test_a_result_cell_is_its_cases_in_the_index():
    """The verdict's cells come from the case index, through the runner's results."""
    for case in index.held_cases(goldens.PROMPT)[:3] + index.held_cases(goldens.EXTRACT)[:3]:
        found = runner.Runner(implementation.load()).golden(case)
        assert found.cell == tuple(case["cell"]) and found.lmstyles == tuple(case["lmstyles"])


def test_a_deviation_case_points_at_its_own_golden_for_whoever_declares_it():
    deviating = [case for case in index.read()["cases"] if case.get("deviation")]
    assert deviating
    for case in deviating:
        assert case["golden"].startswith(goldens.EXTRACT_AFTER_THINK + "/"), case["id"]
        declared = goldens.key_of(index.golden_held_to(case, (case["deviation"],)))
        assert declared.family == goldens.EXTRACT_AFTER_THINK
        # an implementation that does not declare it is held to lcb_runner's own golden
        undeclared = goldens.key_of(index.golden_held_to(case, ()))
        assert str(undeclared) == case["id"] and undeclared.family == goldens.EXTRACT


def test_a_shared_golden_is_one_case_holding_the_same_call_to_the_same_bytes():
    by_id = index.by_id()
    shared = [case for case in by_id.values() if "same_as" in case]
    assert shared
    for case in shared:
        first = by_id[case["same_as"]]
        assert case["id"] in first["shared_with"] and "same_as" not in first
        assert (case["call"], case.get("transformers_line")) == (
            first["call"],
            first.get("transformers_line"),
        )
        assert goldens.read(goldens.key_of(case["golden"])) == goldens.read(
            goldens.key_of(first["golden"])
        )
        assert set(case.get("lmstyles", [])) <= set(first["lmstyles"])
