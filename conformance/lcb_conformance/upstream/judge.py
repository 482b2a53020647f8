"""lcb_runner's judge (or an implementation's) run on the corpus in sandboxed child processes;
verdict normalisation.

The judge: how lcb_runner grades a program against a problem's tests, as goldens.

A judge case is a (problem, candidate program) pair from fixtures/judge/: problems are rows in
the dataset's schema (public tests as JSON, private tests as JSON or in the dataset's
base64(zlib(pickle(json))) form, LeetCode's ``func_name`` in metadata), cases name a problem,
give a program and say what they cover. Its golden is what lcb_runner's own judge returns for
the pair: ``evaluate_generations_by_problem`` (what ``codegen_metrics`` runs per problem:
``check_correctness`` around ``run_test``, plus its numpy clean-up and its -5 "TestRunnerError"
fallback) on ``CodeGenerationProblem(**row).get_evaluation_sample()``, and whether the program
passes by ``pass_k_utils.extract_instance_results``, all run from the upstream source itself.

Untrusted code (candidate programs, and upstream's judge itself, whose reliability_guard
disables os functions in its process) never runs in the calling process: :func:`run_batch`
starts ``python -m lcb_conformance.upstream.judge`` as a child contained by
:class:`lcb_conformance.adapters.untrusted.Contained` (bubblewrap: no network, a read-only view
without the user's files, a private /proc and /tmp, process and memory limits for its tree),
with a wall-time limit, a fresh temporary working directory, output to files. When the child
ends, or its wall limit passes, every process it started is killed -- in another session,
double-forked, ignoring SIGTERM or still forking -- before run_batch returns. The child's
stdin is /dev/null: lcb_runner's judge leaves a judged program the real ``open``, so
``open(0)`` reads the judging process's own stdin (docs/judge-sandbox.md), and a judge must
read nothing there, wherever it runs.

An --impl-cmd implementation's judge runs in its own process instead (:func:`run_served`): the
program is started afresh for the judge, contained the same way with the same limits (the
memory limit, a fresh temporary directory, each case's wall limit), and the generic server
gives it /dev/null as stdin.

An outcome is data, the same from both: {"verdict": normalised}, {"raised": what the judge
raised (implementation.raised: type, module, message)} or {"failed": why no verdict came}.

Golden normalisation (:func:`normalise`), so that a run on any machine gives the same bytes:
``results`` is kept as lcb_runner returns it (True/False/-1/-2/-3/-4); ``execution time`` is
dropped (a timing); memory addresses (``0x7f...``) in any string become ``0x?``. Nothing else
is changed. Every case's program is instant or runs forever: none sits near a time limit.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
from functools import cache
from pathlib import Path

from lcb_conformance.adapters import implementation, process, sandbox
from lcb_conformance.adapters.jsonl_server import JUDGE, plain
from lcb_conformance.common import exit_codes
from lcb_conformance.suite.goldens import canonical_json
from lcb_conformance.suite.judge_cases import (  # noqa: F401 (the corpus, as judge.*)
    CASES_FILE,
    CATEGORIES,
    DEFAULT_TIMEOUT,
    PROBLEMS_FILE,
    JudgeCase,
    judge_cases,
    problems,
)
from lcb_conformance.upstream import Upstream

# The child's address-space limit. lcb_runner sets none (reliability_guard(None)); this one is
# the suite's, far above what any case needs (the largest prints a few MB).
MEMORY_LIMIT_BYTES = sandbox.MEMORY_LIMIT_BYTES
# Seconds the child may take beyond upstream's own global timeout for each case (interpreter
# start-up, imports, decoding the tests): far above what any case needs on a loaded machine.
CHILD_OVERHEAD_SECONDS = 60
PARALLEL_CHILDREN = 2
ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")
# What an installed stand-in of lcb_runner is known to lack, by its version: upstream commit ->
# what the stand-in does instead. A judge case that ``needs`` such a commit is reported as not
# reproducible by that stand-in (with this reason) instead of as drift; test_judge checks that
# the stand-in really differs on each of them, so a stale entry fails.
STAND_IN_GAPS = {
    "26.3": {
        "16de2a1": "patches sys.stdin with a plain StringIO (no sys.stdin.buffer, and iterable), "
        "as lcb_runner did before 16de2a1 (2025-05-23)",
    },
}


def stand_in_differing(version: str) -> list[str]:
    """The judge cases an installed stand-in of this version is known to grade unlike 28fef95
    (each needing a commit it lacks: STAND_IN_GAPS), in corpus order; [] for a version not
    known to lack one."""
    gaps = STAND_IN_GAPS.get(version, {})
    return [case.id for case in judge_cases().values() if set(case.needs) & set(gaps)]


def known_gap(upstream, case_id: str) -> str | None:
    """Why ``upstream`` (an upstream.Upstream) cannot reproduce the case's golden, when it is
    an installed stand-in lacking a commit the case needs; None otherwise (a checkout is
    always held to the goldens)."""
    if upstream.checkout is not None:
        return None
    gaps = STAND_IN_GAPS.get(upstream.version(), {})
    lacking = [commit for commit in judge_cases()[case_id].needs if commit in gaps]
    return "; ".join(
        f"judge case {case_id} needs lcb_runner {commit}, which {upstream.describe_source()} "
        f"lacks: it {gaps[commit]}"
        for commit in lacking
    ) or None


def provenance() -> dict:
    """What the judge goldens depend on besides lcb_runner's commit."""
    import importlib.metadata
    import platform

    return {
        "entry": "compute_code_generation_metrics.evaluate_generations_by_problem(([program], "
        "CodeGenerationProblem(**row).get_evaluation_sample(), False, timeout)); passed: "
        "pass_k_utils.extract_instance_results",
        "python": platform.python_version(),
        "numpy": importlib.metadata.version("numpy"),
        "default_timeout_seconds": DEFAULT_TIMEOUT,
        "child_memory_limit_bytes": MEMORY_LIMIT_BYTES,
        "parallel_children": PARALLEL_CHILDREN,
        "normalisation": "results and error codes as returned; 'execution time' dropped; "
        "memory addresses 0x... -> 0x?; undecodable rows: {'rejected': {'type': "
        "'module.Type', 'message': message}}",
        "stdin": "/dev/null",
    }


