"""From the chat messages a peer sends to the prompt string the suite compares.

The suite's convention for the generic style (docs/upstream.md, "What is checked"): without a chat
template, lcb_runner's OpenAIChat messages are joined by a blank line; with one, they are
rendered by the tokenizer's chat template with add_generation_prompt=True. A peer that sends
messages to an OpenAI-compatible server is held to the same two renderings: the server renders
them with the model's template, and with ``enable_thinking`` when the deployment sets it.
"""

from __future__ import annotations

STYLE = "generic"


def check_style(style: object, styles: tuple[str, ...]) -> None:
    if style not in styles:
        raise ValueError(f"style must be one of {styles}; got {style!r}")


def render(
    messages: list[dict[str, str]],
    tokenizer=None,
    chat_template: bool = False,
    enable_thinking: bool | None = None,
) -> str:
    if not chat_template:
        return "\n\n".join(message["content"] for message in messages)
    if tokenizer is None:
        raise ValueError("chat_template=True needs a tokenizer")
    extra = {} if enable_thinking is None else {"enable_thinking": enable_thinking}
    return tokenizer.apply_chat_template(
        messages, tokenize=False, add_generation_prompt=True, **extra
    )
