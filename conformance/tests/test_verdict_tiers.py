"""The verdict read from typed results (lcb_conformance.reports.verdict), the runner run on
miniature implementations (miniatures.py): the tiers, the denominators, the exit code, the
difference kinds and groups, one case per shared golden, and a Hypothesis failure's own
falsifying example."""

from __future__ import annotations

import json
import types

import miniatures
import pytest

from lcb_conformance.adapters import implementation
from lcb_conformance.common import showdiff
from lcb_conformance.reports import report
from lcb_conformance.reports.verdict import COMPARABLE, DIFFERENT, Verdict
from lcb_conformance.runner import results
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.extraction_rule import extract_code_rule
from lcb_conformance.suite import goldens

EXTRACT = runner.Selection(families=frozenset([goldens.EXTRACT]), contract=False)


def verdict_of(adapter, selection=None, strict_contract=False, name="peer") -> Verdict:
    impl = implementation.wrap(name, adapter)
    found = list(runner.run(impl, selection))
    head = results.header(impl.describe(), len(found))
    return Verdict(results.ConformanceRun(head, found), strict_contract)


def test_lcb_runners_own_extraction_of_a_think_case_is_identical_to_lcb_runner():
    """An adapter extracting as lcb_runner does (no think deviation declared) is held to
    lcb_runner's goldens and identical on every one."""
    adapter = types.SimpleNamespace(
        extract_code=lambda model_output, style="generic": extract_code_rule(
            model_output, style, think=False
        )
    )
    found = verdict_of(adapter, EXTRACT)
    tiers = found.tiers()
    assert tiers["upstream"] | {"question": None} == {
        "question": None,
        "identical": True,
        "run": len(found.golden),
        "identical_cases": len(found.golden),
        "differing": 0,
        "differing_by_declared_deviations": 0,
    }
    assert found.headline().startswith(
        "peer: PASSED: identical to lcb_runner on every case it provides"
    )


def test_a_declared_deviation_differs_from_lcb_runner_but_passes_the_second_tier():
    found = verdict_of(miniatures.reference, EXTRACT)
    tiers = found.tiers()
    held_to_the_deviation = [r for r in found.golden if r.deviation == "think"]
    assert held_to_the_deviation and all(r.status == results.IDENTICAL for r in found.golden)
    assert all(r.golden.startswith(goldens.EXTRACT_AFTER_THINK) for r in held_to_the_deviation)
    assert not tiers["upstream"]["identical"]
    assert tiers["upstream"]["differing"] == len(held_to_the_deviation)
    assert tiers["upstream"]["differing_by_declared_deviations"] == len(held_to_the_deviation)
    assert tiers["declared_deviations"]["identical"]
    assert tiers["declared_deviations"]["deviations"] == ["think"]
    assert "cases differ, all by its declared deviations" in found.headline()
    assert found.exit_code() == COMPARABLE


def test_the_api_contract_is_apart_and_counts_only_when_asked():
    """Identical on every prompt golden, but its prompt reads private_test_cases, which the
    contract's minimal rows lack: exit 0 with the contract tier reported; 1 when strict."""
    prompts = runner.Selection(families=frozenset([goldens.PROMPT]))
    found = verdict_of(miniatures.reads_private_tests, prompts)
    tiers = found.tiers()
    assert tiers["upstream"]["identical"] and tiers["declared_deviations"]["identical"]
    assert tiers["api_contract"]["failed"] > 0 and not tiers["api_contract"]["counts_in_exit_code"]
    assert found.exit_code() == COMPARABLE
    assert f"API contract, apart: {tiers['api_contract']['failed']} of " in found.headline()
    strict = verdict_of(miniatures.reads_private_tests, prompts, strict_contract=True)
    assert strict.exit_code() == DIFFERENT
    assert any("KeyError: 'private_test_cases'" in r.reason for r in strict.contract)


def test_an_adapter_providing_only_decode_context_is_credited_with_its_cases_only(tmp_path):
    found = verdict_of(miniatures.decode_only)
    ran = [r for r in found.run.results if r.ran]
    assert ran and {r.function for r in ran} == {"decode_context"}
    assert {r.family for r in ran if r.tier != results.CONTRACT} == {goldens.REFERENCE_DECODE}
    tiers = found.tiers()
    assert tiers["upstream"]["run"] == 0  # decode_context has no upstream twin
    assert tiers["declared_deviations"]["run"] == len([r for r in found.golden if r.ran])
    report.write_json(found, tmp_path / "r.json")
    cells = json.loads((tmp_path / "r.json").read_text("utf-8"))["cells"]
    decode = next(c for c in cells if c["style"] == "decode_context")
    assert (decode["run"], decode["ok"], decode["not_provided"]) == (decode["cases"],) * 2 + (0,)
    assert all(c["run"] == 0 for c in cells if c["style"] != "decode_context")


