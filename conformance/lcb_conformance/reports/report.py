"""The reports of a conformance run (lcb_conformance.cli): a JSON document for machines and one
self-contained HTML page for people (inline CSS, no scripts, no external assets).

JSON: the implementation, where the goldens came from (PROVENANCE.json), the transformers
version, the counts of every cell of the verdict matrix, and every failing case with its golden
key, golden text, the implementation's text, the readable report (first difference, visible
characters) and the full line diff.

HTML: the verdict matrix coloured by result, the per-cell table, every failing case with a
side-by-side diff with whitespace made visible, and the comparability matrix golden of this
transformers line.

Both accept any string a case or an implementation produces (lone surrogates, NUL, other
control characters, megabytes): JSON keeps a lone surrogate as a ``\\udXXX`` escape, HTML
shows control characters and surrogates as visible escapes. Each file is written by
:func:`lcb_conformance.suite.report_files.write_atomically`, so a report is whole or absent and
its mode is the umask's; a report that cannot be written raises :class:`ReportNotWritten`.
"""

from __future__ import annotations

import difflib
import html
import importlib.metadata
import json
import re
from pathlib import Path

from lcb_conformance.reports import closest, verdict
from lcb_conformance.reports.verdict import (
    FAILED,
    NOT_PROVIDED_OUTCOME,
    PASSED,
    SKIPPED,
    CaseResult,
    Run,
)
from lcb_conformance.suite import audit, goldens, showdiff
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.suite.report_files import (
    ReportNotWritten,  # noqa: F401 (cli catches report.ReportNotWritten)
    write_atomically,
)

SCHEMA = "lcb-conformance-report/1"
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
    return GoldenKey(goldens.COMPARABILITY, "", audit.transformers_line())


def visible_lines(text: str) -> list[str]:
    return [showdiff.visible(line) for line in text.split("\n")]


def line_diff(result: CaseResult) -> list[str]:
    golden, actual = result.golden, result.actual_text
    if golden is None or actual is None:
        return []
    return list(
        difflib.unified_diff(
            visible_lines(golden), visible_lines(actual), "golden", "actual", n=2, lineterm=""
        )
    )


def failure_record(result: CaseResult) -> dict:
    golden, actual = result.golden, result.actual_text
    return {
        "case": result.case_id,
        "nodeid": result.nodeid,
        "style": result.cell.style,
        "tokenizer": result.cell.tokenizer,
        "golden_key": str(result.key) if result.key is not None else None,
        "golden_file": (
            f"conformance/goldens/{result.key.relative}" if result.key is not None else None
        ),
        "golden": golden,
        "actual": actual,
        "actual_repr": (
            repr(result.actual)[:2000]
            if result.actual is not verdict.NO_ACTUAL and actual is None
            else None
        ),
        "first_difference": (
            showdiff.first_difference(actual, golden)
            if golden is not None and actual is not None
            else None
        ),
        "tier": (
            "api_contract"
            if result.key is None
            else "upstream"
            if result.upstream_golden and not result.declared_deviation
            else "declared_deviations"
        ),
        "declared_deviation": result.declared_deviation,
        **result.severity(),
        "report": result.mismatch_report(),
        "diff": line_diff(result),
        "pytest_report": result.message,
    }


def to_json(run: Run) -> dict:
    provenance = goldens.provenance()
    line = audit.transformers_line()
    matrix = comparability_key()
    totals = run.totals()
    return {
        "schema": SCHEMA,
        "verdict": "pass" if run.exit_code() == 0 else "fail",
        "headline": run.headline(),
        "tiers": run.tiers(),
        "exit_code": run.exit_code(),
        "impl": run.impl,
        "goldens": {
            "upstream": provenance.get("upstream"),
            "generated_by": provenance.get("generated_by"),
            "environment": provenance.get("environments", {}).get(line),
        },
        "transformers": {"version": _version("transformers"), "line": line},
        "suite": {
            "pytest_args": run.pytest_args,
            "pytest_exit_code": run.pytest_exit_code,
            "upstream_option": run.upstream,
            "tokenizers": run.tokenizers,
            "lcb_conformance_version": _version("lcb-conformance"),
        },
        "totals": {
            "cases": sum(totals.values()),
            "passed": totals[PASSED],
            "failed": totals[FAILED],
            "not_provided": totals[NOT_PROVIDED_OUTCOME],
            "skipped": totals[SKIPPED],
        },
        "cells": [
            {
                "style": s.cell.style,
                "tokenizer": s.cell.tokenizer,
                "checks": list(s.checks),
                "status": s.status,
                "cases": s.cases,
                "run": s.run,
                "passed": s.counts[PASSED],
                "failed": s.counts[FAILED],
                "not_provided": s.counts[NOT_PROVIDED_OUTCOME],
                "skipped": s.counts[SKIPPED],
                "first_failure": s.first_failure.case_id if s.first_failure else None,
            }
            for s in run.summaries()
        ],
        "failures": [failure_record(result) for result in run.failures()],
        "collection_errors": [
            {"nodeid": nodeid, "report": text} for nodeid, text in run.collection_errors
        ],
        "comparability_matrix": {"golden_key": str(matrix), "text": goldens.read(matrix)},
        "closest_official": closest.to_json(run.results),
    }


