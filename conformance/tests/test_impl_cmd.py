"""--impl-cmd: an implementation in another process (lcb_conformance.adapters.process). The
program is untrusted: a crash, a hang, garbage or a memory hog fails the call with a message
saying so, within the time limit, and the next call starts it afresh; whatever it started
is gone when it is stopped."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

import escapes
import interpreters
import pytest

import lcb_prompts
from lcb_conformance.adapters import jsonl_server, process
from lcb_conformance.adapters.implementation import NotProvided
from lcb_conformance.common import paths
from lcb_conformance.suite import cases

# The generic server, serving the reference as its adapter.
SERVED_LCB_PROMPTS = f"{shlex.quote(sys.executable)} {shlex.quote(jsonl_server.PATH)} lcb_prompts"

# A program whose behaviour per request is chosen by the model output it is given.
SCRIPTED = r'''
import json, os, sys, time
for line in sys.stdin:
    request = json.loads(line)
    if request["function"] == "describe":
        result = {"provides": ["extract_code"], "styles": ["generic"], "deviations": ["think"],
                  "cwd": os.getcwd()}
        print(json.dumps({"id": request["id"], "result": result}), flush=True)
        continue
    output = request["args"]["model_output"]
    if output == "crash":
        print("about to crash", file=sys.stderr, flush=True)
        sys.exit(3)
    if output == "hang":
        time.sleep(3600)
    if output == "garbage":
        print("not json", flush=True)
        continue
    if output == "hog":
        try:
            hog = bytearray(2 * 1024 ** 3)
        except MemoryError:
            print(json.dumps({"id": request["id"], "error": {"type": "MemoryError",
                                                            "message": "2 GB"}}), flush=True)
            continue
    if output == "bad style":
        print(json.dumps({"id": request["id"], "error": {"type": "ValueError",
                                                        "message": "unknown style"}}), flush=True)
        continue
    print(json.dumps({"id": request["id"], "result": output.upper()}), flush=True)
'''


@pytest.fixture
def scripted(tmp_path):
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED, "utf-8")
    served = process.load_command(f"{shlex.quote(sys.executable)} {script}", timeout=2)
    yield served
    served.module.close()


def test_a_program_is_an_implementation_with_its_styles_and_deviations(scripted):
    assert scripted.styles == ("generic",) and scripted.deviations == ("think",)
    assert scripted.describe()["provides"] == ["extract_code"]
    assert scripted.extract_code("abc") == "ABC"
    assert scripted.extract_code("abc", style="generic") == "ABC"
    with pytest.raises(NotProvided):
        scripted.format_lcb_prompt  # noqa: B018


def test_it_runs_in_a_temporary_directory(tmp_path):
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED, "utf-8")
    adapter = process.ProcessAdapter(f"{sys.executable} {script}")
    try:
        assert adapter.request("describe", {})["cwd"] == str(adapter.workdir)
        assert adapter.workdir != Path.cwd() and adapter.workdir.name.startswith("lcb-impl-cmd-")
    finally:
        adapter.remove()  # what exit does
    assert not adapter.workdir.exists()


def test_its_errors_are_raised_by_type(scripted):
    with pytest.raises(ValueError, match="unknown style"):
        scripted.extract_code("bad style")


def test_a_crash_fails_the_call_with_its_stderr_and_the_next_call_restarts_it(scripted):
    with pytest.raises(process.AdapterProcessError, match="exited with code 3.*about to crash"):
        scripted.extract_code("crash")
    assert scripted.extract_code("again") == "AGAIN"


def test_a_hang_is_killed_at_the_time_limit(scripted):
    started = time.monotonic()
    with pytest.raises(process.AdapterProcessError, match=r"no answer within 2 s \(killed\)"):
        scripted.extract_code("hang")
    assert time.monotonic() - started < 10
    assert scripted.extract_code("alive") == "ALIVE"


def test_garbage_is_a_protocol_error(scripted):
    with pytest.raises(process.AdapterProcessError, match="not JSON: b'not json'"):
        scripted.extract_code("garbage")


def test_memory_is_limited(tmp_path):
    script = tmp_path / "scripted.py"
    script.write_text(SCRIPTED, "utf-8")
    served = process.load_command(f"{sys.executable} {script}", memory_mb=512)
    try:
        with pytest.raises(MemoryError, match="2 GB"):
            served.extract_code("hog")
    finally:
        served.module.close()


def test_a_command_that_cannot_start_is_an_import_error():
    with pytest.raises(ImportError, match="cannot start /no/such/program"):
        process.load_command("/no/such/program --serve")


def test_arguments_cross_as_json_and_a_tokenizer_by_repo_id():
    class Tokenizer:
        name_or_path = "Qwen/Qwen3-8B"

    assert process.encode({"row": {"a": (1, b"\xff")}, "t": Tokenizer()}) == {
        "row": {"a": [1, {"$bytes": "ff"}]},
        "t": "Qwen/Qwen3-8B",
    }
    assert process.encode(object.__new__(object))["$object"].startswith("<object object")


def test_the_generic_server_serves_lcb_prompts():
    served = process.load_command(SERVED_LCB_PROMPTS)
    try:
        output = cases.outputs()["two_blocks_last_wins"].output
        assert served.extract_code(output) == lcb_prompts.extract_code(output)
        assert served.decode_context([b"\xe2\x82", b"\xac"]) == "€"
        assert served.deviations == ("think",)
        with pytest.raises(TypeError):
            served.decode_context(object())
    finally:
        served.module.close()


def test_the_documented_schema_describes_what_crosses(tmp_path, monkeypatch):
    """Every line the suite writes and the generic server answers is valid against
    docs/adapter-protocol.schema.json."""
    import json

    import jsonschema

    schema = json.loads(paths.ADAPTER_PROTOCOL_SCHEMA.read_text())
    validator = jsonschema.Draft202012Validator(schema)
    served = process.load_command(SERVED_LCB_PROMPTS)
    adapter = served.module
    lines: list[dict] = []
    original = adapter.request

    def recording(function, args):
        lines.append({"id": adapter._next_id + 1, "function": function, "args": args})
        result = original(function, args)
        lines.append({"id": adapter._next_id, "result": result})
        return result

    monkeypatch.setattr(adapter, "request", recording)
    try:
        served.extract_code("```\nx\n```", style="codeqwen")
        served.decode_context([b"a", 98, "c"])
        served.format_lcb_messages(next(iter(cases.problems().values())), style="claude3")
    finally:
        served.module.close()
    assert len(lines) == 6
    for line in lines:
        validator.validate(line)
    with pytest.raises(jsonschema.ValidationError):
        validator.validate({"id": 1, "function": "rm -rf", "args": {}})


# ---- the generic server, in an environment of its own -------------------------------------

# An adapter as a harness's own environment holds it: it prints to stdout and reads stdin, as
# harnesses do, which must not disturb the protocol.
TINY_ADAPTER = """
import sys


