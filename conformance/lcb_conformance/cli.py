"""`lcb-conformance`: every subcommand, one command for every user-facing job (`lcb-conformance
--help`).

    lcb-conformance [run] [--impl MODULE[:ATTR] [--impl-path DIR]] [--impl-cmd CMD
                    [--impl-timeout S] [--impl-memory-mb MB]] [--tokenizers DIR]
                    [--results FILE] [--json FILE] [--html FILE] [--jobs N]
                    [--strict-contract] [--no-contract] [--only FAMILY]... [--color ...]
    lcb-conformance report RESULTS [--json FILE] [--html FILE] [--strict-contract]
    lcb-conformance resolve | regen | drift | diff | audit | peers | hub-check | ...

``run`` (the default) loads the implementation, runs every case of the case index and of the
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
import difflib
import importlib
import os
import sys
import traceback
from collections import Counter
from pathlib import Path

from lcb_conformance.adapters import untrusted
from lcb_conformance.common import exit_codes, paths, report_files, shared_options
from lcb_conformance.reports import console, report
from lcb_conformance.reports.verdict import INCOMPLETE, SUITE_BROKEN, UNUSABLE, Verdict
from lcb_conformance.runner import case_child, options, records, results
from lcb_conformance.runner import run as runner
from lcb_conformance.runner.contract import contract_cases
from lcb_conformance.suite import families, goldens, index


def build_parser() -> argparse.ArgumentParser:
    parser = shared_options.CommandParser(
        prog="lcb-conformance run",
        description="Run the LiveCodeBench conformance cases for an implementation and print "
        "its verdict per style and tokenizer family.",
    )
    for name, arguments in options.OPTIONS:
        parser.add_argument(f"--{name}", **arguments)
    shared_options.add(
        parser,
        "results",
        help="stream every case's result here as JSON lines, as the run goes "
        "(lcb-conformance report FILE renders it again)",
    )
    parser.add_argument(
        "-n",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run the cases in N worker processes (the results are the same, in the same order)",
    )
    _report_options(parser)
    return parser


def _report_options(parser: argparse.ArgumentParser) -> None:
    shared_options.add_reports(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")


# name -> (module whose main(argv) runs it, what it does); "run" is this module's run_main.
SUBCOMMANDS = {
    "run": ("lcb_conformance.cli", "the cases for an implementation: the verdict matrix (default)"),
    "report": ("lcb_conformance.cli", "the verdict of a results file (run --results FILE)"),
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
    "score": (
        "lcb_conformance.regrade.score_logs",
        "is my number comparable? a run's problem set, lcb_runner's and the leaderboard's score",
    ),
    "regrade": (
        "lcb_conformance.regrade.regrade",
        "the comparable number from any finished run: lcb_runner's extraction and judge on it",
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


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the console script (or python -m): the process is ours
        quiet_transformers_advice()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(usage())
        return exit_codes.OK
    if argv[:1] == ["--version"]:
        print(version_text())
        return exit_codes.OK
    if argv and not argv[0].startswith("-") and argv[0] not in SUBCOMMANDS:
        # run takes no positional argument: a word first is a command, or a mistyped one
        print(unknown_command(argv[0]), file=sys.stderr)
        return UNUSABLE
    name = argv[0] if argv and argv[0] in SUBCOMMANDS else "run"
    if argv[:1] == [name]:
        argv = argv[1:]
    try:
        if name == "run":
            return run_main(argv)
        if name == "report":
            return report_main(argv)
        return importlib.import_module(SUBCOMMANDS[name][0]).main(argv)
    except untrusted.ContainmentUnavailable as error:  # nothing ran uncontained
        print(f"lcb-conformance {name}: {error}", file=sys.stderr)
        return SUITE_BROKEN


def quiet_transformers_advice() -> None:
    """transformers' advice on import that PyTorch is absent ("Models won't be available"):
    the gate loads tokenizers only, so on every command it read as a fault. Set before any
    import of transformers (its children inherit it), and only in a process that is the
    command's own: never in a pytest host that loads the plugin, nor a caller of main(argv)."""
    os.environ.setdefault("TRANSFORMERS_NO_ADVISORY_WARNINGS", "1")


def unknown_command(word: str) -> str:
    """One line: the word is no command; the nearest, and every command."""
    near = difflib.get_close_matches(word, SUBCOMMANDS, n=1)
    guess = f" (did you mean {near[0]}?)" if near else ""
    return (
        f"lcb-conformance: no command {word!r}{guess}; the commands: {', '.join(SUBCOMMANDS)} "
        "(lcb-conformance --help)"
    )


def deprecated_regen() -> int:
    """The lcb-conformance-regen script of earlier releases."""
    print("lcb-conformance-regen is deprecated: use `lcb-conformance regen`", file=sys.stderr)
    quiet_transformers_advice()
    return main(["regen", *sys.argv[1:]])


def _suite_missing() -> str | None:
    if not index.index_file().is_file():
        return (
            f"lcb-conformance: no case index at {index.index_file()}: this installation is "
            "incomplete; reinstall lcb-conformance"
        )
    return None


def run_main(argv: list[str]) -> int:
    """lcb-conformance run: the cases for an implementation, and its verdict."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        parser.error(
            f"unrecognized arguments: {' '.join(extra)}"
            + ("; --only takes one family: repeat it (--only prompt --only messages)"
               if set(extra) <= set(families.registry()) else "")  # fmt: skip
        )
    get = lambda name: getattr(args, name.replace("-", "_"))  # noqa: E731
    if (missing := _suite_missing()) is not None:
        print(missing, file=sys.stderr)
        return SUITE_BROKEN
    if (unknown := options.unknown_families(args.only)) is not None:
        print(f"lcb-conformance: {unknown}", file=sys.stderr)
        return UNUSABLE
    spec = options.spec(get)
    try:
        impl = spec.load()
        described = impl.describe()
    except untrusted.ContainmentUnavailable:  # not the adapter's fault: main() says it, exit 3
        raise
    except Exception as error:  # noqa: BLE001 - whatever the adapter raises: one line, exit 2
        print(f"lcb-conformance: cannot load {spec.given}: "
              f"{_one_line(error)}", file=sys.stderr)  # fmt: skip
        return UNUSABLE
    console.write(console.describe_impl(described))
    if impl.unknown_declared_styles():
        console.write(
            f"lcb-conformance: warning: STYLES names {', '.join(impl.unknown_declared_styles())}, "
            "which the suite has no cases for"
        )
    plan = runner.Plan.of(options.selection(get))
    header = results.header(described, len(plan), options=options.recorded(get))
    try:
        writer = results.ResultsWriter(args.results, header) if args.results else None
    except OSError as error:
        print(f"lcb-conformance: cannot write --results {args.results}: {error}", file=sys.stderr)
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
        print(f"lcb-conformance: INCOMPLETE: {ended}{kept}", file=sys.stderr)
        return INCOMPLETE
    except Exception:  # the suite's own failure, not the implementation's (that is a result)
        traceback.print_exc()
        kept = f"; the {len(found.results)} results so far are in {args.results}" if writer else ""
        print(f"lcb-conformance: the run stopped: the suite failed{kept}", file=sys.stderr)
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
    _report_options(parser)
    args = parser.parse_args(argv)
    try:
        found = results.read(args.results)
        records.rederive(found, args.results)  # its statuses from its answers, not believed
    except results.ResultsFileError as error:
        print(f"lcb-conformance report: {error}", file=sys.stderr)
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


if __name__ == "__main__":
    sys.exit(main())
