"""Every command block of README.md and docs/*.md (```bash, ```console, ```shell, ```sh) runs
as written, or says what it needs that this machine lacks.

A block that can run offline on the project's own fixtures runs here, in a temporary folder
holding a copy of fixtures/ (so a command may write files there), each command with a timeout:
a bash block line by line (a `\\` continues the line), each line's exit code 0 unless its
comment says `# exit N`; a console block's `$ ` lines are the commands and the lines after
each are what it prints, every one of them a line of what it really prints (an excerpt: the
transcript may leave lines out), no traceback, exit 0 or 1 unless its `$ ` line says `# exit N`
(what the offline stand-in gives: 4 where a checkout gives 0). Any other block is marked on the
line before its fence, `<!-- needs: KIND (why), KIND ... -->`, with KINDs from NEEDS; each
kind is checked against the block (a block marked `network` names something fetched, ...), so
a marker cannot hide a block that would run (`files`: the reader's own files or values, RUN, DIR,
my_adapter, a synopsis's [options]). Every `tox -e ENV` / `tox -m LABEL` a block names
is one tox.ini defines. The `lcb-conformance` these run is this environment's; the audits need
the upstream extra and its stand-in, so the test runs with the self-tests (tox -e upstream).
"""

from __future__ import annotations

import configparser
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from lcb_conformance.common import paths

# The suite checking its own pages, with the upstream extra (tox -e upstream).
pytestmark = pytest.mark.selftest

ROOT = paths.ROOT
SHELLS = ("bash", "console", "shell", "sh")
FENCE = re.compile(r"^```(?P<lang>[a-z]*)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
MARKER = re.compile(r"<!-- needs: (?P<needs>[^>]*?) -->[ \t]*\n\Z")
# What a block may need that the test machine lacks, and what in the block shows it needs it.
NEEDS = {
    "network": r"git clone|https?://|git\+|pip install|first_verdict\.py|\.venv/bin/tox"
    r"|tox -e (?:upstream-head|hub-check)|tox -m peers|tox -e peer-",
    "checkout": r"/path/to/LiveCodeBench|LIVECODEBENCH_CLONE|--upstream (?:PATH|/)|--history",
    "files": r"\b(?:RUN|DIR|DATASET|DATA|PATH|FILE|MODEL|MODEL_ID|CMD|MODULE)\b|<[^>\n]+>"
    r"|\[[^\]\n]+\]|my_adapter|mypkg|output/|outputs/|reviews/|results/|details/|slices/",
    "slurm": r"#SBATCH|\$SLURM_",
    "tox": r"(?m)^(?:[A-Z_]+=\S+ )?tox\b",
}
TIMEOUT_S = 180
EXIT_COMMENT = re.compile(r"#\s*exit (\d+)\b")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    body: str
    needs: tuple[str, ...]  # the marker's kinds; () when it must run

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def marker_kinds(needs: str) -> tuple[str, ...]:
    """`network (why, more), tox (why)` -> ('network', 'tox'): commas inside () are the why's."""
    return tuple(kind.split("(")[0].strip() for kind in re.split(r",\s*(?![^()]*\))", needs))


def blocks() -> list[Block]:
    found = []
    for page in pages():
        text = page.read_text("utf-8")
        for fence in FENCE.finditer(text):
            if fence["lang"] not in SHELLS:
                continue
            marker = MARKER.search(text, 0, fence.start())
            line = text.count("\n", 0, fence.start()) + 1
            kinds = marker_kinds(marker["needs"]) if marker else ()
            found.append(Block(page_name(page), line, fence["lang"], fence["body"], kinds))
    return found


BLOCKS = blocks()
TO_RUN = [block for block in BLOCKS if not block.needs]
MARKED = [block for block in BLOCKS if block.needs]


def tox_names() -> set[str]:
    """Every env and label tox.ini defines, factors expanded (realvocab{,-tf457}: both)."""
    config = configparser.ConfigParser(interpolation=None)
    config.read(ROOT / "tox.ini", "utf-8")
    names = set()
    for section in config.sections():
        if section.startswith("testenv:"):
            names |= expand(section.removeprefix("testenv:"))
            names |= set(config[section].get("labels", "").replace(",", " ").split())
    return names


def expand(name: str) -> set[str]:
    match = re.search(r"\{([^}]*)\}", name)
    if not match:
        return {name}
    return {
        variant
        for choice in match[1].split(",")
        for variant in expand(name[: match.start()] + choice + name[match.end() :])
    }


def commands(block: Block) -> list[tuple[str, list[str]]]:
    """The block's commands, each with what its transcript shows (console) or nothing."""
    lines = block.body.splitlines()
    if block.lang == "console":
        found: list[tuple[str, list[str]]] = []
        for line in lines:
            if line.startswith("$ "):
                found.append((line[2:], []))
            elif found:
                found[-1][1].append(line)
        return found
    joined = re.sub(r"\\\n\s*", " ", "\n".join(lines))
    lines = [line for line in joined.splitlines() if not line.lstrip().startswith("#")]
    return [(line, []) for line in lines if line.strip()]


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("docs-commands")
    shutil.copytree(
        ROOT / "fixtures", root / "fixtures", ignore=shutil.ignore_patterns("__pycache__")
    )
    return root


def run(command: str, cwd: Path) -> subprocess.CompletedProcess:
    offline = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PIP_NO_INDEX": "1"}
    env = {**os.environ, **offline, "UV_OFFLINE": "1", "NO_COLOR": "1"}
    # this environment's lcb-conformance and python first
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=TIMEOUT_S)  # fmt: skip


