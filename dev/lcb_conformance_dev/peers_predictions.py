"""The peers survey's predictions, each checked against what a peer's stored run found.

The peers survey's predictions (peers/predictions.toml), each a check of what a peer's
stored run found (`python -m lcb_conformance_dev.peers render` shows predicted against
observed), and what the run's judge tests recorded of its judge verdicts."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial

from lcb_conformance.common import paths
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.suite import cases, deviations, goldens
from lcb_conformance.suite.families import judge as judge_family
from lcb_conformance.upstream import judge

PREDICTIONS_FILE = paths.ROOT / "peers" / "predictions.toml"


OLD_SYSTEM_SENTENCE = " You will NOT return anything except for the program."


ENSURE_SENTENCE = "Ensure that when the python program runs"


LAST_BLOCK_CASE = "extract/generic/two_blocks_last_wins"


NO_FENCE_CASE = "extract/generic/no_fence_bare_code"


def judge_differences(report: dict) -> list[dict] | None:
    """reports.judge.compare's entries (which way each judge verdict differs) for a stored
    run, or None when its judge did not run in full."""
    outcomes = judge_outcomes(report)
    return None if outcomes is None else judge_report.compare(outcomes)


def judge_outcomes(report: dict) -> dict[str, dict] | None:
    """Each judge case's outcome in the suite's own run (reports.judge.compare's input), so
    the page's judge cell and its table of differences come from the same verdicts (a judge
    whose verdicts depend on the machine's load cannot make them disagree): the golden's
    verdict where the test passed, the recorded verdict where it failed. None unless every
    judge case ran (judge_program not provided, or the run broke off)."""
    cases = judge.judge_cases()
    ran = sum(cell["run"] for cell in report["cells"] if cell["style"] == judge_family.JUDGE_COLUMN)
    if ran != len(cases):
        return None
    failures = {f["case"]: f for f in report["failures"]}
    outcomes = {}
    for case_id in cases:
        key = goldens.GoldenKey(goldens.JUDGE, "", case_id)
        recorded = json.loads(goldens.read(key))
        failure = failures.get(str(key))
        if failure is None:
            outcome = {"verdict": recorded}  # a rejected row's: the raise lcb_runner makes
        elif failure["actual"] is not None:  # its verdict (on a rejected row: a grade, or a raise)
            outcome = {"verdict": json.loads(failure["actual"])}
        else:  # no verdict: the implementation raised or its child died
            outcome = {"failure": failure["reason"] or "no verdict"}
        outcomes[case_id] = outcome
    return outcomes


@dataclass(frozen=True)
class Prediction:
    short: str  # for the summary table, when observed
    claim: str  # as the survey states it
    check: Callable[[dict], tuple[bool, str]]  # run report -> (observed?, evidence)


def failures_of(report: dict, prefix: str) -> list[dict]:
    return [f for f in report["failures"] if f["case"].startswith(prefix)]


def _failed(report: dict, case: str) -> dict | None:
    """The failure of this case, if it failed."""
    return next((f for f in report["failures"] if f["case"] == case), None)


def _share(report: dict, prefix: str, holds: Callable[[dict], bool], what: str):
    found = [f for f in failures_of(report, prefix) if f.get("actual") is not None]
    hits = sum(1 for f in found if holds(f))
    return bool(found) and hits == len(found), f"{hits}/{len(found)} failing {prefix}* {what}"


@cache
def system_message() -> str:
    """lcb_runner's generic system message, as its OpenAIChat messages golden records it."""
    key = goldens.GoldenKey(goldens.MESSAGES, "OpenAIChat", next(iter(cases.problems())))
    system, _ = json.loads(goldens.read(key))
    return system["content"]


def no_system_message(report):
    return _share(
        report,
        "prompt/generic/",
        lambda f: system_message() not in f["actual"],
        "cases have no lcb_runner system message",
    )


def rstripped_user_message(report):
    # the golden is system + "\n\n" + user; the system message has no blank line
    return _share(
        report,
        "prompt/generic/",
        lambda f: f["actual"] == f["golden"].split("\n\n", 1)[1].rstrip(),
        "cases are exactly lcb_runner's user message, .rstrip()-ed",
    )


def old_system_sentence(report):
    return _share(
        report,
        "prompt/generic/",
        lambda f: OLD_SYSTEM_SENTENCE in f["actual"],
        f"cases carry {OLD_SYSTEM_SENTENCE.strip()!r}",
    )


def sends_system_message(report):
    return _share(
        report,
        "prompt/generic/",
        lambda f: f["actual"].startswith(system_message()),
        "cases start with the generic system message",
    )


def _stdin_cases(report, has: bool):
    """Failing prompt/generic stdin cases (upstream's prompt has the sentence) whose prompt
    has (or lacks) it."""
    stdin = [f for f in failures_of(report, "prompt/generic/") if ENSURE_SENTENCE in f["golden"]]
    hits = sum(1 for f in stdin if (ENSURE_SENTENCE in (f.get("actual") or "")) == has)
    return bool(stdin) and hits == len(stdin), (
        f"{hits}/{len(stdin)} failing stdin prompt/generic/* cases "
        f"{'carry' if has else 'lack'} {ENSURE_SENTENCE!r}…"
    )


def no_ensure_sentence(report):
    return _stdin_cases(report, has=False)


def has_ensure_sentence(report):
    return _stdin_cases(report, has=True)


def space_before_answer(report):
    return _share(
        report,
        "prompt/generic/",
        lambda f: "\n\n ### Answer:" in f["actual"],
        "cases have ' ### Answer:' after the blank line",
    )


def chat_without_system(report):
    return _share(
        report,
        "chat-prompt/",
        lambda f: system_message() not in f["actual"],
        "chat-rendered cases have no system message",
    )


def first_block(report):
    failure = _failed(report, LAST_BLOCK_CASE)
    if failure is None:
        return False, f"{LAST_BLOCK_CASE} passes (the last block is taken)"
    return True, f"{LAST_BLOCK_CASE} fails: returns {failure['actual']!r:.60}"


def last_block(report):
    observed, evidence = first_block(report)
    return not observed, evidence


def strips_think(report):
    """The generic </think> cases of deviations.toml: an extractor that cuts the reasoning
    returns upstream's extraction of the answer after </think> there (the extract-after-think
    golden): it passes them when it declares the think deviation (DEVIATIONS), and otherwise
    fails them, held to lcb_runner's own extraction, with that answer."""
    listed = sorted(case for case, style in deviations.think_deviations() if style == "generic")
    declared = "think" in report["impl"].get("deviations", [])
    cut = []
    for case in listed:
        failure = _failed(report, f"extract/generic/{case}")
        after_think = goldens.read(goldens.GoldenKey(goldens.EXTRACT_AFTER_THINK, "generic", case))
        if (failure is None and declared) or (
            failure is not None and failure.get("actual") == after_think
        ):
            cut.append(case)
    return bool(cut), (
        f"returns the answer after </think> in {len(cut)} of the {len(listed)} generic "
        f"</think> cases (an extractor that keeps the reasoning: none); "
        f"{', '.join(cut) or 'none'}"
    )


def test_output_without_system_message(report):
    return _share(
        report,
        "test-output/prompt/OpenAIChat/",
        lambda f: '"role": "system"' not in f["actual"],
        "test output prediction prompts send no system message",
    )


def test_output_scored_on_0_to_100(report):
    def scaled(failure: dict) -> bool:
        actual, golden = json.loads(failure["actual"]), json.loads(failure.get("golden") or "0")
        return actual[0].get("pass@1") == 100 * golden[0]["pass@1"]

    return _share(
        report,
        "test-output/score/",
        scaled,
        "test output scores have pass@1 x100 (lcb_runner: 0-1)",
    )


def _starter_code(failure: dict) -> str:
    """The starter code of a prompt case's problem, stripped ("" for none, or blank)."""
    return (cases.problems()[failure["case"].rsplit("/", 1)[1]].get("starter_code") or "").strip()


def no_starter_code(report):
    """Failing generic prompts of problems with (non-blank) starter code: it is missing."""
    with_starter = [
        f
        for f in failures_of(report, "prompt/generic/")
        if f.get("actual") is not None and _starter_code(f)
    ]
    hits = sum(1 for f in with_starter if _starter_code(f) not in f["actual"])
    return bool(with_starter) and hits == len(with_starter), (
        f"{hits}/{len(with_starter)} failing prompt/generic/* cases of problems with starter "
        "code lack it"
    )


def unstripped_extraction(report):
    """Failing generic extractions that are lcb_runner's once the whitespace around is
    stripped (an extractor that keeps the newline before or after the code)."""
    found = [f for f in failures_of(report, "extract/generic/") if f.get("actual") is not None]
    kept = [
        f["case"].rsplit("/", 1)[1]
        for f in found
        if f["actual"] != f["golden"] and f["actual"].strip() == (f["golden"] or "").strip()
    ]
    return bool(kept), (
        f"{len(kept)}/{len(found)} failing extract/generic/* cases are lcb_runner's extraction "
        f"with the whitespace around it kept (first: {', '.join(kept[:3]) or 'none'})"
    )


def extracts_without_fence(report):
    failure = _failed(report, NO_FENCE_CASE)
    if failure is None or not failure.get("actual"):
        return False, f"{NO_FENCE_CASE} gives lcb_runner's empty extraction"
    return True, f"{NO_FENCE_CASE} fails: returns {failure['actual']!r:.60}"


def extracts_nothing(report, named: tuple[str, ...]):
    """The named generic extraction cases fail with an empty extraction."""
    empty = [
        case
        for case in named
        if (failure := _failed(report, f"extract/generic/{case}")) is not None
        and failure.get("actual") == ""
    ]
    return len(empty) == len(named), (
        f"{len(empty)}/{len(named)} of {', '.join(named)} fail with an empty extraction"
    )


def _judge_cases_differing(report, named: tuple[str, ...], kind: str):
    differences = judge_differences(report)
    if differences is None:
        return False, f"the judge did not run in full ({judge_not_run(report)})"
    found = {entry["case"]: entry["difference"] for entry in differences}
    hits = [case for case in named if found.get(case) == kind]
    total = sum(1 for difference in found.values() if difference == kind)
    return len(hits) == len(named), (
        f"{kind} on {len(hits)}/{len(named)} of {', '.join(named)} ({total} {kind} in all)"
    )


def judge_false_fail(report, named: tuple[str, ...]):
    return _judge_cases_differing(report, named, judge_report.FALSE_FAIL)


def judge_false_pass(report, named: tuple[str, ...]):
    return _judge_cases_differing(report, named, judge_report.FALSE_PASS)


def judge_no_verdict(report, named: tuple[str, ...]):
    return _judge_cases_differing(report, named, judge_report.NO_VERDICT)


# Checks that take the cases an entry names (its `cases` list).
CASE_CHECKS = (extracts_nothing, judge_false_fail, judge_false_pass, judge_no_verdict)


CHECKS: dict[str, Callable[..., tuple[bool, str]]] = {
    check.__name__: check
    for check in (
        *CASE_CHECKS,
        no_starter_code,
        unstripped_extraction,
        extracts_without_fence,
        no_system_message,
        rstripped_user_message,
        old_system_sentence,
        sends_system_message,
        no_ensure_sentence,
        has_ensure_sentence,
        space_before_answer,
        chat_without_system,
        first_block,
        last_block,
        strips_think,
        test_output_without_system_message,
        test_output_scored_on_0_to_100,
    )
}


class PredictionsError(ValueError):
    """peers/predictions.toml names a check that does not exist, or lacks a field."""


@cache
def predictions() -> dict[str, list[Prediction]]:
    """peer module name -> its predictions, read from PREDICTIONS_FILE."""
    with PREDICTIONS_FILE.open("rb") as file:
        data = tomllib.load(file)
    found: dict[str, list[Prediction]] = {}
    for peer, entries in data.items():
        for number, entry in enumerate(entries, start=1):
            check = CHECKS.get(entry.get("check"))
            if not entry.get("claim") or check is None:
                raise PredictionsError(
                    f"{PREDICTIONS_FILE}: [[{peer}]] #{number}: needs a claim and a check, one "
                    f"of {', '.join(CHECKS)}; got {entry!r}"
                )
            if (check in CASE_CHECKS) != ("cases" in entry):
                raise PredictionsError(
                    f"{PREDICTIONS_FILE}: [[{peer}]] #{number}: `cases` goes with, and only "
                    f"with, the checks {', '.join(c.__name__ for c in CASE_CHECKS)}"
                )
            if "cases" in entry:
                check = partial(check, named=tuple(entry["cases"]))
            found.setdefault(peer, []).append(
                Prediction(entry.get("short", ""), entry["claim"], check)
            )
    return found


def observed_differences(report: dict) -> list[str]:
    name = report["peer"]["module"].rsplit(".", 1)[-1]
    return [p.short for p in predictions().get(name, []) if p.short and p.check(report)[0]]


def judge_not_run(report: dict) -> str:
    """Why a run has no judge verdicts: the adapter has no judge_program, or it has one that
    did not run in full (over --impl-cmd, the route may not carry the judge)."""
    peer = report["peer"]
    if not peer.get("has_judge"):
        return "not provided"
    route = peer.get("route", "")
    return "did not run" + (
        f" over {route.split(',')[0]}" if route.startswith("--impl-cmd") else ""
    )
