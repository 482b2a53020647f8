"""The case index (lcb_conformance.suite.index) is data a runner can trust: up to date with
the fixtures and case tables, valid against its schema, and the only source of a verdict
cell."""

from __future__ import annotations

import json

import jsonschema
import pytest

from lcb_conformance.reports import verdict
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


def test_a_renamed_test_function_changes_no_cell():
    case = index.held_cases(goldens.PROMPT)[0]
    original = verdict.classify(f"conformance/tests/test_conformance.py::test_prompt[{case['id']}]")
    renamed = verdict.classify(f"conformance/tests/test_other.py::test_anything[{case['id']}]")
    assert renamed == original
    assert original[0] == verdict.Cell(*case["cell"])


def test_a_deviation_case_points_at_its_own_golden_for_whoever_declares_it():
    deviating = [case for case in index.read()["cases"] if case.get("deviation")]
    assert deviating
    for case in deviating:
        assert case["golden"].startswith(goldens.EXTRACT_AFTER_THINK + "/"), case["id"]
        nodeid = f"t.py::test_extract_code[{case['id']}]"
        _, declared = verdict.classify(nodeid, (case["deviation"],))
        assert declared.family == goldens.EXTRACT_AFTER_THINK
        # an implementation that does not declare it is held to lcb_runner's own golden
        _, undeclared = verdict.classify(nodeid)
        assert str(undeclared) == case["id"] and undeclared.family == goldens.EXTRACT
