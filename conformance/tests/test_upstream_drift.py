"""Upstream lcb_runner re-run against the goldens: any drift of a prompt, messages, extraction,
rendering or audit (a new upstream version, an edited checkout, a changed tokenizer or
transformers) fails here, naming the case. What an upstream lacks (an LMStyle, a prompt) and a
change of lcb_runner's model list alone skip, saying so (lcb_conformance.upstream.drift)."""

from __future__ import annotations

import pytest
from transformers_lines import golden_param

from lcb_conformance.suite import cases, families, goldens
from lcb_conformance.upstream import (
    CHECKOUT_HINT,
    PINNED_COMMIT,
    Upstream,
    UpstreamMissing,
    UpstreamSourceError,
    drift,
)
from lcb_conformance.upstream.producers import Producer

pytestmark = pytest.mark.upstream


@pytest.fixture(scope="module")
def produce(upstream):
    return Producer(upstream)


@pytest.mark.parametrize(
    "key",
    [
        golden_param(key, key)
        for family in families.upstream_families()
        for key in families.expected_keys(family)
        if families.in_this_environment(key)  # audits are checked by their own line's env
        # token ids need the real vocabularies: test_token_ids.py (tox -e realvocab)
        and key.family != goldens.TOKEN_IDS
    ],
    ids=str,
)
def test_upstream_reproduces_golden(key, produce, golden, upstream):
    verdict = drift.judge(key, produce, upstream.is_pinned())
    if verdict.status == drift.MISSING:
        pytest.skip(
            f"not in this upstream: {verdict.detail}; the golden comes from lcb_runner "
            f"{PINNED_COMMIT[:7]}: {CHECKOUT_HINT}"
        )
    if verdict.status == drift.MODEL_LIST:
        pytest.skip(
            f"lcb_runner's model list differs from {PINNED_COMMIT[:7]}'s, no prompt does: "
            f"{verdict.detail}"
        )
    assert produce(key) == golden(key)


@pytest.mark.parametrize("question_id", list(cases.problems()))
def test_fixture_row_is_a_valid_upstream_problem(question_id, upstream):
    """Rows are in the dataset's schema: upstream's own problem class accepts each one."""
    upstream.problem(cases.problems()[question_id])


def test_a_style_this_upstream_lacks_is_reported_as_missing(upstream):
    with pytest.raises(UpstreamMissing, match=r"has no LMStyle\.NoSuchStyle"):
        upstream.lmstyle("NoSuchStyle")


def test_a_path_without_lcb_runner_is_a_clear_error(tmp_path):
    with pytest.raises(UpstreamSourceError, match="no lcb_runner/ package"):
        Upstream(str(tmp_path))
