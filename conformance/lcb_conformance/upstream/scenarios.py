"""lcb_runner's self-repair, test output prediction and code execution prompts (or what they
raise), extractors and scorers (in a sandboxed child); a run's raw outputs through the extractor
and the scorer (the regrade-scenarios goldens, `regrade` of those scenarios).

lcb_runner's scenarios beside code generation, run unmodified, each as its declaration
(suite/scenarios.py) names lcb_runner's modules and functions: self-repair
(prompts/self_repair.py), test output prediction (prompts/test_output_prediction.py,
compute_test_output_prediction_metrics.py) and code execution (prompts/code_execution.py,
compute_code_execution_metrics.py), with extraction_utils.py's extractors.

A prompt builder either returns a prompt in its native shape or raises: at 28fef95 the three
builders still compare against LMStyle members 153931b removed (MagiCoder, ...), so every
LMStyle reaching that comparison gets an AttributeError. What it raises is an outcome like a
prompt (:func:`prompt`); the message of an AttributeError on a missing class attribute is
spelled as Python 3.12 spells it on every Python (3.11 says only the attribute's name).

The scorers run upstream's own metric functions in a sandboxed child process
(lcb_conformance.adapters.sandbox): test output prediction eval()s each prediction and code
execution executes each one, both untrusted. The same child gives the regrade-scenarios
goldens: a fixture run's raw outputs through the scenario's extractor, then its scorer, as
runner/scenario_router does.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

from lcb_conformance.adapters import sandbox
from lcb_conformance.common import exit_codes
from lcb_conformance.suite.families import regrade
from lcb_conformance.suite.scenario_cases import RAISED, RETURNED, gradings, problems
from lcb_conformance.suite.scenarios import COT, LMSTYLE, PROBLEM, get
from lcb_conformance.upstream.source import Upstream, UpstreamMissing, UpstreamSourceError

# Raised by the environment, not by a prompt builder's logic: never recorded as an outcome.
ENVIRONMENT_ERRORS = (ImportError, OSError)
EXTRACTION_MODULE = "utils.extraction_utils"

# What an installed stand-in of lcb_runner scores differently, by its version: a score
# golden is reported as not reproducible by it (this reason), not as drift.
STAND_IN_GAPS = {
    "26.3": "its scorers add pass@1_stderr (and pass@5_stderr) to the metrics, and code "
    "execution's pass@1 is 0-1 instead of lcb_runner's x100",
}
# Seconds the scoring child may take: start-up and imports, plus per generation upstream's
# 3 s execution timeout and its process start.
CHILD_BASE_SECONDS = 60
SECONDS_PER_GENERATION = 5


def _module(upstream: Upstream, name: str):
    """An lcb_runner module; UpstreamMissing when this lcb_runner has no such module (an
    older commit), UpstreamSourceError when importing it fails otherwise."""
    try:
        return upstream.module(name)
    except UpstreamSourceError as error:
        missing = getattr(error.__cause__, "name", None) or ""
        if missing and f"{upstream.package}.{name}".startswith(missing):
            raise UpstreamMissing(f"{upstream.describe_source()} has no {name}") from None
        raise


def _function(upstream: Upstream, module: str, name: str):
    found = getattr(_module(upstream, module), name, None)
    if found is None:
        raise UpstreamMissing(f"{upstream.describe_source()} has no {module}.{name}")
    return found


def _problem_class(upstream: Upstream, declared):
    return _function(upstream, declared.dataset.upstream_module, declared.dataset.upstream_class)


def _metrics(upstream: Upstream, declared):
    return _function(upstream, declared.scoring.upstream_module, declared.scoring.upstream)


def describe_error(error: BaseException) -> dict[str, str]:
    """The golden record of an exception a prompt builder raised: its type and message."""
    message = str(error)
    if isinstance(error, AttributeError) and error.name and isinstance(error.obj, type):
        message = f"type object {error.obj.__name__!r} has no attribute {error.name!r}"
    return {"type": type(error).__name__, "message": message}


def prompt(upstream: Upstream, scenario: str, mode: str | None, lmstyle_name: str, value: dict):
    """(RETURNED, the prompt in its native shape) or (RAISED, describe_error(...)) for one
    input: a self-repair attempt (question_content, code, graded, metadata) or a dataset
    row; ``mode`` is code execution's "direct" or "cot". UpstreamMissing when this
    lcb_runner lacks the LMStyle or the builder."""
    lmstyle = upstream.lmstyle(lmstyle_name)
    declared = get(scenario)
    prompt = declared.prompt
    builder = _function(
        upstream, prompt.upstream_module, prompt.cot_upstream if mode == COT else prompt.upstream
    )
    known = {LMSTYLE: lmstyle}
    if PROBLEM in prompt.upstream_arguments:
        known[PROBLEM] = _problem_class(upstream, declared)(**value)
    arguments = [
        known[name] if name in known else value[name] for name in prompt.upstream_arguments
    ]
    try:
        return RETURNED, builder(*arguments)
    except ENVIRONMENT_ERRORS:
        raise
    except Exception as error:  # the builder's own failure: an outcome to pin
        return RAISED, describe_error(error)


def extract(upstream: Upstream, scenario: str, mode: str | None, lmstyle_name: str, output: str):
    """extract_test_output_code(output, LMStyle) or extract_execution_code(output, LMStyle,
    cot=...)."""
    lmstyle = upstream.lmstyle(lmstyle_name)
    declared = get(scenario)
    extractor = _function(upstream, EXTRACTION_MODULE, declared.extraction.upstream)
    if declared.modes:
        return extractor(output, lmstyle, cot=mode == COT)
    return extractor(output, lmstyle)


def score(upstream: Upstream, scenario: str, grading_id: str) -> object:
    """Upstream's scorer on one grading case: [metrics, results] as JSON data."""
    if upstream.checkout is None and upstream.version() in STAND_IN_GAPS:
        raise UpstreamMissing(
            f"{upstream.describe_source()} scores differently: {STAND_IN_GAPS[upstream.version()]}"
        )
    outcome = scored_by(str(upstream.checkout or upstream.source), scenario)[grading_id]
    if "missing" in outcome:
        raise UpstreamMissing(outcome["missing"])
    if "failure" in outcome:
        raise sandbox.ChildFailed(f"{upstream.describe_source()} {outcome['failure']}")
    return outcome["scored"]