def decode_private(payload: str) -> list:
    """The private tests of a row, in either of the dataset's encodings: a JSON list, or
    base64(zlib(pickle(JSON string))). For sizing limits and checking fixtures; the goldens
    use upstream's own decoding."""
    import base64
    import pickle
    import zlib

    try:
        return json.loads(payload)
    except ValueError:
        return json.loads(pickle.loads(zlib.decompress(base64.b64decode(payload))))


def count_tests(row: dict) -> int | None:
    """How many tests the row has (public + private), or None when its payload is undecodable
    by the dataset's rules; only to size wall-time limits."""
    try:
        return len(json.loads(row["public_test_cases"])) + len(
            decode_private(row["private_test_cases"])
        )
    except Exception:
        return None


def upstream_wall_limit(case: JudgeCase) -> int:
    """Seconds upstream's check_correctness itself waits at most for the case: its global
    timeout, (timeout + 1) * number of tests + 5."""
    return (case.timeout + 1) * (count_tests(case.row()) or 1) + 5


# ---- normalisation -------------------------------------------------------------------------


def _scrub(value):
    if isinstance(value, str):
        return ADDRESS.sub("0x?", value)
    if isinstance(value, list | tuple):
        return [_scrub(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _scrub(item) for key, item in value.items()}
    return value


def passed(results: list) -> bool:
    """lcb_runner's pass rule for one program (pass_k_utils: every test result > 0; an empty
    list passes). The goldens record upstream's own answer; test_judge checks this agrees."""
    return all(result > 0 for result in results)


def normalise(results, metadata, judge_passed: bool | None = None) -> dict:
    """The golden form of a judge's answer (see the module docstring); ``judge_passed`` is the
    judge's own pass verdict, when it gives one (else lcb_runner's rule on ``results``)."""
    if not isinstance(results, list):
        raise TypeError(f"judge results must be a list, got {type(results).__name__}")
    if not isinstance(metadata, dict):
        raise TypeError(f"judge metadata must be a dict, got {type(metadata).__name__}")
    kept = {key: value for key, value in metadata.items() if key != "execution time"}
    return {
        "results": _scrub(results),
        "passed": passed(results) if judge_passed is None else judge_passed,
        "metadata": _scrub(kept),
    }


def rejected(raised: dict) -> dict:
    """The golden of a row whose tests upstream cannot decode: it raises before judging, so
    the program gets no verdict at all (a judge that scores it is wrong), and what it raises,
    as data (``raised``: implementation.raised), its type qualified by its module. A judge
    under test that raises is held to it in the same form."""
    return {
        "rejected": {
            "type": implementation.raised_type(raised),
            "message": _scrub(raised["message"]),
        }
    }


def canonical(verdict: dict) -> str:
    return canonical_json(verdict)


# ---- the child process ---------------------------------------------------------------------


class JudgeRunError(RuntimeError):
    """The judge child failed or was killed; the message says how, with its last stderr."""


def upstream_spec(source: str) -> dict:
    return {"upstream": source}


@cache
def upstream_outcomes(source: str) -> dict[str, dict]:
    """Every corpus case judged by the upstream at ``source`` (run_batch outcomes), once per
    process: regeneration, --check and the drift tests of one run share it."""
    return run_batch(upstream_spec(source), list(judge_cases().values()))


def golden_verdict(upstream, case_id: str) -> str:
    """The judge golden of one corpus case: ``upstream``'s verdict (an upstream.Upstream; the
    whole corpus judged once per source and process), as canonical JSON."""
    outcome = upstream_outcomes(str(upstream.checkout or upstream.source))[case_id]
    if "verdict" not in outcome:  # the judge child failed, or lcb_runner's judge raised
        why = outcome.get("failed") or implementation.describe_raised(outcome["raised"])
        raise JudgeRunError(f"{upstream.describe_source()} judged no verdict: {why}")
    return canonical(outcome["verdict"])


def impl_spec(name: str) -> dict:
    return {"impl": name}


def run_batch(
    spec: dict,
    cases: list[JudgeCase],
    *,
    wall_limit: float | None = None,
    memory_limit: int = MEMORY_LIMIT_BYTES,
    parallel: int = PARALLEL_CHILDREN,
) -> dict[str, dict]:
    """case id -> outcome (the module docstring), judged by ``spec`` (upstream source or
    adapter) in up to ``parallel`` child processes. ``wall_limit`` (default: the
    sum of upstream's own limits for the chunk, plus CHILD_OVERHEAD_SECONDS) bounds each child."""
    chunks = [cases[index::parallel] for index in range(parallel)]
    running = [
        _Child(spec, chunk, wall_limit or _default_wall_limit(chunk), memory_limit)
        for chunk in chunks
        if chunk
    ]
    outcomes: dict[str, dict] = {}
    for child in running:
        outcomes.update(child.wait())
    return outcomes


def _default_wall_limit(chunk: list[JudgeCase]) -> float:
    return sum(upstream_wall_limit(case) for case in chunk) + CHILD_OVERHEAD_SECONDS


class _Child:
    def __init__(self, spec: dict, cases: list[JudgeCase], wall_limit: float, memory_limit: int):
        self.cases = cases
        self.wall_limit = wall_limit
        self.directory = tempfile.TemporaryDirectory(prefix="lcb-judge-")
        root = Path(self.directory.name)
        self.request = root / "request.json"
        self.result = root / "result.json"
        self.stderr_path = root / "stderr.txt"
        self.request.write_text(
            json.dumps(
                {
                    "judge": spec,
                    "cases": [
                        {
                            "id": case.id,
                            "row": case.row(),
                            "program": case.program,
                            "timeout": case.timeout,
                        }
                        for case in cases
                    ],
                }
            ),
            "utf-8",
        )
        self.started = time.monotonic()
        self.process = sandbox.start_child(__spec__.name, root, spec.get("upstream"), memory_limit)

    def wait(self) -> dict[str, dict]:
        killed = False
        try:
            self.process.wait(timeout=max(1.0, self.wall_limit - self._elapsed()))
        except subprocess.TimeoutExpired:
            killed = True
        finally:
            self.process.stop()
        try:
            outcomes = self._outcomes(killed)
        finally:
            self.directory.cleanup()
        return outcomes

    def _elapsed(self) -> float:
        return time.monotonic() - self.started

    def _outcomes(self, killed: bool) -> dict[str, dict]:
        done: dict[str, dict] = {}
        if self.result.is_file():
            try:
                done = json.loads(self.result.read_text("utf-8"))
            except ValueError:
                done = {}
        if killed:
            why = f"killed at its wall-time limit of {self.wall_limit:.0f} s"
        else:
            stderr = self.stderr_path.read_text("utf-8", errors="replace").strip().splitlines()
            why = f"the judge child exited with {self.process.returncode}" + (
                f": {stderr[-1]}" if stderr else ""
            )
        return {
            case.id: done.get(case.id) or {"failed": f"no verdict: {why}"} for case in self.cases
        }


def run_served(
    command: str, cases: list[JudgeCase], *, parallel: int = PARALLEL_CHILDREN
) -> dict[str, dict]:
    """case id -> outcome (the module docstring), judged by the judge_program of the --impl-cmd
    program ``command``: started afresh as ``parallel`` processes, each contained
    (adapters/untrusted.py) with this module's memory limit, in its own temporary directory,
    each case's request limited to upstream's own wall
    limit for it plus CHILD_OVERHEAD_SECONDS. A process that fails a case is started afresh
    for the next."""
    import concurrent.futures

    chunks = [chunk for chunk in (cases[index::parallel] for index in range(parallel)) if chunk]
    outcomes: dict[str, dict] = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, len(chunks))) as pool:
        for found in pool.map(lambda chunk: _served_chunk(command, chunk), chunks):
            outcomes.update(found)
    return outcomes


