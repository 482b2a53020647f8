"""`python -m lcb_conformance_dev.peers`: every peer adapter (peers/) run through the suite,
and the pages docs/peers.md and docs/peers-matrix.md written from the runs.

    python -m lcb_conformance_dev.peers run peers.MODULE [--python PYTHON] [--out-dir build/peers]
    python -m lcb_conformance_dev.peers render [--out-dir build/peers] [--output docs/peers.md]

``run`` (in the peer's own tox env, where the peer is installed) runs the suite through the
lcb-conformance CLI with ``--json`` and stores that report with the adapter's description and
the installed peer's version. With ``--python``, the peer is installed for that interpreter
(another Python, or clashing dependencies) and the adapter is served from it by the generic
server over ``--impl-cmd`` (adapters/jsonl_server.py, this checkout and its ``conformance/``
on the server's path). ``render`` reads every stored run and writes two pages: the summary
(``--output``: per peer the verdict, the judge's differences, the predictions observed; the
requests; the aggregators) and beside it peers-matrix.md: per peer and cell of the verdict
matrix (style x tokenizer family) the cases, passed, failed and the first failing case with
its showdiff report, each prediction of the peers survey checked against what the run found,
and which way each judge verdict differs from lcb_runner's (from the verdicts the run's judge
tests recorded). ``tox -m peers`` does both for every peer.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import shlex
import subprocess
import sys
import tomllib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path

from lcb_conformance.common import exit_codes, paths, report_files
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.suite import cases, deviations, goldens, index, showdiff
from lcb_conformance.suite.families import judge as judge_family
from lcb_conformance.suite.families import request
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import judge

OUT_DIR = paths.ROOT / "build" / "peers"
PREDICTIONS_FILE = paths.ROOT / "peers" / "predictions.toml"
REQUESTS_FILE = paths.ROOT / "peers" / "requests.toml"
OUTPUT = paths.ROOT / "docs" / "peers.md"
MATRIX_NAME = "peers-matrix.md"  # written beside OUTPUT, linked from it
REGEN_COMMAND = "tox -m peers"
PROG = "python -m lcb_conformance_dev.peers"
PEERS = (
    "nvidia_generic_oai",
    "evalscope_lcb",
    "lighteval_lcb",
    "opencompass_lcb",
    "opencompass_scenarios",
    "skythought_lcb",
    "verl_prime_code",
    "skyrl_gym_lcb",
)
SHOWN_LINES = 5  # of a showdiff report: label, offsets, golden, actual, caret

OLD_SYSTEM_SENTENCE = " You will NOT return anything except for the program."
ENSURE_SENTENCE = "Ensure that when the python program runs"
LAST_BLOCK_CASE = "extract/generic/two_blocks_last_wins"
NO_FENCE_CASE = "extract/generic/no_fence_bare_code"


# --- run (inside a peer's env) -----------------------------------------------------------------


# Asked of a peer's own interpreter (--python): its Python version and the distribution's.
VERSIONS_SCRIPT = (
    "import importlib.metadata, platform, sys; "
    "print(platform.python_version(), importlib.metadata.version(sys.argv[1]))"
)


def describe(module_name: str, python: str | None = None) -> dict:
    """The adapter's description (its module imported here, where the peer itself may be
    missing) and the installed peer's version, asked of ``python`` when it serves the peer."""
    module = importlib.import_module(module_name)
    distribution = getattr(module, "DISTRIBUTION", None)
    route = "in process"
    if python is None:
        try:
            version = importlib.metadata.version(distribution) if distribution else None
        except importlib.metadata.PackageNotFoundError:
            version = None
    else:
        answer = subprocess.run(
            [python, "-c", VERSIONS_SCRIPT, distribution or ""], capture_output=True, text=True
        )
        python_version, _, version = answer.stdout.strip().partition(" ")
        version = version if answer.returncode == 0 else None
        route = f"--impl-cmd, Python {python_version}" if python_version else "--impl-cmd"
    return {
        "module": module_name,
        "peer": getattr(module, "PEER", module_name),
        "distribution": distribution,
        "version": version,
        "styles": list(getattr(module, "STYLES", ()) or ()),
        "follows": getattr(module, "FOLLOWS", ""),
        "route": route,
        "has_judge": callable(getattr(module, "judge_program", None)),
    }


