"""The implementation under test against the goldens, through the case runner: every prompt,
message list, chat rendering, token audit and extraction byte for byte as upstream lcb_runner
produced it (plus the documented deviations).

Each test is one case of the case index (its id is the case's); the runner calls the
implementation and says what it found, and syrupy compares the same answer with the golden
file, read-only, so the two must agree. The judge family's cases are test_judge.py's.
"""

from __future__ import annotations

import pytest
from transformers_lines import golden_param

from lcb_conformance.reports.verdict import answer, mismatch_report
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.results import IDENTICAL, NOT_PROVIDED, SKIPPED
from lcb_conformance.suite import goldens

CASES = runner.Plan.of().golden


@pytest.mark.parametrize(
    "case", [golden_param(case, goldens.key_of(case["id"]), id=case["id"]) for case in CASES]
)
def test_golden_case(case, case_runner, golden):
    result = case_runner.golden(case)
    if result.status in (NOT_PROVIDED, SKIPPED):
        pytest.skip(result.reason)
    actual = answer(result)
    if actual is None:  # it raised, or returned something that is not the golden's kind
        pytest.fail(mismatch_report(result), pytrace=False)
    assert actual == golden(goldens.key_of(result.golden))
    assert result.status == IDENTICAL, f"the runner says {result.status}: {result.reason}"
    if result.deviation:
        # deviations.toml: the deviation's golden is not what lcb_runner answers
        assert not result.upstream_identical