class Adapter:
    STYLES = ("generic",)
    DEVIATIONS = ("think",)

    @staticmethod
    def extract_code(model_output, style="generic"):
        print("harness chatter on stdout", flush=True)
        assert sys.stdin.read() == "", "the protocol's requests reached the adapter"
        if style != "generic":
            raise ValueError("unknown style " + repr(style))
        return model_output.upper()

    @staticmethod
    def extract_code_prefix(model_output, style="generic"):
        return {1, 2}  # not JSON

    @staticmethod
    def decode_context(context):
        if not isinstance(context, list):
            raise TypeError("context must be a list, got " + repr(context))
        return b"".join(context).decode()


adapter = Adapter()
"""


def test_the_generic_server_runs_under_python_3_8_without_lcb_conformance(tmp_path):
    python38 = interpreters.python("3.8")
    assert not interpreters.imports(python38, "lcb_conformance")
    (tmp_path / "tiny_adapter.py").write_text(TINY_ADAPTER, "utf-8")
    served = process.load_command(
        f"{python38} {jsonl_server.PATH} tiny_adapter:adapter --path {tmp_path}"
    )
    try:
        assert served.describe()["provides"] == [
            "extract_code", "extract_code_prefix", "decode_context"
        ]
        assert (served.styles, served.deviations) == (("generic",), ("think",))
        assert served.extract_code("abc") == "ABC"
        with pytest.raises(ValueError, match="unknown style 'no-such-style'"):
            served.extract_code("abc", "no-such-style")
        assert served.decode_context([b"\xe2\x82", b"\xac"]) == "\u20ac"
        with pytest.raises(TypeError, match="got <object object at"):
            served.decode_context(object())
        with pytest.raises(process.RemoteError, match="ResultNotJSON: extract_code_prefix"):
            served.extract_code_prefix("abc")
        with pytest.raises(NotProvided):
            served.format_lcb_prompt  # noqa: B018
    finally:
        served.module.close()


def test_the_generic_server_says_where_it_is():
    # tests the console's contract: --where prints the server's path, for a command line
    shown = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.adapters.jsonl_server", "--where"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert shown.stdout.strip() == jsonl_server.PATH
    assert Path(jsonl_server.PATH).is_file()


def test_an_adapter_the_server_cannot_load_is_named(tmp_path):
    with pytest.raises(ImportError, match="cannot load no_such_adapter_module with .*"
                       "ModuleNotFoundError"):  # fmt: skip
        process.load_command(f"{sys.executable} {jsonl_server.PATH} no_such_adapter_module")


@pytest.mark.parametrize(
    ("given", "said"),
    [(["lcb_prompts", "--bogus"], "unrecognized arguments: --bogus"),
     ([], "name the adapter: MODULE[:ATTR]")],
)  # fmt: skip
def test_a_usage_error_of_the_server_is_one_line_naming_it(given, said):
    refused = subprocess.run(
        [sys.executable, jsonl_server.PATH, *given], capture_output=True, text=True, check=False
    )
    assert refused.returncode == jsonl_server.EXIT_CANNOT_LOAD
    assert (refused.stdout, refused.stderr) == ("", f"jsonl_server.py: error: {said}\n")


def test_the_suite_quotes_the_servers_usage_error_without_its_usage_block():
    with pytest.raises(ImportError) as refused:
        process.load_command(f"{sys.executable} {jsonl_server.PATH} lcb_prompts --bogus")
    # the whole of the server's stderr is its one line
    said = "'jsonl_server.py: error: unrecognized arguments: --bogus\\n'"
    assert str(refused.value).endswith(f"; its stderr ends: {said}"), refused.value


# ---- nothing the program starts outlives it -------------------------------------------------

# Runs the program it is sent as model_output; "crash" as the style exits after it.
ESCAPING = r'''
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["function"] == "describe":
        print(json.dumps({"id": request["id"], "result": {"provides": ["extract_code"]}}),
              flush=True)
        continue
    exec(request["args"]["model_output"], {"__name__": "escape"})
    if request["args"].get("style") == "crash":
        sys.exit(3)
    print(json.dumps({"id": request["id"], "result": "up"}), flush=True)
'''


marker = escapes.marker  # its fixture, here too


@pytest.fixture
def escaping(tmp_path, marker):
    script = tmp_path / "escaping.py"
    script.write_text(ESCAPING, "utf-8")
    served = process.load_command(f"{sys.executable} {script}", timeout=60)
    yield served
    served.module.close()


@pytest.mark.parametrize("escape", sorted(escapes.ESCAPES))
def test_nothing_an_adapter_program_started_outlives_it(escape, escaping, marker, tmp_path):
    """Its processes in another session, daemonised, grandchildren, forking on, ignoring
    SIGTERM: all gone when the suite stops the program."""
    # answered after the program's wait_until_up: they were up
    assert escaping.extract_code(escapes.program(escapes.ESCAPES[escape], marker)) == "up"
    escaping.module.close()
    assert escapes.survivors(marker) == []


def test_what_a_crashed_program_started_is_gone_when_the_crash_is_reported(
    escaping, marker, tmp_path
):
    program = escapes.program(escapes.ESCAPES["double-fork"], marker)
    with pytest.raises(process.AdapterProcessError, match="exited with code 3"):
        escaping.extract_code(program, "crash")
    assert escapes.survivors(marker) == []


def test_messages_served_over_impl_cmd_are_rendered_with_the_loaded_tokenizer(tmp_path):
    """An --impl-cmd adapter with format_lcb_messages only (SkyThought's): the suite renders
    its messages through the family's chat template, so it loads the tokenizer itself (the
    program is sent no repo id to render with)."""
    from lcb_conformance.runner import results
    from lcb_conformance.runner.run import Runner
    from lcb_conformance.suite import index

    (tmp_path / "messages_only.py").write_text(
        "import lcb_prompts\n"
        'STYLES = ("generic",)\n'
        'def format_lcb_messages(row, style="generic"):\n'
        "    return lcb_prompts.format_lcb_messages(row, style=style)\n",
        "utf-8",
    )
    served = process.load_command(
        f"{shlex.quote(sys.executable)} {shlex.quote(jsonl_server.PATH)} messages_only "
        f"--path {tmp_path}"
    )
    try:
        case = next(c for c in index.held_cases("chat-prompt") if c["cell"][0] == "generic")
        found = Runner(served).golden(case)
    finally:
        served.module.close()
    assert found.status == results.IDENTICAL, (case["id"], found.reason)


def test_a_served_judge_may_give_its_own_pass_verdict(tmp_path):
    """Over --impl-cmd too, judge_program's (results, metadata, passed) keeps the harness's
    verdict (SkyThought fails the empty result list lcb_runner's rule would pass)."""
    from lcb_conformance.upstream import judge

    (tmp_path / "own_verdict.py").write_text(
        "def judge_program(row, program, timeout):\n    return [], {}, False\n", "utf-8"
    )
    command = (
        f"{shlex.quote(sys.executable)} {shlex.quote(jsonl_server.PATH)} own_verdict "
        f"--path {tmp_path}"
    )
    case = judge.judge_cases()["empty_tests_stdin"]
    outcomes = judge.run_served(command, [case])
    assert outcomes == {case.id: {"verdict": {"metadata": {}, "passed": False, "results": []}}}
