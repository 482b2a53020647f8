"""The leaderboard's builder (Python, TZ set) and site library (TypeScript, through node) at
pinned commits.

The public leaderboard's own code, run unmodified: LiveCodeBench/submissions'
``build_leaderboard_json.py`` (Python, with lcb_runner's model list) turns eval_all files into
per-problem records, and LiveCodeBench/livecodebench.github.io's ``src/leaderboardLib.tsx``
(TypeScript, transpiled by the TypeScript compiler from the npm registry and run by node)
averages them over a window.

Both files are read at pinned commits with ``git show`` from git repositories (bare is fine)
named by LCB_SUBMISSIONS_GIT and LCB_SITE_GIT; the compiler (typescript 4.9.5, the site's own
"^4.2.0" range) is fetched once into LCB_TYPESCRIPT_CACHE (default
~/.cache/lcb-conformance/typescript) by ``python -m lcb_conformance.upstream.leaderboard fetch``.
Nothing of them is committed. Without them the leaderboard goldens are
:class:`LeaderboardCodeMissing`: regeneration keeps them, the drift run names them.

The builder runs in a child process, in a temporary folder holding one folder per run named
after its lcb_runner model_repr, with TZ set: it reads contest dates in local time. The site's
module runs in node with its React and CSS imports stubbed (getLeaderboard uses neither); the
records of each model's window are what its own ``console.log("Results: ", results)`` logs.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from lcb_conformance.common import exit_codes
from lcb_conformance.suite.families import NotProducibleHere
from lcb_conformance.upstream.source import Upstream, UpstreamMissing


class LeaderboardCodeMissing(UpstreamMissing, NotProducibleHere):
    """The leaderboard's builder, site or TypeScript compiler is not configured here."""

    counted_as = "no leaderboard code here"


SUBMISSIONS = "https://github.com/LiveCodeBench/submissions"
SUBMISSIONS_COMMIT = "4d04b02a01c81b0a7207bafdcda35efad9e39b8c"
BUILDER = "build_leaderboard_json.py"
SITE = "https://github.com/LiveCodeBench/livecodebench.github.io"
SITE_COMMIT = "f186ab5041d6b768733b8ae8145151c867942134"
SITE_LIB = "src/leaderboardLib.tsx"
TYPESCRIPT_PACKAGE = "typescript@4.9.5"
TYPESCRIPT_MEMBER = "package/lib/typescript.js"
TYPESCRIPT_SHA256 = "2e78d8d8d3b631646830e478dbee1ca109474840fe5ed7ca6c5b418f2e20b1a2"
TYPESCRIPT_CACHE = Path(
    os.environ.get(
        "LCB_TYPESCRIPT_CACHE", Path.home() / ".cache" / "lcb-conformance" / "typescript"
    )
)
EVAL_ALL = "Scenario.codegeneration_10_0.2_eval_all.json"
TIMEOUT = 300  # seconds, each child

# node: transpile the site's module, stub what getLeaderboard does not use, capture its logs.
DRIVER = r"""
const fs = require("fs");
const Module = require("module");
const [typescriptPath, libPath] = process.argv.slice(2);
const ts = require(typescriptPath);
const input = JSON.parse(fs.readFileSync(0, "utf8"));
const js = ts.transpileModule(fs.readFileSync(libPath, "utf8"), {
  compilerOptions: {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2019,
    jsx: ts.JsxEmit.React,
    esModuleInterop: true,
  },
}).outputText;
const stubs = {
  react: { createElement: () => null },
  "./Leaderboard.module.css": {},
  child_process: {},
};
const lib = new Module(libPath);
lib.require = (name) => {
  if (name in stubs) return stubs[name];
  throw new Error("leaderboardLib imports " + name + ", which the driver does not stub");
};
const logged = [];
const log = console.log;
console.log = (...args) => logged.push(args);
lib._compile(js, libPath);
const answers = input.windows.map(([start, end]) => {
  logged.length = 0;
  const rows = lib.exports.getLeaderboard(input.performances, input.models, start, end);
  const results = logged
    .filter((args) => args[0] === "Results: ")
    .map((args) => args[1].map((record) => record.question_id));
  return { rows, results };
});
console.log = log;
process.stdout.write(JSON.stringify(answers));
"""


