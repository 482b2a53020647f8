"""lcb-conformance: one command for every user-facing job (``lcb-conformance --help``).

    lcb-conformance [run] [--impl MODULE[:ATTR] [--impl-path DIR]] [--impl-cmd CMD
                    [--impl-timeout S] [--impl-memory-mb MB]]
                    [--upstream installed|PATH] [--tokenizers DIR]
                    [--json FILE] [--html FILE] [--color auto|always|never]
                    [--show-pytest] [-- PYTEST ARGS...]
    lcb-conformance resolve | regen | drift | diff | peers | hub-check | tokenizer-diff ...

``run`` (the default) runs ``pytest -m "not upstream and not selftest and not realvocab"
conformance/tests --impl ...`` in this process, collects every test's outcome, and prints the
verdict matrix: cases, passed, failed and not provided per style x tokenizer family, with each
failing cell's first case and its diff. Exit code 0 when nothing failed (cases the
implementation does not provide are not failures), 1 when a case failed, 2 when the
implementation cannot be loaded, pytest's own code (3-5) when the suite could not run, and 6
when a report asked for could not be written (one line on stderr says why; the verdict is
still printed). The JSON and HTML reports are written by :mod:`lcb_conformance.reports.report`.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.metadata
import io
import os
import sys
from collections import Counter
from pathlib import Path

from lcb_conformance.adapters import implementation, process
from lcb_conformance.reports import verdict
from lcb_conformance.suite import goldens, hf_cache, index, paths
from lcb_conformance.suite.report_files import REPORT_NOT_WRITTEN
from lcb_conformance.upstream import INSTALLED

MARKERS = "not upstream and not selftest and not realvocab"
DISTRIBUTION = "lcb-conformance"
SHOWN_FAILURES = 3  # first failing case of this many cells printed
SHOWN_REPORT_LINES = 16


class Collector:
    """A pytest plugin that keeps each test's outcome, its failure report or skip reason,
    and, for a failed comparison, the value the implementation returned."""

    def __init__(self, progress=None):
        self.outcomes: dict[str, tuple[str, str]] = {}
        self.actual: dict[str, object] = {}
        self.collection_errors: list[tuple[str, str]] = []
        self._current: str | None = None
        self._progress = progress  # a terminal stream for a one-line progress counter
        self._total = 0

    def pytest_runtest_logstart(self, nodeid, location) -> None:
        self._current = nodeid

    def pytest_assertrepr_compare(self, config, op, left, right):
        # Called for a failing `assert actual == golden(key)`: left is what the
        # implementation produced (the last call wins, e.g. Hypothesis' shrunk example).
        if self._current is not None and op in ("==", "!="):
            self.actual[self._current] = left
        return None

    def pytest_runtest_logreport(self, report) -> None:
        if report.passed:
            if report.when == "call":
                self.outcomes.setdefault(report.nodeid, (verdict.PASSED, ""))
            return
        if report.skipped:
            if hasattr(report, "wasxfail"):  # an expected failure, as expected
                outcome = (verdict.PASSED, "")
            else:
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
                reason = reason.removeprefix("Skipped: ")
                outcome = (verdict.skip_outcome(reason), reason)
        else:
            previous = self.outcomes.get(report.nodeid, (None, ""))[1]
            text = f"{previous}\n{report.longreprtext}" if previous else report.longreprtext
            outcome = (verdict.FAILED, text)
        self.outcomes[report.nodeid] = outcome

    def pytest_collection_finish(self, session) -> None:
        self._total = len(session.items)

    def pytest_runtest_logfinish(self, nodeid, location) -> None:
        self._current = None
        if self._progress is not None:
            failed = sum(1 for outcome, _ in self.outcomes.values() if outcome == verdict.FAILED)
            self._progress.write(
                f"\rrunning the suite: {len(self.outcomes)}/{self._total} cases, {failed} failed"
            )
            self._progress.flush()

    def pytest_collectreport(self, report) -> None:
        if report.failed:
            self.collection_errors.append((report.nodeid, report.longreprtext))

    def results(self, deviations: tuple[str, ...] = ()) -> list[verdict.CaseResult]:
        """Each test's result, for an implementation declaring these DEVIATIONS."""
        return [
            verdict.CaseResult(
                nodeid,
                outcome,
                message,
                self.actual.get(nodeid, verdict.NO_ACTUAL)
                if outcome == verdict.FAILED
                else verdict.NO_ACTUAL,
                deviations,
            )
            for nodeid, (outcome, message) in self.outcomes.items()
        ]


