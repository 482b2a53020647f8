"""`python -m lcb_conformance_dev.errata --write CHECKOUT`: conformance/releases/errata.json, the
problems LiveCodeBench's ERRATA.md names (its judge known wrong), read from a checkout's file at
the pinned commit with ``git show``; ``--check CHECKOUT`` fails when the stored file is not it.

Each entry is what the file lists, exactly as written: its section, the number the file gives
it (the file's numbering skips and its headings' counts are not its lists': reproduced, not
mended), the problem id and the file's words for it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

from lcb_conformance.common import paths
from lcb_conformance.upstream import PINNED_COMMIT

REPOSITORY = "LiveCodeBench/LiveCodeBench"
ERRATA_PATH = "ERRATA.md"
STORED = paths.RELEASES_DIR / "errata.json"
# The file's section headings, and the kind each names (run_lint reads the kinds).
KINDS = {
    "Multiple Solutions Accepted": "multiple_solutions",
    "Interactive Problems": "interactive",
    "Erroneous Test Cases": "erroneous_tests",
}
_HEADING = re.compile(r"^## (.+?)\s*$")
_ITEM = re.compile(r"^(\d+)\. (\S+) - (.+?)\s*$")


def parse(text: str) -> list[dict]:
    """Every numbered item under a known heading; ValueError for a heading or item not known."""
    entries, section = [], None
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading:
            if heading.group(1) not in KINDS:
                raise ValueError(f"{ERRATA_PATH}: unknown section {heading.group(1)!r}")
            section = heading.group(1)
            continue
        item = _ITEM.match(line)
        if item:
            if section is None:
                raise ValueError(f"{ERRATA_PATH}: item {line!r} outside a section")
            number, question_id, words = item.groups()
            entries.append(
                {
                    "question_id": question_id,
                    "kind": KINDS[section],
                    "section": section,
                    "number": int(number),
                    "words": words,
                }
            )
    return entries


def build(checkout: Path) -> dict:
    raw = subprocess.run(
        ["git", "-C", str(checkout), "show", f"{PINNED_COMMIT}:{ERRATA_PATH}"],
        check=True,
        capture_output=True,
    ).stdout
    return {
        "source": {
            "repository": REPOSITORY,
            "commit": PINNED_COMMIT,
            "path": ERRATA_PATH,
            "sha256": hashlib.sha256(raw).hexdigest(),
        },
        "problems": parse(raw.decode("utf-8")),
    }


def rendered(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(prog="python -m lcb_conformance_dev.errata", description=__doc__)
    mode = args.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="CHECKOUT")
    mode.add_argument("--check", type=Path, metavar="CHECKOUT")
    given = args.parse_args(argv)
    text = rendered(build(given.write or given.check))
    if given.write:
        STORED.write_text(text, encoding="utf-8")
        return 0
    if STORED.read_text(encoding="utf-8") != text:
        print(f"{STORED} is not {ERRATA_PATH} at {PINNED_COMMIT[:7]}: --write it", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
