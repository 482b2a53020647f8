"""evalscope's reviews (messages, prediction, extracted_prediction, its score value per sample).

evalscope 1.14.1's reviews, ``reviews/<model>/live_code_bench_<subset>.jsonl``: ``messages``
(sent, then the answer), ``sample_score.score.prediction`` / ``.extracted_prediction``,
``sample_score.score.value`` (its verdict: ``{main_score_name: 1.0 | 0.0}``),
``sample_score.group_id`` (the problem's position), ``generation_index``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from lcb_conformance.run_formats.samples import LogError, Logged, chat_messages
from lcb_conformance.suite import cases

NAME = "evalscope"
DESCRIBED = "evalscope's reviews (JSON lines with messages and sample_score)"
REBUILT = (
    "raw output rebuilt from evalscope's reasoning and text parts (it splits <think> off the "
    "server's answer; the whitespace around the tags is approximated)"
)
NO_VERDICT = "evalscope's review records no score value for the sample"


def detect(peek) -> bool:
    return peek.suffix == ".jsonl" and {"sample_score", "messages"} <= peek.first.keys()


def model(path: Path) -> str | None:
    """reviews/<model>/<file>: the folder names the model."""
    return path.parent.name if path.parent.parent.name == "reviews" else None


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
        sent += chat_messages(label, [message])
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


def verdict(score: dict) -> bool | None:
    """evalscope's own verdict: its main score's value (1.0 passed, 0.0 failed)."""
    value = score.get("value") if isinstance(score, dict) else None
    main = score.get("main_score_name") if isinstance(score, dict) else None
    if not isinstance(value, dict) or main not in value:
        return None
    return value[main] == 1


def samples(path: Path) -> Iterator[Logged]:
    for line, record in cases.iter_jsonl(path, LogError):
        group, generation, sent, output, scored, rebuilt = evalscope_record(path, line, record)
        passed = verdict(record["sample_score"]["score"])
        yield Logged(
            f"{path}:{line}",
            generation,
            sent,
            output,
            scored,
            position=("group_id", group),
            notes=(REBUILT,) if rebuilt else (),
            passed=passed,
            unjudged="" if passed is not None else NO_VERDICT,
        )
