"""The look every HTML report shares (CSS) and `escape`.

What every HTML report of the package shares (the verdict report, the audit's page, the
score's and the regrade's): the page's look (CSS) and ``escape``, text as HTML with invisible
and unencodable characters shown as escapes."""

from __future__ import annotations

import html
import re

from lcb_conformance.common import showdiff

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


# Characters a page cannot show or UTF-8 cannot carry: C0 controls but tab and line breaks,
# DEL, C1 controls and lone surrogates; and the bidirectional controls, which would reorder
# the rest of a cell.
_INVISIBLE = re.compile(
    f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{showdiff.BIDI_CONTROLS}\ud800-\udfff]"
)


def _shown_escape(match: re.Match) -> str:
    code = ord(match.group())
    escape = f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
    return f'<span class="escape">{escape}</span>'


def escape(text: object) -> str:
    """text as HTML, invisible and unencodable characters shown as escapes."""
    return _INVISIBLE.sub(_shown_escape, html.escape(str(text), quote=True))
