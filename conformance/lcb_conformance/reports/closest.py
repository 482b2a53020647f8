"""Closest official style: which lcb_runner LMStyle an implementation's prompts, messages and
extractions equal, and, where none does, the nearest one and the first difference from it.

"Not identical to lcb_runner" is a verdict; "identical to CodeQwenInstruct except the system
line" is something a third party can act on. Worked out from a run's results, without calling
the implementation again: an identical case returned its golden, any other carries what was
returned. That output is compared with the goldens of every official LMStyle for the
same input (problem or model output):

- prompts (template-free variants): each variant's prompt golden, and each message LMStyle's
  messages joined by a blank line (lcb_conformance.adapters.rendering, the suite's convention
  for a harness that sends messages);
- messages: every message LMStyle's golden, as canonical JSON;
- extractions: every style's extraction golden (of the family the case is held to, so a
  declared deviation is compared like for like).

Per (function, style called): the LMStyles equal on every input, or the one equal on most
(ties broken by line similarity) with its first difference in words.
"""

from __future__ import annotations

import difflib
import functools
import json
from collections import defaultdict
from dataclasses import asdict, dataclass

from lcb_conformance.adapters.rendering import render_messages
from lcb_conformance.common import showdiff
from lcb_conformance.reports.verdict import answer
from lcb_conformance.runner.results import CaseResult
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.goldens import GoldenKey

PROMPT, MESSAGES, EXTRACT = "format_lcb_prompt", "format_lcb_messages", "extract_code"


@dataclass(frozen=True)
class Closest:
    function: str
    style: str  # the style the implementation was called with
    inputs: int  # inputs it answered (problems or model outputs)
    identical_to: tuple[str, ...]  # LMStyles equal on every input
    closest: tuple[str, ...]  # else: the LMStyles equal on most inputs (equally similar)
    equal_inputs: int  # on how many inputs the closest are equal
    first_difference: str  # else: "<input>: what differs", in words
    compared_with: tuple[str, ...] = ()  # every LMStyle with an official output to compare

    def sentence(self) -> str:
        what = {PROMPT: "prompts", MESSAGES: "messages", EXTRACT: "extractions"}[self.function]
        head = f"{self.style} {what}"
        if self.identical_to:
            return f"{head}: identical to {self._names(self.identical_to)} ({self.inputs} inputs)"
        if not self.closest:
            return f"{head}: no official LMStyle to compare with"
        return (
            f"{head}: closest to {self._names(self.closest)} (equal on {self.equal_inputs} of "
            f"{self.inputs}); first difference, {self.first_difference}"
        )

    def summary(self) -> str:
        """The sentence without the difference: for a table cell."""
        what = {PROMPT: "prompts", MESSAGES: "messages", EXTRACT: "extractions"}[self.function]
        if self.identical_to:
            return f"{self.style} {what} = {self._names(self.identical_to)}"
        if not self.closest:
            return f"{self.style} {what}: nothing to compare"
        return (
            f"{self.style} {what} closest to {self._names(self.closest)} "
            f"({self.equal_inputs}/{self.inputs} equal)"
        )

    def _names(self, lmstyles: tuple[str, ...]) -> str:
        others = [name for name in self.compared_with if name not in lmstyles]
        if len(lmstyles) > 3 and len(others) < len(lmstyles):  # the shorter way to say it
            if not others:
                return f"all {len(lmstyles)} LMStyles compared"
            return f"{len(lmstyles)} LMStyles (all compared but {', '.join(others)})"
        return ", ".join(lmstyles)


def _joined(canonical: str) -> str:
    """A message golden (canonical JSON) as the string a harness sending it would compare."""
    value = json.loads(canonical)
    if isinstance(value, dict):  # Claude3's (system, messages)
        value = [{"role": "system", "content": value["system"]}, *value["messages"]]
    return render_messages(value)