def impl_cmd(module_name: str, python: str) -> str:
    """The --impl-cmd that serves the adapter from ``python`` through the generic server."""
    from lcb_conformance.adapters import jsonl_server

    folders = (paths.ROOT, paths.ROOT / "conformance")
    return shlex.join(
        [python, jsonl_server.PATH, module_name]
        + [part for folder in folders for part in ("--path", str(folder))]
    )


def run(module_name: str, out_dir: Path, python: str | None = None) -> int:
    """The suite for one peer adapter (`lcb-conformance run` in a child process, so a report
    module never drives the command above it), stored with the peer's description; served
    from ``python`` over --impl-cmd when given."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{module_name.rsplit('.', 1)[-1]}.json"
    path.unlink(missing_ok=True)  # an earlier run's report is never this run's
    command = [sys.executable, "-m", "lcb_conformance.cli", "run"]
    if python is None:
        command += ["--impl", module_name]
    else:
        command += ["--impl-cmd", impl_cmd(module_name, python)]
    code = subprocess.run([*command, "--json", str(path), "--color", "never"]).returncode
    if path.is_file():
        report = json.loads(path.read_text("utf-8"))
        report["peer"] = describe(module_name, python)
        stored = report_files.write_reports(
            PROG,
            {"JSON": (path, lambda: json.dumps(report, ensure_ascii=False) + "\n")},
        )
        if not stored:
            return report_files.REPORT_NOT_WRITTEN
    return code


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


# --- predictions (the peers survey's, in PREDICTIONS_FILE; checked against a run) ----------------


@dataclass(frozen=True)
class Prediction:
    short: str  # for the summary table, when observed
    claim: str  # as the survey states it
    check: Callable[[dict], tuple[bool, str]]  # run report -> (observed?, evidence)


def _failures(report: dict, prefix: str) -> list[dict]:
    return [f for f in report["failures"] if f["case"].startswith(prefix)]


def _failed(report: dict, case: str) -> dict | None:
    """The failure of this case, if it failed."""
    return next((f for f in report["failures"] if f["case"] == case), None)


def _share(report: dict, prefix: str, holds: Callable[[dict], bool], what: str):
    found = [f for f in _failures(report, prefix) if f.get("actual") is not None]
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
    stdin = [f for f in _failures(report, "prompt/generic/") if ENSURE_SENTENCE in f["golden"]]
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
        for f in _failures(report, "prompt/generic/")
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
    found = [f for f in _failures(report, "extract/generic/") if f.get("actual") is not None]
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


# --- render ------------------------------------------------------------------------------------


def judge_summary(report: dict) -> str:
    """The summary table's judge column: how many corpus pairs the peer's judge scores
    differently from lcb_runner's, and which way."""
    differences = judge_differences(report)
    if differences is None:
        return judge_not_run(report)
    counts = Counter(entry["difference"] for entry in differences)
    changing = [f"{counts[kind]} {kind}" for kind in judge_report.SCORE_CHANGING if counts[kind]]
    total = len(judge.judge_cases())
    if not changing:
        return f"same pass verdict on all {total} pairs"
    return f"{', '.join(changing)} (of {total} pairs)"


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


def _short(failure: dict) -> str:
    if failure.get("actual") is None or failure.get("golden") is None:
        lines = (failure.get("report") or "").strip().split("\n")
        return "\n".join(lines[-SHOWN_LINES:])
    report = showdiff.report(failure["actual"], failure["golden"], label=failure["case"])
    return "\n".join(report.split("\n")[:SHOWN_LINES])


