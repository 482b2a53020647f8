"""An implementation's judge vs the judge goldens: false pass / false fail.

What a judge costs the score: where an implementation's judge_program disagrees with
lcb_runner's judge goldens, and which way.

    python -m lcb_conformance.reports.judge --impl MODULE[:ATTR] [--impl-path DIR]
        [--json FILE] [--markdown FILE]

Every corpus pair is judged by the implementation (in child processes,
lcb_conformance.upstream.judge) and compared with its golden. Each difference is one of:

    false pass   the implementation passes a program lcb_runner fails (scores too high)
    false fail   it fails a program lcb_runner passes (scores too low)
    graded       lcb_runner rejects the row's tests (undecodable) and the implementation
                 grades it anyway
    detail       same pass verdict; per-test results, error code or message differ (where
                 lcb_runner raises: the implementation raises something else)
    no verdict   the implementation raised or its child died where lcb_runner gave a verdict

A difference where either verdict is a time limit or the global time limit also says it is
timing-sensitive (upstream/timing.py): the machine's load may have decided it; it still counts.

Exit status (suite.exit_codes): 1 when any pass verdict differs (false pass, false fail,
graded, no verdict), else 0 (every corpus pair judged, each verdict passing or failing as
lcb_runner's); 2 an implementation that cannot be loaded or provides no judge_program; 6 a
report not written.
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from lcb_conformance.adapters import impl_options, implementation
from lcb_conformance.common import exit_codes, report_files, shared_options, showdiff
from lcb_conformance.reports.verdict import MACHINE_LOAD, TIMING_SENSITIVE
from lcb_conformance.runner import options
from lcb_conformance.suite import goldens
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import judge, timing

FALSE_PASS, FALSE_FAIL, GRADED, DETAIL, NO_VERDICT = (
    "false pass",
    "false fail",
    "graded",
    "detail",
    "no verdict",
)
SCORE_CHANGING = (FALSE_PASS, FALSE_FAIL, GRADED, NO_VERDICT)


def compare(outcomes: dict[str, dict]) -> list[dict]:
    """One entry per corpus case whose outcome differs from its golden."""
    differences = []
    for case_id, case in judge.judge_cases().items():
        recorded = json.loads(goldens.read(GoldenKey(goldens.JUDGE, "", case_id)))
        outcome = outcomes[case_id]
        kind = _difference(recorded, outcome)
        if kind:
            verdict = outcome.get("verdict")
            sensitive = timing.judged_sensitive(recorded, verdict) if verdict else None
            differences.append(
                {
                    "case": case_id,
                    "category": case.category,
                    "covers": case.covers,
                    "difference": kind,
                    "lcb_runner": recorded,
                    "implementation": verdict or _no_verdict(outcome),
                    # why the machine's load may have decided it (it still differs), or None
                    "timing_sensitive": sensitive,
                }
            )
    return differences


def _no_verdict(outcome: dict) -> str:
    if "raised" in outcome:
        return f"raised {implementation.describe_raised(outcome['raised'])}"
    return outcome.get("failed") or outcome.get("failure") or "no verdict"


def _difference(recorded: dict, outcome: dict) -> str | None:
    verdict = outcome.get("verdict")
    if "raised" in outcome and "rejected" in recorded:  # as the golden records a raise
        verdict = judge.rejected(outcome["raised"])
    if verdict is None:
        return NO_VERDICT
    if "rejected" in recorded:  # lcb_runner raises there: the same raise, another, or a grade
        return None if verdict == recorded else DETAIL if "rejected" in verdict else GRADED
    if verdict == recorded:
        return None
    if verdict["passed"] != recorded["passed"]:
        return FALSE_PASS if verdict["passed"] else FALSE_FAIL
    return DETAIL


def markdown(name: str, differences: list[dict]) -> str:
    lines = [f"### {name}: judge vs lcb_runner 28fef95", "", *table_lines(differences)]
    return "\n".join(lines) + "\n"


def table_lines(differences: list[dict]) -> list[str]:
    """A summary sentence and a table of the differences (Markdown lines)."""
    total = len(judge.judge_cases())
    counts = Counter(entry["difference"] for entry in differences)
    summary = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items())) or "none"
    lines = [f"Judge differences on {total} corpus pairs: {summary}.", ""]
    if differences:
        lines += [
            "| case | category | difference | lcb_runner | implementation |",
            "|---|---|---|---|---|",
        ]
        for entry in differences:
            said = entry["difference"]
            if entry["timing_sensitive"]:
                said += f" ({entry['timing_sensitive']}: {TIMING_SENSITIVE}: {MACHINE_LOAD})"
            lines.append(
                f"| {entry['case']} | {entry['category']} | {said} | "
                f"{_brief(entry['lcb_runner'])} | {_brief(entry['implementation'])} |"
            )
        lines.append("")
    return lines


def _brief(verdict) -> str:
    if not isinstance(verdict, dict):
        return str(verdict).replace("|", "/")[:120]
    if "rejected" in verdict:
        raised = implementation.describe_raised(verdict["rejected"])
        return f"rejected ({raised})".replace("|", "/")[:120]
    metadata = verdict["metadata"]
    code = metadata.get("error_code")
    what = f"{'pass' if verdict['passed'] else 'fail'} {verdict['results']}"
    if code is not None:
        what += f" {code} {metadata.get('error', metadata.get('error_message', ''))}"
    return what.replace("|", "/")[:120]


# The implementation options (adapters/impl_options.py) this command takes: which adapter, from
# where (its judge_program runs in this process's sandboxed children, not over --impl-cmd).
OPTIONS = ("impl", "impl-path")


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="python -m lcb_conformance.reports.judge", description=__doc__.split("\n\n")[0]
    )
    for name, arguments in impl_options.OPTIONS:
        if name in OPTIONS:
            parser.add_argument(f"--{name}", **arguments)
    shared_options.add(parser, "json", help="also write the differences as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="also write them as Markdown")
    args = parser.parse_args(argv)
    given = options.defaults() | {name: getattr(args, name.replace("-", "_")) for name in OPTIONS}
    spec = options.spec(given.get)
    try:
        impl = spec.load()
    except Exception as error:  # noqa: BLE001 - whatever the adapter raises: one line, exit 2
        showdiff.write(f"{parser.prog}: cannot load {spec.given}: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    if not impl.provides("judge_program"):
        showdiff.write(
            f"{parser.prog}: {impl.name} provides no judge_program (--impl MODULE[:ATTR] "
            "names the adapter whose judge is compared)",
            sys.stderr,
        )
        return exit_codes.UNUSABLE
    outcomes = judge.run_batch(judge.impl_spec(impl.name), list(judge.judge_cases().values()))
    differences = compare(outcomes)
    text = markdown(impl.name, differences)
    showdiff.write(text, end="")
    written = report_files.write_reports(
        parser.prog,
        {
            "JSON": (args.json, lambda: json.dumps(differences, indent=1) + "\n"),
            "Markdown": (args.markdown, lambda: text),
        },
    )
    if not written:
        return report_files.REPORT_NOT_WRITTEN
    if any(entry["difference"] in SCORE_CHANGING for entry in differences):
        return exit_codes.DIFFERS
    return exit_codes.OK

if __name__ == "__main__":
    sys.exit(main())
