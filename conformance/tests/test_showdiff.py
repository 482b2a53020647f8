"""A failing case must say where and how it differs, with invisible characters visible."""

from __future__ import annotations

import pytest

from lcb_conformance.common.showdiff import first_difference, report, visible

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


# --- chat messages: differences in words -----------------------------------------------------


def _message_golden(group: str) -> str:
    from lcb_conformance.suite import goldens

    return goldens.read(goldens.GoldenKey(goldens.MESSAGES, group, "atc_crlf_statement"))


def test_a_missing_system_message_is_named():
    import json

    from lcb_conformance.common import showdiff
    from lcb_conformance.suite import goldens

    golden = _message_golden("OpenAIChat")
    messages = json.loads(golden)
    assert messages[0]["role"] == "system"
    actual = goldens.canonical_json(messages[1:])
    assert showdiff.messages_differences(actual, golden) == ["system message missing"]


def test_a_differing_user_message_is_named_with_where():
    import json

    from lcb_conformance.common import showdiff
    from lcb_conformance.suite import goldens

    golden = _message_golden("OpenAIChat")
    messages = json.loads(golden)
    messages[-1]["content"] = messages[-1]["content"].replace("### Question", "### Problem", 1)
    (found,) = showdiff.messages_differences(goldens.canonical_json(messages), golden)
    assert found.startswith("user message differs at offset 4 (line 1, column 5): golden ")


def test_claude3s_separate_system_prompt_missing_is_named():
    import json

    from lcb_conformance.common import showdiff
    from lcb_conformance.suite import goldens

    golden = _message_golden("Claude3")
    conversation = json.loads(golden)
    assert set(conversation) == {"system", "messages"}
    actual = goldens.canonical_json(conversation["messages"])
    assert showdiff.messages_differences(actual, golden) == [
        "system prompt missing (lcb_runner sends (system, messages))"
    ]
    assert showdiff.messages_differences(golden, golden) == []
    assert showdiff.messages_differences("not json", golden) == []


def test_the_reports_say_it_first():
    import json

    from lcb_conformance.reports import verdict
    from lcb_conformance.runner import results
    from lcb_conformance.suite import goldens

    golden = _message_golden("OpenAIChat")
    actual = goldens.canonical_json(json.loads(golden)[1:])
    case = "messages/OpenAIChat/atc_crlf_statement"
    result = results.CaseResult(
        case, results.UPSTREAM, goldens.MESSAGES, "format_lcb_messages", ("generic", "messages"),
        results.DIFFERS, golden=f"{case}.json", actual=actual,
    )  # fmt: skip
    assert verdict.mismatch_report(result).split("\n")[:2] == [
        "system message missing",
        "messages/OpenAIChat/atc_crlf_statement: differs from the golden",
    ]
