"""Mutation testing of lcb_prompts with mutmut 3 (`tox -e mutation`).

    python -m lcb_conformance_dev.mutation [--keep] [--max-children N]

Why a runner and not plain ``mutmut run``: mutmut 3 names a mutant after its file's path
(``impl/lcb_prompts/prompts.py`` -> ``impl.lcb_prompts.prompts``) and puts only ``mutants/``,
``mutants/src`` and ``mutants/source`` on sys.path. With this repository's package-dir
mapping (lcb_prompts lives in ``impl/``) the tests would import the unmutated lcb_prompts
through the editable install, and mutmut would stop because the functions the tests call
(``lcb_prompts.prompts.*``) match no mutant name. So the runner links ``src/lcb_prompts`` ->
``impl/lcb_prompts`` (git-ignored) and ``[tool.mutmut]`` in pyproject.toml mutates
``src/lcb_prompts``: the names come out as ``lcb_prompts.*`` and ``mutants/src`` is first on
sys.path.

After the run it prints the score and checks the survivors against
``conformance/mutation-survivors.md``: every survivor must be listed there (an equivalent
mutant, with why), and every listed mutant must still survive (else the list is stale, e.g.
after a change to lcb_prompts renumbered the mutants). Exit 0 only when both hold (1 when
not; 3 when mutmut itself fails, 4 when it reports no mutants: suite.exit_codes).
``--keep`` reuses ``mutants/`` from the last run (mutmut re-tests changed functions only);
by default it starts fresh.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from lcb_conformance.common import exit_codes, paths, shared_options

REPO_ROOT = paths.ROOT  # main() refuses an installed copy

SOURCE_LINK = REPO_ROOT / "src" / "lcb_prompts"
SOURCE = REPO_ROOT / "impl" / "lcb_prompts"
MUTANTS_DIR = REPO_ROOT / "mutants"
SURVIVORS_FILE = REPO_ROOT / "conformance" / "mutation-survivors.md"
# A mutant that makes a test fail, or loop past mutmut's time limit, is detected.
DETECTED = ("killed", "timeout", "caught by type check")
MUTANT_NAME = re.compile(r"`(lcb_prompts\.[^`\s]+__mutmut_\d+)`")


def link_source() -> str | None:
    """src/lcb_prompts -> ../impl/lcb_prompts, the layout mutmut understands; or why not."""
    if SOURCE_LINK.is_symlink() and SOURCE_LINK.resolve() == SOURCE.resolve():
        return None
    if SOURCE_LINK.exists() or SOURCE_LINK.is_symlink():
        return f"{SOURCE_LINK} exists and is not a link to {SOURCE}; remove it"
    SOURCE_LINK.parent.mkdir(exist_ok=True)
    SOURCE_LINK.symlink_to(os.path.relpath(SOURCE, SOURCE_LINK.parent), target_is_directory=True)
    return None


def mutmut(*args: str, capture: bool = False) -> subprocess.CompletedProcess:
    # The console script, not `python -m mutmut` (mutmut warns that re-executes __main__).
    executable = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or "mutmut"
    return subprocess.run(
        [executable, *args], cwd=REPO_ROOT, capture_output=capture, text=True, check=False
    )


def statuses() -> dict[str, str]:
    """mutant name -> status (killed, survived, timeout, ...) from `mutmut results --all true`."""
    listed = mutmut("results", "--all", "true", capture=True)
    found = {}
    for line in listed.stdout.splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep and "__mutmut_" in name:
            found[name] = status
    return found


def documented_survivors() -> set[str]:
    if not SURVIVORS_FILE.is_file():
        return set()
    return set(MUTANT_NAME.findall(SURVIVORS_FILE.read_text("utf-8")))


def report(found: dict[str, str]) -> int:
    counts: dict[str, int] = {}
    for status in found.values():
        counts[status] = counts.get(status, 0) + 1
    survivors = {name for name, status in found.items() if status not in DETECTED}
    documented = documented_survivors()
    killed = len(found) - len(survivors)
    total = len(found)
    equivalent = len(survivors & documented)
    print(
        f"\nmutation score: {killed}/{total} killed or timed out "
        f"({100 * killed / max(total, 1):.1f}%); "
        f"{equivalent} equivalent survivors documented in {SURVIVORS_FILE.name}; "
        f"non-equivalent killed: {killed}/{total - equivalent} "
        f"({100 * killed / max(total - equivalent, 1):.1f}%)"
    )
    print("by status: " + json.dumps(dict(sorted(counts.items()))))
    failed = False
    for name in sorted(survivors - documented):
        failed = True
        print(
            f"UNDOCUMENTED {found[name]}: {name}  (`mutmut show {name}`): kill it with a test, "
            f"or list it in {SURVIVORS_FILE.name} with why it is equivalent"
        )
    for name in sorted(documented - survivors):
        failed = True
        state = found.get(name, "no such mutant")
        print(f"STALE {name}: listed in {SURVIVORS_FILE.name} but {state}; update the list")
    return exit_codes.DIFFERS if failed else exit_codes.OK


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(prog="python -m lcb_conformance_dev.mutation")
    parser.add_argument("--keep", action="store_true", help="reuse mutants/ from the last run")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args(argv)
    if refusal := paths.outside_checkout("mutation testing") or link_source():
        print(refusal, file=sys.stderr)
        return exit_codes.UNUSABLE
    if not args.keep:
        shutil.rmtree(MUTANTS_DIR, ignore_errors=True)
    run = mutmut("run", "--max-children", str(args.max_children))
    if run.returncode != 0:  # its baseline tests failed, or it broke: nothing was measured
        print(f"mutation testing: mutmut run exited {run.returncode}", file=sys.stderr)
        return exit_codes.SUITE_BROKEN
    found = statuses()
    if not found:
        print("mutation testing: mutmut reported no mutants", file=sys.stderr)
        return exit_codes.INCOMPLETE
    return report(found)


if __name__ == "__main__":
    sys.exit(main())