def json_bytes(run: Run) -> bytes:
    """The JSON report as UTF-8. json.dumps escapes control characters itself; a lone
    surrogate (which UTF-8 cannot carry) becomes the JSON escape \\udXXX, so nothing is lost."""
    text = json.dumps(to_json(run), indent=1, ensure_ascii=False) + "\n"
    return text.encode("utf-8", "backslashreplace")


def write_json(run: Run, path: Path) -> None:
    write_atomically(path, json_bytes(run))


# --- HTML ------------------------------------------------------------------------------------

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 24px;
       color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 0 0 8px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid #d0d7de; }
h3 { font-size: 15px; margin: 18px 0 6px; font-family: ui-monospace, monospace; }
code, pre, .mono { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; }
pre { background: #f6f8fa; border: 1px solid #d0d7de; padding: 8px; overflow-x: auto; }
.headline { font-size: 16px; font-weight: 600; padding: 8px 12px; border-radius: 6px;
            display: inline-block; }
.headline.pass { background: #dafbe1; color: #116329; border: 1px solid #2da44e; }
.headline.fail { background: #ffebe9; color: #a40e26; border: 1px solid #cf222e; }
dl.meta { display: grid; grid-template-columns: max-content auto; gap: 2px 16px; }
dl.meta dt { font-weight: 600; } dl.meta dd { margin: 0; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
table.matrix td.cell { text-align: center; min-width: 74px; font-weight: 600;
                       font-variant-numeric: tabular-nums; }
table.matrix thead th { font-size: 12px; max-width: 110px; }
td.pass, tr.pass td.status { background: #2da44e; color: #fff; }
td.fail, tr.fail td.status { background: #cf222e; color: #fff; }
td.not-provided, tr.not-provided td.status { background: #d4a72c; color: #1f2328; }
td.skipped, tr.skipped td.status { background: #afb8c1; color: #1f2328; }
td.pass.partial { background: #8fd19e; color: #1f2328; }
td.empty { background: #f6f8fa; color: #8c959f; }
td.status { white-space: nowrap; }
td.cell a { color: inherit; }
.legend span { display: inline-block; padding: 2px 8px; margin-right: 6px; border-radius: 4px; }
.failure { border-left: 4px solid #cf222e; padding-left: 12px; margin: 18px 0; }
table.diff { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px;
             border: 1px solid #d0d7de; }
table.diff td, table.diff th { border: none; padding: 0 4px; white-space: pre; }
table.diff thead th { background: #eaeef2; }
.diff_header { background: #f6f8fa; color: #57606a; text-align: right; }
td.diff_next { background: #f6f8fa; }
.diff_add { background: #aceebb; } .diff_chg { background: #fff1a8; }
.diff_sub { background: #ffcecb; }
#tiers li.pass { color: #116329; } #tiers li.fail { color: #a40e26; font-weight: 600; }
.escape { background: #fff1a8; color: #a40e26; }
"""

STATUS_CLASS = {
    "pass": "pass",
    "fail": "fail",
    "not provided": "not-provided",
    "skipped": "skipped",
}


COLUMN_TITLES = {
    verdict.NO_TOKENIZER: "no tokenizer (raw prompt, extraction)",
    verdict.NO_TEMPLATE: "no template (system + user)",
    verdict.MESSAGES_COLUMN: "chat messages (format_lcb_messages)",
}


# Characters a page cannot show or UTF-8 cannot carry: C0 controls but tab and line breaks,
# DEL, C1 controls and lone surrogates.
_INVISIBLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def _shown_escape(match: re.Match) -> str:
    code = ord(match.group())
    escape = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
    return f'<span class="escape">{escape}</span>'


def _e(text: object) -> str:
    """text as HTML, invisible and unencodable characters shown as escapes."""
    return _INVISIBLE.sub(_shown_escape, html.escape(str(text), quote=True))


def _anchor(index: int) -> str:
    return f"failure-{index}"


def matrix_table(run: Run, anchors: dict[str, str]) -> str:
    """The verdict matrix: a row per style, a column per tokenizer family, every cell
    coloured by its result (empty cells: no case of that combination)."""
    summaries = {
        (s.cell.style, s.cell.tokenizer): s
        for s in run.summaries()
        if s.cell.style != verdict.OTHER
    }
    styles = [style for style in verdict.STYLE_ORDER if style != verdict.OTHER]
    styles += sorted({style for style, _ in summaries} - set(styles))
    columns = list(verdict.tokenizer_columns())
    columns += sorted({tokenizer for _, tokenizer in summaries} - set(columns))
    head = "".join(f"<th>{_e(COLUMN_TITLES.get(column, column))}</th>" for column in columns)
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
                f"{counts[PASSED]} passed, {counts[FAILED]} failed, "
                f"{counts[NOT_PROVIDED_OUTCOME]} not provided"
            )
            if summary.status == "not provided":
                text = "n/p"
            else:
                text = f"{counts[PASSED]}/{summary.run}"  # of the cases that ran
            if summary.first_failure is not None:
                anchor = anchors.get(summary.first_failure.nodeid)
                if anchor:
                    text = f'<a href="#{anchor}">{text}</a>'
            classes = STATUS_CLASS[summary.status]
            if summary.status == "pass" and counts[NOT_PROVIDED_OUTCOME]:
                classes += " partial"  # identical where provided, some cases not provided
            cells.append(f'<td class="cell {classes}" title="{_e(title)}">{text}</td>')
        rows.append(f"<tr><th>{_e(style)}</th>{''.join(cells)}</tr>")
    return (
        '<table class="matrix" id="verdict-matrix">'
        f"<thead><tr><th>style \\ tokenizer</th>{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def cells_table(run: Run, anchors: dict[str, str]) -> str:
    header = (
        "style",
        "tokenizer",
        "checks",
        "cases",
        "passed",
        "failed",
        "not provided",
        "skipped",
        "result",
        "first failing case",
    )
    rows = []
    for s in run.summaries():
        first = "-"
        if s.first_failure is not None:
            anchor = anchors.get(s.first_failure.nodeid)
            name = _e(s.first_failure.case_id)
            first = f'<a href="#{anchor}">{name}</a>' if anchor else name
        values = (
            _e(s.cell.style),
            _e(s.cell.tokenizer),
            _e(", ".join(s.checks) or "-"),
            s.cases,
            s.counts[PASSED],
            s.counts[FAILED],
            s.counts[NOT_PROVIDED_OUTCOME],
            s.counts[SKIPPED],
            _e(s.status),
        )
        tds = "".join(f"<td>{value}</td>" for value in values[:-1])
        tds += f'<td class="status">{values[-1]}</td><td class="mono">{first}</td>'
        rows.append(f'<tr class="{STATUS_CLASS[s.status]}">{tds}</tr>')
    head = "".join(f"<th>{_e(name)}</th>" for name in header)
    return (
        f'<table id="verdict-cells"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
    )


def side_by_side(result: CaseResult) -> str:
    golden, actual = result.golden, result.actual_text
    if golden is None or actual is None:
        return ""
    if len(golden) + len(actual) > SIDE_BY_SIDE_LIMIT:
        return (
            f"<p>No side-by-side diff: {len(golden) + len(actual)} characters is too many "
            "(both texts are in the JSON report).</p>"
        )
    table = difflib.HtmlDiff(tabsize=4, wrapcolumn=80).make_table(
        visible_lines(golden),
        visible_lines(actual),
        "golden (lcb_runner)",
        "actual (implementation)",
        context=True,
        numlines=2,
    )
    # HtmlDiff wraps long lines itself (at wrapcolumn, marking continuations with ">")
    return table


def severity_text(found: dict) -> str:
    return ": ".join(filter(None, (found["severity"], found.get("detail"))))


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
            f"3. {contract['question']}: {contract['passed']} of {contract['run']} passed",
        ),
    ]
    rows = "".join(f'<li class="{status}">{_e(text)}</li>' for status, text in items)
    return f'<ul id="tiers">{rows}</ul>'


def failure_section(index: int, result: CaseResult, with_diff: bool) -> str:
    golden_file = f"conformance/goldens/{result.key.relative}" if result.key is not None else "-"
    parts = [
        f'<section class="failure" id="{_anchor(index)}">',
        f"<h3>{_e(result.case_id)}</h3>",
        '<dl class="meta">',
        f"<dt>cell</dt><dd>{_e(result.cell.style)} / {_e(result.cell.tokenizer)}</dd>",
        f"<dt>test</dt><dd><code>{_e(result.nodeid)}</code></dd>",
        f"<dt>golden</dt><dd><code>{_e(golden_file)}</code></dd>",
        f"<dt>severity</dt><dd>{_e(severity_text(result.severity()))}</dd>",
        "</dl>",
        f"<pre>{_e(result.mismatch_report())}</pre>",
    ]
    if with_diff:
        parts.append(side_by_side(result))
    parts.append("</section>")
    return "\n".join(parts)


def to_html(run: Run) -> str:
    data = to_json(run)
    failures = run.failures()
    anchors = {result.nodeid: _anchor(index) for index, result in enumerate(failures)}
    status = "pass" if run.exit_code() == 0 else "fail"
    upstream = data["goldens"]["upstream"] or {}
    upstream_text = ", ".join(f"{k}={v}" for k, v in sorted(upstream.items())) or "unknown"
    impl = run.impl
    meta = [
        ("implementation", impl.get("name")),
        ("provides", ", ".join(impl.get("provides", [])) or "-"),
        ("not provided", ", ".join(impl.get("not_provided", [])) or "-"),
        (
            "styles",
            ", ".join(impl["styles"]) if impl.get("styles") is not None else "all (no STYLES)",
        ),
        ("declared deviations", ", ".join(impl.get("deviations", [])) or "none"),
        ("goldens from upstream", upstream_text),
        (
            "transformers",
            f"{data['transformers']['version']} ({data['transformers']['line']})",
        ),
        ("totals", ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in data["totals"].items())),
        ("pytest", " ".join(run.pytest_args[1:])),
    ]
    diffs_note = (
        f"<p>Side-by-side diffs for the first {HTML_DIFFS}; every case is in the JSON report.</p>"
        if len(failures) > HTML_DIFFS
        else ""
    )
    other = [s for s in run.summaries() if s.cell.style == verdict.OTHER]
    other_html = (
        "".join(
            f'<li class="{STATUS_CLASS[s.status]}">{_e(s.cell.tokenizer)}: '
            f"{s.counts[PASSED]}/{s.cases} passed, {s.counts[FAILED]} failed, "
            f"{s.counts[NOT_PROVIDED_OUTCOME]} not provided"
            + (f", {s.counts[SKIPPED]} skipped" if s.counts[SKIPPED] else "")
            + "</li>"
            for s in other
        )
        or "<li>none ran</li>"
    )
    collection = "".join(
        f"<h3>collection error: {_e(nodeid)}</h3><pre>{_e(text)}</pre>"
        for nodeid, text in run.collection_errors
    )
    matrix = data["comparability_matrix"]
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance: {_e(impl.get('name'))} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance report</h1>",
        f'<p class="headline {status}" id="verdict">{_e(run.headline())}</p>',
        tiers_list(data["tiers"]),
        '<dl class="meta">',
        *(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meta),
        "</dl>",
        '<h2 id="matrix">Verdict matrix: style × tokenizer family</h2>',
        "<p>Each cell: cases identical to their golden / cases run (not provided ones left "
        "out), for that style and "
        "tokenizer family (prompts, chat renderings, token audits, extractions). A red cell "
        "links to its first failing case.</p>",
        matrix_table(run, anchors),
        '<p class="legend"><span style="background:#2da44e;color:#fff">'
        'identical</span><span style="background:#cf222e;color:#fff">failed</span>'
        '<span style="background:#8fd19e">identical where provided</span>'
        '<span style="background:#d4a72c">not provided</span>'
        '<span style="background:#f6f8fa">no cases</span></p>',
        f"<p>Other checks (bad input, properties, suite integrity):</p><ul>{other_html}</ul>",
        '<h2 id="closest">Closest official style</h2>',
        "<p>Which lcb_runner LMStyle each of its prompts, messages and extractions equals "
        "(or comes closest to, with the first difference), over every input it answered.</p>",
        "<ul>"
        + (
            "".join(f"<li>{_e(item['sentence'])}</li>" for item in data["closest_official"])
            or "<li>nothing to compare</li>"
        )
        + "</ul>",
        '<h2 id="cells">Per cell</h2>',
        cells_table(run, anchors),
        f'<h2 id="failures">Failing cases ({len(failures)})</h2>',
        diffs_note,
        *(
            [
                failure_section(index, result, index < HTML_DIFFS)
                for index, result in enumerate(failures)
            ]
            or ["<p>None.</p>"]
        ),
        collection,
        f'<h2 id="comparability">Comparability matrix ({_e(matrix["golden_key"])})</h2>',
        "<p>lcb_runner's prompts per style and tokenizer family, from the upstream goldens "
        "(what an implementation that passes the matching cells reproduces).</p>",
        f"<pre>{_e(matrix['text'] or '(no matrix golden for this transformers line)')}</pre>",
        "</body></html>",
    ]
    return "\n".join(body) + "\n"


def write_html(run: Run, path: Path) -> None:
    write_atomically(path, to_html(run).encode("utf-8"))
