"""Child processes for untrusted code under the supervisor (adapters/untrusted.py): memory and
wall limits, temporary directory, no internet; an implementation's calls made in one.

Child processes for untrusted code: lcb_runner's judge and graders, candidate programs and
model answers never run in the calling process.

A child runs under lcb_conformance.adapters.untrusted's supervisor (Contained: an address-space
limit, every process it starts killed when it ends or its wall limit passes), in a fresh
temporary working directory, output to files (an orphan holding a pipe cannot block the
caller), internet sockets refused.
:func:`run_child` runs ``python -m MODULE REQUEST RESULT`` that way for one JSON request
(:func:`calls_in_child`: an implementation's functions, called in such a child);
lcb_conformance.upstream.judge keeps its own runner (several children, partial results)
built from the same pieces.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from lcb_conformance.adapters import implementation
from lcb_conformance.adapters.jsonl_server import block_internet
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.common import exit_codes

# The child's address-space limit: far above what any case needs.
MEMORY_LIMIT_BYTES = 4 * 1024**3


class ChildFailed(RuntimeError):
    """The child wrote no result: it failed or was killed; the message says how."""


def child_environment() -> dict[str, str]:
    environment = dict(os.environ)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"  # a checkout is never written to
    # the child imports what the caller can (an --impl adapter in peers/, say), from its
    # temporary working directory
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(Path(entry).resolve()) for entry in sys.path if entry]
        + [os.environ.get("PYTHONPATH", "")]
    ).rstrip(os.pathsep)
    environment.pop("PYTHONSTARTUP", None)
    return environment


def run_child(
    module: str, request: dict, wall_limit: float, memory_limit: int = MEMORY_LIMIT_BYTES
) -> object:
    """What ``python -m module REQUEST RESULT`` wrote as JSON to RESULT, the request given as
    a JSON file; ChildFailed when it wrote nothing (crashed, or killed at ``wall_limit``)."""
    with tempfile.TemporaryDirectory(prefix="lcb-child-") as directory:
        root = Path(directory)
        work = root / "work"  # the code's working directory; our files live beside it
        work.mkdir()
        request_path, result_path = root / "request.json", root / "result.json"
        request_path.write_text(json.dumps(request), "utf-8")
        stderr_path = root / "stderr.txt"
        with (root / "stdout.txt").open("wb") as out, stderr_path.open("wb") as err:
            process = Contained(
                [sys.executable, "-m", module, str(request_path), str(result_path)],
                memory_limit=memory_limit,
                cwd=work,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                env=child_environment(),
            )
            try:
                process.wait(timeout=wall_limit)
                why = f"exited with {process.returncode}"
            except subprocess.TimeoutExpired:
                why = f"killed at its wall-time limit of {wall_limit:.0f} s"
            finally:
                process.stop()
        if result_path.is_file():
            return json.loads(result_path.read_text("utf-8"))
        stderr = stderr_path.read_text("utf-8", errors="replace").strip().splitlines()
        raise ChildFailed(f"{module} {why}" + (f": {stderr[-1]}" if stderr else ""))


def calls_in_child(impl: str, calls: list[tuple[str, dict]], wall_limit: float) -> list[dict]:
    """An implementation's functions called in one child (--impl name; each call a function
    name and keyword arguments as JSON data), in order: for each, {"value": its return value
    as JSON data} or {"raised": what it raised, as data (implementation.raised)}."""
    request = {"impl": impl, "calls": [list(call) for call in calls]}
    return run_child(__spec__.name, request, wall_limit)


def child_main(request_path: str, result_path: str) -> int:
    block_internet()
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