def _served_chunk(command: str, cases: list[JudgeCase]) -> dict[str, dict]:
    try:
        served = process.ProcessAdapter(
            command,
            CHILD_OVERHEAD_SECONDS,
            MEMORY_LIMIT_BYTES // 2**20,
        )
    except (process.AdapterProcessError, ValueError) as error:
        return {case.id: {"failed": f"no verdict: {error}"} for case in cases}
    try:
        return {case.id: _served_outcome(served, case) for case in cases}
    finally:
        served.remove()


def _served_outcome(served: process.ProcessAdapter, case: JudgeCase) -> dict:
    arguments = {"row": case.row(), "program": case.program, "timeout": case.timeout}
    limit = upstream_wall_limit(case) + CHILD_OVERHEAD_SECONDS
    try:
        answer = served.request(JUDGE, arguments, timeout=limit)
    except process.AdapterProcessError as failed:  # it crashed, hung or broke the protocol
        return {"failed": f"no verdict: {failed}"}
    except Exception as error:  # what its judge_program raised, as it sent it
        return {"raised": implementation.raised(error)}
    try:  # as the judge child takes an adapter's answer apart
        return {"verdict": normalise(*judge_answer(answer))}
    except (TypeError, ValueError) as error:
        return {"raised": implementation.raised(error)}


