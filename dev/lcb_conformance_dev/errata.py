"""`python -m lcb_conformance_dev.errata --write CHECKOUT SUBMISSIONS_GIT`: the problems
LiveCodeBench's ERRATA.md names (its judge known wrong), as conformance/releases/errata.json,
read from a checkout's file at the pinned commit with ``git show``; ``--check`` fails when the
stored file is not what they give.

Each entry is what the file lists, exactly as written: its section, the number the file gives
it (the file's numbering skips and its headings' counts are not its lists': reproduced, not
mended), the name it gives the problem and its words for it. ERRATA.md names LeetCode problems
by their slug; the dataset's question_id for each is the row whose question_title is that slug
in the O1-Mini submission's eval_all (LiveCodeBench/submissions, the file fixtures/score/ trims),
read with ``git show`` from SUBMISSIONS_GIT, and recorded as such.
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
# The eval_all whose question_title maps ERRATA.md's LeetCode slugs to question ids.
TITLES = {
    "repository": "LiveCodeBench/submissions",
    "commit": "4d04b02a01c81b0a7207bafdcda35efad9e39b8c",
    "path": "O1-Mini-2024-09-12 (N=1)/Scenario.codegeneration_1_0.2_eval_all.json",
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
                    "named": question_id,
                    "kind": KINDS[section],
                    "section": section,
                    "number": int(number),
                    "words": words,
                }
            )
    return entries


def _show(git: Path, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", f"--git-dir={git}", "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def _git_dir(path: Path) -> Path:
    return path / ".git" if (path / ".git").exists() else path


def errata_source(checkout: Path) -> tuple[dict, list[dict]]:
    """ERRATA.md's provenance and its entries, from a LiveCodeBench clone."""
    raw = _show(_git_dir(checkout), PINNED_COMMIT, ERRATA_PATH)
    source = {
        "repository": REPOSITORY,
        "commit": PINNED_COMMIT,
        "path": ERRATA_PATH,
        "sha256": hashlib.sha256(raw).hexdigest(),
    }
    return source, parse(raw.decode("utf-8"))


def build(checkout: Path, submissions: Path) -> dict:
    source, entries = errata_source(checkout)
    raw = _show(_git_dir(submissions), TITLES["commit"], TITLES["path"])
    by_title = {row["question_title"]: str(row["question_id"]) for row in json.loads(raw)}
    ids = {str(row["question_id"]) for row in json.loads(raw)}
    for entry in entries:
        named = entry["named"]
        if named in ids:
            entry["question_id"], entry["question_id_from"] = named, "ERRATA.md"
        elif named in by_title:
            entry["question_id"], entry["question_id_from"] = by_title[named], "question_title"
        else:
            raise ValueError(
                f"{ERRATA_PATH}: {named!r} is no question_id or title of {TITLES['path']}"
            )
    titles = dict(TITLES, sha256=hashlib.sha256(raw).hexdigest())
    return {"source": source, "titles": titles, "problems": entries}


def rendered(data: dict) -> str:
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = argparse.ArgumentParser(prog="python -m lcb_conformance_dev.errata", description=__doc__)
    mode = args.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args.add_argument("checkout", type=Path, help="a LiveCodeBench/LiveCodeBench clone")
    args.add_argument("submissions", type=Path, help="a LiveCodeBench/submissions clone")
    given = args.parse_args(argv)
    text = rendered(build(given.checkout, given.submissions))
    if given.write:
        STORED.write_text(text, encoding="utf-8")
        return 0
    if STORED.read_text(encoding="utf-8") != text:
        print(f"{STORED} is not {ERRATA_PATH} at {PINNED_COMMIT[:7]}: --write it", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
