"""Other harnesses' logs of a finished LiveCodeBench run, read as samples for the audit.

Each reader streams one file (one record in memory at a time) and yields a ``Logged`` per
sample: what was sent (a string, or chat messages as ``{role, content}``), the raw output,
what was scored (None where the harness does not record it), and how the problem is named
(its question_id, or its position in the dataset the run read). Field names are the
harnesses' own (verified against their installed code):

- evalscope 1.14.1, ``reviews/<model>/live_code_bench_<subset>.jsonl``: ``messages`` (sent,
  then the answer), ``sample_score.score.prediction`` / ``.extracted_prediction``,
  ``sample_score.group_id`` (the problem's position), ``generation_index``.
- OpenCompass 0.5.4, ``predictions/<model>/<dataset>.json`` (GenInferencerOutputHandler):
  an object ``{"<idx>": {"origin_prompt", "prediction", "gold"}}``, the dataset repeated
  ``n`` times (idx = replica * size + position); ``gold`` is the output column, the
  question_id in livecodebench_gen. What was scored is in ``results/<model>/<dataset>.json``
  (BaseEvaluator.evaluate, ``dump_details``): ``details[position].extracted_prediction``,
  one per replica. API models record ``origin_prompt`` as a list of ``{role: HUMAN|SYSTEM|BOT,
  prompt}``.
- lm-evaluation-harness 0.4.13, ``samples_<task>_<date>.jsonl`` (EvaluationTracker
  .save_results_samples): ``doc`` (the dataset row), ``arguments.gen_args_0.arg_0`` (the
  prompt: a string, or for chat API models a JsonChatStr, i.e. ``["<json messages>"]``),
  ``resps[0]`` (the raw outputs, one per repeat), ``filtered_resps[0]`` (what the task's
  filter kept and its metric scored: a list, or one string after ``take_first``), ``filter``.
- lighteval 0.13.0, ``details_<task>_<date>.parquet`` (EvaluationTracker.save_details):
  ``doc.id`` (the problem's position), ``model_response.input`` (sent), ``model_response.text``
  (one per sample). lighteval's metric extracts and grades in one step and records only the
  score: what was scored is not in the log.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.suite import cases, json_stream

EVALSCOPE, OPENCOMPASS, LM_EVAL, LIGHTEVAL = "evalscope", "opencompass", "lm-eval", "lighteval"
# OpenCompass's roles for an API model's prompt, as chat roles
OPENCOMPASS_ROLES = {"HUMAN": "user", "SYSTEM": "system", "BOT": "assistant"}
LIGHTEVAL_COLUMNS = ("doc", "model_response")
# the leaves read: never doc.specific (the problem's hidden tests) nor the metrics
LIGHTEVAL_LEAVES = ["doc.id", "model_response.input", "model_response.text"]
# and, where the details have them, what the task asked of the model (run_audit.request_logs)
LIGHTEVAL_REQUEST = ("generation_size", "stop_sequences")
REBUILT = (
    "raw output rebuilt from evalscope's reasoning and text parts (it splits <think> off the "
    "server's answer; the whitespace around the tags is approximated)"
)
LIGHTEVAL_UNSCORED = (
    "lighteval's details do not record the extracted code (its metric extracts and grades "
    "in one step)"
)


class LogError(ValueError):
    """A log the audit cannot use; the message names file, line and sample."""


@dataclass
class Logged:
    """One sample of a log, as the audit checks it."""

    where: str  # "file:line" (or "file: row N" for parquet)
    index: int  # the sample's number within its problem
    sent: list[dict] | str | None  # None: the log does not record the prompt
    output: str
    scored: str | None  # None: the log does not record what was scored
    question_id: str | None = None
    position: tuple[str, int] | None = None  # (the log's name for it, position in the dataset)
    problem: dict | None = None  # the problem's fields, where the log carries the row
    notes: tuple[str, ...] = ()
    unscored: str = ""  # why ``scored`` is None
    # what the sample's record says of the request (lm-eval's generation arguments,
    # lighteval's task generation size and stops), as canonical JSON; read by request_logs
    request: str | None = None


def _strings(label: str, **values) -> None:
    for name, value in values.items():
        if not isinstance(value, str):
            raise LogError(f"{label}: {name} must be a string, not {type(value).__name__}")


def _messages(label: str, messages, role_key: str = "role", text_key: str = "content"):
    """[{role, content}] from a log's messages; LogError naming the sample if malformed."""
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get(text_key), str) for m in messages
    ):
        raise LogError(f"{label}: messages must be a list of {{{role_key}, {text_key}}}")
    return [{"role": m.get(role_key), "content": m[text_key]} for m in messages]


