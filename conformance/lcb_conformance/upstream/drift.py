"""`lcb-conformance drift`: how an upstream lcb_runner differs from the goldens, a verdict per
case told apart by kind; `--history` over commits.

    lcb-conformance drift [--upstream installed|PATH] [--no-tokens] [--json FILE]
    lcb-conformance drift --history REPO COMMIT... [--json FILE] [--markdown FILE]

Each upstream golden gets one verdict:

    identical    upstream reproduces it byte for byte
    differs      a prompt, messages, extraction, rendering or tokenization differs:
                 comparability broken
    model-list   only lcb_runner's LMStyle set or LanguageModelList differs (which models the
                 leaderboard lists, not how any prompt is built); red only for the pinned
                 commit
    missing      this upstream has no such LMStyle or builds no prompt for it (an older
                 snapshot, such as the installed nvidia-livecodebench)
                 or, for a judge case, an installed stand-in lacks a judge commit the case
                 needs (judge.STAND_IN_GAPS: nvidia-livecodebench 26.3 lacks 16de2a1)

The drift run (tests/test_upstream_drift.py) fails on "differs" and skips the other two with
their reason. ``--history`` exports each COMMIT's lcb_runner/ from a LiveCodeBench clone
(git archive, into a temporary directory) and runs this module on it in a child process, so
every commit is judged in a fresh interpreter.

Exit code (suite.exit_codes): 1 a case differs (with --history: in any commit); 4 none
differs, but a case is missing, no case was compared, or a --history commit could not be
judged; 0 every case compared, each identical or (an upstream other than the pinned commit) a
model-list change only; 2 an upstream or repository that cannot be used; 6 a --json or
--markdown file not written.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path

from lcb_conformance.adapters.sandbox import ChildFailed
from lcb_conformance.common import exit_codes, report_files, shared_options, showdiff
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.suite import families, goldens, tokenization
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream, UpstreamMissing, UpstreamSourceError
from lcb_conformance.upstream.judge import JudgeRunError
from lcb_conformance.upstream.producers import Producer, upstream_function

IDENTICAL, DIFFERS, MODEL_LIST, MISSING = "identical", "differs", "model-list", "missing"
# --no-tokens (and every --history commit): the families built from upstream's prompts,
# extraction, lists and judge, without the tokenizer side (tokenizations, the matrix), which a
# commit of lcb_runner changes only through its prompts; tox -e upstream checks them.
def history_families() -> tuple[str, ...]:
    return tuple(
        name
        for name, family in families.registry().items()
        if family.upstream and family.in_history
    )


COMMIT_TIMEOUT = 900  # seconds for one commit's child process


@dataclass(frozen=True)
class DriftVerdict:
    """One golden's drift: identical, differs, model-list or missing (not a run's verdict,
    reports/verdict.py)."""

    key: str
    status: str
    detail: str = ""


def judge(key: GoldenKey, produce, pinned: bool) -> DriftVerdict:
    """The verdict on one golden; ``produce`` is a producers.Producer over the upstream."""
    try:
        produced = produce(key)
    except UpstreamMissing as missing:
        return DriftVerdict(str(key), MISSING, str(missing))
    except (JudgeRunError, ChildFailed) as failed:  # its judge or a scorer gave no answer
        return DriftVerdict(str(key), DIFFERS, str(failed))
    recorded = goldens.read(key)
    if produced == recorded:
        return DriftVerdict(str(key), IDENTICAL)
    family = families.get(key.family)
    if family.known_gap:
        # e.g. an installed stand-in lacking a judge commit the case needs: named, not drift
        gap = upstream_function(family.known_gap)(produce.upstream, key.case)
        if gap:
            return DriftVerdict(str(key), MISSING, gap)
    list_change = family.list_change
    if list_change is not None and recorded is not None and not pinned:
        change = list_change(key, recorded, produced)
        if change:
            return DriftVerdict(str(key), MODEL_LIST, change)
    return DriftVerdict(str(key), DIFFERS)


def run(source: str, only: tuple[str, ...] | None = None) -> dict:
    """Every upstream golden of the families ``only`` names (default: all) judged against
    ``source``."""
    hf_cache.activate_offline_cache()
    upstream = Upstream(source)
    produce = Producer(upstream)
    pinned = upstream.is_pinned()
    verdicts = []
    not_here: Counter = Counter()  # goldens no run here can produce, by why: named, not judged
    for family in only or families.upstream_families():
        for key in families.expected_keys(family):
            if not families.in_this_environment(key):
                continue
            try:
                verdicts.append(judge(key, produce, pinned))
            except families.NotProducibleHere as elsewhere:
                not_here[f"{key.family} ({elsewhere.counted_as})"] += 1
    return {
        "upstream": upstream.describe_source(),
        "pinned": pinned,
        "transformers_line": tokenization.transformers_line(),
        "counts": dict(Counter(verdict.status for verdict in verdicts)),
        "not_judged_here": dict(not_here),
        "verdict": overall(verdicts),
        "verdicts": [asdict(verdict) for verdict in verdicts if verdict.status != IDENTICAL],
    }


def overall(verdicts) -> str:
    statuses = {verdict.status for verdict in verdicts}
    for status in (DIFFERS, MODEL_LIST, MISSING):
        if status in statuses:
            return status
    return IDENTICAL


ERROR = "error"  # a --history commit whose child process gave no result


def exit_code(result: dict) -> int:
    """A run's (or a --history commit's) code: green only when every case was compared."""
    counts = result["counts"]
    if result["verdict"] == DIFFERS:
        return exit_codes.DIFFERS
    if result["verdict"] == ERROR or counts.get(MISSING) or not sum(counts.values()):
        return exit_codes.INCOMPLETE
    return exit_codes.OK


def _groups(result: dict, status: str) -> Counter:
    """Golden group (a key without its case) -> its verdicts of ``status``."""
    return Counter(
        verdict["key"].rsplit("/", 1)[0]
        for verdict in result["verdicts"]
        if verdict["status"] == status
    )


def summary(result: dict) -> str:
    counts = ", ".join(f"{n} {status}" for status, n in sorted(result["counts"].items()))
    lines = [f"{result['upstream']}: {result['verdict'].upper()} ({counts or 'no case compared'})"]
    for group, n in sorted(_groups(result, DIFFERS).items()):
        lines.append(f"  differs: {group} ({n} cases)")
    for verdict in result["verdicts"]:
        if verdict["status"] == MODEL_LIST:
            lines.append(f"  model list: {verdict['key']}: {verdict['detail']}")
    for group, n in sorted(_groups(result, MISSING).items()):
        lines.append(f"  missing: {group} ({n} cases)")
    for group, n in sorted(result.get("not_judged_here", {}).items()):
        lines.append(f"  not judged here: {group}: {n} cases")
    return "\n".join(lines)


def history(repo: Path, commits: list[str]) -> list[dict]:
    """Each commit's lcb_runner/, exported from ``repo``, judged in a child process."""
    results = []
    for commit in commits:
        described = _git(repo, "log", "-1", "--format=%h %ad %s", "--date=short", commit)
        with tempfile.TemporaryDirectory(prefix=f"lcb-{commit[:12]}-") as tree:
            archive = Path(tree) / "tree.tar"
            with archive.open("wb") as out:
                subprocess.run(
                    ["git", "-C", str(repo), "archive", commit, "lcb_runner"],
                    stdout=out,
                    check=True,
                )
            with tarfile.open(archive) as tar:
                tar.extractall(tree, filter="data")
            report = Path(tree) / "drift.json"
            child = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    __spec__.name,
                    "--upstream",
                    tree,
                    "--no-tokens",
                    "--json",
                    str(report),
                ],
                stdin=subprocess.DEVNULL,  # no judge reads our stdin (docs/judge-sandbox.md)
                capture_output=True,
                text=True,
                timeout=COMMIT_TIMEOUT,
            )
            if report.is_file():
                result = json.loads(report.read_text("utf-8"))
            else:
                error = (child.stderr.strip().splitlines() or ["no output"])[-1]
                result = {"verdict": ERROR, "counts": {}, "verdicts": [], "error": error}
        results.append(result | {"commit": commit, "upstream": described})
    return results


