"""Which cases the compat-tf* envs re-run under another transformers line: those a tokenizer
can touch. A case neither the implementation's answer nor upstream's can depend on the line
for (the judge runs programs; extraction is string work on the model's output; the scores are
arithmetic; a request golden marks the prompt instead of holding it) is marked
``transformers_independent`` and runs once, in the default line's env: repeating it per line
costs CI minutes and proves nothing more."""

from __future__ import annotations

import pytest

from lcb_conformance.suite import goldens
from lcb_conformance.suite.families import request as request_family
from lcb_conformance.suite.families import scenario_extract
from lcb_conformance.suite.families import score as score_family
from lcb_conformance.suite.scenario_cases import CHAT_TEMPLATES, parse_group
from lcb_conformance.suite.scenarios import SCENARIOS

INDEPENDENT_FAMILIES = frozenset(
    {
        goldens.JUDGE,
        goldens.EXTRACT,
        goldens.EXTRACT_AFTER_THINK,
        goldens.REFERENCE_PREFIX,
        score_family.PASS_K,
        score_family.LCB_RUNNER,
        score_family.LEADERBOARD,
        request_family.REQUEST,
        *(scenario_extract.family_name(scenario) for scenario in SCENARIOS),
    }
)
SCENARIO_PROMPT_FAMILIES = frozenset(f"{scenario}/prompt" for scenario in SCENARIOS)
# the implementation's functions that only read text: no tokenizer reaches them
TEXT_ONLY_FUNCTIONS = frozenset({"extract_code", "extract_code_prefix"})


def independent(key: goldens.GoldenKey) -> bool:
    """No tokenizer can touch this golden's case: its family's, or a scenario prompt of an
    LMStyle lcb_runner renders without a chat template."""
    if key.family in SCENARIO_PROMPT_FAMILIES:
        return parse_group(key.group)[1] not in CHAT_TEMPLATES
    return key.family in INDEPENDENT_FAMILIES


def golden_param(value, key: goldens.GoldenKey, **options):
    """``value`` as a parameter, marked transformers_independent where :func:`independent`."""
    marks = [pytest.mark.transformers_independent] if independent(key) else []
    return pytest.param(value, marks=marks, **options)


def contract_param(case):
    """A contract case, marked where it calls only text-reading functions in a child."""
    text_only = not case.in_process and set(case.functions) <= TEXT_ONLY_FUNCTIONS
    marks = [pytest.mark.transformers_independent] if text_only else []
    return pytest.param(case, marks=marks, id=case.id)