# -- evalscope ------------------------------------------------------------------------------


def evalscope_record(path: Path, line: int, record: dict):
    """(group_id, generation_index, messages sent, raw output, extracted, whether the raw
    output was rebuilt) of a reviews line."""
    label = f"{path}:{line}: sample {record.get('index', '(no index)')}"
    try:
        score = record["sample_score"]["score"]
        group, generation = (
            record["sample_score"]["group_id"],
            record["sample_score"]["generation_index"],
        )
        messages, output, scored = (
            record["messages"],
            score["prediction"],
            score["extracted_prediction"],
        )
    except (KeyError, TypeError) as error:
        raise LogError(f"{label} lacks {error}") from None
    if not isinstance(group, int) or not isinstance(generation, int):
        raise LogError(f"{label}: group_id and generation_index must be integers")
    if not isinstance(output, str) or not isinstance(scored, str):
        raise LogError(f"{label}: prediction and extracted_prediction must be strings")
    sent, rebuilt = [], False
    for message in messages if isinstance(messages, list) else [None]:
        if isinstance(message, dict) and message.get("role") == "assistant":
            # the conversation up to the model's answer is what was sent; the answer, as
            # the server returned it, is the raw output (prediction lacks the reasoning)
            output, rebuilt = raw_output(message.get("content"), output)
            break
        sent += _messages(label, [message])
    return group, generation, sent, output, scored, rebuilt


def raw_output(content, prediction: str) -> tuple[str, bool]:
    """(the model's answer as lcb_runner would have read it, whether it was rebuilt):
    evalscope keeps a <think> section as a separate reasoning part."""
    if isinstance(content, str):
        return content, False
    if not isinstance(content, list):
        return prediction, False
    parts, rebuilt = [], False
    for part in content:
        if isinstance(part, dict) and part.get("type") == "reasoning":
            parts.append(f"<think>\n{part.get('reasoning') or ''}\n</think>\n\n")
            rebuilt = True
        elif isinstance(part, dict) and part.get("type") == "text":
            parts.append(part.get("text") or "")
    return "".join(parts), rebuilt


def read_evalscope(path: Path) -> Iterator[Logged]:
    for line, record in cases.iter_jsonl(path, LogError):
        group, generation, sent, output, scored, rebuilt = evalscope_record(path, line, record)
        yield Logged(
            f"{path}:{line}",
            generation,
            sent,
            output,
            scored,
            position=("group_id", group),
            notes=(REBUILT,) if rebuilt else (),
        )


# -- OpenCompass ----------------------------------------------------------------------------


def opencompass_prompt(label: str, origin_prompt):
    """What an OpenCompass model was sent: a string, or an API model's PromptList as chat
    messages (HUMAN -> user, as its OpenAI model's _preprocess_messages does)."""
    if isinstance(origin_prompt, str):
        return origin_prompt
    messages = _messages(label, origin_prompt, "role", "prompt")
    for message in messages:
        message["role"] = OPENCOMPASS_ROLES.get(message["role"], message["role"])
    return messages


