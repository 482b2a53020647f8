"""lcb_runner's runner classes run against recording fake clients, in a child process: the
requests they send.

For each (LMStyle, command line) lcb_runner's own code does what ``runner/main.py`` does with
one problem: ``parser.get_args()`` on the command line, the first model of its
``LanguageModelList`` with that LMStyle, ``runner_utils.build_runner(args, model)``, then
``runner.run_main([problem], format_prompt_generation)``. Every API client module it imports
(openai, anthropic, google.genai, mistralai, cohere, together, vllm; torch, which its parser
asks for the GPU count; pebble, its process pool, unused with one process) is replaced by a
recording fake that answers as the real service would (as many completions as the request
asks for: ``n``, ``candidate_count``, vLLM's ``SamplingParams.n``, else one). Nothing reaches
the network and no API key is set; what upstream then does (a KeyError for a key it reads with
``os.environ[...]``, its own assertion that a request returned n outputs) is part of the record.

The recording runs in one child process per upstream (the fakes must not leak into the suite's
process): ``python -m lcb_conformance.upstream.runner_requests`` reads the cases on stdin and
writes the records on stdout. The installed stand-in (nvidia-livecodebench) is not lcb_runner's
runner package (its parser lacks --openai_timeout and --local_model_path, its runners take other
arguments): requests are recorded from a LiveCodeBench checkout only.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import io
import json
import os
import subprocess
import sys
import types

from lcb_conformance.common import exit_codes
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.upstream.source import Upstream, UpstreamMissing

# The client modules the runners import, faked; torch reports this many GPUs.
FAKED_MODULES = (
    "openai",
    "anthropic",
    "google",
    "google.genai",
    "google.genai.types",
    "mistralai",
    "mistralai.client",
    "cohere",
    "together",
    "vllm",
    "torch",
    "pebble",  # utils/multiprocess's process pool (base_runner imports it; n/a with one process)
)
GPUS = 1
# Keys the runners read from the environment: unset in the child.
API_KEYS = (
    "OPENAI_KEY",
    "ANTHROPIC_KEY",
    "GOOGLE_API_KEY",
    "VERTEX_GEMINI_PROJECT",
    "VERTEX_GEMINI_LOCATION",
    "MISTRAL_API_KEY",
    "COHERE_API_KEY",
    "DEEPSEEK_API",
    "GROK_API_KEY",
    "TOGETHER_API_KEY",
    "FIREWORKS_API",
)
ANSWER = "```python\nprint(1)\n```"
MISSING = "missing"  # a record's key: this upstream cannot make the request at all
TIMEOUT = 600


# --- the child: fakes and the recording -------------------------------------------------------


class Recording:
    """Every call made on a fake, in order."""

    calls: list[dict] = []


class Fake:
    """A fake client module, class or object. A class called makes an instance that remembers
    its arguments; a method called is recorded and answers."""

    def __init__(self, path: str, args=(), kwargs=None):
        self._path, self._args, self._kwargs = path, tuple(args), dict(kwargs or {})

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return Fake(f"{self._path}.{name}")

    def __call__(self, *args, **kwargs):
        name = self._path.rsplit(".", 1)[-1]
        if name[:1].isupper():  # a class (OpenAI, LLM, SamplingParams, ...): an instance
            return Fake(self._path, args, kwargs)
        Recording.calls.append({"call": self._path, "args": list(args), "kwargs": kwargs})
        if name == "generate":  # vLLM's LLM.generate: one RequestOutput per prompt
            sampling = args[1] if len(args) > 1 else kwargs["sampling_params"]
            count = sampling._kwargs.get("n", 1)
            return [_answer(outputs=[_answer(text=ANSWER)] * count) for _ in args[0]]
        return _reply(kwargs)

    def recorded(self) -> dict:
        return {self._path: {"args": list(self._args), "kwargs": self._kwargs}}


def _answer(**fields) -> types.SimpleNamespace:
    return types.SimpleNamespace(**fields)


def _reply(kwargs: dict):
    """A reply with as many completions as asked for, in every client's shape."""
    config = kwargs.get("config") or {}
    count = kwargs.get("n") or config.get("candidate_count") or 1
    text = _answer(text=ANSWER, type="text")
    return _answer(
        choices=[_answer(message=_answer(content=ANSWER))] * count,  # openai, together, mistral
        content=[text],  # anthropic messages
        completion=ANSWER,  # anthropic completions
        candidates=[_answer(content=_answer(parts=[text]))] * count,  # google.genai
        message=_answer(content=[text]),  # cohere v2
    )


def _fake_module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__path__ = []  # a package: its submodules import
    module.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    module.__getattr__ = lambda attribute: _fake_attribute(f"{name}.{attribute}")
    return module


def _fake_attribute(path: str):
    if path.rsplit(".", 1)[-1][0].isupper() and path.endswith(("Error", "Exception")):
        return type(path.rsplit(".", 1)[-1], (Exception,), {})
    if path == "google.genai.types.GenerateContentConfigDict":
        return dict  # a TypedDict: calling it makes a dict
    if path == "torch.cuda":
        return types.SimpleNamespace(device_count=lambda: GPUS, is_available=lambda: True)
    return Fake(path)


def install_fakes() -> None:
    for name in FAKED_MODULES:
        sys.modules[name] = _fake_module(name)
    for name in FAKED_MODULES:
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])


