"""SkyThought's LiveCodeBench task (skythought/evals/tasks/livecodebench/), served from its own
Python through the generic server.

skythought 0.1.0 requires Python < 3.11 (and vllm 0.7.0, torch): ``tox -e peer-skythought``
installs it ``--no-deps`` with pyyaml (what the pieces below need) into a Python 3.10 virtual
environment and serves this adapter from there over ``--impl-cmd``
(lcb_conformance/adapters/jsonl_server.py;
``python -m lcb_conformance_dev.peers run --python``). Its task handler imports ``datasets``
and its util/common.py imports torch, so nothing of skythought is imported: each piece is its
installed code, loaded by lcb_conformance.adapters.harness_source
(stdlib only, put on the server's path from this checkout):

- prompt: the task's livecodebench.yaml ``templating_parameters`` (read with yaml, as
  ``TaskConfig.from_yaml`` reads them), ``LiveCodeBenchTaskHandler.generate_prompt`` and
  ``TaskHandler.make_conversations`` (base.py, with its ``make_conversation_from_contents``) on
  the problem livecodebench_util.py's ``map_to_example`` makes of the row. The system prompt,
  user template and assistant prefill are those ``ModelConfig.from_model_id`` gives a model
  not listed in models/model_configs.yaml: none (a listed model may have its own);
- extraction: ``LiveCodeBenchTaskHandler.update_results`` (util/common.py's ``has_code``, the
  last match, ``post_process_code``) with its ``check_correctness`` replaced by a recorder: the
  program it would grade, ``""`` when it grades none (no code: scored incorrect);
- judge: ``check_correctness`` (``unsafe_lcb_runTests``: one process running
  ``run_tests_for_one_example``) on that problem, the row's private tests decoded by the
  util's ``translate_private_test_cases`` as ``load_and_filter_dataset`` does, with
  ``is_extracted`` as update_results passes it and the suite's timeout in place of its 6.
  Results are its per-test pass flags; metadata its messages for the last test run; its own
  verdict is returned too (it fails an empty result list, where lcb_runner's rule passes).

SkyThought's prompt is its own (no "### Question"), so it is held to lcb_runner's generic
style: the one a harness without an LMStyle of its own is compared with.
"""

from __future__ import annotations

import copy
import re
from functools import cache
from types import SimpleNamespace

from peers._render import STYLE, check_style

PEER = "SkyThought"
DISTRIBUTION = "skythought"
PYTHON = "3.10"  # the newest Python its metadata allows (Requires-Python <3.11,>=3.9)
STYLES = (STYLE,)
FOLLOWS = (
    "generic: its livecodebench task's one user message (generate_prompt through "
    "make_conversations, no system prompt) in place of OpenAIChat's; the program its "
    "update_results grades in place of extract_code(..., LLaMa3); its check_correctness as "
    "the judge (served from Python 3.10 over --impl-cmd)"
)
TASK = "tasks/livecodebench"
INDEX = "0"  # the _index column TaskHandler.load_dataset adds (map_to_example copies it)


def _file(relative: str):
    from lcb_conformance.adapters import harness_source

    return harness_source.installed_file(DISTRIBUTION, f"skythought/evals/{relative}")


@cache
def _util():
    """livecodebench_util.py, whose imports are the standard library's."""
    from lcb_conformance.adapters import harness_source

    return harness_source.load_module_file(
        "peer_skythought_lcb_util", _file(f"{TASK}/livecodebench_util.py")
    )


class _Recorded(Exception):
    """Raised by the extraction's recorder: update_results has chosen its program."""


@cache
def _handler_class():
    """LiveCodeBenchTaskHandler's methods (and TaskHandler.make_conversations), compiled from
    the installed files with the names they use."""
    import yaml

    from lcb_conformance.adapters import harness_source

    util = _util()
    handler = _file(f"{TASK}/livecodebench_handler.py")
    base = _file("tasks/base.py")
    with _file(f"{TASK}/livecodebench.yaml").open(encoding="utf-8") as file:
        templating = yaml.safe_load(file)["templating_parameters"]
    namespace = {
        "copy": copy,
        "has_code": harness_source.load_function(_file("util/common.py"), "has_code", {"re": re}),
        "post_process_code": util.post_process_code,
        "make_conversation_from_contents": harness_source.load_function(
            base, "make_conversation_from_contents"
        ),
    }
    methods = {
        name: harness_source.load_function(handler, f"LiveCodeBenchTaskHandler.{name}", namespace)
        for name in ("generate_prompt", "update_results")
    }
    methods["make_conversations"] = harness_source.load_function(
        base, "TaskHandler.make_conversations", namespace
    )
    methods["task_config"] = SimpleNamespace(templating_parameters=templating)
    return type("LiveCodeBenchTaskHandler", (), methods)


def _problem(row, private_tests) -> dict:
    return _util().map_to_example(dict(row, _index=INDEX, private_test_cases=private_tests))


def format_lcb_messages(row, style=STYLE) -> list[dict[str, str]]:
    """The conversation make_conversations builds for this row (the private tests, which the
    prompt does not use, passed as the row has them)."""
    check_style(style, STYLES)
    problem = _problem(row, row["private_test_cases"])
    return _handler_class()().make_conversations(
        [problem], system_prompt=None, user_template=None, assistant_prefill=None
    )[0]


def extract_code(model_output, style=STYLE):
    check_style(style, STYLES)
    handler = _handler_class()()
    graded = []

    def record(problem, completion, timeout, runtime_debug=False, is_extracted=False):
        graded.append(completion)
        raise _Recorded

    handler.check_correctness = record
    try:
        handler.update_results({"is_stdin": True}, model_output)
    except _Recorded:
        return graded[0]
    return ""  # "Does not contain code component.": scored incorrect without running


def judge_program(row, program, timeout):
    """(per-test results, metadata, passed) from SkyThought's check_correctness."""
    util = _util()
    problem = _problem(row, util.translate_private_test_cases(row["private_test_cases"]))
    runs = []

    def run_tests(*arguments):
        runs.append(list(util.unsafe_lcb_runTests(*arguments)))
        return runs[-1]

    check_correctness = _check_correctness(run_tests)
    passed = check_correctness(
        _handler_class()(),
        problem=copy.deepcopy(problem),  # as update_results passes it
        completion=program,
        timeout=timeout,
        is_extracted=not problem["is_stdin"],
    )
    (results,) = runs
    # each result is (passed, message, output, seconds): the seconds are a timing
    metadata = {"error_message": results[-1][1]} if results else {}
    return [result[0] for result in results], metadata, bool(passed)


def _check_correctness(run_tests):
    """LiveCodeBenchTaskHandler.check_correctness with unsafe_lcb_runTests recorded."""
    from lcb_conformance.adapters import harness_source

    return harness_source.load_function(
        _file(f"{TASK}/livecodebench_handler.py"),
        "LiveCodeBenchTaskHandler.check_correctness",
        {"unsafe_lcb_runTests": run_tests},
    )