def opencompass_results(predictions: Path) -> Path | None:
    """OpenCompass's results file for a predictions file (its work-dir layout:
    ``<run>/predictions/<model>/<dataset>.json`` -> ``<run>/results/<model>/<dataset>.json``)."""
    if predictions.parent.parent.name != "predictions":
        return None
    candidate = predictions.parent.parent.parent / "results" / predictions.parent.name
    candidate = candidate / predictions.name
    return candidate if candidate.is_file() else None


def opencompass_scored(results: Path) -> list[list[str]]:
    """Per problem (in dataset order), the extracted code scored for each replica."""
    try:
        members = {key: value for _, key, value in json_stream.iter_object(results)}
    except json_stream.JsonStreamError as error:
        raise LogError(str(error)) from None
    details = members.get("details")
    if not isinstance(details, list):
        raise LogError(
            f"{results}: no 'details' list (OpenCompass writes it with eval.runner.task."
            "dump_details=True)"
        )
    scored = []
    for number, detail in enumerate(details):
        extracted = detail.get("extracted_prediction") if isinstance(detail, dict) else None
        if isinstance(extracted, str):
            extracted = [extracted]
        if not isinstance(extracted, list) or not all(isinstance(e, str) for e in extracted):
            raise LogError(
                f"{results}: details[{number}] lacks extracted_prediction (a list of strings)"
            )
        scored.append(extracted)
    return scored


def read_opencompass(path: Path, results: Path | None) -> Iterator[Logged]:
    scored = opencompass_scored(results) if results else None
    seen: Counter = Counter()
    order: dict[str, int] = {}  # question_id -> position among the problems (details order)
    for line, key, entry in json_stream.iter_object(path):
        label = f"{path}:{line}: prediction {key}"
        if not isinstance(entry, dict):
            raise LogError(f"{label} is {type(entry).__name__}, not an object")
        for name in ("origin_prompt", "prediction", "gold"):
            if name not in entry:
                raise LogError(f"{label} lacks {name!r}")
        _strings(label, prediction=entry["prediction"], gold=entry["gold"])
        question_id = entry["gold"]
        position = order.setdefault(question_id, len(order))
        index = seen[question_id]
        seen[question_id] += 1
        if scored is None:
            code, unscored = None, "no OpenCompass results file (results/<model>/<dataset>.json)"
        elif position >= len(scored) or index >= len(scored[position]):
            raise LogError(
                f"{label}: {question_id} sample {index} has no extracted_prediction in "
                f"{results} (details of another run?)"
            )
        else:
            code, unscored = scored[position][index], ""
        yield Logged(
            f"{path}:{line}",
            index,
            opencompass_prompt(label, entry["origin_prompt"]),
            entry["prediction"],
            code,
            question_id=question_id,
            unscored=unscored,
        )


# -- lm-evaluation-harness ------------------------------------------------------------------


def lm_eval_prompt(label: str, argument):
    """arguments.gen_args_0.arg_0: a prompt string, or a chat API model's JsonChatStr (a
    one-element list once JSON-encoded) holding json.dumps(messages)."""
    if isinstance(argument, list) and len(argument) == 1:
        argument = argument[0]
    if not isinstance(argument, str):
        raise LogError(f"{label}: arguments.gen_args_0.arg_0 is not a prompt string")
    if argument.startswith("[{"):
        try:
            return _messages(label, json.loads(argument))
        except json.JSONDecodeError:
            pass  # a prompt that happens to start like JSON
    return argument