def _deviation_note(report: dict) -> str:
    """Failing extract-after-think cases where the peer returns exactly lcb_runner's own
    extraction: they fail only because the suite holds extract_code to lcb_prompts'
    documented </think> deviation (deviations.toml)."""
    think = [f for f in _failures(report, "extract/") if f["declared_deviation"] == "think"]
    same = [
        f
        for f in think
        if f.get("actual") is not None
        and f["actual"]
        == goldens.read(goldens.GoldenKey(goldens.EXTRACT, *f["case"].split("/")[1:]))
    ]
    if not think:
        return ""
    return (
        f"{len(think)} failing extraction cases are `extract-after-think` cases (lcb_prompts' "
        f"documented `</think>` deviation, deviations.toml); in {len(same)} of them the peer "
        "returns exactly lcb_runner's own extraction."
    )


def _cell_rows(report: dict) -> tuple[list[str], list[str]]:
    rows, not_provided = [], []
    for cell in report["cells"]:
        if cell["status"] == "not provided":
            not_provided.append(f"{cell['style']}/{cell['tokenizer']}")
        else:
            rows.append(
                f"| {cell['style']} | {cell['tokenizer']} | {', '.join(cell['checks'])} | "
                f"{cell['run']} | {cell['ok']} | {cell['not_ok']} | "
                f"{'`' + cell['first_failure'] + '`' if cell['first_failure'] else '-'} |"
            )
    return rows, not_provided


def _headline(report: dict) -> str:
    cells = report["cells"]
    run = sum(c["run"] for c in cells)
    failed = sum(c["not_ok"] for c in cells)
    if not failed:
        return f"identical to lcb_runner on all {run} golden cases it provides"
    failing = sum(1 for c in cells if c["not_ok"])
    return (
        f"NOT identical to lcb_runner: {failed} of the {run} golden cases it provides failed, "
        f"in {failing} of {len(cells) - sum(1 for c in cells if c['status'] == 'not provided')}"
        " cells"
    )


def _closest_summary(report: dict) -> str:
    """Per answer kind, the official LMStyles it equals or comes closest to, briefly."""
    return "; ".join(item["summary"] for item in report.get("closest_official", [])) or "-"


def _tier_lines(report: dict) -> list[str]:
    """The run's three questions (lcb_conformance.reports.verdict), as a list; none for a
    run stored before the report had tiers."""
    tiers = report.get("tiers")
    if tiers is None:
        return []
    upstream, declared, contract = (
        tiers["upstream"],
        tiers["declared_deviations"],
        tiers["api_contract"],
    )
    return [
        f"1. identical to lcb_runner (its own goldens): "
        f"{'yes' if upstream['identical'] else 'no'}, {upstream['identical_cases']} of "
        f"{upstream['run']} cases run",
        f"2. identical except its declared deviations "
        f"({', '.join(declared['deviations']) or 'none declared'}): "
        f"{'yes' if declared['identical'] else 'no'}, {declared['passed']} of {declared['run']}",
        f"3. API contract (apart): {contract['passed']} of {contract['run']} passed",
        "",
    ]