@cache
def scored_by(source: str, scenario: str) -> dict[str, dict]:
    """Every grading case of the scenario scored by upstream at ``source``, in one child."""
    cases = [
        {
            "id": grading.id,
            "row": problems(scenario)[grading.problem],
            "generations": list(grading.generations),
        }
        for grading in gradings(scenario).values()
    ]
    wall_limit = CHILD_BASE_SECONDS + SECONDS_PER_GENERATION * sum(
        len(case["generations"]) for case in cases
    )
    request = {"upstream": source, "scenario": scenario, "cases": cases}
    return sandbox.run_child(__spec__.name, request, wall_limit)


def regrade_runs(upstream: Upstream, runs: list[dict]) -> dict[str, dict]:
    """Runs (``key``, ``scenario``, ``cot``, ``lmstyle``, ``problems``: [{name, outputs, and
    ``predictions`` where they are given, not extracted}], ``rows``: name -> dataset row)
    extracted and scored by upstream in one sandboxed child: key -> {"predictions", "scored"
    ([metrics, results] as JSON data)}. UpstreamMissing for a stand-in known to score
    differently; ChildFailed naming the run upstream failed on."""
    if upstream.checkout is None and upstream.version() in STAND_IN_GAPS:
        raise UpstreamMissing(
            f"{upstream.describe_source()} scores differently: {STAND_IN_GAPS[upstream.version()]}"
        )
    source = str(upstream.checkout or upstream.source)
    answers = _regraded_by(source, json.dumps(runs, sort_keys=True))
    for key, answer in answers.items():
        if "failure" in answer:
            raise sandbox.ChildFailed(f"{upstream.describe_source()} on {key}: {answer['failure']}")
    return answers