def history_table(results: list[dict]) -> str:
    """A Markdown table of a --history run, one row per commit; differing cases counted per
    golden family."""
    lines = [
        "| commit | date | subject | verdict | differs | identical | missing | differing cases |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for result in results:
        counts = result["counts"]
        commit, date, subject = (result["upstream"].split(" ", 2) + ["", ""])[:3]
        per_family = Counter(
            verdict["key"].split("/")[0]
            for verdict in result["verdicts"]
            if verdict["status"] == DIFFERS
        )
        what = result.get("error", "").split(";")[0] or ", ".join(
            f"{family} {n}" for family, n in sorted(per_family.items())
        )
        subject = subject if len(subject) <= 48 else subject[:47] + "…"
        lines.append(
            f"| {commit} | {date} | {subject.replace('|', '/')} | {result['verdict']} | "
            f"{counts.get(DIFFERS, 0)} | {counts.get(IDENTICAL, 0)} | {counts.get(MISSING, 0)} "
            f"| {what.replace('|', '/')} |"
        )
    return "\n".join(lines) + "\n"


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance drift", description=__doc__.split("\n\n")[0]
    )
    shared_options.add(parser, "upstream")
    parser.add_argument(
        "--history",
        nargs="+",
        metavar=("REPO", "COMMIT"),
        help="a LiveCodeBench git clone and the commits to judge",
    )
    parser.add_argument(
        "--no-tokens",
        action="store_true",
        help="leave out the tokenizations and the comparability matrix",
    )
    shared_options.add(parser, "json", help="also write the result as JSON")
    parser.add_argument(
        "--markdown", metavar="FILE", help="with --history: also write a Markdown table"
    )
    args = parser.parse_args(argv)
    try:
        if args.history:
            if len(args.history) < 2:
                parser.error("--history needs a repository and at least one commit")
            repo, *commits = args.history
            results = history(Path(repo), commits)
            for result in results:
                if "error" in result:
                    showdiff.write(f"{result['upstream']}: ERROR {result['error']}")
                else:
                    showdiff.write(summary(result))
            payload: object = results
            codes = [exit_code(result) for result in results]
        else:
            payload = run(args.upstream, history_families() if args.no_tokens else None)
            showdiff.write(summary(payload))
            codes = [exit_code(payload)]
    except (UpstreamSourceError, subprocess.CalledProcessError) as error:
        why = getattr(error, "stderr", None) or str(error)  # git's own words, when git failed
        showdiff.write(f"lcb-conformance drift: {' '.join(str(why).split())}", sys.stderr)
        return exit_codes.UNUSABLE
    written = report_files.write_reports(
        "lcb-conformance drift",
        {
            "JSON": (args.json, lambda: json.dumps(payload, indent=1) + "\n"),
            "Markdown": (args.markdown if args.history else None, lambda: history_table(payload)),
        },
    )
    if not written:
        return report_files.REPORT_NOT_WRITTEN
    return exit_codes.of_checks(codes)


if __name__ == "__main__":
    sys.exit(main())
