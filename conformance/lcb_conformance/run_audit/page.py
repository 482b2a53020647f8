"""`lcb-conformance audit --html FILE`: the audit of a finished run as one self-contained page.

The page: the headline, what was audited (file, format, lcb_runner's scenario, LMStyle,
upstream), where lcb_runner 28fef95 raises for the LMStyle in the scenario, the table per
problem (the text report's columns, a problem with a difference in red), why parts could not
be checked, the request against lcb_runner's (a row per parameter, a failing difference in
red), the first difference reports, and every sample that is not identical with its
verdict and reasons (identical samples are counted, not listed: a 10,000-sample run stays a
page), in the verdict report's look (reports.report's CSS).
"""

from __future__ import annotations

from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_audit import request as requested


def _e(text: object) -> str:
    from lcb_conformance.reports.report import _e as escaped  # only when a page is written

    return escaped(text)


def _problem_rows(audit: run_audit.Audit) -> str:
    rows = []
    for qid, counts in run_audit.per_problem(audit).items():
        differs = sum(counts[c] for c in run_audit.VERDICTS[1:4])
        status = "fail" if differs else "pass"
        samples = sum(counts[c] for c in run_audit.VERDICTS)
        cells = "".join(f"<td>{counts[c]}</td>" for c in run_audit.COLUMNS)
        rows.append(
            f'<tr class="{status}"><td class="status mono">{_e(qid)}</td><td>{samples}</td>'
            f"{cells}</tr>"
        )
    head = "".join(f"<th>{_e(c)}</th>" for c in ("problem", "samples", *run_audit.COLUMNS))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def _request(audit: run_audit.Audit) -> list[str]:
    check = audit.request
    if check is None:
        return []
    head = f"against lcb_runner's (LMStyle.{audit.lmstyle}, {check.golden})"
    if check.unavailable:
        note = f"<p>{_e(head)}: cannot check: {_e(check.unavailable)}</p>"
        return ['<h2 id="request">Request</h2>', note]
    rows = "".join(
        f'<tr class="{"fail" if f.fails else "pass"}"><td class="status">{_e(f.parameter)}</td>'
        f"<td>{_e(f.outcome)}</td><td>{_e(f.run)}</td><td>{_e(f.lcb_runner)}</td>"
        f"<td>{_e(f.words or f.why)}</td></tr>"
        for f in check.findings
    )
    return [
        '<h2 id="request">Request</h2>',
        f"<p>{_e(head)}, read from {_e(check.source)}: <strong>{_e(check.outcome)}</strong>. "
        f"n is noted, not failed: {_e(requested.N_ONLY_NOTED)}.</p>",
        "<table><thead><tr><th>parameter</th><th>outcome</th><th>the run</th>"
        f"<th>lcb_runner</th><th>in words</th></tr></thead><tbody>{rows}</tbody></table>",
    ]


def to_html(audit: run_audit.Audit) -> str:
    from lcb_conformance.reports.report import CSS  # the verdict report's look

    status = "pass" if audit.exit_code() == run_audit.EXIT_OK else "fail"
    meta = [
        ("run", audit.run),
        ("format", audit.format),
        *(
            [("scenario", audit.scenario + (" --cot_code_execution" if audit.cot else ""))]
            if audit.format == run_audit.LCB_RUNNER
            else []
        ),
        ("LMStyle", audit.lmstyle),
        ("upstream", audit.upstream),
        ("lcb_runner cache", audit.cache or "-"),
        ("samples", len(audit.samples)),
    ]
    unchecked = [
        f"<li>{part} not checked for {count} samples: {_e(why)}</li>"
        for part, reasons in (
            ("prompt", audit.prompt_unchecked),
            ("extraction", audit.extraction_unchecked),
        )
        for why, count in reasons.items()
    ] + [
        f"<li>prompt differs for {count} samples: {_e(why)}</li>"
        for why, count in audit.prompt_raised.items()
    ]
    others = [s for s in audit.samples if s.verdict != run_audit.IDENTICAL]
    sample_rows = "".join(
        f'<tr><td class="mono">{_e(s.question_id)}</td><td>{s.index}</td><td>{_e(s.verdict)}</td>'
        f"<td>{_e(s.prompt)}</td><td>{_e(s.extraction)}</td><td>{_e(s.why)}</td></tr>"
        for s in others
    )
    body = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>lcb-conformance audit: {_e(audit.run)} ({status})</title>",
        f"<style>{CSS}</style></head><body>",
        "<h1>lcb-conformance audit</h1>",
        f'<p class="headline {status}" id="verdict">{_e(run_audit.headline(audit))}</p>',
        '<dl class="meta">',
        *(f"<dt>{_e(k)}</dt><dd>{_e(v)}</dd>" for k, v in meta),
        "</dl>",
        f'<p class="fail">{_e(audit.lcb_runner_raises)}</p>' if audit.lcb_runner_raises else "",
        '<h2 id="problems">Per problem</h2>',
        _problem_rows(audit),
        f"<ul>{''.join(unchecked)}</ul>" if unchecked else "",
        *_request(audit),
        f'<h2 id="differences">First differences ({len(audit.reports)})</h2>',
        *(f"<pre>{_e(report)}</pre>" for report in audit.reports),
        f'<h2 id="samples">Samples not identical ({len(others)})</h2>',
        (
            "<table><thead><tr><th>problem</th><th>sample</th><th>verdict</th><th>prompt</th>"
            f"<th>extraction</th><th>why</th></tr></thead><tbody>{sample_rows}</tbody></table>"
            if others
            else "<p>None.</p>"
        ),
        "</body></html>",
    ]
    return "\n".join(body) + "\n"
