"""What every reader of a finished run yields: one ``Logged`` per sample (what was sent, the
raw output, what the harness scored and its own verdict, how the problem is named), and the
one error every reader raises."""

from __future__ import annotations

from dataclasses import dataclass


class LogError(ValueError):
    """A log that cannot be read; the message names file, line and sample."""


@dataclass
class Logged:
    """One sample of a finished run."""

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
    passed: bool | None = None  # the harness's own verdict; None: the log does not record one
    unjudged: str = ""  # why ``passed`` is None
    # the harness's own score of the problem, where it records one per problem and not a
    # verdict per sample (lm-eval's metric, lighteval's metric column): (metric, value)
    problem_score: tuple[str, float] | None = None


def check_strings(label: str, **values) -> None:
    for name, value in values.items():
        if not isinstance(value, str):
            raise LogError(f"{label}: {name} must be a string, not {type(value).__name__}")


def chat_messages(label: str, messages, role_key: str = "role", text_key: str = "content"):
    """[{role, content}] from a log's messages; LogError naming the sample if malformed."""
    if not isinstance(messages, list) or not all(
        isinstance(m, dict) and isinstance(m.get(text_key), str) for m in messages
    ):
        raise LogError(f"{label}: messages must be a list of {{{role_key}, {text_key}}}")
    return [{"role": m.get(role_key), "content": m[text_key]} for m in messages]
