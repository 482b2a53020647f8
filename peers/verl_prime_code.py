"""verl's code reward: verl.utils.reward_score.prime_code (the extraction and the judge behind
its code rewards).

verl formats no LiveCodeBench prompt (a dataset's prompts are its user's preprocessing) and has
no LiveCodeBench loader: what it runs on a code answer is ``default_compute_score``'s code
branch (reward_score/__init__.py), which calls ``prime_code.compute_score(solution_str,
ground_truth, continuous=True)`` without a sandbox URL. verl's package ``__init__`` imports ray
and torch, so ``verl``, ``verl.utils`` and ``verl.utils.reward_score`` are made importable
without their ``__init__`` (harness_source.package_without_init) and ``prime_code`` (whose
imports are numpy and the standard library) is imported as installed.

- extraction: the first line of ``compute_score`` (prime_code/__init__.py), observed by running
  compute_score with its judge, ``apps_check_correctness``, replaced by a recorder (compiled
  from the installed file): the program it would grade.
- judge: ``compute_score(program, ground_truth, continuous=True)``, the ground truth being the
  problem's tests as lcb_runner decodes them (``CodeGenerationProblem(**row)
  .get_evaluation_sample()``: inputs, outputs, fn_name, the form prime_code's run_test reads;
  verl has no decoder of its own). Its judge ``apps_check_correctness`` (prime_code/utils.py,
  around testing_util.run_test) is wrapped to keep what it returns. Results: the per-test
  results of the check that set the reward (the full check when it passed, else the per-test
  checks of the first 10 tests that continuous=True runs); metadata: the full check's; passed:
  whether the reward is 1.0 (a partial reward, the fraction of those tests passed, is not a
  pass). compute_score fixes its own timeouts (5 s, then 10 s per test): the suite's timeout is
  not used.

Held to lcb_runner's generic style's extraction (OpenAIChat's), the one a harness without an
LMStyle of its own is compared with; its prompts are not provided.
"""

from __future__ import annotations

import importlib
import json
import traceback
from functools import cache

from lcb_conformance.adapters import harness_source
from peers._render import STYLE, check_style

PEER = "verl (prime_code)"
DISTRIBUTION = "verl"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: no prompt (verl formats none); prime_code.compute_score's extraction in place "
    "of extract_code(..., LLaMa3); compute_score(..., continuous=True) as the judge"
)
PACKAGE = "verl.utils.reward_score"
REWARD = 1.0  # a pass: every test the reward counted passed


@cache
def _check_correctness():
    """prime_code/utils.py's check_correctness, imported as installed."""
    for package in ("verl", "verl.utils", PACKAGE):
        harness_source.package_without_init(DISTRIBUTION, package)
    return importlib.import_module(f"{PACKAGE}.prime_code.utils").check_correctness


def _compute_score(check_correctness):
    """prime_code.compute_score with ``check_correctness`` as its apps_check_correctness."""
    return harness_source.load_function(
        harness_source.installed_file(
            DISTRIBUTION, f"{PACKAGE.replace('.', '/')}/prime_code/__init__.py"
        ),
        "compute_score",
        {"json": json, "traceback": traceback, "apps_check_correctness": check_correctness},
    )


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    graded = []

    def record(in_outs, generation, timeout=10, debug=True):
        graded.append(generation)
        return [], [{}]  # no test: compute_score returns at once

    _compute_score(record)(model_output, {"inputs": [], "outputs": []}, continuous=True)
    return graded[0]


def judge_program(row, program, timeout):
    """(per-test results, metadata, passed) from verl's compute_score, continuous=True."""
    from livecodebench.benchmarks.code_generation import CodeGenerationProblem

    sample = CodeGenerationProblem(**row).get_evaluation_sample()
    checks = []

    def check_correctness(in_outs, generation, timeout=10, debug=True):
        results, metadata = _check_correctness()(in_outs, generation, timeout, debug)
        checks.append((list(results), [dict(entry) for entry in metadata]))
        return results, metadata

    reward, _ = _compute_score(check_correctness)(
        program, json.loads(sample["input_output"]), continuous=True
    )
    (full_results, full_metadata), *per_test = checks
    if per_test:
        results = [result for test_results, _ in per_test for result in test_results]
    else:
        results = full_results
    return results, (full_metadata or [{}])[0], reward == REWARD