def render_peer(report: dict) -> list[str]:
    peer = report["peer"]
    name = peer["module"].rsplit(".", 1)[-1]
    totals = report["totals"]
    lines = [
        f"## {peer['peer']} {peer['version'] or '(not installed)'} — `{peer['module']}`",
        "",
        f"Adapter: {peer['follows']}.",
        "",
        f"Run: {_route(peer)}.",
        "",
        f"**{_headline(report)}**",
        "",
        *_tier_lines(report),
        "| style | tokenizer | checks | cases run | identical | not identical "
        "| first case not identical |",
        "|---|---|---|---|---|---|---|",
    ]
    rows, not_provided = _cell_rows(report)
    lines += rows
    lines.append("")
    if not_provided:
        styles = report["impl"].get("styles_not_provided") or []
        lines.append(
            f"Not provided ({totals['not-provided']} cases): the styles "
            f"{', '.join(styles) or '-'} and the functions "
            f"{', '.join(report['impl']['not_provided']) or '-'}."
        )
        lines.append("")
    contract = report["contract"]
    if contract:
        failed = [f"{c['tokenizer']} ({c['not_ok']})" for c in contract if c["not_ok"]]
        lines.append(
            "API contract (lcb_prompts' API: bad input, properties; not lcb_runner identity, "
            f"not counted above): {sum(c['ok'] for c in contract)} passed, "
            f"{sum(c['not_ok'] for c in contract)} failed"
            + (f" in {', '.join(failed)}." if failed else ".")
        )
        lines.append("")
    note = _deviation_note(report)
    if note:
        lines += [note, ""]
    raised = [f for f in report["failures"] if f["tier"] != "contract" and f["status"] == "error"]
    if raised:
        last = raised[0]["reason"].strip().split("\n")[-1]
        lines += [
            f"**{len(raised)} golden cases raised instead of returning a string** (the adapter "
            f"or the installed peer is broken, not compared): first `{raised[0]['case']}`: "
            f"`{last}`",
            "",
        ]
    if report.get("closest_official"):
        lines += ["Closest official style (lcb_conformance.reports.closest):", ""]
        lines += [f"- {item['sentence']}" for item in report["closest_official"]]
        lines.append("")
    differences = judge_differences(report)
    if differences is not None:
        lines += judge_report.table_lines(differences)
    elif peer.get("has_judge"):
        lines += [
            f"Its adapter's `judge_program` {judge_not_run(report)}: no judge verdicts, and its "
            "judge predictions below are not checked.",
            "",
        ]
    firsts = _first_per_cell(report)
    if firsts:
        lines += ["First case not identical of each such cell:", "", "```"]
        for failure in firsts:
            lines += [_short(failure), ""]
        lines[-1] = "```"
        lines.append("")
    predicted = predictions().get(name, [])
    if predicted:
        lines += [
            "Predicted by the peers survey vs observed:",
            "",
            "| predicted | observed | evidence |",
            "|---|---|---|",
        ]
        for prediction in predicted:
            observed, evidence = prediction.check(report)
            lines.append(
                f"| {_cell(prediction.claim)} | {'yes' if observed else '**no**'} | "
                f"{_cell(evidence)} |"
            )
        lines.append("")
    return lines


def _over(peer: dict) -> str:
    """The summary's note on a peer served over --impl-cmd."""
    route = peer.get("route", "")
    return f" (over {route})" if route.startswith("--impl-cmd") else ""


def _route(peer: dict) -> str:
    route = peer.get("route", "in process")
    if route.startswith("--impl-cmd"):
        return (
            f"over {route} (the peer installed for another interpreter, the adapter served by "
            "the generic server)"
        )
    return "in process (the peer installed in the suite's environment)"


def _cell(text: str) -> str:
    """Text for a markdown table cell: no column breaks, backticks shown as such."""
    return text.replace("|", "&#124;").replace("`", "\\`")


def _first_per_cell(report: dict) -> list[dict]:
    wanted = {cell["first_failure"] for cell in report["cells"] if cell["first_failure"]}
    seen, firsts = set(), []
    for failure in report["failures"]:
        if failure["case"] in wanted and failure["case"] not in seen:
            seen.add(failure["case"])
            firsts.append(failure)
    return firsts