def read_lm_eval(path: Path) -> Iterator[Logged]:
    for line, record in cases.iter_jsonl(path, LogError):
        label = f"{path}:{line}: doc {record.get('doc_id', '(no doc_id)')}"
        try:
            doc = record["doc"]
            argument = record["arguments"]["gen_args_0"]["arg_0"]
            outputs, filtered = record["resps"][0], record["filtered_resps"][0]
        except (KeyError, TypeError, IndexError) as error:
            raise LogError(f"{label} lacks {error}") from None
        if not isinstance(doc, dict):
            raise LogError(f"{label}: doc is not an object")
        if isinstance(outputs, str):
            outputs = [outputs]
        if not isinstance(outputs, list):
            raise LogError(f"{label}: resps[0] must be a list of outputs")
        if isinstance(filtered, str):  # take_first: only the first output was scored
            filtered = [filtered]
        if not isinstance(filtered, list) or len(filtered) > len(outputs):
            raise LogError(f"{label}: filtered_resps[0] must hold at most one entry per output")
        sent = lm_eval_prompt(label, argument)
        question_id = doc.get("question_id")
        generation = record["arguments"]["gen_args_0"].get("arg_1")
        request = json.dumps(generation, sort_keys=True) if generation is not None else None
        for index, output in enumerate(outputs):
            scored = filtered[index] if index < len(filtered) else None
            _strings(f"{label} sample {index}", resps=output)
            if scored is not None:
                _strings(f"{label} sample {index}", filtered_resps=scored)
            yield Logged(
                f"{path}:{line}",
                index,
                sent,
                output,
                scored,
                question_id=question_id if isinstance(question_id, str) else None,
                position=("doc_id", record.get("doc_id")),
                problem=doc,
                notes=(f"filter {record.get('filter')}",) if record.get("filter") else (),
                unscored="the task's filter kept the first output only",
                request=request,
            )


# -- lighteval ------------------------------------------------------------------------------


def _parquet(path: Path):
    """pyarrow.parquet (a dependency of ``datasets``, so of the upstream extra)."""
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise LogError(f"{path}: reading parquet (lighteval's details) needs pyarrow") from None
    return parquet


def lighteval_columns(path: Path) -> set[str]:
    """The top-level columns of a parquet file; LogError if it is not one."""
    parquet = _parquet(path)
    try:
        return set(parquet.ParquetFile(path).schema_arrow.names)
    except Exception as error:  # pyarrow's errors: not parquet, truncated footer, ...
        raise LogError(f"{path}: not a readable parquet file ({error})") from None


def read_lighteval(path: Path) -> Iterator[Logged]:
    parquet = _parquet(path)
    import pyarrow

    missing = set(LIGHTEVAL_COLUMNS) - lighteval_columns(path)
    if missing:
        raise LogError(f"{path}: no {', '.join(sorted(missing))} column (lighteval's details)")
    number = 0
    try:
        details = parquet.ParquetFile(path)
        doc = details.schema_arrow.field("doc").type
        asked = [name for name in LIGHTEVAL_REQUEST if pyarrow.types.is_struct(doc)]
        asked = [name for name in asked if doc.get_field_index(name) >= 0]
        leaves = LIGHTEVAL_LEAVES + [f"doc.{name}" for name in asked]
        for batch in details.iter_batches(batch_size=16, columns=leaves):
            for row in batch.to_pylist():
                label = f"{path}: row {number}"
                try:
                    position = int(row["doc"]["id"])
                    task = {name: row["doc"][name] for name in asked}
                    sent, texts = row["model_response"]["input"], row["model_response"]["text"]
                except (KeyError, TypeError, ValueError) as error:
                    raise LogError(f"{label} lacks doc.id or model_response ({error})") from None
                if not isinstance(sent, str):
                    sent = _messages(label, sent)
                if not isinstance(texts, list):
                    raise LogError(f"{label}: model_response.text must be a list")
                for index, text in enumerate(texts):
                    _strings(f"{label} sample {index}", text=text)
                    yield Logged(
                        f"{path}: row {number}",
                        index,
                        sent,
                        text,
                        None,
                        position=("doc.id", position),
                        unscored=LIGHTEVAL_UNSCORED,
                        request=json.dumps(task, sort_keys=True) if asked else None,
                    )
                number += 1
    except (OSError, pyarrow.ArrowException) as error:  # a corrupt page, a missing leaf
        raise LogError(f"{path}: row {number}: unreadable ({error})") from None
