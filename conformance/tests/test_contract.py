"""The implementation's own API contract (bad input, strange text, 10 MB inputs, Hypothesis
properties, mutation-testing edges) through the case runner: each test is one contract case
(lcb_conformance.runner.contract), run as `lcb-conformance run` runs it."""

from __future__ import annotations

import pytest
from transformers_lines import contract_param

from lcb_conformance.runner.contract import contract_cases
from lcb_conformance.runner.results import NOT_PROVIDED, PASSED, SKIPPED

CASES = contract_cases()


@pytest.mark.parametrize("case", [contract_param(case) for case in CASES])
def test_contract_case(case, case_runner):
    result = case_runner.contract(case)
    if result.status in (NOT_PROVIDED, SKIPPED):
        pytest.skip(result.reason)
    assert result.status == PASSED, result.reason
