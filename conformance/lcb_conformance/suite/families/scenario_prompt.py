"""Golden families: each scenario's prompt per LMStyle, or what lcb_runner raises.

<scenario>/prompt/...: what lcb_runner's prompt builder of each declared scenario
(suite/scenarios.py) does for every LMStyle, as canonical JSON: the prompt in its native
shape (a string, a message list, Claude3's (system, messages)), or {"raises": {"type",
"message"}} where lcb_runner raises (at 28fef95 most LMStyles reach a comparison with an
LMStyle member 153931b removed: AttributeError), so an upstream fix shows as drift.

    self-repair/prompt/<LMStyle>/<attempt>           format_prompt_self_repair
    test-output/prompt/<LMStyle>/<question_id>       format_prompt_test_output
    code-execution/prompt/<direct|cot>/<LMStyle>/<id> format_prompt_execution[_cot]

An implementation is held to every case: it returns the prompt, or, where the golden holds
``raises``, it must raise (lcb_prompts: ValueError naming scenario and LMStyle). Compared as
"prompt-or-raises" (:func:`expects_error`, :func:`render`).
"""

from __future__ import annotations

import json

from lcb_conformance.suite import goldens, index
from lcb_conformance.suite import scenario_cases as cases
from lcb_conformance.suite.families import Family, NotText
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey
from lcb_conformance.suite.scenarios import COT, LMSTYLE, PROBLEM, SCENARIOS, Scenario, get

PROMPT_OR_RAISES = "prompt-or-raises"
BUILD = "scenarios.prompt"  # upstream/scenarios.py: lcb_runner's builder, or what it raises
RAISES = "raises"


def family_name(scenario: str) -> str:
    return f"{scenario}/prompt"


def upstream_builder(scenario: Scenario, mode: str | None) -> str:
    """lcb_runner's builder of the prompt variant (the CoT one for COT)."""
    return scenario.prompt.cot_upstream if mode == COT else scenario.prompt.upstream


def upstream_call(scenario: Scenario, mode: str | None, lmstyle: str) -> str:
    """lcb_runner's builder call, in words: "format_prompt_test_output(
    TestOutputPredictionProblem(**row), LMStyle.OpenAIChat)"."""
    words = {LMSTYLE: f"LMStyle.{lmstyle}"}
    if scenario.dataset:
        words[PROBLEM] = f"{scenario.dataset.upstream_class}(**row)"
    arguments = ", ".join(words.get(name, name) for name in scenario.prompt.upstream_arguments)
    return f"{upstream_builder(scenario, mode)}({arguments})"


def _builders(scenario: Scenario) -> str:
    """lcb_runner's builders in words: "format_prompt_execution[_cot]"."""
    prompt = scenario.prompt
    cot = f"[{prompt.cot_upstream.removeprefix(prompt.upstream)}]" if prompt.cot_upstream else ""
    return prompt.upstream + cot


def parse(key: GoldenKey) -> tuple[str, str | None, str]:
    """(scenario, its prompt variant or None, LMStyle) of a key."""
    return (key.family.removesuffix("/prompt"), *cases.parse_group(key.group))


def keys(scenario: str):
    return [
        GoldenKey(family_name(scenario), group, case)
        for group in cases.groups(scenario)
        for case in cases.inputs(scenario)
    ]


def golden_text(outcome: str, value: object) -> str:
    if outcome == cases.RAISED:
        return goldens.canonical_json({RAISES: value})
    return goldens.canonical_json(value)


def produce(source, key: GoldenKey) -> str:
    scenario, mode, lmstyle = parse(key)
    value = cases.FIXTURE_VALUES[get(scenario).inputs](key.case)
    return golden_text(*source.run(BUILD, source.upstream, scenario, mode, lmstyle, value))


def entry(key: GoldenKey) -> dict:
    scenario, mode, lmstyle = parse(key)
    declared = get(scenario)
    prompt = declared.prompt
    args: dict = {prompt.argument: index.fixture(declared.inputs, key.case), "lmstyle": lmstyle}
    if mode:
        args["cot"] = mode == COT
    if lmstyle in cases.CHAT_TEMPLATES:
        args["tokenizer"] = cases.CHAT_TEMPLATES[lmstyle]
    return {
        "call": {"function": prompt.function, "args": args},
        "cell": [scenario, lmstyle],
        "lmstyles": [lmstyle],
        "upstream": upstream_call(declared, mode, lmstyle),
    }


def expects_error(golden: str) -> bool:
    """Whether lcb_runner raises for the case: the implementation must raise too."""
    recorded = json.loads(golden)
    return isinstance(recorded, dict) and RAISES in recorded


def raised_for(scenario: str, mode: str | None, lmstyle: str) -> tuple[GoldenKey, dict] | None:
    """Where lcb_runner raises because of the LMStyle, by its goldens: the first input whose
    golden for this LMStyle is an error while another LMStyle's is a prompt (an error every
    LMStyle raises is the input's, e.g. self-repair metadata without inputs), and what it
    raises ({"type", "message"}); None where it raises for no such input."""
    family = family_name(scenario)
    groups = [g for g in cases.groups(scenario) if cases.parse_group(g)[0] == mode]
    group = f"{mode}/{lmstyle}" if mode else lmstyle
    for case in cases.inputs(scenario):
        key = GoldenKey(family, group, case)
        text = goldens.read(key)
        if text is None or not expects_error(text):
            continue
        others = (goldens.read(GoldenKey(family, other, case)) for other in groups)
        if any(other is not None and not expects_error(other) for other in others):
            return key, json.loads(text)[RAISES]
    return None


def render(value: object, arguments: dict) -> str:
    """A returned prompt as canonical JSON: a string, a list of {role, content} messages, or
    Claude3's (system, messages) (which crosses JSON as the array [system, messages]: a list
    of messages never starts with a string)."""
    if isinstance(value, list) and len(value) == 2 and isinstance(value[0], str):
        value = tuple(value)
    if isinstance(value, tuple) and not (
        len(value) == 2 and isinstance(value[0], str) and isinstance(value[1], list)
    ):
        raise NotText(f"returned a tuple {value!r:.200}, not (system, messages)")
    if not isinstance(value, str | list | tuple):
        raise NotText(
            f"returned {type(value).__name__} {value!r:.200}, not a prompt (a str, chat "
            "messages, or (system, messages))"
        )
    try:
        return goldens.canonical_json(value)
    except (TypeError, ValueError) as error:
        raise NotText(f"returned a prompt that is not JSON data ({error})") from None


FAMILIES = tuple(
    Family(
        family_name(scenario),
        f"{scenario} prompt",
        f"upstream {_builders(declared)} per LMStyle: the prompt in its native shape, or what "
        "it raises, as canonical JSON",
        lambda scenario=scenario: keys(scenario),
        produce,
        entry,
        render,
        suffix=JSON_SUFFIX,
        compare=PROMPT_OR_RAISES,
        fixtures=cases.FIXTURE_VALUES,
        met_by_raising=expects_error,
        runs=(BUILD,),
    )
    for scenario, declared in SCENARIOS.items()
)
