"""lm-evaluation-harness's samples (doc, prompt, resps, filtered_resps, its metric per document).

lm-evaluation-harness 0.4.13's samples, ``samples_<task>_<date>.jsonl``
(EvaluationTracker.save_results_samples): ``doc`` (the dataset row), ``arguments.gen_args_0
.arg_0`` (the prompt: a string, or for chat API models a JsonChatStr, i.e. ``["<json
messages>"]``), ``resps[0]`` (the raw outputs, one per repeat), ``filtered_resps[0]`` (what the
task's filter kept and its metric scored: a list, or one string after ``take_first``),
``filter``, and per document the value of each metric named in ``metrics`` (no verdict per
sample: lm-eval has no LiveCodeBench task of its own, a task's metric is whatever it says)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats.samples import LogError, Logged, chat_messages, check_strings
from lcb_conformance.suite import cases

NAME = "lm-eval"
DESCRIBED = "lm-eval's samples (JSON lines with doc, arguments and resps)"
NO_VERDICT = "lm-eval records its task's metrics per document, not a verdict per sample"


def detect(peek) -> bool:
    return peek.suffix == ".jsonl" and {"doc", "arguments", "resps", "filtered_resps"} <= (
        peek.first.keys()
    )


def model(path: Path) -> str | None:
    return None  # lm-eval's output folder is named by the user, not by the model


def lm_eval_prompt(label: str, argument):
    """arguments.gen_args_0.arg_0: a prompt string, or a chat API model's JsonChatStr (a
    one-element list once JSON-encoded) holding json.dumps(messages)."""
    if isinstance(argument, list) and len(argument) == 1:
        argument = argument[0]
    if not isinstance(argument, str):
        raise LogError(f"{label}: arguments.gen_args_0.arg_0 is not a prompt string")
    if argument.startswith("[{"):
        try:
            return chat_messages(label, json.loads(argument))
        except json.JSONDecodeError:
            pass  # a prompt that happens to start like JSON
    return argument


def problem_score(record: dict) -> tuple[str, float] | None:
    """The document's value of the task's first metric, as (name, value)."""
    names = record.get("metrics")
    if not isinstance(names, list) or not names or not isinstance(names[0], str):
        return None
    value = record.get(names[0])
    return (names[0], float(value)) if isinstance(value, int | float) else None


def samples(path: Path) -> Iterator[Logged]:
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
        score = problem_score(record)
        for index, output in enumerate(outputs):
            scored = filtered[index] if index < len(filtered) else None
            check_strings(f"{label} sample {index}", resps=output)
            if scored is not None:
                check_strings(f"{label} sample {index}", filtered_resps=scored)
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
                unjudged=NO_VERDICT,
                problem_score=score,
            )
