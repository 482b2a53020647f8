"""`python -m lcb_conformance_dev.peers render`'s pages from the stored peer runs: the summary
(docs/peers.md) and peers-matrix.md beside it.

The summary holds per peer the verdict, the judge's differences and the predictions observed,
then the requests and score tables across peers; peers-matrix.md per peer and cell of the
verdict matrix its first failures, its judge verdicts and the survey's predictions against
what the run found."""

from __future__ import annotations

import json
import tomllib
from collections import Counter

from lcb_conformance.common import paths, showdiff
from lcb_conformance.reports import judge as judge_report
from lcb_conformance.suite import goldens, index
from lcb_conformance.suite.families import request
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import judge
from lcb_conformance_dev import journeys
from lcb_conformance_dev.peers_predictions import (
    failures_of,
    judge_differences,
    judge_not_run,
    observed_differences,
    predictions,
)

REQUESTS_FILE = paths.ROOT / "peers" / "requests.toml"
MATRIX_NAME = "peers-matrix.md"  # written beside the summary, linked from it
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
    think = [f for f in failures_of(report, "extract/") if f["declared_deviation"] == "think"]
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
    return lines + _judge_lines(report) + _first_failures(report) + _prediction_lines(report)


def _judge_lines(report: dict) -> list[str]:
    """Which way each judge verdict differs from lcb_runner's, or why there are none."""
    differences = judge_differences(report)
    if differences is not None:
        return judge_report.table_lines(differences)
    if report["peer"].get("has_judge"):
        return [
            f"Its adapter's `judge_program` {judge_not_run(report)}: no judge verdicts, and its "
            "judge predictions below are not checked.",
            "",
        ]
    return []


def _first_failures(report: dict) -> list[str]:
    """The first case not identical of each cell, its showdiff report shortened."""
    firsts = _first_per_cell(report)
    if not firsts:
        return []
    lines = ["First case not identical of each such cell:", "", "```"]
    for failure in firsts:
        lines += [_short(failure), ""]
    lines[-1] = "```"
    return [*lines, ""]


def _prediction_lines(report: dict) -> list[str]:
    """The peers survey's predictions for the peer, each checked against the run."""
    name = report["peer"]["module"].rsplit(".", 1)[-1]
    predicted = predictions().get(name, [])
    if not predicted:
        return []
    lines = [
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
    return [*lines, ""]


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


# The journey's last section (docs/journeys.json: this page is the peers journey's).
NEXT = [
    "## Next",
    "",
    "- Your harness against the same cases: `lcb-conformance --impl my_adapter:adapter` "
    "([implementations.md](implementations.md)).",
    "- Re-running a peer, or adding one: [running-peers.md](running-peers.md).",
]


def render(reports: list[dict]) -> str:
    lines = [
        "# Peers: other LiveCodeBench harnesses under the conformance suite",
        "",
        # the journey's box (docs/journeys.json; docs_figures --write keeps its total)
        "<!-- figure: journey-box peers -->",
        journeys.box("peers"),
        "<!-- /figure -->",
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
    lines += request_lines(reports) + score_lines(reports) + ["", *NEXT]
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
