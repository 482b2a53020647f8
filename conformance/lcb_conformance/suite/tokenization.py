"""Tokenization: what a tokenizer makes of a rendered prompt (BOS and token counts, special
tokens, markers), as the tokenization goldens record it.

A prompt string can be byte-identical and still reach the model differently: re-tokenizing a
rendered chat prompt with add_special_tokens=True (what vLLM and most servers do with a string)
doubles the BOS the template already printed, and a style's markers (<|im_start|>, ...) are
one special token only in the family that defines them.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json

from lcb_conformance.suite import cases


def transformers_line() -> str:
    """ "transformers-4" or "transformers-5": token behaviour differs between the two lines
    (transformers 5 ignores add_bos_token when a tokenizer.json exists), so tokenizations are
    recorded per line."""
    return f"transformers-{importlib.metadata.version('transformers').split('.')[0]}"


TRANSFORMERS_LINES = ("transformers-4", "transformers-5")


def _special_ids(tokenizer) -> dict[int, str]:
    return {
        token_id: str(token)
        for token_id, token in tokenizer.added_tokens_decoder.items()
        if token.special
    } | {
        token_id: token
        for token, token_id in zip(
            tokenizer.all_special_tokens, tokenizer.all_special_ids, strict=True
        )
    }


def marker_status(tokenizer, marker: str) -> str:
    """ "special <id>": one special token; "token <id>": one ordinary added token (text can
    produce it); "text (<n> tokens)": split into ordinary pieces."""
    ids = tokenizer.encode(marker, add_special_tokens=False)
    if len(ids) == 1:
        return f"{'special' if ids[0] in _special_ids(tokenizer) else 'token'} {ids[0]}"
    return f"text ({len(ids)} tokens)"


def record(tokenizer, prompt: str) -> dict:
    """The tokenization record of one prompt under one tokenizer (JSON-ready)."""
    special = _special_ids(tokenizer)
    with_specials = tokenizer(prompt, add_special_tokens=True)["input_ids"]
    without_specials = tokenizer(prompt, add_special_tokens=False)["input_ids"]
    bos = tokenizer.bos_token_id
    return {
        "prompt_sha256": hashlib.sha256(prompt.encode("utf-8")).hexdigest(),
        "bos_token": tokenizer.bos_token,
        "bos_count": {
            "add_special_tokens=True": with_specials.count(bos) if bos is not None else 0,
            "add_special_tokens=False": without_specials.count(bos) if bos is not None else 0,
        },
        "token_count": {
            "add_special_tokens=True": len(with_specials),
            "add_special_tokens=False": len(without_specials),
        },
        "special_tokens_in_order": [special[i] for i in with_specials if i in special],
        "markers_in_prompt": {
            marker: marker_status(tokenizer, marker)
            for marker in cases.STYLE_MARKERS
            if marker in prompt
        },
    }


def render(record: dict) -> str:
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"