@cache
def _regraded_by(source: str, runs_json: str) -> dict[str, dict]:
    runs = json.loads(runs_json)
    wall_limit = CHILD_BASE_SECONDS + SECONDS_PER_GENERATION * sum(
        len(problem["outputs"]) for run in runs for problem in run["problems"]
    )
    return sandbox.run_child(__spec__.name, {"upstream": source, "runs": runs}, wall_limit)


def regrade_golden(upstream: Upstream, key) -> dict:
    """The regrade-scenarios golden of a fixture results file (suite/families/regrade.py):
    every run extracted and scored once per source, this one's as the golden records it."""
    runs = regrade.scenario_runs()
    named = [{"key": run_name(k), **run} for k, run in runs.items()]
    answer = regrade_runs(upstream, named)[run_name(key)]
    return golden_of(runs[key], answer)


def golden_of(run: dict, answer: dict) -> dict:
    """A run's regrade as the regrade-scenarios goldens record it."""
    metrics, results = answer["scored"]
    names = [problem["name"] for problem in run["problems"]]
    return {
        "scenario": run["scenario"],
        "cot": run["cot"],
        "lmstyle": run["lmstyle"],
        "problems": names,
        "predictions": dict(zip(names, answer["predictions"], strict=True)),
        "metrics": metrics,
        "graded": {name: results[str(i)] for i, name in enumerate(names)},
    }


def run_name(key) -> str:
    return f"{key.group}/{key.case}"


# ---- inside the child ------------------------------------------------------------------------


def _json_data(value):
    """Upstream's metrics as JSON data: numpy scalars as Python numbers, int keys as strings."""
    return json.loads(json.dumps(value, default=lambda item: item.item()))


def _regrade_run(upstream: Upstream, run: dict) -> dict:
    """One run's raw outputs through the scenario's extractor (or its given predictions) and
    its scorer."""
    declared = get(run["scenario"])
    problem_class = _problem_class(upstream, declared)
    metrics = _metrics(upstream, declared)
    mode_of_run = COT if run["cot"] else None
    samples = [problem_class(**run["rows"][p["name"]]).get_evaluation_sample()
               for p in run["problems"]]  # fmt: skip
    predictions = [
        problem["predictions"] if "predictions" in problem else
        [extract(upstream, run["scenario"], mode_of_run, run["lmstyle"], output)
         for output in problem["outputs"]]
        for problem in run["problems"]
    ]  # fmt: skip
    scored = metrics(samples, predictions, **dict(declared.scoring.upstream_keywords))
    return {"predictions": predictions, "scored": _json_data(scored)}


def child_main(request_path: str, result_path: str) -> int:
    request = json.loads(Path(request_path).read_text("utf-8"))
    upstream = Upstream(request["upstream"])
    if "runs" in request:  # regrade_runs
        regraded: dict[str, dict] = {}
        for run in request["runs"]:
            try:
                regraded[run["key"]] = _regrade_run(upstream, run)
            except Exception as error:  # upstream failed on this run: report it
                regraded[run["key"]] = {"failure": f"raised {type(error).__name__}: {error}"}
        Path(result_path).write_text(json.dumps(regraded), "utf-8")
        return exit_codes.OK
    declared = get(request["scenario"])
    done: dict[str, dict] = {}
    try:
        problem_class = _problem_class(upstream, declared)
        metrics = _metrics(upstream, declared)
    except UpstreamMissing as missing:
        done = {case["id"]: {"missing": str(missing)} for case in request["cases"]}
    except UpstreamSourceError as error:  # its scorer does not import (a dependency it lacks)
        done = {case["id"]: {"failure": f"cannot score: {error}"} for case in request["cases"]}
    else:
        for case in request["cases"]:
            try:
                sample = problem_class(**case["row"]).get_evaluation_sample()
                keywords = dict(declared.scoring.upstream_keywords)
                scored = metrics([sample], [case["generations"]], **keywords)
                done[case["id"]] = {"scored": _json_data(scored)}
            except Exception as error:  # upstream's scorer failed on this case: report it
                done[case["id"]] = {"failure": f"raised {type(error).__name__}: {error}"}
    Path(result_path).write_text(json.dumps(done), "utf-8")
    return exit_codes.OK


if __name__ == "__main__":
    sys.exit(child_main(*sys.argv[1:3]))