def pytest_arguments(args: argparse.Namespace, extra: list[str]) -> list[str]:
    return [
        str(paths.TESTS_DIR),
        f"--rootdir={paths.ROOT}",
        "-c",
        str(paths.PYTEST_CONFIG),
        "-m",
        MARKERS,
        f"--impl={args.impl}",
        *((f"--impl-cmd={args.impl_cmd}",) if args.impl_cmd else ()),
        f"--impl-timeout={args.impl_timeout}",
        f"--impl-memory-mb={args.impl_memory_mb}",
        f"--upstream={args.upstream}",
        f"--tokenizers={args.tokenizers}",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:randomly",
        "--tb=short",
        *extra,
    ]


def run_suite(
    args: argparse.Namespace, extra: list[str], impl: implementation.Implementation
) -> verdict.Run:
    import pytest

    pytest_args = pytest_arguments(args, extra)
    progress = None if args.show_pytest or not sys.stderr.isatty() else sys.stderr
    collector = Collector(progress)
    output = io.StringIO()
    with contextlib.ExitStack() as stack:
        if not args.show_pytest:
            stack.enter_context(contextlib.redirect_stdout(output))
        # a copy: pytest.main inserts the ini addopts into the list it is given
        exit_code = int(pytest.main(list(pytest_args), plugins=[collector]))
    if progress is not None:
        progress.write("\n")
    return verdict.Run(
        impl=impl.describe(),
        results=collector.results(impl.deviations),
        pytest_exit_code=exit_code,
        pytest_args=pytest_args,
        pytest_output=output.getvalue(),
        collection_errors=collector.collection_errors,
        upstream=args.upstream,
        tokenizers=str(args.tokenizers),
    )


def use_color(choice: str, stream=sys.stdout) -> bool:
    if choice != "auto":
        return choice == "always"
    return stream.isatty() and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def print_verdict(run: verdict.Run, color: bool) -> None:
    summaries = run.summaries()
    print(verdict.render_table(summaries, color=color))
    failing = [s for s in summaries if s.first_failure is not None]
    for summary in failing[:SHOWN_FAILURES]:
        print()
        lines = summary.first_failure.mismatch_report().splitlines()
        shown = lines[:SHOWN_REPORT_LINES]
        if len(lines) > SHOWN_REPORT_LINES:
            shown.append(f"… ({len(lines) - SHOWN_REPORT_LINES} more lines in the reports)")
        title = f"first failure in {summary.cell.style} / {summary.cell.tokenizer}:"
        print(f"\x1b[31;1m{title}\x1b[0m" if color else title)
        print("\n".join(shown))
    if len(failing) > SHOWN_FAILURES:
        print(f"\n… and {len(failing) - SHOWN_FAILURES} more failing cells (see --json/--html)")
    for nodeid, text in run.collection_errors:
        print(f"\ncollection error in {nodeid}:\n{text}")
    print_closest(run)
    print()
    message = run.headline()
    colour = "32" if run.exit_code() == 0 else "31;1"
    print(f"\x1b[{colour}m{message}\x1b[0m" if color else message)