# ---- inside the child ------------------------------------------------------------------------


class UpstreamJudge:
    """lcb_runner's judge, as found in an upstream source ("installed" or a checkout)."""

    def __init__(self, source: str):
        self.upstream = Upstream(source)
        # only the modules the judge path uses (not the prompt side's), so a tree whose
        # prompts do not import still has its judge checked
        self.benchmark = self.upstream.module("benchmarks.code_generation")
        self.metrics = self.upstream.module("evaluation.compute_code_generation_metrics")
        self.pass_k = self.upstream.module("evaluation.pass_k_utils")

    def __call__(self, row: dict, program: str, timeout: int) -> dict:
        try:
            sample = self.benchmark.CodeGenerationProblem(**row).get_evaluation_sample()
        except Exception as error:  # upstream cannot decode the row's tests: nothing is run
            return rejected(implementation.raised(error))
        results, metadata = self.metrics.evaluate_generations_by_problem(
            ([program], sample, False, timeout)
        )
        grades = self.pass_k.extract_instance_results({0: results})
        return normalise(results[0], metadata[0], bool(grades[0][0]))


def _judge_function(spec: dict):
    if "upstream" in spec:
        return UpstreamJudge(spec["upstream"])
    judge_program = implementation.load(spec["impl"]).judge_program

    def adapter_judge(row: dict, program: str, timeout: int) -> dict:
        return normalise(*judge_answer(judge_program(row, program, timeout)))

    return adapter_judge


def judge_answer(answer) -> tuple:
    """An adapter's judge_program answer as normalise's arguments: (results, metadata), or
    (results, metadata, passed) from a harness whose own pass rule is not lcb_runner's (SkyThought
    fails a program it got no result for)."""
    if not isinstance(answer, list | tuple) or len(answer) not in (2, 3):
        raise TypeError(
            f"judge_program must return (results, metadata) or (results, metadata, passed), "
            f"got {answer!r:.200}"
        )
    if len(answer) == 3 and not isinstance(answer[2], bool):
        raise TypeError(f"judge_program's passed must be a bool, got {answer[2]!r:.100}")
    return tuple(answer)


def _json_safe(value):
    return json.loads(json.dumps(value, default=plain))


def child_main(request_path: str, result_path: str) -> int:
    request = json.loads(Path(request_path).read_text("utf-8"))
    judge = _judge_function(request["judge"])
    done: dict[str, dict] = {}
    for case in request["cases"]:
        try:
            verdict = judge(case["row"], case["program"], case["timeout"])
            done[case["id"]] = {"verdict": _json_safe(verdict)}
        except Exception as error:  # the judge under test raised on this case: report it
            done[case["id"]] = {"raised": implementation.raised(error)}
        # after every case, so a child killed at its limit still reports the ones it finished
        partial = Path(result_path + ".partial")
        partial.write_text(json.dumps(done), "utf-8")
        partial.replace(result_path)
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(child_main(*sys.argv[1:3]))
