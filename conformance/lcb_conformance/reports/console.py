"""The verdict on a terminal or a pipe, safe for any string and any encoding.

The verdict on a terminal or a pipe: the matrix as a table, the failure groups with an
example diff each, the closest official style and the headline.

Whatever an implementation returned is shown with invisible characters escaped (showdiff), and
every line is written by showdiff.write: control and bidirectional characters of a hostile
name or message escaped, then the colour added (only the gate's own escape sequences reach
the terminal), and no stream encoding can refuse it (a lone surrogate or a character the
terminal's encoding lacks becomes an escape, never a UnicodeEncodeError).
"""

from __future__ import annotations

import os
import sys

from lcb_conformance.common import showdiff
from lcb_conformance.reports import closest
from lcb_conformance.reports.verdict import (
    NOT_PROVIDED_CELL,
    CellSummary,
    Verdict,
    mismatch_report,
    provided,
)
from lcb_conformance.runner.results import NOT_PROVIDED, SKIPPED

SHOWN_GROUPS = 3  # failure groups shown with an example
SHOWN_REPORT_LINES = 16
_COLOURS = {"pass": "32", "fail": "31;1", "not provided": "33", "skipped": "2"}


def use_color(choice: str, stream=None) -> bool:
    """--color: "auto" asks the stream (sys.stdout as it is now, not as it was at import)."""
    if choice != "auto":
        return choice == "always"
    asked = "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"
    return (stream or sys.stdout).isatty() and asked


def table(summaries: list[CellSummary]) -> list[tuple[str, str | None]]:
    """The matrix, one line per cell: (line, the SGR colour of its result; None for the
    header)."""
    skips = any(s.counts[SKIPPED] for s in summaries)
    header = ("style", "tokenizer", "checks", "cases", "identical", "not ok", "not provided",
              *(("skipped",) if skips else ()), "first case not ok")  # fmt: skip
    rows = [
        (
            s.cell.style,
            s.cell.tokenizer,
            ",".join(s.checks) or "-",
            str(s.cases),
            str(s.ok),
            str(s.run - s.ok),
            str(s.counts[NOT_PROVIDED]),
            *((str(s.counts[SKIPPED]),) if skips else ()),
            s.first_failure.id if s.first_failure else "-",
        )
        for s in summaries
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header) - 1)]
    colours = [None, *(_COLOURS[s.status] for s in summaries)]
    lines = []
    for row, colour in zip([header, *rows], colours, strict=True):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        lines.append(("  ".join([*cells, row[-1]]).rstrip(), colour))
    return lines


def describe_impl(impl: dict) -> str:
    """One line: what the implementation provides, and what not."""
    line = f"lcb-conformance: {impl.get('name')} provides {', '.join(provided(impl)) or 'nothing'}"
    if impl.get("not_provided"):
        line += f"; not {', '.join(impl['not_provided'])}"
    if impl.get("styles") is not None and impl.get("styles_not_provided"):
        line += f"; styles {', '.join(impl['styles'])}"
    return line


def print_verdict(verdict: Verdict, color: bool = False, stream=None) -> None:
    def say(text: str = "", colour: str | None = None) -> None:
        showdiff.write(text, stream, colour if color else None)

    def say_table(summaries: list[CellSummary]) -> None:
        for line, colour in table(summaries):
            say(line, colour)

    summaries = verdict.summaries()
    # an adapter of two functions has a hundred cells of nothing: one line says so
    say_table([s for s in summaries if s.status != NOT_PROVIDED_CELL])
    if collapsed := verdict.not_provided_line(summaries):
        say(collapsed)
    contract = verdict.contract_summaries()
    if contract:
        say()
        say_table(contract)
    groups = verdict.groups()
    for group in groups[:SHOWN_GROUPS]:
        say()
        say(f"{group.title()}; e.g. {group.results[0].id}:", _COLOURS["fail"])
        lines = mismatch_report(group.results[0]).splitlines()
        shown = lines[:SHOWN_REPORT_LINES]
        if len(lines) > SHOWN_REPORT_LINES:
            shown.append(f"… ({len(lines) - SHOWN_REPORT_LINES} more lines in the reports)")
        say("\n".join(shown))
    if len(groups) > SHOWN_GROUPS:
        rest = groups[SHOWN_GROUPS:]
        say(f"\n… and {len(rest)} more groups: " + "; ".join(g.title() for g in rest))
    found = closest.closest_official(verdict.golden)
    differing = [item for item in found if not item.identical_to]
    if found:
        say(
            f"\nclosest official style: {len(found) - len(differing)} of {len(found)} "
            "(function, style) answers identical to an lcb_runner LMStyle"
        )
    for item in differing:
        say(f"  {item.sentence()}")
    say()
    say(verdict.headline(), _COLOURS["pass" if verdict.exit_code() == 0 else "fail"])
