"""The three questions a run answers (lcb_conformance.reports.verdict): identical to lcb_runner
on its own goldens; identical except the declared deviations; the API contract apart. Counts
are over the cases that ran, and each difference has a severity."""

from __future__ import annotations

import json

from lcb_conformance.reports import report, verdict
from lcb_conformance.suite import families, goldens, index, showdiff

CONFORMANCE = "conformance/tests/test_conformance.py"
BAD_INPUT = "conformance/tests/test_bad_input.py::test_rejects_a_row_without_content[generic]"


def think_case() -> dict:
    return next(case for case in index.held_cases(goldens.EXTRACT) if case.get("deviation"))


def nodeid(test: str, case: dict) -> str:
    return f"{CONFORMANCE}::{test}[{case['id']}]"


def prompt_cases() -> list[dict]:
    return index.held_cases(goldens.PROMPT)[:2]


def run_of(results, deviations=()) -> verdict.Run:
    impl = {"name": "peer", "deviations": list(deviations)}
    return verdict.Run(
        impl=impl,
        results=[verdict.CaseResult(*result, deviations=tuple(deviations)) for result in results],
        pytest_exit_code=1 if any(r[1] == verdict.FAILED for r in results) else 0,
    )


def test_lcb_runners_own_extraction_of_a_think_case_is_identical_to_lcb_runner():
    """A peer that does not declare the think deviation is held to lcb_runner's golden."""
    run = run_of([(nodeid("test_extract_code", think_case()), verdict.PASSED)])
    assert run.results[0].key == families.key_of(think_case()["id"])
    tiers = run.tiers()
    assert tiers["upstream"] | {"question": None} == {
        "question": None,
        "identical": True,
        "run": 1,
        "identical_cases": 1,
        "differing": 0,
        "differing_by_declared_deviations": 0,
    }
    assert run.headline().startswith("peer: identical to lcb_runner on every case it provides")


def test_a_declared_deviation_differs_from_lcb_runner_but_passes_the_second_tier():
    results = [
        (nodeid("test_extract_code", think_case()), verdict.PASSED),
        (nodeid("test_prompt", prompt_cases()[0]), verdict.PASSED),
    ]
    run = run_of(results, deviations=("think",))
    assert run.results[0].key.family == goldens.EXTRACT_AFTER_THINK
    tiers = run.tiers()
    assert not tiers["upstream"]["identical"]
    assert tiers["upstream"]["differing"] == tiers["upstream"]["differing_by_declared_deviations"]
    assert tiers["upstream"]["identical_cases"] == 1
    assert tiers["declared_deviations"]["identical"]
    assert tiers["declared_deviations"]["deviations"] == ["think"]
    headline = run.headline()
    assert "NOT identical to lcb_runner: 1 of 2 cases differ, all by its declared deviations" in (
        headline
    )
    assert "identical except its declared deviations (think): yes, 2 of 2 golden cases" in headline
    assert run.exit_code() == 0


def test_the_api_contract_is_apart_and_never_counts_as_incomparability():
    results = [
        (nodeid("test_prompt", prompt_cases()[0]), verdict.PASSED),
        (BAD_INPUT, verdict.FAILED, "KeyError: 'private_test_cases'"),
    ]
    run = run_of(results)
    tiers = run.tiers()
    assert tiers["upstream"]["identical"] and tiers["declared_deviations"]["identical"]
    assert tiers["api_contract"] | {"question": None} == {
        "question": None,
        "run": 1,
        "passed": 0,
        "failed": 1,
    }
    assert run.headline() == (
        "peer: identical to lcb_runner on every case it provides (1 cases with lcb_runner's "
        "goldens); identical except its declared deviations (none declared): yes, 1 of 1 golden "
        "cases; API contract and other checks (apart): 1 of 1 failed"
    )
    assert run.exit_code() == 1  # a gate still fails on it, as before


def test_denominators_leave_out_cases_not_provided(tmp_path):
    first, second = prompt_cases()
    results = [
        (nodeid("test_prompt", first), verdict.PASSED),
        (nodeid("test_prompt", second), verdict.NOT_PROVIDED_OUTCOME, "peer does not provide"),
    ]
    run = run_of(results)
    assert run.tiers()["upstream"]["run"] == 1
    report.write_json(run, tmp_path / "r.json")
    cell = json.loads((tmp_path / "r.json").read_text("utf-8"))["cells"][0]
    assert (cell["cases"], cell["run"], cell["passed"], cell["not_provided"]) == (2, 1, 1, 1)
    report.write_html(run, tmp_path / "r.html")
    assert ">1/1</td>" in (tmp_path / "r.html").read_text("utf-8")


def test_each_difference_has_a_severity(tmp_path):
    first, second = prompt_cases()
    golden = goldens.read(families.key_of(first["id"]))
    results = [
        (nodeid("test_prompt", first), verdict.FAILED, "", golden + "\n"),
        (nodeid("test_prompt", second), verdict.FAILED, "", "another prompt"),
    ]
    report.write_json(run_of(results), tmp_path / "r.json")
    failures = json.loads((tmp_path / "r.json").read_text("utf-8"))["failures"]
    by_case = {failure["case"]: failure for failure in failures}
    trailing = by_case[first["id"]]
    assert (trailing["severity"], trailing["where"], trailing["tier"]) == (
        showdiff.WHITESPACE_ONLY,
        ["trailing"],
        "upstream",
    )
    assert golden.endswith("Assistant:")  # the golden has no trailing whitespace
    assert trailing["detail"] == "trailing whitespace: golden '', actual '\\n'"
    assert by_case[second["id"]]["severity"] == showdiff.CONTENT


def test_severity_names_where_whitespace_differs():
    assert showdiff.severity(" a\n", "a\n")["where"] == ["leading"]
    assert showdiff.severity("a b", "a  b") == {
        "severity": showdiff.WHITESPACE_ONLY,
        "where": ["interior"],
        "detail": "interior whitespace differs at offset 2 of the stripped texts",
    }
    assert showdiff.severity("a", None) == {"severity": showdiff.NO_TEXT}
