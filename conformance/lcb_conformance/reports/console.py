"""The verdict on a terminal or a pipe, safe for any string and any encoding.

The verdict on a terminal or a pipe: the matrix as a table, the failure groups with an
example diff each, the closest official style and the headline.

Whatever an implementation returned is shown with invisible characters escaped (showdiff), and
the text is written so that no stream encoding can refuse it: a lone surrogate or a character
the terminal's encoding lacks becomes an escape, never a UnicodeEncodeError.
"""

from __future__ import annotations

import os
import sys

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


def write(text: str, stream=None) -> None:
    """text and a newline on stream, whatever its encoding accepts (the rest escaped)."""
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write((text + "\n").encode(encoding, "backslashreplace").decode(encoding, "replace"))


def table(summaries: list[CellSummary], color: bool = False) -> str:
    """The matrix, one line per cell, coloured by result when asked."""
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
    lines = []
    for number, row in enumerate([header, *rows]):
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        line = "  ".join([*cells, row[-1]]).rstrip()
        if color and number:
            line = f"\x1b[{_COLOURS[summaries[number - 1].status]}m{line}\x1b[0m"
        lines.append(line)
    return "\n".join(lines)


def describe_impl(impl: dict) -> str:
    """One line: what the implementation provides, and what not."""
    line = f"lcb-conformance: {impl.get('name')} provides {', '.join(provided(impl)) or 'nothing'}"
    if impl.get("not_provided"):
        line += f"; not {', '.join(impl['not_provided'])}"
    if impl.get("styles") is not None and impl.get("styles_not_provided"):
        line += f"; styles {', '.join(impl['styles'])}"
    return line


def print_verdict(verdict: Verdict, color: bool = False, stream=None) -> None:
    say = lambda text="": write(text, stream)  # noqa: E731
    summaries = verdict.summaries()
    # an adapter of two functions has a hundred cells of nothing: one line says so
    say(table([s for s in summaries if s.status != NOT_PROVIDED_CELL], color))
    if collapsed := verdict.not_provided_line(summaries):
        say(collapsed)
    contract = verdict.contract_summaries()
    if contract:
        say()
        say(table(contract, color))
    groups = verdict.groups()
    for group in groups[:SHOWN_GROUPS]:
        say()
        title = f"{group.title()}; e.g. {group.results[0].id}:"
        say(f"\x1b[31;1m{title}\x1b[0m" if color else title)
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
    message = verdict.headline()
    colour = "32" if verdict.exit_code() == 0 else "31;1"
    say(f"\x1b[{colour}m{message}\x1b[0m" if color else message)
