"""The reports of a conformance run, read from its results (reports/verdict.py): a JSON document
for machines and one self-contained HTML page for people (inline CSS, no scripts, no external
assets).

JSON: the implementation, where the goldens came from (PROVENANCE.json), the transformers
version, the tiers, the counts of every cell of the verdict matrix and of the API contract, the
failures grouped by the kind of their first difference, and every case not ok with its golden,
the implementation's answer, the readable report (first difference, visible characters) and the
full line diff.

HTML: the verdict matrix coloured by result, the failure groups, the per-cell table, every case
not ok (what matters first) with a side-by-side diff with whitespace made visible, and the
comparability matrix golden of this transformers line.

Both accept any string a case or an implementation produces (lone surrogates, NUL, other
control characters, megabytes): JSON keeps a lone surrogate as a ``\\udXXX`` escape, HTML
shows control characters and surrogates as visible escapes. Each file is written by
:func:`lcb_conformance.common.report_files.write_atomically`, so a report is whole or absent and
its mode is the umask's; a report that cannot be written raises :class:`ReportNotWritten`.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import json
from pathlib import Path

from lcb_conformance.common import showdiff
from lcb_conformance.common.report_files import write_atomically
from lcb_conformance.reports import closest
from lcb_conformance.reports.page_style import CSS, escape
from lcb_conformance.reports.verdict import (
    NOT_PROVIDED_CELL,
    Verdict,
    answer,
    golden_text,
    mismatch_report,
    provided,
    tokenizer_columns,
)
from lcb_conformance.runner.results import NOT_PROVIDED, SKIPPED, STATUSES, CaseResult
from lcb_conformance.suite import goldens, index, tokenization
from lcb_conformance.suite.goldens import GoldenKey

SCHEMA = "lcb-conformance-report/2"
HTML_DIFFS = 100  # failing cases shown with a side-by-side diff; the rest with their report
# difflib.HtmlDiff compares changed lines character by character (quadratic): above this many
# characters (golden + actual) a case gets its report only, the full texts being in the JSON.
SIDE_BY_SIDE_LIMIT = 200_000


def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def comparability_key() -> GoldenKey:
    return GoldenKey(goldens.COMPARABILITY, "", tokenization.transformers_line())


def visible_lines(text: str) -> list[str]:
    return [showdiff.visible(line) for line in text.split("\n")]


def line_diff(result: CaseResult) -> list[str]:
    golden, actual = golden_text(result), answer(result)
    if golden is None or actual is None or golden == actual:
        return []
    return list(
        difflib.unified_diff(
            visible_lines(golden), visible_lines(actual), "golden", "actual", n=2, lineterm=""
        )
    )


def failure_record(result: CaseResult) -> dict:
    return {
        "case": result.id,
        "tier": result.tier,
        "family": result.family,
        "function": result.function,
        "style": result.cell[0],
        "tokenizer": result.cell[1],
        "lmstyles": list(result.lmstyles),
        "shared_with": list(result.shared_with),
        "status": result.status,
        "reason": result.reason,
        "golden_file": f"conformance/goldens/{result.golden}" if result.golden else None,
        "golden": golden_text(result),
        "actual": answer(result),
        "actual_repr": result.actual_repr,
        "declared_deviation": result.deviation,
        "difference": result.difference,
        "timing_sensitive": result.timing_sensitive,
        "report": mismatch_report(result),
        "diff": line_diff(result),
    }


def _cell_record(summary) -> dict:
    return {
        "style": summary.cell.style,
        "tokenizer": summary.cell.tokenizer,
        "checks": list(summary.checks),
        "status": summary.status,
        "cases": summary.cases,
        "run": summary.run,
        "ok": summary.ok,
        "not_ok": summary.run - summary.ok,
        "not_provided": summary.counts[NOT_PROVIDED],
        "skipped": summary.counts[SKIPPED],
        "first_failure": summary.first_failure.id if summary.first_failure else None,
    }


def to_json(verdict: Verdict) -> dict:
    provenance = goldens.provenance()
    line = tokenization.transformers_line()
    matrix = comparability_key()
    totals = verdict.totals()
    header = verdict.run.header
    return {
        "schema": SCHEMA,
        "verdict": "pass" if verdict.exit_code() == 0 else "fail",
        "headline": verdict.headline(),
        "tiers": verdict.tiers(),
        "exit_code": verdict.exit_code(),
        "impl": verdict.impl,
        "goldens": {
            "upstream": provenance.get("upstream"),
            "generated_by": provenance.get("generated_by"),
            "environment": provenance.get("environments", {}).get(line),
        },
        "transformers": {"version": _version("transformers"), "line": line},
        "suite": {
            "options": header.get("options", {}),
            "complete": verdict.run.complete,
            "lcb_conformance_version": _version("lcb-conformance"),
        },
        "totals": {"cases": sum(totals.values())} | {s: totals[s] for s in STATUSES},
        "cells": [_cell_record(s) for s in verdict.summaries()],
        "contract": [_cell_record(s) for s in verdict.contract_summaries()],
        "failure_groups": [
            {
                "title": group.title(),
                "status": group.status,
                "kind": group.kind,
                "family": group.family,
                "count": len(group.results),
                "cases": [result.id for result in group.results],
            }
            for group in verdict.groups()
        ],
        "failures": [failure_record(result) for result in verdict.failures()],
        "comparability_matrix": {"golden_key": str(matrix), "text": goldens.read(matrix)},
        "closest_official": closest.to_json(verdict.golden),
    }


def json_bytes(verdict: Verdict) -> bytes:
    """The JSON report as UTF-8. json.dumps escapes control characters itself; a lone
    surrogate (which UTF-8 cannot carry) becomes the JSON escape \\udXXX, so nothing is lost."""
    text = json.dumps(to_json(verdict), indent=1, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


def write_json(verdict: Verdict, path: Path) -> None:
    write_atomically(path, json_bytes(verdict))


# --- HTML ------------------------------------------------------------------------------------


STATUS_CLASS = {
    "pass": "pass",
    "fail": "fail",
    "not provided": "not-provided",
    "skipped": "skipped",
}


COLUMN_TITLES = {
    index.NO_TOKENIZER: "no tokenizer (raw prompt, extraction)",
    index.NO_TEMPLATE: "no template (system + user)",
    index.MESSAGES_COLUMN: "chat messages (format_lcb_messages)",
}


def _anchor(index: int) -> str:
    return f"failure-{index}"


def _anchors(failures: list[CaseResult]) -> dict[str, str]:
    return {result.id: _anchor(number) for number, result in enumerate(failures)}


def matrix_table(verdict: Verdict, anchors: dict[str, str]) -> str:
    """The verdict matrix: a row per style, a column per tokenizer family, every cell
    coloured by its result (empty cells: no case of that combination)."""
    summaries = {(s.cell.style, s.cell.tokenizer): s for s in verdict.summaries()}
    styles = list(dict.fromkeys(style for style, _ in summaries))
    known = tokenizer_columns()
    columns = [c for c in known if any(c == t for _, t in summaries)]
    columns += [t for t in dict.fromkeys(t for _, t in summaries) if t not in known]
    head = "".join(f"<th>{escape(COLUMN_TITLES.get(column, column))}</th>" for column in columns)
    rows = []
    for style in styles:
        cells = []
        for column in columns:
            summary = summaries.get((style, column))
            if summary is None:
                cells.append('<td class="cell empty" title="no cases">·</td>')
                continue
            counts = summary.counts
            title = (
                f"{style} / {column}: {summary.cases} cases ({', '.join(summary.checks)}): "
                f"{summary.ok} identical, {summary.run - summary.ok} not, "
                f"{counts[NOT_PROVIDED]} not provided"
            )
            text = "n/p" if summary.status == "not provided" else f"{summary.ok}/{summary.run}"
            if summary.first_failure is not None:
                anchor = anchors.get(summary.first_failure.id)
                if anchor:
                    text = f'<a href="#{anchor}">{text}</a>'
            classes = STATUS_CLASS[summary.status]
            if summary.status == "pass" and counts[NOT_PROVIDED]:
                classes += " partial"  # identical where provided, some cases not provided
            cells.append(f'<td class="cell {classes}" title="{escape(title)}">{text}</td>')
        rows.append(f"<tr><th>{escape(style)}</th>{''.join(cells)}</tr>")
    return (
        '<table class="matrix" id="verdict-matrix">'
        f"<thead><tr><th>style \\ tokenizer</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def cells_table(summaries, anchors: dict[str, str], table_id: str) -> str:
    header = ("style", "tokenizer", "checks", "cases", "identical", "not ok", "not provided",
              "skipped", "result", "first case not ok")  # fmt: skip
    rows = []
    for s in summaries:
        first = "-"
        if s.first_failure is not None:
            anchor = anchors.get(s.first_failure.id)
            name = escape(s.first_failure.id)
            first = f'<a href="#{anchor}">{name}</a>' if anchor else name
        values = (
            escape(s.cell.style),
            escape(s.cell.tokenizer),
            escape(", ".join(s.checks) or "-"),
            s.cases,
            s.ok,
            s.run - s.ok,
            s.counts[NOT_PROVIDED],
            s.counts[SKIPPED],
        )
        tds = "".join(f"<td>{value}</td>" for value in values)
        tds += f'<td class="status">{escape(s.status)}</td><td class="mono">{first}</td>'
        rows.append(f'<tr class="{STATUS_CLASS[s.status]}">{tds}</tr>')
    head = "".join(f"<th>{escape(name)}</th>" for name in header)
    return (
        f'<table id="{table_id}"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def side_by_side(result: CaseResult) -> str:
    golden, actual = golden_text(result), answer(result)
    if golden is None or actual is None or golden == actual:
        return ""
    if len(golden) + len(actual) > SIDE_BY_SIDE_LIMIT:
        return (
            f"<p>No side-by-side diff: {len(golden) + len(actual)} characters is too many "
            "(both texts are in the JSON report).</p>"
        )
    # HtmlDiff wraps long lines itself (at wrapcolumn, marking continuations with ">")
    return difflib.HtmlDiff(tabsize=4, wrapcolumn=80).make_table(
        visible_lines(golden),
        visible_lines(actual),
        "golden (lcb_runner)",
        "actual (implementation)",
        context=True,
        numlines=2,
    )


def tiers_list(tiers: dict[str, dict]) -> str:
    """The three questions, in order, each with its answer and counts of the cases run."""
    upstream, declared, contract = (
        tiers["upstream"],
        tiers["declared_deviations"],
        tiers["api_contract"],
    )
    items = [
        (
            "pass" if upstream["identical"] else "fail",
            f"1. {upstream['question']}: {'yes' if upstream['identical'] else 'NO'}: "
            f"{upstream['identical_cases']} of {upstream['run']} cases identical"
            + (
                f" ({upstream['differing_by_declared_deviations']} differ by declared deviations)"
                if upstream["differing_by_declared_deviations"]
                else ""
            ),
        ),
        (
            "pass" if declared["identical"] else "fail",
            f"2. {declared['question']} ({', '.join(declared['deviations']) or 'none declared'})"
            f": {'yes' if declared['identical'] else 'NO'}: {declared['passed']} of "
            f"{declared['run']} cases",
        ),
        (
            "pass" if not contract["failed"] else "fail",
            f"3. {contract['question']}: {contract['passed']} of {contract['run']} passed"
            + ("" if contract["counts_in_exit_code"] else " (not in the exit code)"),
        ),
    ]
    rows = "".join(f'<li class="{status}">{escape(text)}</li>' for status, text in items)
    return f'<ul id="tiers">{rows}</ul>'


def failure_section(number: int, result: CaseResult, with_diff: bool) -> str:
    golden_file = f"conformance/goldens/{result.golden}" if result.golden else "-"
    stands_for = ", ".join(result.lmstyles) or "-"
    parts = [
        f'<section class="failure" id="{_anchor(number)}">',
        f"<h3>{escape(result.id)}</h3>",
        '<dl class="meta">',
        f"<dt>cell</dt><dd>{escape(result.cell[0])} / {escape(result.cell[1])}</dd>",
        f"<dt>status</dt><dd>{escape(result.status)}: {escape(result.reason)}</dd>",
        f"<dt>LMStyles</dt><dd>{escape(stands_for)}</dd>",
        f"<dt>golden</dt><dd><code>{escape(golden_file)}</code></dd>",
        "</dl>",
        f"<pre>{escape(mismatch_report(result))}</pre>",
    ]
    if with_diff:
        parts.append(side_by_side(result))
    parts.append("</section>")
    return "\n".join(parts)


def groups_list(verdict: Verdict, anchors: dict[str, str]) -> str:
    items = [
        f'<li><a href="#{anchors[group.results[0].id]}">{escape(group.title())}</a></li>'
        for group in verdict.groups()
    ]
    return f"<ul id=\"groups\">{''.join(items) or '<li>none</li>'}</ul>"


def to_html(verdict: Verdict) -> str:
    data = to_json(verdict)
    failures = verdict.failures()
    anchors = _anchors(failures)
    status = "pass" if verdict.exit_code() == 0 else "fail"
    impl = verdict.impl
    meta = _meta(verdict, data)
    matrix = data["comparability_matrix"]
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance: {escape(impl.get('name'))} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance report</h1>",
        f'<p class="headline {status}" id="verdict">{escape(verdict.headline())}</p>',
        tiers_list(data["tiers"]),
        '<dl class="meta">',
        *(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in meta),
        "</dl>",
        '<h2 id="matrix">Verdict matrix: style × tokenizer family</h2>',
        "<p>Each cell: cases identical to their golden / cases run (not provided ones left "
        "out), for that style and tokenizer family (prompts, chat renderings, tokenizations, "
        "extractions). A red cell links to its first case not identical.</p>",
        matrix_table(verdict, anchors),
        '<p class="legend"><span style="background:#2da44e;color:#fff">'
        'identical</span><span style="background:#cf222e;color:#fff">not identical</span>'
        '<span style="background:#8fd19e">identical where provided</span>'
        '<span style="background:#d4a72c">not provided</span>'
        '<span style="background:#f6f8fa">no cases</span></p>',
        '<h2 id="failure-groups">What differs, grouped</h2>',
        "<p>Content differences in what the model is sent first, whitespace-only last; each "
        "group links to its first case.</p>",
        groups_list(verdict, anchors),
        *_closest_and_cells(verdict, data, anchors),
        *_failure_sections(failures),
        f'<h2 id="comparability">Comparability matrix ({escape(matrix["golden_key"])})</h2>',
        "<p>lcb_runner's prompts per style and tokenizer family, from the upstream goldens "
        "(what an implementation that passes the matching cells reproduces).</p>",
        f"<pre>{escape(matrix['text'] or '(no matrix golden for this transformers line)')}</pre>",
        "</body></html>",
    ]
    return "\n".join(body) + "\n"


def _meta(verdict: Verdict, data: dict) -> list[tuple[str, object]]:
    """What was run: the implementation, what it provides, the goldens, transformers, totals."""
    upstream = data["goldens"]["upstream"] or {}
    upstream_text = ", ".join(f"{k}={v}" for k, v in sorted(upstream.items())) or "unknown"
    impl = verdict.impl
    return [
        ("implementation", impl.get("name")),
        ("provides", ", ".join(provided(impl)) or "-"),
        ("not provided", ", ".join(impl.get("not_provided", [])) or "-"),
        (
            "styles",
            ", ".join(impl["styles"]) if impl.get("styles") is not None else "all (no STYLES)",
        ),
        ("declared deviations", ", ".join(impl.get("deviations", [])) or "none"),
        ("goldens from upstream", upstream_text),
        ("transformers", f"{data['transformers']['version']} ({data['transformers']['line']})"),
        ("totals", ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data["totals"].items() if v)),
    ]


def _closest_and_cells(verdict: Verdict, data: dict, anchors: dict[str, str]) -> list[str]:
    """The closest official styles, the per-cell table and the API contract's."""
    return [
        '<h2 id="closest">Closest official style</h2>',
        "<p>Which lcb_runner LMStyle each of its prompts, messages and extractions equals "
        "(or comes closest to, with the first difference), over every input it answered.</p>",
        "<ul>"
        + (
            "".join(f"<li>{escape(item['sentence'])}</li>" for item in data["closest_official"])
            or "<li>nothing to compare</li>"
        )
        + "</ul>",
        '<h2 id="cells">Per cell</h2>',
        cells_table(
            [s for s in verdict.summaries() if s.status != NOT_PROVIDED_CELL],
            anchors,
            "verdict-cells",
        ),
        f"<p>{escape(verdict.not_provided_line(verdict.summaries()))}</p>",
        '<h2 id="contract">API contract (apart from comparability)</h2>',
        cells_table(verdict.contract_summaries(), anchors, "contract-cells"),
    ]


def _failure_sections(failures: list[CaseResult]) -> list[str]:
    """Every case not identical, the first HTML_DIFFS with a side-by-side diff."""
    diffs_note = (
        f"<p>Side-by-side diffs for the first {HTML_DIFFS}; every case is in the JSON report.</p>"
        if len(failures) > HTML_DIFFS
        else ""
    )
    return [
        f'<h2 id="failures">Cases not identical ({len(failures)})</h2>',
        diffs_note,
        *(
            [
                failure_section(number, result, number < HTML_DIFFS)
                for number, result in enumerate(failures)
            ]
            or ["<p>None.</p>"]
        ),
    ]


def write_html(verdict: Verdict, path: Path) -> None:
    write_atomically(path, to_html(verdict).encode("utf-8"))