def print_closest(run: verdict.Run) -> None:
    """Where it is not identical to an official LMStyle: the closest one, and how it differs."""
    from lcb_conformance.reports import closest

    found = closest.closest_official(run.results)
    differing = [item for item in found if not item.identical_to]
    if found:
        print(
            f"\nclosest official style: {len(found) - len(differing)} of {len(found)} "
            "(function, style) answers identical to an lcb_runner LMStyle"
        )
    for item in differing:
        print(f"  {item.sentence()}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="lcb-conformance run",
        description="Run the LiveCodeBench conformance suite for an implementation and print "
        "its verdict per style and tokenizer family.",
        epilog="Arguments after -- go to pytest, e.g. -- -k generic.",
    )
    parser.add_argument(
        "--impl",
        default=implementation.REFERENCE,
        metavar="MODULE[:ATTR]",
        help="the implementation under test: a module, or MODULE:ATTR naming the adapter "
        "object in it that holds the functions (default: %(default)s)",
    )
    parser.add_argument(
        "--impl-path",
        type=Path,
        action="append",
        default=[],
        metavar="DIR",
        help="a folder to import --impl from (before PYTHONPATH; may be repeated)",
    )
    for flag, arguments in process.OPTIONS:
        parser.add_argument(flag, **arguments)
    parser.add_argument(
        "--upstream",
        default=INSTALLED,
        metavar="installed|PATH",
        help="passed to the suite and recorded in the reports; the verdict compares with "
        "the checked-in goldens (default: %(default)s)",
    )
    parser.add_argument(
        "--tokenizers",
        type=Path,
        default=hf_cache.SNAPSHOTS_DIR,
        metavar="DIR",
        help="tokenizer snapshots to serve offline (default: fixtures/tokenizers)",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML report here")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    parser.add_argument(
        "--show-pytest",
        action="store_true",
        help="show pytest's own output instead of a progress line",
    )
    return parser


# name -> (module whose main(argv) runs it, what it does); "run" is this module's run_main.
SUBCOMMANDS = {
    "run": ("lcb_conformance.cli", "the suite for an implementation: the verdict matrix (default)"),
    "resolve": (
        "lcb_conformance.upstream.resolver",
        "which lcb_prompts style and tokenizer give a model lcb_runner's prompt",
    ),
    "regen": (
        "lcb_conformance.upstream.regen",
        "regenerate the goldens from lcb_runner at the pinned commit (--check: compare only)",
    ),
    "drift": (
        "lcb_conformance.upstream.drift",
        "an upstream (or each commit of its history) against the goldens, a verdict per case",
    ),
    "diff": (
        "lcb_conformance.upstream.differential",
        "an implementation against live upstream on every row of a dataset file",
    ),
    "audit": (
        "lcb_conformance.run_audit.audit",
        "a finished evaluation, sample by sample: lcb_runner's prompt and extraction?",
    ),
    "peers": (
        "lcb_conformance.reports.peers",
        "run a peer harness's adapter through the suite, or render docs/peers.md",
    ),
    "tokenizer-diff": (
        "lcb_conformance.tokenizer_checks.tokenizer_diff",
        "what replacing one tokenizer by another changes in prompts, token ids, BOS/EOS, markers",
    ),
    "hub-check": (
        "lcb_conformance.tokenizer_checks.hub_check",
        "with network: the real Hub tokenizers carry the snapshots' chat templates",
    ),
}


def usage() -> str:
    width = max(map(len, SUBCOMMANDS))
    lines = [
        "usage: lcb-conformance [SUBCOMMAND] [ARGS...]   (lcb-conformance SUBCOMMAND --help)",
        "       lcb-conformance --version",
        "",
        "Proves a LiveCodeBench harness leaderboard-comparable against goldens produced by",
        "lcb_runner itself. Subcommands:",
        "",
        *(f"  {name:<{width}}  {what}" for name, (_, what) in SUBCOMMANDS.items()),
        "",
        "Without a subcommand, the arguments are run's:",
        "",
        build_parser().format_help(),
    ]
    return "\n".join(lines)


