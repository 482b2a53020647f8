"""`python -m lcb_conformance_dev.peers`: every peer adapter (peers/) run through the suite,
and the pages docs/peers.md and docs/peers-matrix.md written from the runs.

    python -m lcb_conformance_dev.peers run peers.MODULE [--python PYTHON] [--out-dir build/peers]
    python -m lcb_conformance_dev.peers render [--out-dir build/peers] [--output docs/peers.md]

``run`` (in the peer's own tox env, where the peer is installed) runs the suite through the
lcb-conformance CLI with ``--json`` and stores that report with the adapter's description and
the installed peer's version. With ``--python``, the peer is installed for that interpreter
(another Python, or clashing dependencies) and the adapter is served from it by the generic
server over ``--impl-cmd`` (adapters/jsonl_server.py, this checkout and its ``conformance/``
on the server's path). ``render`` reads every stored run and writes two pages: the summary
(``--output``: per peer the verdict, the judge's differences, the predictions observed; the
requests; the aggregators) and beside it peers-matrix.md: per peer and cell of the verdict
matrix (style x tokenizer family) the cases, passed, failed and the first failing case with
its showdiff report, each prediction of the peers survey checked against what the run found,
and which way each judge verdict differs from lcb_runner's (from the verdicts the run's judge
tests recorded). ``tox -m peers`` does both for every peer.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import json
import shlex
import subprocess
import sys
from pathlib import Path

from lcb_conformance.adapters import jsonl_server
from lcb_conformance.common import exit_codes, paths, report_files, shared_options

# The pages and the survey's predictions they check (peers_page, peers_predictions).
from lcb_conformance_dev.peers_page import (  # noqa: F401 (as peers.*)
    MATRIX_NAME,
    PEERS,
    PROG,
    REGEN_COMMAND,
    render,
    render_matrix,
)

OUT_DIR = paths.ROOT / "build" / "peers"
OUTPUT = paths.ROOT / "docs" / "peers.md"


# Asked of a peer's own interpreter (--python): its Python version and the distribution's.
VERSIONS_SCRIPT = (
    "import importlib.metadata, platform, sys; "
    "print(platform.python_version(), importlib.metadata.version(sys.argv[1]))"
)


def describe(module_name: str, python: str | None = None) -> dict:
    """The adapter's description (its module imported here, where the peer itself may be
    missing) and the installed peer's version, asked of ``python`` when it serves the peer."""
    module = importlib.import_module(module_name)
    distribution = getattr(module, "DISTRIBUTION", None)
    route = "in process"
    if python is None:
        try:
            version = importlib.metadata.version(distribution) if distribution else None
        except importlib.metadata.PackageNotFoundError:
            version = None
    else:
        answer = subprocess.run(
            [python, "-c", VERSIONS_SCRIPT, distribution or ""], capture_output=True, text=True
        )
        python_version, _, version = answer.stdout.strip().partition(" ")
        version = version if answer.returncode == 0 else None
        route = f"--impl-cmd, Python {python_version}" if python_version else "--impl-cmd"
    return {
        "module": module_name,
        "peer": getattr(module, "PEER", module_name),
        "distribution": distribution,
        "version": version,
        "styles": list(getattr(module, "STYLES", ()) or ()),
        "follows": getattr(module, "FOLLOWS", ""),
        "route": route,
        "has_judge": callable(getattr(module, "judge_program", None)),
    }


def impl_cmd(module_name: str, python: str) -> str:
    """The --impl-cmd that serves the adapter from ``python`` through the generic server."""
    folders = (paths.ROOT, paths.ROOT / "conformance")
    return shlex.join(
        [python, jsonl_server.PATH, module_name]
        + [part for folder in folders for part in ("--path", str(folder))]
    )


def run(module_name: str, out_dir: Path, python: str | None = None) -> int:
    """The suite for one peer adapter (`lcb-conformance run` in a child process, so a report
    module never drives the command above it), stored with the peer's description; served
    from ``python`` over --impl-cmd when given."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{module_name.rsplit('.', 1)[-1]}.json"
    path.unlink(missing_ok=True)  # an earlier run's report is never this run's
    command = [sys.executable, "-m", "lcb_conformance.cli", "run"]
    if python is None:
        command += ["--impl", module_name]
    else:
        command += ["--impl-cmd", impl_cmd(module_name, python)]
    code = subprocess.run([*command, "--json", str(path), "--color", "never"]).returncode
    if path.is_file():
        report = json.loads(path.read_text("utf-8"))
        report["peer"] = describe(module_name, python)
        stored = report_files.write_reports(
            PROG,
            {"JSON": (path, lambda: json.dumps(report, ensure_ascii=False) + "\n")},
        )
        if not stored:
            return report_files.REPORT_NOT_WRITTEN
    return code


def load_reports(out_dir: Path) -> list[dict]:
    """The stored peer runs (ValueError naming a file that is not one)."""
    order = {name: index for index, name in enumerate(PEERS)}
    reports = []
    for path in sorted(out_dir.glob("*.json")):
        try:
            report = json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ValueError(f"{path}: not a stored peer run ({error})") from None
        if isinstance(report, dict) and "peer" in report:
            reports.append(report)
    return sorted(reports, key=lambda r: order.get(r["peer"]["module"].rsplit(".", 1)[-1], 99))


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(prog=PROG)
    commands = parser.add_subparsers(dest="command", required=True)
    run_parser = commands.add_parser("run", help="run the suite for one peer adapter")
    run_parser.add_argument("module", help="e.g. peers.evalscope_lcb")
    run_parser.add_argument(
        "--python",
        help="the interpreter the peer is installed for: serve the adapter from it over "
        "--impl-cmd (the generic server)",
    )
    run_parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    render_parser = commands.add_parser(
        "render", help=f"write the page and {MATRIX_NAME} beside it from the stored runs"
    )
    render_parser.add_argument("--out-dir", type=Path, default=OUT_DIR)
    render_parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    if refusal := paths.outside_checkout(PROG):
        print(refusal, file=sys.stderr)
        return exit_codes.UNUSABLE
    if args.command == "run":
        return run(args.module, args.out_dir, args.python)
    try:
        reports = load_reports(args.out_dir)
    except ValueError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return exit_codes.UNUSABLE
    if not reports:
        print(
            f"{PROG}: no peer runs in {args.out_dir}; run `{REGEN_COMMAND}`",
            file=sys.stderr,
        )
        return exit_codes.UNUSABLE
    print(f"{len(reports)} peers")
    written = report_files.write_reports(
        PROG,
        {
            "Markdown": (args.output, lambda: render(reports)),
            "Markdown matrix": (args.output.parent / MATRIX_NAME, lambda: render_matrix(reports)),
        },
    )
    return exit_codes.OK if written else report_files.REPORT_NOT_WRITTEN


if __name__ == "__main__":
    sys.exit(main())
