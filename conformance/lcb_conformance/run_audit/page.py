"""`lcb-conformance audit --html FILE`: the audit of a finished run as one self-contained page.

The page: the headline, what was audited (file, format, lcb_runner's scenario, LMStyle,
upstream), where lcb_runner 28fef95 raises for the LMStyle in the scenario, the table per
problem (the text report's columns, a problem with a difference in red), why parts could not
be checked, the request against lcb_runner's (a row per parameter, a failing difference in
red), the first difference reports, and every sample that is not identical with its
verdict and reasons (identical samples are counted, not listed: a 10,000-sample run stays a
page), in the verdict report's look (reports/page_style.py).
"""

from __future__ import annotations

from lcb_conformance.reports import run_lint
from lcb_conformance.reports.page_style import CSS, escape
from lcb_conformance.run_audit import audit_result
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit.request_logs import LCB_RUNNER


def _problem_rows(audit: audit_result.Audit) -> str:
    rows = []
    for qid, counts in audit_result.per_problem(audit).items():
        differs = sum(counts[c] for c in audit_result.VERDICTS[1:4])
        status = "fail" if differs else "pass"
        samples = sum(counts[c] for c in audit_result.VERDICTS)
        cells = "".join(f"<td>{counts[c]}</td>" for c in audit_result.COLUMNS)
        rows.append(
            f'<tr class="{status}"><td class="status mono">{escape(qid)}</td><td>{samples}</td>'
            f"{cells}</tr>"
        )
    head = "".join(f"<th>{escape(c)}</th>" for c in ("problem", "samples", *audit_result.COLUMNS))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _request(audit: audit_result.Audit) -> list[str]:
    check = audit.request
    if check is None:
        return []
    head = f"against lcb_runner's (LMStyle.{audit.lmstyle}, {check.golden})"
    if check.unavailable:
        note = f"<p>{escape(head)}: cannot check: {escape(check.unavailable)}</p>"
        return ['<h2 id="request">Request</h2>', note]
    rows = "".join(
        f'<tr class="{"fail" if f.fails else "pass"}"><td class="status">{escape(f.parameter)}</td>'
        f"<td>{escape(f.outcome)}</td><td>{escape(f.run)}</td><td>{escape(f.lcb_runner)}</td>"
        f"<td>{escape(f.words or f.why)}</td></tr>"
        for f in check.findings
    )
    return [
        '<h2 id="request">Request</h2>',
        f"<p>{escape(head)}, read from {escape(check.source)}: "
        f"<strong>{escape(check.outcome)}</strong>. "
        f"n is noted, not failed: {escape(requested.N_ONLY_NOTED)}.</p>",
        "<table><thead><tr><th>parameter</th><th>outcome</th><th>the run</th>"
        f"<th>lcb_runner</th><th>in words</th></tr></thead><tbody>{rows}</tbody></table>",
    ]


def to_html(audit: audit_result.Audit) -> str:
    status = "pass" if audit.exit_code() == audit_result.EXIT_OK else "fail"
    meta = [
        ("run", audit.run),
        ("format", audit.format),
        *(
            [("scenario", audit.scenario + (" --cot_code_execution" if audit.cot else ""))]
            if audit.format == LCB_RUNNER
            else []
        ),
        ("LMStyle", audit.lmstyle),
        ("upstream", audit.upstream),
        ("lcb_runner cache", audit.cache or "-"),
        ("samples", len(audit.samples)),
    ]
    unchecked = [
        f"<li>{part} not checked for {count} samples: {escape(why)}</li>"
        for part, reasons in (
            ("prompt", audit.prompt_unchecked),
            ("extraction", audit.extraction_unchecked),
        )
        for why, count in reasons.items()
    ] + [
        f"<li>prompt not compared for {count} samples: {escape(why)}</li>"
        for why, count in audit.prompt_raised.items()
    ] + ([f"<li>{escape(audit_result.paired_by_position(audit))}</li>"]
         if audit.paired_by_position else [])  # fmt: skip
    others = [s for s in audit.samples if s.verdict != audit_result.IDENTICAL]
    sample_rows = "".join(
        f'<tr><td class="mono">{escape(s.question_id)}</td><td>{s.index}</td>'
        f"<td>{escape(s.verdict)}</td>"
        f"<td>{escape(s.prompt)}</td><td>{escape(s.extraction)}</td><td>{escape(s.why)}</td></tr>"
        for s in others
    )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance audit: {escape(audit.run)} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance audit</h1>",
        f'<p class="headline {status}" id="verdict">{escape(audit_result.headline(audit))}</p>',
        '<dl class="meta">',
        *(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in meta),
        "</dl>",
        f'<p class="fail">{escape(audit.lcb_runner_raises)}</p>' if audit.lcb_runner_raises else "",
        '<h2 id="problems">Per problem</h2>',
        _problem_rows(audit),
        f"<ul>{''.join(unchecked)}</ul>" if unchecked else "",
        *_request(audit),
        f'<h2 id="differences">First differences ({len(audit.reports)})</h2>',
        *(f"<pre>{escape(report)}</pre>" for report in audit.reports),
        f'<h2 id="samples">Samples not identical ({len(others)})</h2>',
        (
            "<table><thead><tr><th>problem</th><th>sample</th><th>verdict</th><th>prompt</th>"
            f"<th>extraction</th><th>why</th></tr></thead><tbody>{sample_rows}</tbody></table>"
            if others
            else "<p>None.</p>"
        ),
        *run_lint.html(audit.lint),
        "</body></html>",
    ]
    return "\n".join(body) + "\n"