@functools.cache
def _candidates(function: str, family: str, item: str) -> dict[str, str]:
    """LMStyle -> the official output for one input, of the kind the implementation
    returned; the LMStyles whose golden for it is missing are left out."""
    found: dict[str, str] = {}

    def add(lmstyle: str, key: GoldenKey, convert=lambda text: text) -> None:
        official = None if lmstyle in found else goldens.read(key)
        if official is not None:
            found[lmstyle] = convert(official)

    if function == PROMPT:
        for variant in cases.PROMPT_VARIANTS:
            if not variant.chat_template:
                add(variant.lmstyle, GoldenKey(goldens.PROMPT, variant.name, item))
        for message_variant in cases.MESSAGE_VARIANTS:
            key = GoldenKey(goldens.MESSAGES, message_variant.name, item)
            add(message_variant.lmstyle, key, _joined)
    elif function == MESSAGES:
        for message_variant in cases.MESSAGE_VARIANTS:
            add(message_variant.lmstyle, GoldenKey(goldens.MESSAGES, message_variant.name, item))
    else:
        for style, lmstyle in cases.EXTRACTION_LMSTYLES.items():
            add(lmstyle, GoldenKey(family, style, item))
    return found


def _call_of(key: GoldenKey) -> tuple[str, str] | None:
    """(function, style called) of a golden case this report compares, else None."""
    if key.family == goldens.PROMPT:
        variant = cases.VARIANTS.get(key.group)
        return (PROMPT, variant.style) if variant and not variant.chat_template else None
    if key.family == goldens.MESSAGES:
        variant = cases.MESSAGE_VARIANTS_BY_NAME.get(key.group)
        return (MESSAGES, variant.style) if variant else None
    if key.family in (goldens.EXTRACT, goldens.EXTRACT_AFTER_THINK):
        return EXTRACT, key.group
    return None


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a.splitlines(), b.splitlines(), autojunk=False).ratio()


def _difference(function: str, actual: str, official: str) -> str:
    if function == MESSAGES:
        spoken = showdiff.messages_differences(actual, official)
        if spoken:
            return "; ".join(spoken)
    return showdiff.text_difference("output", actual, official)


def closest_official(results: list[CaseResult]) -> list[Closest]:
    """Per (function, style called), in the order first met: the closest official LMStyles."""
    outputs: dict[tuple[str, str], dict[tuple[str, str], str]] = defaultdict(dict)
    for result in results:
        if not result.golden or not result.ran:
            continue
        key = goldens.key_of(result.golden)  # the family it was held to (a deviation's)
        call = _call_of(key)
        output = answer(result)
        if call is not None and output is not None:
            # one answer per input: message LMStyles sharing a style ask the same question
            outputs[call].setdefault((key.family, key.case), output)
    return [_closest(function, style, answered) for (function, style), answered in outputs.items()]


def _closest(function: str, style: str, answered: dict[tuple[str, str], str]) -> Closest:
    equal: dict[str, int] = defaultdict(int)
    first: dict[str, str] = {}
    for (family, item), output in sorted(answered.items()):
        for lmstyle, official in _candidates(function, family, item).items():
            if output == official:
                equal[lmstyle] += 1
            elif lmstyle not in first:
                first[lmstyle] = f"{item}: {_difference(function, output, official)}"
            equal.setdefault(lmstyle, 0)
    compared = tuple(sorted(equal))
    inputs = len(answered)
    identical = tuple(name for name in compared if equal[name] == inputs and name not in first)
    if identical or not compared:
        return Closest(function, style, inputs, identical, (), inputs, "", compared)
    most = max(equal.values())
    tied = [name for name in compared if equal[name] == most]
    similarity = {name: _total_similarity(function, answered, name) for name in tied}
    best = max(similarity.values())
    closest = tuple(name for name in tied if similarity[name] == best)
    return Closest(function, style, inputs, (), closest, most, first[closest[0]], compared)


def _total_similarity(function: str, answered: dict[tuple[str, str], str], lmstyle: str) -> float:
    total = 0.0
    for (family, item), output in answered.items():
        official = _candidates(function, family, item).get(lmstyle)
        if official is not None:
            total += 1.0 if output == official else _similarity(output, official)
    return total


def to_json(results: list[CaseResult]) -> list[dict]:
    return [
        {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(item).items()}
        | {"sentence": item.sentence(), "summary": item.summary()}
        for item in closest_official(results)
    ]