def _plain(value, prompt, marker: str):
    """JSON of a recorded value; the prompt (or a part of a (system, messages) prompt) as a
    marker naming it, so a request golden holds the request, not the prompt's text."""
    if value == prompt and type(value) is type(prompt):
        return marker
    if isinstance(prompt, tuple):
        for index, part in enumerate(prompt):
            if value == part and type(value) is type(part):
                return f"{marker}[{index}]"
    if isinstance(value, Fake):
        return _plain(value.recorded(), prompt, marker)
    if isinstance(value, dict):
        return {str(k): _plain(v, prompt, marker) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v, prompt, marker) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _grouped(calls: list[dict]) -> list[dict]:
    """Consecutive identical calls once, with how many times they were made."""
    grouped: list[dict] = []
    for call in calls:
        if grouped and {k: v for k, v in grouped[-1].items() if k != "times"} == call:
            grouped[-1]["times"] += 1
        else:
            grouped.append({**call, "times": 1})
    return grouped


def record(upstream: Upstream, lmstyle: str, argv: list[str], row: dict) -> dict:
    """What lcb_runner's runner does for this LMStyle and command line, on this problem."""
    parser = upstream.module("runner.parser")
    lm_styles = upstream.lm_styles()
    model = next(
        (m for m in lm_styles.LanguageModelList if m.model_style.name == lmstyle), None
    )
    if model is None:
        return {"lmstyle": lmstyle, "argv": argv, MISSING: f"lists no LMStyle.{lmstyle} model"}
    command = ["--model", model.model_name, *argv]
    found: dict = {"lmstyle": lmstyle, "model": model.model_name, "argv": command}
    problem = upstream.problem(row)
    prompts = upstream.module("prompts")
    try:
        prompt = prompts.format_prompt_generation(problem, model.model_style)
    except NotImplementedError as error:
        return {**found, MISSING: f"builds no prompt for LMStyle.{lmstyle} ({error})"}
    marker = f"<format_prompt_generation(problem, LMStyle.{lmstyle})>"
    Recording.calls.clear()
    saved = sys.argv
    sys.argv = ["lcb_runner.runner.main", *command]
    try:
        args = parser.get_args()
        runner_utils = upstream.module("runner.runner_utils")
        runner = runner_utils.build_runner(args, model)
        found["runner"] = type(runner).__name__
        # the clients it made (a class attribute, made at import) and how
        attributes = {**vars(type(runner)), **vars(runner)}
        found["clients"] = {
            name: _plain(value, prompt, marker)
            for name, value in sorted(attributes.items())
            if isinstance(value, Fake)
        }
        with contextlib.redirect_stderr(io.StringIO()):  # tqdm's progress bar
            outputs = runner.run_main([problem], prompts.format_prompt_generation)
        found["outputs"] = len(outputs[0])
    except Exception as error:  # noqa: BLE001 - upstream's own failure is the record
        found["raised"] = f"{type(error).__name__}: {error}"
    finally:
        sys.argv = saved
    found["calls"] = _plain(_grouped(Recording.calls), prompt, marker)
    return found


def child_main() -> int:
    """The child: the cases on stdin, the records on stdout (one JSON object)."""
    request = json.load(sys.stdin)
    hf_cache.activate_offline_cache()  # LLaMa3's prompt loads its tokenizer
    upstream = Upstream(request["source"])
    upstream.module("prompts")  # with the real anthropic (its HUMAN_PROMPT), before the fakes
    import transformers  # noqa: F401 - before the fake torch, which it would take as real

    install_fakes()
    records = {}
    answer = sys.stdout
    with contextlib.redirect_stdout(io.StringIO()):  # what lcb_runner prints is not the answer
        for lmstyle, variant, argv in request["cases"]:
            for name in request["environment"].get(variant, {}):
                os.environ.pop(name, None)
            os.environ.update(request["environment"].get(variant, {}))
            records[f"{variant}/{lmstyle}"] = record(upstream, lmstyle, argv, request["row"])
    json.dump(records, answer)
    return exit_codes.OK


# --- the parent ---------------------------------------------------------------------------


def record_all(
    upstream: Upstream,
    row: dict,
    cases: list[tuple[str, str, list[str]]],
    environment: dict[str, dict[str, str]],
) -> dict[str, dict]:
    """"variant/LMStyle" -> its record, for every (LMStyle, variant, argv), in one child;
    ``environment``: variables a variant sets."""
    if upstream.checkout is None:
        raise UpstreamMissing(
            f"{upstream.describe_source()} is not lcb_runner's runner package (another argument "
            "parser and runners): the request goldens are recorded from a LiveCodeBench checkout"
        )
    child_environment = {k: v for k, v in os.environ.items() if k not in API_KEYS}
    done = subprocess.run(
        [sys.executable, "-m", "lcb_conformance.upstream.runner_requests"],
        input=json.dumps(
            {"source": str(upstream.source), "row": row, "cases": cases, "environment": environment}
        ),
        capture_output=True,
        text=True,
        env=child_environment,
        timeout=TIMEOUT,
    )
    if done.returncode != 0:
        if "ModuleNotFoundError" in done.stderr and ".runner" in done.stderr:
            raise UpstreamMissing(f"{upstream.describe_source()}: {done.stderr.splitlines()[-1]}")
        raise RuntimeError(f"recording lcb_runner's requests failed: {done.stderr[-3000:]}")
    return json.loads(done.stdout)


if __name__ == "__main__":
    sys.exit(child_main())
