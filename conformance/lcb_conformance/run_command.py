"""`lcb-conformance run` (the default) and `report`: the cases for an implementation, and the
views of a results file (lcb_conformance.cli names them; imported only when one of them runs).

``run`` loads the implementation, runs every case of the case index and of the
API contract against it (lcb_conformance.runner), streams one typed result per case to
``--results`` as it goes, writes the asked-for reports, then prints the verdict matrix, the
differences grouped by kind with an example each, and the headline. ``report`` renders the
same views from a results file, every status re-derived from the answers it holds (runner.run's
rederive: a row that disagrees is unusable input). Exit codes (common/exit_codes.py;
docs/verdict.md lists every path to 0): 0 comparable (a whole run, at least one golden case
answered, none differing; cases the implementation does not provide are not failures), 1 a
golden case differs (or, with --strict-contract, a contract case failed), 2 the implementation
or an input is unusable (one line says why), 3 the suite itself cannot run here, 4 incomplete
(the run did not finish, no golden case ran, or a provided family could not run on its route),
6 a report asked for could not be written (the verdict is still printed).
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections import Counter
from pathlib import Path

from lcb_conformance import cli
from lcb_conformance.adapters import untrusted
from lcb_conformance.common import paths, report_files, shared_options, showdiff
from lcb_conformance.reports import console, report
from lcb_conformance.reports.verdict import INCOMPLETE, SUITE_BROKEN, UNUSABLE, Verdict
from lcb_conformance.runner import case_child, options, records, results
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.contract import contract_cases
from lcb_conformance.suite import families, goldens, index


def version_text() -> str:
    """--version: this suite's version, where its goldens come from, and what it checks."""
    version = results.suite_version()
    upstream = goldens.provenance().get("upstream") or {}
    origin = (
        f"lcb_runner {upstream['commit']} ({upstream['source']}"
        + (", dirty" if upstream.get("dirty") else "")
        + ")"
        if "commit" in upstream
        else f"{upstream or 'unknown (no PROVENANCE.json)'}"
    )
    counted = Counter(case["family"] for case in index.by_id().values())
    return "\n".join(
        [
            f"lcb-conformance {version}",
            f"goldens: from {origin}",
            f"goldens: {sum(counted.values())} "
            f"({', '.join(f'{family} {n}' for family, n in sorted(counted.items()))})",
            f"cases an implementation is held to: {len(index.held_cases())} golden "
            f"(every transformers line), {len(contract_cases())} API contract",
            f"suite data: {paths.ROOT}" + (" (checkout)" if paths.CHECKOUT else " (installed)"),
        ]
    )


def _suite_missing() -> str | None:
    if not index.index_file().is_file():
        return (
            f"lcb-conformance: no case index at {index.index_file()}: this installation is "
            "incomplete; reinstall lcb-conformance"
        )
    return None