@pytest.mark.parametrize("block", TO_RUN, ids=str)
def test_the_block_runs_as_written(block: Block, workdir: Path):
    for command, _ in commands(block):  # nothing runs that would leave the machine
        for kind in ("network", "checkout", "slurm", "tox"):
            assert not re.search(NEEDS[kind], command), (
                f"{block}: `{command}` needs {kind}: mark the block `<!-- needs: {kind} (why) -->`"
            )
    for command, transcript in commands(block):
        done = run(command, workdir)
        said = done.stdout + done.stderr
        where = f"{block}: `{command}` (exit {done.returncode})"
        assert "Traceback (most recent call last)" not in said, f"{where}\n{said[-3000:]}"
        expected = EXIT_COMMENT.search(command)
        codes = (int(expected[1]),) if expected else (0, 1) if block.lang == "console" else (0,)
        said_codes = " or ".join(map(str, codes))
        assert done.returncode in codes, f"{where}, the page says {said_codes}\n{said[-3000:]}"
        if block.lang == "console":
            printed = {line.rstrip() for line in said.splitlines()}
            missing = [line for line in transcript if line.rstrip() not in printed]
            assert not missing, f"{where}: the page shows lines it does not print: {missing}"


@pytest.mark.parametrize("block", MARKED, ids=str)
def test_a_marked_block_needs_what_it_says(block: Block):
    unknown = set(block.needs) - set(NEEDS)
    assert not unknown, f"{block}: needs {sorted(unknown)}: the kinds are {sorted(NEEDS)}"
    for kind in block.needs:
        assert re.search(NEEDS[kind], block.body), (
            f"{block}: marked `needs: {kind}` but nothing in it does (it should run here)"
        )


@pytest.mark.parametrize("block", BLOCKS, ids=str)
def test_every_tox_env_a_block_names_exists(block: Block):
    unknown = set(re.findall(r"\btox -[em] ([\w-]+)", block.body)) - tox_names()
    assert not unknown, f"{block}: no such tox env or label in tox.ini: {sorted(unknown)}"


def test_every_marker_stands_on_the_line_before_a_command_block():
    """A marker anywhere else (a blank line between, before a python block) marks nothing."""
    marked = {(block.page, block.line - 1) for block in MARKED}
    stray = [
        f"{page_name(page)}:{number}"
        for page in pages()
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if line.startswith("<!-- needs:") and (page_name(page), number) not in marked
    ]
    assert not stray, f"markers before no command block: {stray}"


def test_the_blocks_are_found_and_some_run():
    """The parser reads the pages: the README's two commands are a block, and most run."""
    assert any(block.page == "README.md" and "first_verdict" in block.body for block in BLOCKS)
    assert len(TO_RUN) >= 5


def test_the_readme_gives_two_commands_and_ci_runs_both_as_written():
    """"Two commands" is two: the first verdict (dev/first_verdict.py, timed by
    bench/bench_time_to_verdict.py) and everything CI runs; .ci/run runs both, so the README's
    test command is what CI runs."""
    readme = (ROOT / "README.md").read_text("utf-8")
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    (block,) = [block for block in BLOCKS if block.page == "README.md" and block.body in section]
    two = [command.split("#")[0].strip() for command, _ in commands(block)]
    assert two == ["python3 dev/first_verdict.py", ".venv/bin/tox"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()]
    assert two[0] in ci and f"exec {two[1]}" in ci, ".ci/run must run the README's two commands"
