"""Closest official style (lcb_conformance.reports.closest): which lcb_runner LMStyle an
implementation's answers equal, or come closest to, worked out from a run's results."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.reports import closest
from lcb_conformance.runner.results import DIFFERS, IDENTICAL, UPSTREAM, CaseResult
from lcb_conformance.suite import cases, goldens, index

FAMILIES = (goldens.PROMPT, goldens.MESSAGES, goldens.EXTRACT)


def result(case: dict, status: str = IDENTICAL, actual=None) -> CaseResult:
    """The result a run gives a case: identical (its golden), or differing with ``actual``."""
    return CaseResult(
        case["id"], UPSTREAM, case["family"], case["call"]["function"], tuple(case["cell"]),
        status, golden=case["golden"], actual=actual,
    )  # fmt: skip


def held(family: str, style: str) -> list[dict]:
    return [
        case
        for case in index.held_cases(family)
        if case["call"]["args"].get("style", "generic") == style
        and not case["call"]["args"].get("chat_template")
    ]


def found_for(results, function, style) -> closest.Closest:
    (item,) = [
        c for c in closest.closest_official(results) if (c.function, c.style) == (function, style)
    ]
    return item


@pytest.fixture(scope="module")
def reference_results() -> list[CaseResult]:
    """A run in which every prompt, message and extraction case passed."""
    return [result(case) for family in FAMILIES for case in index.held_cases(family)]


@pytest.mark.parametrize("variant", [v for v in cases.PROMPT_VARIANTS if not v.chat_template])
def test_a_passing_prompt_style_is_identical_to_its_own_lmstyle(reference_results, variant):
    found = found_for(reference_results, closest.PROMPT, variant.style)
    assert variant.lmstyle in found.identical_to
    assert found.inputs == len(cases.problems())


@pytest.mark.parametrize("style, lmstyle", list(cases.EXTRACTION_LMSTYLES.items()))
def test_a_passing_extraction_style_is_identical_to_its_own_lmstyle(
    reference_results, style, lmstyle
):
    found = found_for(reference_results, closest.EXTRACT, style)
    assert lmstyle in found.identical_to


def test_genericbase_extraction_is_told_apart_from_the_fenced_styles(reference_results):
    assert found_for(reference_results, closest.EXTRACT, "genericbase").identical_to == (
        "GenericBase",
    )
    generic = found_for(reference_results, closest.EXTRACT, "generic")
    assert "GenericBase" not in generic.identical_to


def test_messages_of_another_lmstyle_are_named_as_that_lmstyle():
    """A chat harness asked for the generic [system, user] messages that sends
    OpenAIReasonPreview's one user message instead."""
    results = []
    for case in held(goldens.MESSAGES, "generic"):
        item = goldens.key_of(case["golden"]).case
        sent = goldens.read(goldens.GoldenKey(goldens.MESSAGES, "OpenAIReasonPreview", item))
        results.append(result(case, DIFFERS, sent))
    found = found_for(results, closest.MESSAGES, "generic")
    assert found.identical_to == ("Grok", "OpenAIReasonPreview")
    assert "identical to Grok, OpenAIReasonPreview" in found.sentence()


def test_a_near_miss_names_the_closest_lmstyle_and_its_first_difference():
    """One word dropped from the generic prompt's format sentence on the starter-code
    problems: closest to the generic LMStyles, equal on the stdin problems only."""
    results, changed = [], set()
    for case in held(goldens.PROMPT, "generic"):
        golden = goldens.read(goldens.key_of(case["golden"]))
        edited = golden.replace(
            "You will use the following starter code", "You use the following starter code"
        )
        if edited != golden:
            changed.add(goldens.key_of(case["golden"]).case)
        results.append(result(case, DIFFERS, edited))
    assert changed
    found = found_for(results, closest.PROMPT, "generic")
    assert found.identical_to == ()
    assert "OpenAIReasonPreview" in found.closest and "OpenAIChat" in found.closest
    assert found.equal_inputs == len(cases.problems()) - len(changed)
    item, _, words = found.first_difference.partition(": ")
    assert item == min(changed)
    assert "You will use" in words and "You use" in words


def test_the_json_report_carries_the_closest_styles(reference_results):
    data = closest.to_json(reference_results)
    assert json.loads(json.dumps(data)) == data
    assert {"function", "style", "identical_to", "closest", "sentence", "summary"} <= data[0].keys()