def _git_show(variable: str, commit: str, path: str) -> str:
    repository = os.environ.get(variable)
    if not repository:
        raise LeaderboardCodeMissing(
            f"the leaderboard's {path} is read from a git repository named by {variable} "
            f"(a clone of {SUBMISSIONS if 'SUBMISSIONS' in variable else SITE}); it is not set"
        )
    try:
        return subprocess.run(
            ["git", "-C", repository, "show", f"{commit}:{path}"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise LeaderboardCodeMissing(
            f"{variable}={repository}: no {commit[:7]}:{path} ({error})"
        ) from None


def typescript(cache: Path = TYPESCRIPT_CACHE) -> Path:
    """The pinned TypeScript compiler's typescript.js in the cache, verified."""
    path = Path(cache) / TYPESCRIPT_PACKAGE / "typescript.js"
    if not path.is_file():
        raise LeaderboardCodeMissing(
            f"{path} is missing: fetch the TypeScript compiler first (python -m "
            f"lcb_conformance.upstream.leaderboard fetch {cache})"
        )
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != TYPESCRIPT_SHA256:
        raise LeaderboardCodeMissing(
            f"{path} has sha256 {digest}, not the pinned {TYPESCRIPT_SHA256}"
        )
    return path


def fetch(cache: Path = TYPESCRIPT_CACHE) -> Path:
    """npm pack the pinned compiler into a temporary folder; keep typescript.js, verified."""
    dest = Path(cache) / TYPESCRIPT_PACKAGE / "typescript.js"
    if dest.is_file():
        return typescript(cache)
    with tempfile.TemporaryDirectory(prefix="lcb-typescript-") as folder:
        subprocess.run(
            ["npm", "pack", "--silent", "--pack-destination", folder, TYPESCRIPT_PACKAGE],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        (archive,) = Path(folder).glob("*.tgz")
        dest.parent.mkdir(parents=True, exist_ok=True)
        part = dest.with_name(dest.name + ".part")
        with tarfile.open(archive) as tar, tar.extractfile(TYPESCRIPT_MEMBER) as source:
            with part.open("wb") as out:
                shutil.copyfileobj(source, out)
        os.replace(part, dest)
    return typescript(cache)


def build(upstream: Upstream, runs: dict[str, list[dict]], zone: str) -> dict:
    """build_leaderboard_json.py's performances_generation.json for these runs (model_repr ->
    eval_all rows), its local time zone ``zone``."""
    if upstream.checkout is None:
        raise LeaderboardCodeMissing(
            f"the leaderboard's builder imports lcb_runner.lm_styles; {upstream.describe_source()}"
            " installs it as another package: run it against a LiveCodeBench checkout"
        )
    builder = _git_show("LCB_SUBMISSIONS_GIT", SUBMISSIONS_COMMIT, BUILDER)
    with tempfile.TemporaryDirectory(prefix="lcb-leaderboard-") as folder:
        for model_repr, rows in runs.items():
            (Path(folder) / model_repr).mkdir()
            (Path(folder) / model_repr / EVAL_ALL).write_text(json.dumps(rows), "utf-8")
        (Path(folder) / BUILDER).write_text(builder, "utf-8")
        environment = {
            **os.environ,
            "TZ": zone,
            "PYTHONPATH": os.pathsep.join([str(upstream.checkout), *sys.path]),
        }
        done = subprocess.run(
            [sys.executable, BUILDER],
            cwd=folder,
            env=environment,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{BUILDER} failed (TZ={zone}): {done.stderr[-2000:]}")
        return json.loads((Path(folder) / "performances_generation.json").read_text("utf-8"))


def marks_by_date(built: dict, zone: str) -> dict[str, int]:
    """The builder's date marks (local midnights, in ms) by their local date."""
    return {
        datetime.fromtimestamp(mark / 1000, ZoneInfo(zone)).date().isoformat(): mark
        for mark in built["date_marks"]
    }


def site(built: dict, windows: list[tuple[int, int]]) -> list[dict]:
    """getLeaderboard(performances, models, start, end) for each window, with the question ids
    of each model's records in it (in the order of models with a release date)."""
    lib = _git_show("LCB_SITE_GIT", SITE_COMMIT, SITE_LIB)
    compiler = typescript()
    node = shutil.which("node")
    if node is None:
        raise LeaderboardCodeMissing(
            "the site's leaderboardLib.tsx runs in node, which is not on PATH"
        )
    with tempfile.TemporaryDirectory(prefix="lcb-leaderboard-site-") as folder:
        (Path(folder) / "leaderboardLib.tsx").write_text(lib, "utf-8")
        (Path(folder) / "driver.js").write_text(DRIVER, "utf-8")
        done = subprocess.run(
            [node, "driver.js", str(compiler), str(Path(folder) / "leaderboardLib.tsx")],
            cwd=folder,
            input=json.dumps({**built, "windows": windows}),
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    if done.returncode != 0:
        raise RuntimeError(f"node {SITE_LIB} failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout)


# The site's row fields that are not the run's numbers: its rank and contamination flag depend
# on the other models and the model's release date.
NOT_THE_RUNS = ("Rank", "Model", "Estimated Cutoff For LiveCodeBench", "Contaminated")


def answers(
    upstream: Upstream, runs: dict[str, list[dict]], zone: str, windows: list[tuple[str, str]]
) -> dict[tuple[str, tuple[str, str]], dict]:
    """(model_repr, (start, end)) -> the leaderboard's answer for that run and window: not
    listed (the builder skipped it), or the question ids the site averaged and its columns.
    The builder runs once for all runs, the site once for all windows."""
    built = build(upstream, runs, zone)
    marks = marks_by_date(built, zone)
    unknown = [day for window in windows for day in window if day not in marks]
    if unknown:
        raise ValueError(f"not a date mark of the builder: {', '.join(unknown)}")
    answered = site(built, [(marks[start], marks[end]) for start, end in windows])
    listed = [model["model_repr"] for model in built["models"] if model["release_date"]]
    found = {}
    for window, answer in zip(windows, answered, strict=True):
        rows = {row["Model"]: row for row in answer["rows"]}
        shown = dict(zip(listed, answer["results"], strict=True))
        for model_repr in runs:
            if model_repr not in rows:
                found[(model_repr, window)] = {"listed": False}
                continue
            columns = {k: v for k, v in rows[model_repr].items() if k not in NOT_THE_RUNS}
            found[(model_repr, window)] = {
                "listed": True,
                "count": len(shown[model_repr]),
                "question_ids": sorted(shown[model_repr]),
                **columns,
            }
    return found


def provenance() -> dict:
    return {
        "builder": f"{SUBMISSIONS} {SUBMISSIONS_COMMIT} {BUILDER}",
        "site": f"{SITE} {SITE_COMMIT} {SITE_LIB}",
        "typescript": f"npm {TYPESCRIPT_PACKAGE} {TYPESCRIPT_MEMBER} sha256 {TYPESCRIPT_SHA256}",
    }


if __name__ == "__main__":
    if sys.argv[1:2] != ["fetch"]:
        usage = "usage: python -m lcb_conformance.upstream.leaderboard fetch [CACHE_DIR]"
        print(usage, file=sys.stderr)
        sys.exit(exit_codes.UNUSABLE)
    print(fetch(Path(sys.argv[2]) if len(sys.argv) > 2 else TYPESCRIPT_CACHE))
