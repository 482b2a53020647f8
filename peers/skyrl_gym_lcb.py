"""skyrl-gym's LiveCodeBench environment (skyrl_gym/envs/lcb/: an extractor and a judge copied
from lcb_runner's testing_util.py and rllm).

``LCBEnv.step`` scores an answer with livecodebench.py's ``compute_score(action, tests)``: the
last fenced block by ``extract_code_from_model``, graded by ``lcb_check_correctness(tests,
code)``. skyrl-gym's package ``__init__`` imports its tools (requests, func_timeout, ...), so
``skyrl_gym`` and ``skyrl_gym.envs`` are made importable without their ``__init__``
(harness_source.package_without_init) and livecodebench.py, whose imports are the standard
library, is imported as installed. The programs it judges import numpy and pandas
(its BASE_IMPORTS), which the peer env installs.

- prompt: not provided (skyrl-gym formats none: skyrl-train's examples/livecodebench script
  builds the dataset's prompts).
- extraction: ``extract_code_from_model``; where it finds no block (None) the environment
  scores 0 without running anything: ``""``.
- judge: ``lcb_check_correctness(tests, program, timeout)`` (compiled from the installed file
  with the module's own functions, its ``multiprocessing.Manager`` kept readable after it
  returns, so that the results and metadata its process wrote can be read), the suite's
  timeout in place of its default 6. ``tests`` is the environment's ``ground_truth``: the row's
  public and private tests, each ``{input, output, testtype, metadata}`` as skyrl-train's
  lcb_dataset.py writes them, decoded by lcb_runner's ``CodeGenerationProblem`` (skyrl-gym has
  no decoder). Results and metadata: what its ``run_test`` returned (none when its process was
  killed); passed: its own verdict (``all(x is True ...)``).

Held to lcb_runner's generic style's extraction (OpenAIChat's); prompts are not provided.
"""

from __future__ import annotations

import importlib
import json
import multiprocessing
from functools import cache
from types import SimpleNamespace

from lcb_conformance.adapters import harness_source
from peers._render import STYLE, check_style

PEER = "skyrl-gym"
DISTRIBUTION = "skyrl-gym"
STYLES = (STYLE,)
FOLLOWS = (
    "generic: no prompt (skyrl-gym formats none); extract_code_from_model in place of "
    "extract_code(..., LLaMa3); lcb_check_correctness as the judge"
)
PACKAGE = "skyrl_gym.envs.lcb"


@cache
def _livecodebench():
    for package in ("skyrl_gym", "skyrl_gym.envs"):  # envs/lcb has no __init__
        harness_source.package_without_init(DISTRIBUTION, package)
    return importlib.import_module(f"{PACKAGE}.livecodebench")


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    code = _livecodebench().extract_code_from_model(model_output)
    return "" if code is None else code  # None: reward 0, nothing run


def ground_truth(row) -> list[dict]:
    """The row's tests as LCBEnv reads its reward_spec's ground_truth."""
    from livecodebench.benchmarks.code_generation import CodeGenerationProblem

    problem = CodeGenerationProblem(**row)
    return [
        {
            "input": test.input,
            "output": test.output,
            "testtype": test.testtype.value,
            "metadata": problem.metadata,
        }
        for test in problem.public_test_cases + problem.private_test_cases
    ]


def judge_program(row, program, timeout):
    """(per-test results, metadata, passed) from skyrl-gym's lcb_check_correctness."""
    module = _livecodebench()
    lists = []

    def manager():
        real = multiprocessing.Manager()

        def make_list():
            lists.append(real.list())  # the proxy keeps its manager alive
            return lists[-1]

        return SimpleNamespace(list=make_list)

    check = harness_source.load_function(
        harness_source.installed_file(
            DISTRIBUTION, f"{PACKAGE.replace('.', '/')}/livecodebench.py"
        ),
        "lcb_check_correctness",
        {
            "json": json,
            "multiprocessing": SimpleNamespace(Manager=manager, Process=multiprocessing.Process),
            "postprocess_lcb_sample": module.postprocess_lcb_sample,
            "run_test": module.run_test,
        },
    )
    passed = check(ground_truth(row), program, timeout=timeout, debug=False)
    result, metadata = (list(made) for made in lists)
    return (result[0] if result else []), (dict(metadata[0]) if metadata else {}), passed