def test_a_trailing_newline_differs_in_whitespace_only_and_is_one_group():
    found = verdict_of(miniatures.trailing_newline, EXTRACT)
    statuses = {r.status for r in found.golden}
    assert statuses == {results.WHITESPACE}  # every extraction, and nothing else
    (group,) = found.groups()
    assert group.kind == "trailing newline added" and len(group.results) == len(found.golden)
    assert group.title() == (
        f"extract: differs in whitespace only (trailing newline added), "
        f"{len(found.golden)} case(s)"
    )
    assert found.exit_code() == DIFFERENT


def test_prompt_content_differences_come_before_whitespace_ones():
    adapter = types.SimpleNamespace(
        format_lcb_messages=miniatures.one_messages_shape.format_lcb_messages,
        extract_code=miniatures.trailing_newline.extract_code,
    )
    selection = runner.Selection(
        families=frozenset([goldens.MESSAGES, goldens.EXTRACT]), contract=False
    )
    groups = verdict_of(adapter, selection).groups()
    assert groups[0].family == "messages" and groups[0].kind == showdiff.CONTENT
    assert groups[-1].kind == "trailing newline added"


def test_a_messages_shape_shared_by_several_lmstyles_is_counted_once():
    """format_lcb_messages(style="claude3") stands for Claude3 and Claude3Thinking: one case
    per problem that lists both, not two failures."""
    selection = runner.Selection(families=frozenset([goldens.MESSAGES]), contract=False)
    found = verdict_of(miniatures.one_messages_shape, selection)
    claude3 = [r for r in found.golden if r.cell == ("claude3", "messages")]
    assert len(claude3) == len({r.id.rsplit("/", 1)[1] for r in claude3})  # one per problem
    assert {r.lmstyles for r in claude3} == {("Claude3", "Claude3Thinking")}
    assert all(r.status == results.DIFFERS for r in claude3)
    generic = [r for r in found.golden if r.cell == ("generic", "messages")]
    assert {r.status for r in generic} == {results.IDENTICAL}
    assert len(generic[0].lmstyles) == 5 and len(generic[0].shared_with) == 4


def test_a_hypothesis_failure_shows_its_own_falsifying_example():
    selection = runner.Selection(families=frozenset(), contract=True)
    found = verdict_of(miniatures.strips_code, selection)
    broken = next(r for r in found.contract if r.id == "contract/property/extract-code-is-the-rule")
    assert broken.status == results.FAILED
    assert "Falsifying" in broken.reason
    # the example Hypothesis names is the one the failed assertion is about
    shown = broken.reason.splitlines()[0].removeprefix("extract_code(").split(", style=")[0]
    assert f"output={shown}," in broken.reason


@pytest.mark.parametrize(
    ("adapter", "status", "reason"),
    [
        (miniatures.not_text, results.DIFFERS, "returned list"),
        (miniatures.raises, results.ERROR, "RuntimeError: the model server is down"),
    ],  # an adapter's sys.exit ends its case child: test_adapters_held.py
    ids=["not-text", "raises"],
)
def test_what_is_not_an_answer_is_said(adapter, status, reason):
    found = verdict_of(adapter, EXTRACT)
    assert {r.status for r in found.golden} == {status}
    assert reason in found.golden[0].reason
    assert found.exit_code() == DIFFERENT


def test_an_answer_that_is_no_text_is_a_difference_of_kind_no_text():
    """None (or a list) where a string is due: a typed difference a report groups by, as
    docs/implementations.md says ("When the harness finds no code")."""
    none = implementation.wrap("none", types.SimpleNamespace(extract_code=lambda *a, **k: None))
    found = list(runner.run(none, EXTRACT))
    assert {r.status for r in found} == {results.DIFFERS}
    first = found[0]
    assert first.difference == showdiff.no_text("returned NoneType None, not a str")
    assert first.difference["kind"] == showdiff.NO_TEXT == "no text"
    run = results.ConformanceRun(results.header(none.describe(), len(found)), found)
    (group,) = Verdict(run).groups()
    assert group.title() == f"extract: differs (no text), {len(found)} case(s)"


def test_severity_names_where_whitespace_differs():
    assert showdiff.severity(" a\n", "a\n")["where"] == ["leading"]
    assert showdiff.severity("a b", "a  b") == {
        "severity": showdiff.WHITESPACE_ONLY,
        "where": ["interior"],
        "detail": "interior whitespace differs at offset 2 of the stripped texts",
    }
    assert showdiff.describe("x", "x\n")["kind"] == "trailing newline added"
    assert showdiff.describe("x\n", "x")["kind"] == "trailing newline missing"
    assert showdiff.describe("x", "y")["kind"] == showdiff.CONTENT
