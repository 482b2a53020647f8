"""OpenCompass's predictions and, beside them, its results' details (extracted_prediction,
correct per replica).

OpenCompass 0.5.4's predictions, ``predictions/<model>/<dataset>.json``
(GenInferencerOutputHandler): an object ``{"<idx>": {"origin_prompt", "prediction", "gold"}}``,
the dataset repeated ``n`` times (idx = replica * size + position); ``gold`` is the output
column, the question_id in livecodebench_gen. What was scored, and its verdict, are in
``results/<model>/<dataset>.json`` (BaseEvaluator.evaluate, ``dump_details``):
``details[position].extracted_prediction`` and ``.correct``, one per replica. API models
record ``origin_prompt`` as a list of ``{role: HUMAN|SYSTEM|BOT, prompt}``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.common import json_stream
from lcb_conformance.run_formats.samples import LogError, Logged, chat_messages, check_strings

NAME = "opencompass"
DESCRIBED = "OpenCompass's predictions (a JSON object of {origin_prompt, prediction, gold})"
# OpenCompass's roles for an API model's prompt, as chat roles
OPENCOMPASS_ROLES = {"HUMAN": "user", "SYSTEM": "system", "BOT": "assistant"}
NO_RESULTS = "no OpenCompass results file (results/<model>/<dataset>.json)"


def detect(peek) -> bool:
    return peek.opening == b"{" and {"origin_prompt", "prediction"} <= peek.first.keys()


def model(path: Path) -> str | None:
    """predictions/<model>/<dataset>.json: the folder names the model."""
    return path.parent.name if path.parent.parent.name == "predictions" else None


def opencompass_prompt(label: str, origin_prompt):
    """What an OpenCompass model was sent: a string, or an API model's PromptList as chat
    messages (HUMAN -> user, as its OpenAI model's _preprocess_messages does)."""
    if isinstance(origin_prompt, str):
        return origin_prompt
    messages = chat_messages(label, origin_prompt, "role", "prompt")
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


def opencompass_details(results: Path) -> list[tuple[list[str], list | None]]:
    """Per problem (in dataset order): the extracted code scored for each replica, and each
    replica's verdict (``correct``; None where the details lack it)."""
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
    found = []
    for number, detail in enumerate(details):
        extracted = detail.get("extracted_prediction") if isinstance(detail, dict) else None
        if isinstance(extracted, str):
            extracted = [extracted]
        if not isinstance(extracted, list) or not all(isinstance(e, str) for e in extracted):
            raise LogError(
                f"{results}: details[{number}] lacks extracted_prediction (a list of strings)"
            )
        correct = detail.get("correct")
        if not isinstance(correct, list) or len(correct) != len(extracted):
            correct = None
        found.append((extracted, correct))
    return found


def opencompass_scored(results: Path) -> list[list[str]]:
    """Per problem (in dataset order), the extracted code scored for each replica."""
    return [extracted for extracted, _ in opencompass_details(results)]


def samples(path: Path) -> Iterator[Logged]:
    """The run's samples, scored and judged by the results file of its work-dir layout."""
    return read(path, opencompass_results(path))


def read(path: Path, results: Path | None) -> Iterator[Logged]:
    """The predictions' samples, with what was scored and its verdict from ``results`` (None:
    no results file)."""
    details = opencompass_details(results) if results else None
    seen: Counter = Counter()
    order: dict[str, int] = {}  # question_id -> position among the problems (details order)
    for line, key, entry in json_stream.iter_object(path):
        label = f"{path}:{line}: prediction {key}"
        if not isinstance(entry, dict):
            raise LogError(f"{label} is {type(entry).__name__}, not an object")
        for name in ("origin_prompt", "prediction", "gold"):
            if name not in entry:
                raise LogError(f"{label} lacks {name!r}")
        check_strings(label, prediction=entry["prediction"], gold=entry["gold"])
        question_id = entry["gold"]
        position = order.setdefault(question_id, len(order))
        index = seen[question_id]
        seen[question_id] += 1
        code, unscored, passed = None, NO_RESULTS, None
        if details is not None:
            if position >= len(details) or index >= len(details[position][0]):
                raise LogError(
                    f"{label}: {question_id} sample {index} has no extracted_prediction in "
                    f"{results} (details of another run?)"
                )
            extracted, correct = details[position]
            code, unscored = extracted[index], ""
            passed = bool(correct[index]) if correct is not None else None
        yield Logged(
            f"{path}:{line}",
            index,
            opencompass_prompt(label, entry["origin_prompt"]),
            entry["prediction"],
            code,
            question_id=question_id,
            unscored=unscored,
            passed=passed,
            unjudged="" if passed is not None else f"{results or NO_RESULTS}: no 'correct'",
        )
