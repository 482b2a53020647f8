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
from collections.abc import Iterable
from pathlib import Path

from lcb_conformance import releases, statements
from lcb_conformance.common import exit_codes, paths

SUBMISSIONS = "LiveCodeBench/submissions"
SUBMISSIONS_COMMIT = "4d04b02a01c81b0a7207bafdcda35efad9e39b8c"
# A fork's runs on release_v6's 175 new problems (its folder output_test6; not its
# output_test6_gpt_content* folders, whose statements its perturbation study rewrote).
GU_NI = "gu-ni/LiveCodeBench"
GU_NI_COMMIT = "7309ef5c42a80a1973ddb1afab46ffcc4c538441"
GU_NI_MODELS = (
    "DSCoder-6.7b-Ins", "DSCoder-V2-Lite-Instruct", "Gemma-2-27b-Ins", "Gemma-2-9b-Ins",
    "LLama3.1-8b-Ins", "Qwen2.5-Coder-Ins-7B",
)
# Another fork's code-generation runs on all 1,055 of release_v6 (its -ZeroShotCoT folders
# hold the same blobs, and its self-repair runs are the same models': neither is independent).
XIANGWW = "xiangww0108/LiveCodeBench"
XIANGWW_COMMIT = "50b656a01a2f8bb6c616d25f49c58d7c2aa0a790"
XIANGWW_MODELS = ("Qwen-3-8B", "Qwen2.5-Ins-7B")
# Every source, one model's run each (repository, commit, path): the submissions' eval_all
# files under 4 MiB (the larger are absent from a snapshot), then the forks'. The first
# gives the test sample.
EVAL_ALL = "Scenario.codegeneration_1_0.2_eval_all.json"
SOURCES = (
    (SUBMISSIONS, SUBMISSIONS_COMMIT, f"O1-Mini-2024-09-12 (N=1)/{EVAL_ALL}"),
    (SUBMISSIONS, SUBMISSIONS_COMMIT, f"O1-Preview-2024-09-12 (N=1)/{EVAL_ALL}"),
    *(
        (GU_NI, GU_NI_COMMIT, f"output_test6/{model}/Scenario.codegeneration_10_0.2_eval_all.json")
        for model in GU_NI_MODELS
    ),
    *((XIANGWW, XIANGWW_COMMIT, f"output/{model}/{EVAL_ALL}") for model in XIANGWW_MODELS),
)
MANIFEST = statements.MANIFEST_FILE
# A few real rows' statements, for the tests (the manifest keeps digests, not texts).
SAMPLE = paths.FIXTURES_DIR / "score" / "statements-sample.json"
SAMPLE_ROWS = 3


def git_dir(mirror_root: Path, repository: str) -> Path:
    return mirror_root / repository.replace("/", "+") / "repo"


def git_show(mirror_root: Path, repository: str, commit: str, path: str) -> bytes:
    return subprocess.run(
        ["git", "-C", str(git_dir(mirror_root, repository)), "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
    ).stdout


def blob(mirror_root: Path, repository: str, commit: str, path: str) -> str:
    """The file's git blob id: two sources with one blob are one file, not a cross-check."""
    command = ["git", "-C", str(git_dir(mirror_root, repository)), "rev-parse", f"{commit}:{path}"]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout.strip()


def sample(mirror_root: Path) -> list[dict]:
    """The first rows of the first source, with question_id and the statement fields only."""
    rows = json.loads(git_show(mirror_root, *SOURCES[0]))[:SAMPLE_ROWS]
    return [{k: row[k] for k in ("question_id", *statements.FIELDS)} for row in rows]


def tally(files: Iterable[list[dict]]) -> dict[str, dict[str, list[int]]]:
    """question_id -> statement digest -> the indexes of the files (their rows) giving it."""
    seen: dict[str, dict[str, list[int]]] = {}
    for index, rows in enumerate(files):
        for row in rows:
            by_digest = seen.setdefault(row["question_id"], {})
            by_digest.setdefault(statements.digest(row), []).append(index)
    return seen


def read_sources(mirror_root: Path) -> dict[str, dict[str, list[int]]]:
    """tally() of SOURCES, each file read from its mirror."""
    return tally(json.loads(git_show(mirror_root, *source)) for source in SOURCES)


def classify(
    seen: dict[str, dict[str, list[int]]], release_ids: list[str]
) -> tuple[dict[str, dict], dict[str, str]]:
    """Each release problem's digest when at least two sources give it and none gives another;
    else why not. A problem two sources disagree on is never covered, whichever has more."""
    problems, uncovered = {}, {}
    for qid in release_ids:
        found = seen.get(qid, {})
        if not found:
            uncovered[qid] = "in no source"
        elif len(found) > 1:
            uncovered[qid] = f"the sources disagree: {sorted(map(sorted, found.values()))}"
        else:
            ((value, files),) = found.items()
            if len(files) < 2:
                uncovered[qid] = f"in one source only ({files[0]}): not cross-checked"
            else:
                problems[qid] = {"digest": value, "sources": files, "agree": len(files)}
    return problems, uncovered


def build(mirror_root: Path) -> dict:
    blobs = [blob(mirror_root, *source) for source in SOURCES]
    if len(set(blobs)) != len(blobs):
        raise SystemExit("two sources are one file (the same git blob): not independent")
    release_ids = [row["question_id"] for row in releases.members("release_v6")]
    problems, uncovered = classify(read_sources(mirror_root), release_ids)
    return {
        "how": "python -m lcb_conformance_dev.statements build --mirror-root DIR "
        "(docs/statements.md)",
        "digest": "sha256 of question_title, question_content and starter_code as compact "
        "sorted-key JSON (ensure_ascii)",
        "sources": [
            {"repository": f"https://github.com/{repo}", "commit": commit, "path": path, "blob": b}
            for (repo, commit, path), b in zip(SOURCES, blobs, strict=True)
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
