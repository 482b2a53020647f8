"""Token ids a model receives for a prompt (with/without special tokens, the template's), as
golden text; the first differing token, decoded.

A string prompt reaches the model as ``tokenizer(prompt)`` with special tokens (what vLLM,
SGLang and HF ``generate`` build from a string: lcb_runner's own vLLM path) or without them (a
server told not to add any); a chat model's messages also as the template's ``tokenize=True``
ids. Which sequence is which differs only in BOS/EOS handling, and that is the point.

Golden text: the prompt's sha256, then one block per sequence, ``<how>: <n> ids`` followed by the
ids, IDS_PER_LINE to a line, blocks separated by a blank line.
"""

from __future__ import annotations

import hashlib

WITH_SPECIALS = "string, add_special_tokens=True"
WITHOUT_SPECIALS = "string, add_special_tokens=False"
FROM_MESSAGES = "messages, chat template tokenize=True"
IDS_PER_LINE = 20
CONTEXT_TOKENS = 3  # decoded tokens shown either side of a first difference
_SHA = "prompt sha256 "
# No warning that a prompt is longer than the model's model_max_length ("will result in
# indexing errors"): the ids are compared, no model runs them.
QUIET = {"verbose": False}


def template_ids(tokenizer, messages: list[dict]) -> list[int]:
    """The chat template's own tokenization of ``messages`` with the generation prompt."""
    ids = tokenizer.apply_chat_template(
        messages, tokenize=True, add_generation_prompt=True, tokenizer_kwargs=QUIET
    )
    return list(ids["input_ids"] if hasattr(ids, "keys") else ids)  # a dict from transformers 5


def sequences(tokenizer, prompt: str, messages: list[dict] | None = None) -> dict[str, list[int]]:
    """The token sequences built from a string prompt (and from its messages, if given)."""
    found = {
        WITH_SPECIALS: tokenizer(prompt, add_special_tokens=True, **QUIET)["input_ids"],
        WITHOUT_SPECIALS: tokenizer(prompt, add_special_tokens=False, **QUIET)["input_ids"],
    }
    if messages is not None:
        found[FROM_MESSAGES] = template_ids(tokenizer, messages)
    return found


def render(prompt: str, found: dict[str, list[int]]) -> str:
    """The golden text of one prompt's sequences."""
    blocks = [_SHA + hashlib.sha256(prompt.encode("utf-8")).hexdigest()]
    for how, ids in found.items():
        rows = [
            " ".join(map(str, ids[i : i + IDS_PER_LINE])) for i in range(0, len(ids), IDS_PER_LINE)
        ]
        blocks.append("\n".join([f"{how}: {len(ids)} ids", *rows]))
    return "\n\n".join(blocks) + "\n"


def parse(text: str) -> tuple[str, dict[str, list[int]]]:
    """(prompt sha256, sequences) of a golden's text; ValueError naming what is malformed."""
    head, *blocks = text.rstrip("\n").split("\n\n")
    if not head.startswith(_SHA):
        raise ValueError(f"token-ids text must start with {_SHA!r}, not {head[:40]!r}")
    found = {}
    for block in blocks:
        title, *rows = block.split("\n")
        how, _, count = title.rpartition(": ")
        ids = [int(i) for row in rows for i in row.split()]
        if count != f"{len(ids)} ids":
            raise ValueError(f"{how!r}: says {count!r}, holds {len(ids)} ids")
        found[how] = ids
    return head.removeprefix(_SHA), found


def _decoded(tokenizer, ids: list[int], at: int) -> str:
    before = tokenizer.decode(ids[max(0, at - CONTEXT_TOKENS) : at])
    token = tokenizer.decode(ids[at : at + 1]) if at < len(ids) else "<end>"
    after = tokenizer.decode(ids[at + 1 : at + 1 + CONTEXT_TOKENS])
    return f"{before!r} [{token!r}] {after!r}"


def first_token_difference(
    old_tok, old: list[int], new_tok, new: list[int], names: tuple[str, str] = ("old", "new")
) -> str:
    """Names the first differing token and decodes both sides around it."""
    at = next(
        (i for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
        min(len(old), len(new)),
    )
    old_id = old[at] if at < len(old) else None
    new_id = new[at] if at < len(new) else None
    width = max(map(len, names))
    return (
        f"token {at}: {old_id} -> {new_id} (lengths {len(old)} -> {len(new)})\n"
        f"      {names[0]:<{width}} {_decoded(old_tok, old, at)}\n"
        f"      {names[1]:<{width}} {_decoded(new_tok, new, at)}"
    )
