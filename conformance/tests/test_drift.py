"""Drift verdicts (lcb_conformance.upstream.drift): a changed prompt is red; a changed model
list, or a style an older upstream lacks, is told apart and named, never a false red or a
silent pass."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import UpstreamMissing, drift

# The suite checking its own tooling, not the implementation: tox -e upstream runs it.
pytestmark = pytest.mark.selftest

PROMPT = GoldenKey(goldens.PROMPT, "deepseek", next(iter(cases.problems())))
RESOLVER = GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE)
LM_STYLES = GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE)


def producing(**texts):
    """A stand-in for producers.Producer: each key's text, the golden unless overridden;
    an exception instance is raised."""

    def produce(key):
        produced = texts.get(key.family.replace("-", "_"), goldens.read(key))
        if isinstance(produced, Exception):
            raise produced
        return produced

    return produce


def without_first_model(table: str) -> str:
    lines = table.splitlines(keepends=True)
    header = next(i for i, line in enumerate(lines) if line.startswith("models ("))
    return "".join(lines[: header + 1] + lines[header + 2 :])


def test_a_reproduced_golden_is_identical():
    assert drift.judge(PROMPT, producing(), reference=False).status == drift.IDENTICAL


def test_a_changed_prompt_differs():
    verdict = drift.judge(PROMPT, producing(prompt="changed"), reference=False)
    assert verdict.status == drift.DIFFERS


def test_a_style_the_upstream_lacks_is_missing_and_says_why():
    verdict = drift.judge(PROMPT, producing(prompt=UpstreamMissing("no LMStyle.X")), False)
    assert (verdict.status, verdict.detail) == (drift.MISSING, "no LMStyle.X")


def test_a_model_list_change_is_told_apart_from_a_prompt_change():
    table = without_first_model(goldens.read(RESOLVER))
    verdict = drift.judge(RESOLVER, producing(resolver=table), reference=False)
    assert verdict.status == drift.MODEL_LIST
    assert verdict.detail.startswith("1 not listed any more (")


def test_the_reference_must_reproduce_its_own_model_list():
    table = without_first_model(goldens.read(RESOLVER))
    assert drift.judge(RESOLVER, producing(resolver=table), reference=True).status == drift.DIFFERS


def test_a_remapped_lmstyle_is_a_difference_not_a_list_change():
    table = goldens.read(RESOLVER).replace("QwQ -> qwq", "QwQ -> codeqwen", 1)
    assert drift.judge(RESOLVER, producing(resolver=table), reference=False).status == drift.DIFFERS


def test_the_lm_styles_data_counts_entries_in_and_out():
    data = json.loads(goldens.read(LM_STYLES))
    data["LanguageModelList"] = data["LanguageModelList"][2:] + [["new/model", "New", "LLaMa3"]]
    verdict = drift.judge(
        LM_STYLES, producing(lm_styles=goldens.canonical_json(data)), reference=False
    )
    assert (verdict.status, verdict.detail) == (
        drift.MODEL_LIST,
        "LanguageModelList: 2 entries not listed any more, 1 new",
    )


def test_the_overall_verdict_is_the_worst_one():
    verdicts = [drift.Verdict("a", drift.IDENTICAL), drift.Verdict("b", drift.MISSING)]
    assert drift.overall(verdicts) == drift.MISSING
    assert drift.overall([*verdicts, drift.Verdict("c", drift.MODEL_LIST)]) == drift.MODEL_LIST
    assert drift.overall([*verdicts, drift.Verdict("d", drift.DIFFERS)]) == drift.DIFFERS
    assert drift.overall(verdicts[:1]) == drift.IDENTICAL
