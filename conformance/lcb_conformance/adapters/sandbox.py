"""Python children for untrusted code, contained (adapters/untrusted.py): a JSON request in,
a JSON result out, wall limit; an implementation's calls made in one.

Child processes for untrusted code: lcb_runner's judge and graders, candidate programs and
model answers never run in the calling process.

A child (:func:`start_child`) runs contained by lcb_conformance.adapters.untrusted.Contained
(no network, a read-only view without the user's files, limits for its whole tree, every
process it starts killed when it ends or its wall limit passes), in a fresh temporary folder,
the only one it may write, output to files (an orphan holding a pipe cannot block the caller).
:func:`run_child` runs ``python -m MODULE REQUEST RESULT`` that way for one JSON request
(:func:`calls_in_child`: an implementation's functions, called in such a child);
lcb_conformance.upstream.judge keeps its own runner (several children, partial results) on
:func:`start_child`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from lcb_conformance.adapters import implementation
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.common import exit_codes

# The child's address-space limit: far above what any case needs.
MEMORY_LIMIT_BYTES = 4 * 1024**3


class ChildFailed(RuntimeError):
    """The child wrote no result: it failed or was killed; the message says how."""


def child_environment() -> dict[str, str]:
    """A Python child's variables (Contained keeps only its allow-list of them): it imports
    what the caller can (an --impl adapter in peers/, say), from its temporary directory."""
    environment = dict(os.environ)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"  # a checkout is never written to
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(entry).resolve()) for entry in sys.path if entry]
        + [os.environ.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    return environment


def start_child(module: str, root: Path, upstream: str | None, memory_limit: int) -> Contained:
    """``python -m module ROOT/request.json ROOT/result.json``, contained: working in
    ROOT/work, its output in ROOT/stdout.txt and ROOT/stderr.txt, seeing ``upstream`` (a
    source path) read-only and writing only ROOT."""
    work = root / "work"  # the code's working directory; our files live beside it
    work.mkdir(exist_ok=True)
    with (root / "stdout.txt").open("wb") as out, (root / "stderr.txt").open("wb") as err:
        return Contained(
            [sys.executable, "-m", module, str(root / "request.json"), str(root / "result.json")],
            memory_limit=memory_limit,
            read_only=[upstream] if upstream else [],
            writable=[root],
            cwd=work,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            env=child_environment(),
        )


def run_child(
    module: str, request: dict, wall_limit: float, memory_limit: int = MEMORY_LIMIT_BYTES
) -> object:
    """What ``python -m module REQUEST RESULT`` wrote as JSON to RESULT, the request given as
    a JSON file; ChildFailed when it wrote nothing (crashed, or killed at ``wall_limit``).
    The child sees the request's ``upstream`` source, read-only (:func:`start_child`)."""
    with tempfile.TemporaryDirectory(prefix="lcb-child-") as directory:
        root = Path(directory)
        (root / "request.json").write_text(json.dumps(request), "utf-8")
        process = start_child(module, root, request.get("upstream"), memory_limit)
        try:
            process.wait(timeout=wall_limit)
            why = f"exited with {process.returncode}"
        except subprocess.TimeoutExpired:
            why = f"killed at its wall-time limit of {wall_limit:.0f} s"
        finally:
            process.stop()
        result_path = root / "result.json"
        if result_path.is_file():
            return json.loads(result_path.read_text("utf-8"))
        stderr = (root / "stderr.txt").read_text("utf-8", errors="replace").strip().splitlines()
        raise ChildFailed(f"{module} {why}" + (f": {stderr[-1]}" if stderr else ""))


def calls_in_child(impl: str, calls: list[tuple[str, dict]], wall_limit: float) -> list[dict]:
    """An implementation's functions called in one child (--impl name; each call a function
    name and keyword arguments as JSON data), in order: for each, {"value": its return value
    as JSON data} or {"raised": what it raised, as data (implementation.raised)}."""
    request = {"impl": impl, "calls": [list(call) for call in calls]}
    return run_child(__spec__.name, request, wall_limit)


def child_main(request_path: str, result_path: str) -> int:
    request = json.loads(Path(request_path).read_text("utf-8"))
    # the Implementation, not its module: a function's first call decides whether it is
    # provided here as in the caller (implementation.Implementation._decided_once)
    impl = implementation.load(request["impl"])
    answers = []
    for function, arguments in request["calls"]:
        try:
            answers.append({"value": getattr(impl, function)(**arguments)})
        except Exception as error:  # the implementation's failure: the caller reports it
            answers.append({"raised": implementation.raised(error)})
    Path(result_path).write_text(json.dumps(answers, default=lambda item: item.item()), "utf-8")
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(child_main(*sys.argv[1:3]))