def version_text() -> str:
    """--version: this suite's version, where its goldens come from, and what it checks."""
    try:
        version = importlib.metadata.version(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown (not installed)"
    upstream = goldens.provenance().get("upstream") or {}
    origin = (
        f"lcb_runner {upstream['commit']} ({upstream['source']}"
        + (", dirty" if upstream.get("dirty") else "")
        + ")"
        if "commit" in upstream
        else f"{upstream or 'unknown (no PROVENANCE.json)'}"
    )
    families = Counter(case["family"] for case in index.by_id().values())
    return "\n".join(
        [
            f"lcb-conformance {version}",
            f"goldens: from {origin}",
            f"cases: {sum(families.values())} golden cases "
            f"({', '.join(f'{family} {n}' for family, n in sorted(families.items()))})",
            f"suite data: {paths.ROOT}" + (" (checkout)" if paths.CHECKOUT else " (installed)"),
        ]
    )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(usage())
        return 0
    if argv[:1] == ["--version"]:
        print(version_text())
        return 0
    name = argv[0] if argv and argv[0] in SUBCOMMANDS else "run"
    if argv[:1] == [name]:
        argv = argv[1:]
    if name == "run":
        return run_main(argv)
    return importlib.import_module(SUBCOMMANDS[name][0]).main(argv)


def deprecated_regen() -> int:
    """The lcb-conformance-regen script of earlier releases."""
    print("lcb-conformance-regen is deprecated: use `lcb-conformance regen`", file=sys.stderr)
    return main(["regen", *sys.argv[1:]])


def run_main(argv: list[str]) -> int:
    """lcb-conformance run: the suite for an implementation, and its verdict."""
    extra: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, extra = argv[:at], argv[at + 1 :]
    args = build_parser().parse_args(argv)
    if not paths.TESTS_DIR.is_dir():
        print(
            f"lcb-conformance: no test suite at {paths.TESTS_DIR}: this installation is "
            "incomplete; reinstall lcb-conformance",
            file=sys.stderr,
        )
        return 2

    # Before anything (the implementation included) imports transformers or huggingface_hub.
    hf_cache.activate_offline_cache(snapshots_dir=args.tokenizers)
    sys.path[:0] = [str(folder.resolve()) for folder in args.impl_path]
    try:
        if args.impl_cmd:
            impl = process.load_command(args.impl_cmd, args.impl_timeout, args.impl_memory_mb)
            impl.module.close()  # the suite starts its own; this one only described it
        else:
            impl = implementation.load(args.impl)
    except ImportError as error:
        print(f"lcb-conformance: {error}", file=sys.stderr)
        return 2
    described = impl.describe()
    print(
        f"lcb-conformance: {impl.name} provides {', '.join(described['provides'])}"
        + (f"; not {', '.join(described['not_provided'])}" if described["not_provided"] else "")
        + (
            f"; styles {', '.join(impl.styles)}"
            if impl.styles is not None and impl.not_provided_styles()
            else ""
        )
    )
    if impl.unknown_declared_styles():
        print(
            f"lcb-conformance: warning: STYLES names {', '.join(impl.unknown_declared_styles())}, "
            f"which the suite has no cases for (known: {', '.join(implementation.KNOWN_STYLES)})"
        )

    run = run_suite(args, extra, impl)
    if run.pytest_exit_code not in (0, 1):
        print(run.pytest_output, end="")
    print_verdict(run, use_color(args.color))

    wanted = {"JSON": (args.json, "write_json"), "HTML": (args.html, "write_html")}
    return run.exit_code() if write_reports(run, wanted) else REPORT_NOT_WRITTEN


def write_reports(run: verdict.Run, wanted: dict[str, tuple[Path | None, str]]) -> bool:
    """Each asked-for report (kind -> (path, writer in reports.report)); False when one could
    not be written, said in one line on stderr. Every report is tried: one failing loses no
    other, and a failed one leaves nothing at its path."""
    from lcb_conformance.reports import report

    all_written = True
    for kind, (path, writer) in wanted.items():
        if path is None:
            continue
        try:
            getattr(report, writer)(run, path)
        except report.ReportNotWritten as error:
            print(f"lcb-conformance: {kind} report not written: {error}", file=sys.stderr)
            all_written = False
        except Exception as error:  # a rendering bug must not pass for "cases failed"
            print(
                f"lcb-conformance: {kind} report not written to {path}: rendering failed "
                f"({type(error).__name__}: {error})",
                file=sys.stderr,
            )
            all_written = False
        else:
            print(f"{kind} report: {path}")
    return all_written


if __name__ == "__main__":
    sys.exit(main())