def render(reports: list[dict]) -> str:
    lines = [
        "# Peers: other LiveCodeBench harnesses under the conformance suite",
        "",
        f"Generated by `{REGEN_COMMAND}` (each peer installed from PyPI in its own tox env, its "
        "adapter in `peers/` calling the peer's own code, the suite run by `lcb-conformance "
        "--impl peers.<module> --json`, or over `--impl-cmd` with the adapter served by the "
        "generic server from the peer's own Python where it needs another, then "
        "`python -m lcb_conformance_dev.peers render`). "
        "Do not edit by hand.",
        "",
        'A cell is a style x tokenizer family of the verdict matrix; "cases run" excludes '
        "cases the adapter does not provide. Every peer is held to lcb_runner's **generic** "
        "style (the one each claims to follow, or compares with where it has no LMStyle of "
        "its own); its other styles are not provided, nor are the prompts of a peer that "
        "formats none. The predictions are copied from the project's peers survey (facts "
        "gathered from the peers' public code and trackers, each with its file and line) and "
        "checked against each run. The judge column counts the "
        "pairs of the judge corpus (docs/judge.md) where the peer's own judge gives another pass "
        "verdict than lcb_runner's: a false pass scores a program lcb_runner fails, a false "
        "fail fails one it passes.",
        "",
        f"Each peer's section, with its cells, first differences, judge cases and predictions, "
        f"is in [{MATRIX_NAME}]({MATRIX_NAME}).",
        "",
        "| peer | version | adapter | golden cases run | identical | not identical "
        "| not provided | verdict | closest official style "
        "| judge: pass verdicts differing from lcb_runner's | predicted differences observed |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for report in reports:
        peer, totals = report["peer"], report["totals"]
        golden = report["cells"]
        run_cases = sum(c["run"] for c in golden)
        lines.append(
            f"| {peer['peer']} | {peer['version']} | `{peer['module']}`{_over(peer)} | "
            f"{run_cases} | "
            f"{sum(c['ok'] for c in golden)} | {sum(c['not_ok'] for c in golden)} | "
            f"{totals['not-provided']} | "
            f"{'identical' if not sum(c['not_ok'] for c in golden) else 'NOT identical'} | "
            f"{_cell(_closest_summary(report))} | "
            f"{judge_summary(report)} | "
            f"{'; '.join(observed_differences(report)) or '-'} |"
        )
    missing = [
        name
        for name in PEERS
        if name not in {r["peer"]["module"].rsplit(".", 1)[-1] for r in reports}
    ]
    lines.append("")
    if missing:
        lines += [f"No run stored for: {', '.join(missing)}.", ""]
    lines += request_lines(reports) + score_lines(reports)
    return "\n".join(lines).rstrip("\n") + "\n"


def render_matrix(reports: list[dict]) -> str:
    """The page beside the summary: each peer's section."""
    lines = [
        "# Peers: each harness's verdict matrix",
        "",
        f"Generated by `{REGEN_COMMAND}` with [peers.md](peers.md), the summary. Do not edit by "
        "hand.",
        "",
    ]
    for report in reports:
        lines += render_peer(report)
    return "\n".join(lines).rstrip("\n") + "\n"


REQUEST_FIELDS = ("problems", "n", "temperature", "top_p", "max_tokens", "stop")


def lcb_runner_request() -> dict[str, str]:
    """lcb_runner's default request, from its request goldens: an API runner's (OpenAIChat)
    and its vLLM runner's stop."""
    api = json.loads(goldens.read(GoldenKey(request.REQUEST, "default", "OpenAIChat")))
    vllm = json.loads(goldens.read(GoldenKey(request.REQUEST, "default", "LLaMa3")))
    sent = api["calls"][0]["kwargs"]
    sampling = vllm["clients"]["sampling_params"]["vllm.SamplingParams"]["kwargs"]
    return {
        "problems": "release_latest (1,055; --release_version)",
        "n": str(sent["n"]),
        "temperature": str(sent["temperature"]),
        "top_p": str(sent["top_p"]),
        "max_tokens": str(sent["max_tokens"]),
        "stop": f"none (API runners); {sampling['stop']} (vLLM)",
        "source": "the request goldens (conformance/goldens/request/default/)",
    }


def request_lines(reports: list[dict]) -> list[str]:
    """The requests table: lcb_runner's default request and each peer's (REQUESTS_FILE)."""
    with REQUESTS_FILE.open("rb") as file:
        surveyed = tomllib.load(file)
    rows = [("lcb_runner 28fef95 (OpenAIChat, LLaMa3)", lcb_runner_request())]
    for report in reports:
        name = report["peer"]["module"].rsplit(".", 1)[-1]
        if name in surveyed:
            rows.append((f"{report['peer']['peer']} {report['peer']['version']}", surveyed[name]))
    lines = [
        "## Requests: what each asks the model for",
        "",
        "lcb_runner's row is read from the request goldens (its runner classes run against "
        "recording fake clients, docs/score.md); the peers' from their installed code "
        f"(`peers/{REQUESTS_FILE.name}`, source named).",
        "",
        "| harness | " + " | ".join(REQUEST_FIELDS) + " | source |",
        "|---|" + "---|" * (len(REQUEST_FIELDS) + 1),
    ]
    for label, fields in rows:
        cells = [_cell(fields.get(name, "-")) for name in (*REQUEST_FIELDS, "source")]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return [*lines, ""]


# The verdict rows of the score families: the adapter functions that hold an aggregator.
SCORE_ROWS = ("pass_at_k", "score_run", "leaderboard_score")


def score_lines(reports: list[dict]) -> list[str]:
    """Each peer's aggregator against the score goldens: its runs' score rows, where its
    adapter provides the function."""
    lines = [
        "## The number: each peer's aggregator against lcb_runner's and the leaderboard's",
        "",
        "The score goldens (docs/score.md) through the adapters' `pass_at_k`, `score_run` and "
        "`leaderboard_score` (each adapter's docstring says which of the peer's code it calls).",
        "",
        "| peer | function | cases | identical | not identical | cases not identical |",
        "|---|---|---|---|---|---|",
    ]
    none = []
    for report in reports:
        provided = False
        for row in SCORE_ROWS:
            cells = [c for c in report["cells"] if c["style"] == row and c["run"]]
            if not cells:
                continue
            provided = True
            differing = [
                f"`{f['case']}`" for f in report["failures"] if f["case"] in _row_cases(row, cells)
            ]
            lines.append(
                f"| {report['peer']['peer']} | `{row}` | {sum(c['run'] for c in cells)} | "
                f"{sum(c['ok'] for c in cells)} | {sum(c['not_ok'] for c in cells)} | "
                f"{', '.join(differing) or '-'} |"
            )
        if not provided:
            none.append(report["peer"]["peer"])
    if none:
        lines += ["", f"No score function in the adapters of: {', '.join(none)}."]
    return [*lines, ""]


def _row_cases(row: str, cells: list[dict]) -> set[str]:
    """The case ids of a verdict row's cells (by the case index)."""
    columns = {c["tokenizer"] for c in cells}
    return {
        case["id"]
        for case in index.held_cases()
        if case["cell"][0] == row and case["cell"][1] in columns
    }


def load_reports(out_dir: Path) -> list[dict]:
    """The stored peer runs (ValueError naming a file that is not one)."""
    order = {name: index for index, name in enumerate(PEERS)}
    reports = []
    for path in sorted(out_dir.glob("*.json")):
        try:
            report = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{path}: not a stored peer run ({error})") from None
        if isinstance(report, dict) and "peer" in report:
            reports.append(report)
    return sorted(reports, key=lambda r: order.get(r["peer"]["module"].rsplit(".", 1)[-1], 99))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=PROG)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run the suite for one peer adapter")
    run_parser.add_argument("module", help="e.g. peers.evalscope_lcb")
    run_parser.add_argument(
        "--python",
        help="the interpreter the peer is installed for: serve the adapter from it over "
        "--impl-cmd (the generic server)",
    )
    run_parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    render_parser = commands.add_parser(
        "render", help=f"write the page and {MATRIX_NAME} beside it from the stored runs"
    )
    render_parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    render_parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if refusal := paths.outside_checkout(PROG):
        print(refusal, file=sys.stderr)
        return exit_codes.UNUSABLE
    if args.command == "run":
        return run(args.module, args.out_dir, args.python)
    try:
        reports = load_reports(args.out_dir)
    except ValueError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    if not reports:
        print(
            f"{PROG}: no peer runs in {args.out_dir}; run `{REGEN_COMMAND}`",
            file=sys.stderr,
        )
        return exit_codes.UNUSABLE
    print(f"{len(reports)} peers")
    written = report_files.write_reports(
        PROG,
        {
            "Markdown": (args.output, lambda: render(reports)),
            "Markdown matrix": (args.output.parent / MATRIX_NAME, lambda: render_matrix(reports)),
        },
    )
    return exit_codes.OK if written else report_files.REPORT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
