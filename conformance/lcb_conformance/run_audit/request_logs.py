"""What each harness's files record of a run's request (file name, samples, config file beside
them), read as run_audit.request.RunRequest.

Where each format keeps it (verified against the installed harness code; docs/audit-request.md):

- lcb_runner: only ``--n`` and ``--temperature``, in the file name
  ``Scenario.<scenario>_<n>_<temperature>[_cot][_eval[_all]].json`` (path_utils,
  run_formats.lcb_runner_files): its command-line arguments, which its runner sends as the
  LMStyle's runner does, in every scenario (its runners build the request from the command
  line alone).
- lm-evaluation-harness 0.4.13: ``arguments.gen_args_0.arg_1`` of every sample, the task's
  generation kwargs as its model receives them (``until``, ``do_sample``, ``temperature``,
  ``max_gen_toks``, anything else the task or ``--gen_kwargs`` set, sent as is by its API
  models). Its models default an absent temperature to 0 and an absent ``max_gen_toks`` to
  their own ``max_gen_toks`` (256 unless ``model_args`` set it), and add the tokenizer's
  end-of-text string to the stop strings when they know it.
- lighteval 0.13.0: the details hold the task's ``doc.generation_size``, ``doc.stop_sequences``
  and ``doc.num_samples``; the model's ``generation_parameters`` are in its results file
  (``results/<model>/results_<date>.json``, ``config_general.model_config``). Its backends
  differ: litellm, vLLM and transformers send the task's generation size and stop sequences
  (the model's ``max_new_tokens`` first), its inference-providers client (a model config with
  ``org_to_bill``) sends only the model's generation parameters.
- evalscope 1.14.1: the reviews record no request; its ``configs/task_config.yaml``
  (``TaskConfig.dump_yaml``) holds ``generation_config`` as set, and its OpenAI-compatible
  client sends exactly the keys set there (``openai_completion_params``).
- OpenCompass 0.5.4: predictions record no request; the work dir's config dump
  (``configs/<time>_<pid>.py``, cli/main.py's ``cfg.dump``) holds the model (``max_out_len``,
  ``temperature``, ``generation_kwargs``, ``extra_body``) and the dataset's inferencer
  (``max_out_len``, ``stopping_criteria``). Its ``OpenAI`` model sends ``temperature`` 0.7
  when its config sets none (``OpenAI.generate``'s default; GenInferencer passes none). The
  dump is Python; it is parsed, never run.

n is not read here: it is counted in the run's samples (the audit sets it).
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from pathlib import Path

from lcb_conformance.run_audit.request import (
    MAX_TOKENS,
    NOT_RECORDED,
    NOT_SENT,
    REASONING_EFFORT,
    STOP,
    TEMPERATURE,
    THINKING,
    TOP_P,
    Mixed,
    RunRequest,
)
from lcb_conformance.run_formats import (
    evalscope,
    lcb_runner,
    lcb_runner_files,
    lighteval,
    lm_eval,
    opencompass,
)
from lcb_conformance.run_formats.samples import LogError

LCB_RUNNER, EVALSCOPE, OPENCOMPASS, LM_EVAL, LIGHTEVAL = (
    lcb_runner.NAME,
    evalscope.NAME,
    opencompass.NAME,
    lm_eval.NAME,
    lighteval.NAME,
)
SAMPLING = (TEMPERATURE, TOP_P, MAX_TOKENS, STOP, THINKING, REASONING_EFFORT)
# formats whose request is in a config file beside the samples (found, or --request-config)
CONFIG_FILES = {
    EVALSCOPE: "evalscope's configs/task_config.yaml",
    LIGHTEVAL: "lighteval's results/<model>/results_<date>.json",
    OPENCOMPASS: "OpenCompass's configs/<time>_<pid>.py",
}
OPENCOMPASS_OPENAI_TEMPERATURE = 0.7  # OpenAI.generate's default, opencompass/models/openai_api


def _unknown(source: str, why: str) -> RunRequest:
    return RunRequest(source, {}, {parameter: why for parameter in SAMPLING})


def _dict(value) -> dict:
    """A config member that should be a mapping; {} for anything else."""
    return value if isinstance(value, dict) else {}


def _or_not_sent(value):
    return NOT_SENT if value is None or value == [] else value


def _stop(value):
    """Stop strings as a list (lm-eval's until may be one string)."""
    return [value] if isinstance(value, str) else _or_not_sent(value)


def _merged(values: list) -> object:
    """One value, or Mixed when the samples record several."""
    distinct = []
    for value in values:
        if value not in distinct:
            distinct.append(value)
    return distinct[0] if len(distinct) == 1 else Mixed(tuple(distinct))


def _per_sample(per_sample: Counter) -> list[dict]:
    return [json.loads(text) for text in per_sample]


def default_config(fmt: str, run: Path) -> Path | None:
    """The run's config file where the format keeps it beside the samples, if it exists."""
    if fmt == EVALSCOPE and run.parent.parent.name == "reviews":
        # <work>/reviews/<model>/<file> -> <work>/configs/task_config.yaml
        candidates = [run.parents[2] / "configs" / "task_config.yaml"]
    elif fmt == OPENCOMPASS and run.parent.parent.name == "predictions":
        # <work>/predictions/<model>/<file> -> <work>/configs/<time>_<pid>.py, the newest
        candidates = sorted((run.parents[2] / "configs").glob("*.py"), reverse=True)
    elif fmt == LIGHTEVAL and "details" in run.parent.parts:
        # <out>/details/<model>/<date>/<file> -> <out>/results/<model>/results_<date>.json
        # (a model named org/name is two folders)
        details = next(folder for folder in run.parents if folder.name == "details")
        model = run.parent.parent.relative_to(details)
        candidates = [details.parent / "results" / model / f"results_{run.parent.name}.json"]
    else:
        return None
    return next((path for path in candidates if path.is_file()), None)


def read(fmt: str, run: Path, config: Path | None, per_sample: Counter) -> RunRequest:
    """The run's request as its files record it; LogError for a config file that cannot
    be read."""
    if fmt == LCB_RUNNER:
        return lcb_runner(run)
    if fmt == LM_EVAL:
        return lm_eval(per_sample)
    if fmt == LIGHTEVAL:
        return lighteval(per_sample, _mapping(config, "JSON") if config else None, config)
    if config is None:
        return _unknown(
            "the samples, no config file found",
            f"the samples record none; {CONFIG_FILES[fmt]} does: none found beside them "
            "(--request-config FILE)",
        )
    if fmt == EVALSCOPE:
        return evalscope(_mapping(config, "YAML"), config)
    return opencompass(opencompass_config(config), config, run)


def lcb_runner(run: Path) -> RunRequest:
    not_named = "lcb_runner's results name only n and temperature, in the file name"
    notes = {parameter: not_named for parameter in SAMPLING if parameter != TEMPERATURE}
    named = lcb_runner_files.parse(run.name)
    if named is None:
        notes[TEMPERATURE] = f"the file name is not lcb_runner's {lcb_runner_files.NAME_PATTERN}"
        return RunRequest("the results' file name", {}, notes, arguments=True)
    values = {TEMPERATURE: float(named.temperature)}
    return RunRequest(f"its file name ({run.name})", values, notes, arguments=True)


def lm_eval(per_sample: Counter) -> RunRequest:
    source = "the samples' arguments.gen_args_0.arg_1"
    recorded = [kwargs for kwargs in _per_sample(per_sample) if isinstance(kwargs, dict)]
    if not recorded:
        return _unknown(source, "the samples record no generation arguments (arg_1)")

    def each(kwargs: dict) -> dict:
        return {
            TEMPERATURE: kwargs.get("temperature", 0.0),
            TOP_P: _or_not_sent(kwargs.get("top_p")),
            # its API models take max_tokens first (_create_payload)
            MAX_TOKENS: kwargs.get("max_tokens", kwargs.get("max_gen_toks", NOT_RECORDED)),
            STOP: _stop(kwargs.get("until")),
            THINKING: _or_not_sent(kwargs.get("thinking")),
            REASONING_EFFORT: _or_not_sent(kwargs.get("reasoning_effort")),
        }

    values = [each(kwargs) for kwargs in recorded]
    notes = {}
    if any("temperature" not in kwargs for kwargs in recorded):
        notes[TEMPERATURE] = "not in the arguments: lm-eval's models default to 0"
    if any(value[MAX_TOKENS] is NOT_RECORDED for value in values):
        notes[MAX_TOKENS] = "not in the arguments: the model's max_gen_toks, 256 unless set"
    merged = {p: _merged([value[p] for value in values]) for p in SAMPLING}
    if isinstance(merged[MAX_TOKENS], Mixed) and NOT_RECORDED in merged[MAX_TOKENS].values:
        merged[MAX_TOKENS] = NOT_RECORDED
    return RunRequest(source, merged, notes)


def _mapping(path: Path, kind: str) -> dict:
    """A config file's top level, a mapping (kind: "JSON" or "YAML"); LogError if it is not."""
    if kind == "YAML":
        import yaml  # PyYAML, a dependency of transformers and huggingface_hub

        load, malformed = yaml.safe_load, yaml.YAMLError
    else:
        load, malformed = json.loads, json.JSONDecodeError
    try:
        data = load(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, malformed) as error:
        raise LogError(f"{path}: not a readable {kind} file ({error})") from None
    if not isinstance(data, dict):
        raise LogError(f"{path}: not a {kind} mapping")
    return data


def lighteval(per_sample: Counter, results: dict | None, path: Path | None) -> RunRequest:
    """The task's generation size and stop sequences (details), the model's generation
    parameters (results file), combined as lighteval's backends send them."""
    tasks = [task for task in _per_sample(per_sample) if isinstance(task, dict)]
    source = "the details' doc.generation_size and doc.stop_sequences"
    model = _dict(results).get("config_general")
    model = _dict(model).get("model_config") if results is not None else None
    if results is not None and not isinstance(model, dict):
        raise LogError(f"{path}: no config_general.model_config (lighteval's results file)")
    parameters = model.get("generation_parameters") if model else None
    if model is not None and not isinstance(parameters, dict):
        raise LogError(f"{path}: model_config has no generation_parameters")
    providers = model is not None and "org_to_bill" in model  # InferenceProvidersModelConfig
    values, notes = {}, {}
    if parameters is None:
        why = (
            f"the details record none; {CONFIG_FILES[LIGHTEVAL]} does: none found beside them "
            "(--request-config FILE)"
        )
        for parameter in (TEMPERATURE, TOP_P, THINKING, REASONING_EFFORT):
            values[parameter], notes[parameter] = NOT_RECORDED, why
    else:
        source += f", {path}'s model generation_parameters"
        values[TEMPERATURE] = _or_not_sent(parameters.get("temperature"))
        values[TOP_P] = _or_not_sent(parameters.get("top_p"))
        # lighteval's GenerationParameters have no thinking or reasoning parameter
        values[THINKING] = values[REASONING_EFFORT] = NOT_SENT
    size = _merged([task.get("generation_size") for task in tasks]) if tasks else None
    stops = _merged([_stop(task.get("stop_sequences")) for task in tasks]) if tasks else None
    if parameters and parameters.get("max_new_tokens"):
        values[MAX_TOKENS] = parameters["max_new_tokens"]
        notes[MAX_TOKENS] = "the model's max_new_tokens"
    elif providers:
        values[MAX_TOKENS] = NOT_SENT
        notes[MAX_TOKENS] = "lighteval's inference-providers client sends no generation_size"
    elif size is not None:
        values[MAX_TOKENS] = _or_not_sent(size)
        notes[MAX_TOKENS] = "the task's generation_size" + (
            "" if model else "; its inference-providers client sends none"
        )
    if providers:
        values[STOP] = _stop(parameters.get("stop_tokens"))
    elif stops is not None:
        values[STOP] = stops
    for parameter in (MAX_TOKENS, STOP):
        if parameter not in values:
            values[parameter], notes[parameter] = NOT_RECORDED, "not in the details"
    return RunRequest(source, values, notes)


def evalscope(config: dict, path: Path) -> RunRequest:
    """evalscope sends the generation_config keys that are set, and nothing else."""
    generation = config.get("generation_config")
    if not isinstance(generation, dict):
        raise LogError(f"{path}: no generation_config mapping (evalscope's task_config.yaml)")
    extra = _dict(generation.get("extra_body"))
    values = {
        TEMPERATURE: _or_not_sent(generation.get("temperature")),
        TOP_P: _or_not_sent(generation.get("top_p")),
        MAX_TOKENS: _or_not_sent(generation.get("max_tokens")),
        STOP: _stop(generation.get("stop_seqs")),
        THINKING: _or_not_sent(extra.get("thinking")),
        REASONING_EFFORT: _or_not_sent(generation.get("reasoning_effort")),
    }
    return RunRequest(f"{path}'s generation_config", values)


# -- OpenCompass's config dump ---------------------------------------------------------------


def _literal(node: ast.AST):
    """A config value: literals, lists, dicts and mmengine's ``dict(key=value)``; anything else
    (a call, a name) raises ValueError. The dump is never executed."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args or any(keyword.arg is None for keyword in node.keywords):
            raise ValueError("dict() with positional arguments")
        return {keyword.arg: _literal(keyword.value) for keyword in node.keywords}
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(element) for element in node.elts]
    return ast.literal_eval(node)


def opencompass_config(path: Path) -> dict:
    """The ``models`` and ``datasets`` of an OpenCompass config dump, parsed (never run)."""
    try:
        tree = ast.parse(path.read_text("utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError) as error:
        raise LogError(f"{path}: not a readable Python config ({error})") from None
    found = {}
    for statement in tree.body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id in ("models", "datasets"):
            try:
                found[target.id] = _literal(statement.value)
            except (ValueError, TypeError, SyntaxError) as error:
                line = statement.lineno
                raise LogError(f"{path}:{line}: {target.id} is not plain data ({error})") from None
    return found


def _flat(entries) -> list[dict]:
    """A config list flattened (OpenCompass configs nest dataset lists)."""
    if isinstance(entries, dict):
        return [entries]
    if isinstance(entries, list):
        return [entry for item in entries for entry in _flat(item)]
    return []


def opencompass(config: dict, path: Path, run: Path) -> RunRequest:
    """The request of the predictions' model (their folder name, the model's abbr) on their
    dataset (the file name, the dataset's abbr)."""
    model_abbr, dataset_abbr = run.parent.name, run.stem
    model = next((m for m in _flat(config.get("models")) if m.get("abbr") == model_abbr), None)
    dataset = next(
        (d for d in _flat(config.get("datasets")) if d.get("abbr") == dataset_abbr), None
    )
    if model is None or dataset is None:
        missing = f"model {model_abbr!r}" if model is None else f"dataset {dataset_abbr!r}"
        return _unknown(str(path), f"no {missing} in {path}")
    inferencer = _dict(_dict(dataset.get("infer_cfg")).get("inferencer"))
    generation = _dict(model.get("generation_kwargs"))
    extra = {**_dict(model.get("openai_extra_kwargs")), **_dict(model.get("extra_body"))}
    notes = {}
    temperature = model.get("temperature", generation.get("temperature"))
    if temperature is None and str(model.get("type", "")).endswith(".OpenAI"):
        temperature = OPENCOMPASS_OPENAI_TEMPERATURE
        notes[TEMPERATURE] = "OpenCompass's OpenAI model's default"
    max_tokens = inferencer.get("max_out_len", model.get("max_out_len"))
    if max_tokens is not None:
        notes[MAX_TOKENS] = (
            "the inferencer's max_out_len"
            if "max_out_len" in inferencer
            else "the model's max_out_len"
        )
    values = {
        TEMPERATURE: _or_not_sent(temperature),
        TOP_P: _or_not_sent(extra.get("top_p", generation.get("top_p"))),
        MAX_TOKENS: _or_not_sent(max_tokens),
        STOP: _stop(inferencer.get("stopping_criteria")),
        THINKING: _or_not_sent(extra.get("thinking")),
        REASONING_EFFORT: _or_not_sent(extra.get("reasoning_effort")),
    }
    source = f"{path}: model {model_abbr!r}, dataset {dataset_abbr!r}"
    return RunRequest(source, values, notes)


def config_file_error(fmt: str) -> str:
    """Why --request-config is refused for a format, or "" when it reads one."""
    if fmt in CONFIG_FILES:
        return ""
    return f"{fmt}'s request is in its samples or file name: it has no config file to read"
