"""A failing case must say where and how it differs, with invisible characters visible."""

from __future__ import annotations

import pytest

from lcb_conformance.suite.showdiff import first_difference, report, visible

# The suite checking itself, not the implementation: tox -e upstream runs it (selftest).
pytestmark = pytest.mark.selftest


def test_visible_marks_what_the_eye_cannot_see():
    assert visible("a \tb  \r\nc\u2028\u00e9\U0001f600\\") == (
        "a \\tb··\\r\\nc\\u2028\\xe9\\U0001f600\\\\"
    )


def test_trailing_space_is_judged_on_the_whole_text_not_the_window():
    assert visible("x y", 0, 2) == "x "


def test_report_names_the_case_offset_and_both_sides():
    golden = "### Answer: (use the provided format)\n\n"
    actual = "### Answer: (use the provided format)\r\n\n"
    text = report(actual, golden, label="prompt/generic/lc_case")
    assert text.splitlines()[:4] == [
        "prompt/generic/lc_case: differs from the golden",
        "first difference at offset 37 (line 1, column 38 of the golden); "
        "lengths: golden 39, actual 40",
        "golden: ### Answer: (use the provided format)\\n\\n",
        "actual: ### Answer: (use the provided format)\\r\\n\\n",
    ]


def test_first_difference_of_a_prefix_is_its_length():
    assert first_difference("abc", "abcd") == 3
    assert first_difference("same", "same") is None
