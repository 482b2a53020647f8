"""Chat messages to the compared prompt string (blank-line join, or the chat template): one
convention for the suite and adapters.

lcb_runner sends the generic style's questions as OpenAIChat messages ([system, user]) to API
models and renders the same messages with the tokenizer's chat template for local models
(LLaMa3 and the other chat LMStyles). So the prompt goldens of the generic style are those
messages either joined by a blank line (no template) or rendered with
``apply_chat_template(add_generation_prompt=True)`` (and ``enable_thinking`` where the case sets
it, as a server deployed with it would). An adapter that provides only ``format_lcb_messages``
is held to the generic prompt cases through this rendering; a harness's own adapter may call
:func:`render_messages` to do the same.
"""

from __future__ import annotations

from collections.abc import Sequence

# The only prompt style whose string is rendered from messages; the others (CodeQwen's,
# DeepSeek's, the base models' ...) are strings lcb_runner builds itself.
RENDERED_STYLE = "generic"


class NotMessages(TypeError):
    """What an adapter returned is not a list of role/content messages."""


def check_messages(messages: object) -> list[dict[str, str]]:
    """messages as a list of {"role", "content"} dicts, or NotMessages saying what is wrong."""
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise NotMessages(
            f"expected a list of role/content messages, got {type(messages).__name__}"
        )
    for position, message in enumerate(messages):
        if not isinstance(message, dict) or not {"role", "content"} <= message.keys():
            raise NotMessages(
                f"message {position} is not a dict with 'role' and 'content': {message!r:.120}"
            )
        if not isinstance(message["content"], str):
            raise NotMessages(
                f"message {position}'s content is {type(message['content']).__name__}, not str"
            )
    return list(messages)


def render_messages(
    messages: Sequence[dict[str, str]],
    tokenizer=None,
    chat_template: bool = False,
    enable_thinking: bool | None = None,
) -> str:
    """The prompt string of ``messages``: contents joined by a blank line, or rendered by
    ``tokenizer``'s chat template with the generation prompt."""
    messages = check_messages(messages)
    if not chat_template:
        return "\n\n".join(message["content"] for message in messages)
    if tokenizer is None:
        raise ValueError("chat_template=True needs a tokenizer")
    extra = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, **extra
    )
