"""`lcb-conformance`: every subcommand, one command for every user-facing job (`lcb-conformance
--help`).

    lcb-conformance [run] [--impl MODULE[:ATTR] [--impl-path DIR]] [--impl-cmd CMD
                    [--impl-timeout S] [--impl-memory-mb MB]] [--tokenizers DIR]
                    [--results FILE] [--json FILE] [--html FILE] [--jobs N]
                    [--strict-contract] [--no-contract] [--only FAMILY]... [--color ...]
    lcb-conformance report RESULTS [--json FILE] [--html FILE] [--strict-contract]
    lcb-conformance resolve | regen | drift | diff | audit | peers | hub-check | ...

One table (SUBCOMMANDS) names each subcommand's entry point by module and function; the module
is imported only when that subcommand runs, so every subcommand starts with only what it needs
(``regrade`` with no runner or contract cases, ``--help`` and a usage error with neither):
this module imports nothing more than the run's option table (runner/options.py), which
``--help`` prints. ``run`` and ``report`` are lcb_conformance.run_command's; exit codes are
common/exit_codes.py's (docs/verdict.md lists every path to 0).
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import os
import select
import sys
from collections.abc import Callable

from lcb_conformance.adapters import untrusted
from lcb_conformance.common import exit_codes, shared_options, showdiff
from lcb_conformance.runner import options


def run_parser() -> argparse.ArgumentParser:
    """run's options (the default command's, which --help prints)."""
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
    add_view_options(parser)
    return parser


def add_view_options(parser: argparse.ArgumentParser) -> None:
    """run's and report's views: --json FILE, --html FILE, --color."""
    shared_options.add_reports(parser)
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto")


# name -> ("module:function" taking argv and returning the exit code, what it does); the
# module is imported when the subcommand runs, never before.
RUN = "lcb_conformance.run_command"
SUBCOMMANDS = {
    "run": (f"{RUN}:run_main", "the cases for an implementation: the verdict matrix (default)"),
    "report": (f"{RUN}:report_main", "the verdict of a results file (run --results FILE)"),
    "resolve": (
        "lcb_conformance.upstream.resolver:main",
        "which lcb_prompts style and tokenizer give a model lcb_runner's prompt",
    ),
    "regen": (
        "lcb_conformance.upstream.regen:main",
        "regenerate the goldens from lcb_runner at the pinned commit (--check: compare only)",
    ),
    "drift": (
        "lcb_conformance.upstream.drift:main",
        "an upstream (or each commit of its history) against the goldens, a verdict per case",
    ),
    "diff": (
        "lcb_conformance.upstream.differential:main",
        "an implementation against live upstream on every row of a dataset file",
    ),
    "audit": (
        "lcb_conformance.run_audit.audit:main",
        "a finished evaluation, sample by sample: lcb_runner's prompt and extraction?",
    ),
    "score": (
        "lcb_conformance.regrade.score_logs:main",
        "is my number comparable? a run's problem set, lcb_runner's and the leaderboard's score",
    ),
    "regrade": (
        "lcb_conformance.regrade.regrade:main",
        "the comparable number from any finished run: lcb_runner's extraction and judge on it",
    ),
    "tokenizer-diff": (
        "lcb_conformance.tokenizer_checks.tokenizer_diff:main",
        "what replacing one tokenizer by another changes in prompts, token ids, BOS/EOS, markers",
    ),
    "hub-check": (
        "lcb_conformance.tokenizer_checks.hub_check:main",
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
        run_parser().format_help(),
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the console script (or python -m): the process, and its stdout, are ours
        quiet_transformers_advice()
        return to_a_closed_stdout(lambda: dispatch(sys.argv[1:]))
    return dispatch(argv)


def to_a_closed_stdout(command: Callable[[], int]) -> int:
    """The command's exit code; REPORT_NOT_WRITTEN, quietly, when the reader of stdout closed it
    before everything was written (`lcb-conformance --help | head -1`): the output is not all
    there (never a green), and a traceback would not say more. Only in the command's own
    process: stdout goes to /dev/null for good, so Python's flush at exit fails no more."""
    try:
        try:
            return command()
        finally:
            sys.stdout.flush()  # what is still buffered fails here, not at exit
    except BrokenPipeError:
        if not _reader_gone(sys.stdout.fileno()):  # another pipe broke: not this, a fault
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return exit_codes.REPORT_NOT_WRITTEN


def _reader_gone(descriptor: int) -> bool:
    """Whether the pipe at ``descriptor`` has no reader left (poll's POLLERR on a write end)."""
    poller = select.poll()
    poller.register(descriptor, select.POLLOUT)
    return any(events & select.POLLERR for _, events in poller.poll(0))


def dispatch(argv: list[str]) -> int:
    """The subcommand ``argv`` names (run without one), its exit code."""
    argv = list(argv)
    if argv[:1] in (["-h"], ["--help"], ["help"]):
        print(usage())
        return exit_codes.OK
    if argv[:1] == ["--version"]:
        print(entry_point(f"{RUN}:version_text")())
        return exit_codes.OK
    if argv and not argv[0].startswith("-") and argv[0] not in SUBCOMMANDS:
        # run takes no positional argument: a word first is a command, or a mistyped one
        print(unknown_command(argv[0]), file=sys.stderr)
        return exit_codes.UNUSABLE
    name = argv[0] if argv and argv[0] in SUBCOMMANDS else "run"
    if argv[:1] == [name]:
        argv = argv[1:]
    try:
        return entry_point(SUBCOMMANDS[name][0])(argv)
    except untrusted.ContainmentUnavailable as error:  # nothing ran uncontained
        showdiff.write(f"lcb-conformance {name}: {error}", sys.stderr)
        return exit_codes.SUITE_BROKEN


def entry_point(named: str) -> Callable:
    """A "module:function" name -> the function, its module imported now, not before."""
    module, _, function = named.partition(":")
    return getattr(importlib.import_module(module), function)


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
    return to_a_closed_stdout(lambda: dispatch(["regen", *sys.argv[1:]]))


if __name__ == "__main__":
    sys.exit(main())