def run_main(argv: list[str]) -> int:
    """lcb-conformance run: the cases for an implementation, and its verdict."""
    parser = cli.run_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.error(
            f"unrecognized arguments: {' '.join(extra)}"
            + ("; --only takes one family: repeat it (--only prompt --only messages)"
               if set(extra) <= set(families.registry()) else "")  # fmt: skip
        )
    get = lambda name: getattr(args, name.replace("-", "_"))  # noqa: E731
    if (missing := _suite_missing()) is not None:
        showdiff.write(missing, sys.stderr)
        return SUITE_BROKEN
    if (unknown := options.unknown_families(args.only)) is not None:
        showdiff.write(f"lcb-conformance: {unknown}", sys.stderr)
        return UNUSABLE
    spec = options.spec(get)
    try:
        impl = spec.load()
        described = impl.describe()
    except untrusted.ContainmentUnavailable:  # not the adapter's fault: main() says it, exit 3
        raise
    except Exception as error:  # noqa: BLE001 - whatever the adapter raises: one line, exit 2
        showdiff.write(f"lcb-conformance: cannot load {spec.given}: {_one_line(error)}", sys.stderr)
        return UNUSABLE
    showdiff.write(console.describe_impl(described))
    if impl.unknown_declared_styles():
        showdiff.write(
            f"lcb-conformance: warning: STYLES names {', '.join(impl.unknown_declared_styles())}, "
            "which the suite has no cases for"
        )
    plan = runner.Plan.of(options.selection(get))
    header = results.header(described, len(plan), options=options.recorded(get))
    try:
        writer = results.ResultsWriter(args.results, header) if args.results else None
    except OSError as error:
        showdiff.write(
            f"lcb-conformance: cannot write --results {args.results}: {error}", sys.stderr
        )
        return report_files.REPORT_NOT_WRITTEN
    found = results.ConformanceRun(header)
    progress = _Progress(len(plan))
    try:
        for result in runner.run(impl, plan=plan, spec=spec, jobs=args.jobs):
            if writer is not None:
                writer.write(result)
            found.results.append(result)
            progress.step(result)
    except case_child.AdapterEnded as ended:  # the verdict outlived it: no green, no footer
        if writer is not None:
            writer.abandon()
        kept = f"; the {len(found.results)} results so far are in {args.results}" if writer else ""
        showdiff.write(f"lcb-conformance: INCOMPLETE: {ended}{kept}", sys.stderr)
        return INCOMPLETE
    except Exception:  # the suite's own failure, not the implementation's (that is a result)
        showdiff.write(traceback.format_exc(), sys.stderr, end="")
        kept = f"; the {len(found.results)} results so far are in {args.results}" if writer else ""
        showdiff.write(f"lcb-conformance: the run stopped: the suite failed{kept}", sys.stderr)
        return SUITE_BROKEN
    finally:
        progress.done()
        _close(impl)
    if writer is not None:
        writer.close(dict(Counter(result.status for result in found.results)))
    return _views(Verdict(found, get("strict-contract")), args)


def report_main(argv: list[str]) -> int:
    """lcb-conformance report RESULTS: the views of a results file, without running anything."""
    parser = shared_options.CommandParser(
        prog="lcb-conformance report",
        description="Render the verdict of a results file (lcb-conformance run --results FILE).",
    )
    parser.add_argument("results", type=Path, metavar="RESULTS")
    parser.add_argument(
        "--strict-contract", action="store_true", help="count the API contract in the exit code"
    )
    cli.add_view_options(parser)
    args = parser.parse_args(argv)
    try:
        found = results.read(args.results)
        records.rederive(found, args.results)  # its statuses from its answers, not believed
    except results.ResultsFileError as error:
        showdiff.write(f"lcb-conformance report: {error}", sys.stderr)
        return UNUSABLE
    return _views(Verdict(found, args.strict_contract), args)


def _views(verdict: Verdict, args: argparse.Namespace) -> int:
    """The reports first (a console that fails cannot lose them), then the console."""
    written = report_files.write_reports(
        "lcb-conformance",
        {
            "JSON": (args.json, lambda: report.json_bytes(verdict)),
            "HTML": (args.html, lambda: report.to_html(verdict)),
        },
    )
    console.print_verdict(verdict, console.use_color(args.color))
    return verdict.exit_code() if written else report_files.REPORT_NOT_WRITTEN


def _one_line(error: BaseException) -> str:
    text = " ".join(str(error).split()) or type(error).__name__
    return text if isinstance(error, ImportError) else f"{type(error).__name__}: {text}"


def _close(impl) -> None:
    close = getattr(impl.module, "close", None)
    if callable(close) and impl.name.startswith("cmd: "):
        close()


class _Progress:
    """A one-line counter on a terminal's stderr (nothing on a pipe)."""

    def __init__(self, total: int):
        self.total = total
        self.done_cases = self.not_ok = 0
        self.stream = sys.stderr if sys.stderr.isatty() else None

    def step(self, result: results.CaseResult) -> None:
        self.done_cases += 1
        self.not_ok += result.not_ok
        if self.stream is not None and (self.done_cases % 50 == 0 or self.done_cases == self.total):
            self.stream.write(
                f"\rrunning: {self.done_cases}/{self.total} cases, {self.not_ok} not ok"
            )
            self.stream.flush()

    def done(self) -> None:
        if self.stream is not None:
            self.stream.write("\n")
