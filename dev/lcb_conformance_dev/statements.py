"""Writes conformance/releases/statements.json, every release_v6 problem's statement digest,
from public files only.

    python -m lcb_conformance_dev.statements build --mirror-root /work/.mirror [--check]

The files are read at pinned commits with ``git show`` from bare mirrors under MIRROR_ROOT
(``owner+name/repo``, as the search tool's fetch lays them). Each problem's digest
(lcb_conformance.statements.digest) must be the same in every file that carries it; a problem
carried by fewer than two files, or by files that disagree, is named in ``uncovered`` with why.
--check writes nothing and exits 1 when the committed manifest is not what the mirrors give.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import exit_codes, paths

SUBMISSIONS = "LiveCodeBench/submissions"
SUBMISSIONS_COMMIT = "4d04b02a01c81b0a7207bafdcda35efad9e39b8c"
# The submissions' eval_all files under 4 MiB (the larger are absent from a snapshot); two
# models, so two independent files for each of release_v5's 880 problems.
EVAL_ALL = "Scenario.codegeneration_1_0.2_eval_all.json"
SOURCES = (
    (SUBMISSIONS, SUBMISSIONS_COMMIT, f"O1-Mini-2024-09-12 (N=1)/{EVAL_ALL}"),
    (SUBMISSIONS, SUBMISSIONS_COMMIT, f"O1-Preview-2024-09-12 (N=1)/{EVAL_ALL}"),
)
# Why the 175 problems of test6.jsonl have no digest yet: what was looked for and found.
NO_V6_SOURCE = (
    "no public file carrying its statement was found in reach: the submissions' eval_all files "
    "predate release_v6, and the one v6 copy found (SeanLeng1/AetherEval "
    "benchmarks/livecodebench/data/eval.jsonl) is a Git LFS pointer"
)
MANIFEST = statements.MANIFEST_FILE
# A few real rows' statements, for the tests (the manifest keeps digests, not texts).
SAMPLE = paths.FIXTURES_DIR / "score" / "statements-sample.json"
SAMPLE_ROWS = 3


def git_show(mirror_root: Path, repository: str, commit: str, path: str) -> bytes:
    git_dir = mirror_root / repository.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "-C", str(git_dir), "show", f"{commit}:{path}"], check=True, capture_output=True
    ).stdout


def sample(mirror_root: Path) -> list[dict]:
    """The first rows of the first source, with question_id and the statement fields only."""
    rows = json.loads(git_show(mirror_root, *SOURCES[0]))[:SAMPLE_ROWS]
    return [{k: row[k] for k in ("question_id", *statements.FIELDS)} for row in rows]


def build(mirror_root: Path) -> dict:
    seen: dict[str, dict[str, list[int]]] = {}  # qid -> digest -> indexes of the sources
    for index, (repository, commit, path) in enumerate(SOURCES):
        for row in json.loads(git_show(mirror_root, repository, commit, path)):
            by_digest = seen.setdefault(row["question_id"], {})
            by_digest.setdefault(statements.digest(row), []).append(index)
    problems, uncovered = {}, {}
    for row in releases.members("release_v6"):
        qid = row["question_id"]
        found = seen.get(qid, {})
        if not found:
            uncovered[qid] = NO_V6_SOURCE if row["file"] == "test6.jsonl" else "in no source"
        elif len(found) > 1:
            uncovered[qid] = f"the sources disagree: {sorted(map(sorted, found.values()))}"
        else:
            ((value, files),) = found.items()
            if len(files) < 2:
                uncovered[qid] = f"in one source only ({files[0]}): not cross-checked"
            else:
                problems[qid] = {"digest": value, "sources": files, "agree": len(files)}
    return {
        "how": "python -m lcb_conformance_dev.statements build --mirror-root DIR (docs/score.md)",
        "digest": "sha256 of question_title, question_content and starter_code as compact "
        "sorted-key JSON (ensure_ascii)",
        "sources": [
            {"repository": f"https://github.com/{repo}", "commit": commit, "path": path}
            for repo, commit, path in SOURCES
        ],
        "release": "release_v6",
        "covered": len(problems),
        "problems": problems,
        "uncovered": uncovered,
    }


def render(manifest: dict) -> str:
    return json.dumps(manifest, indent=0, sort_keys=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lcb_conformance_dev.statements")
    parser.add_argument("command", choices=["build"])
    parser.add_argument("--mirror-root", type=Path, required=True)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args(argv)
    written = {
        MANIFEST: render(build(args.mirror_root)),
        SAMPLE: json.dumps(sample(args.mirror_root), indent=1, ensure_ascii=True) + "\n",
    }
    if args.check:
        stale = [path for path, text in written.items() if path.read_text("utf-8") != text]
        for path in stale:
            print(f"{path} is not what the mirrors give: rebuild it", file=sys.stderr)
        return exit_codes.DIFFERS if stale else exit_codes.OK
    for path, text in written.items():
        path.write_text(text, "utf-8")
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(main())
