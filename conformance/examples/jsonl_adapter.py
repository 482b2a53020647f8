"""An --impl-cmd adapter: lcb_prompts served over the JSON-lines protocol (protocol 1,
docs/implementations.md "Out of process"), standard library only, so any Python 3.10+ runs it:

    lcb-conformance --impl-cmd "/usr/bin/python3 conformance/examples/jsonl_adapter.py"

Copy it and replace FUNCTIONS with your harness's functions. A tokenizer arrives as its repo
id; this example loads it with transformers when a call needs one.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "impl"))  # lcb_prompts

import lcb_prompts  # noqa: E402

FUNCTIONS = {
    name: getattr(lcb_prompts, name)
    for name in (
        "format_lcb_prompt",
        "format_lcb_messages",
        "extract_code",
        "extract_code_prefix",
        "decode_context",
        "pass_at_k",
        "score_run",
        "leaderboard_score",
    )
}


class Opaque:
    """A value the suite could not send as JSON (a bad-input test's object)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def decode(value):
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"$bytes"}:
            return bytes.fromhex(value["$bytes"])
        if set(value) == {"$object"}:
            return Opaque(value["$object"])
        return {key: decode(item) for key, item in value.items()}
    return value


def tokenizer_of(repo_id: str):
    from transformers import AutoTokenizer  # only where a call needs a chat template

    return AutoTokenizer.from_pretrained(repo_id)


def answer(request: dict) -> dict:
    function = request["function"]
    if function == "describe":
        return {"result": {"provides": list(FUNCTIONS), "styles": None,
                           "deviations": list(lcb_prompts.DEVIATIONS)}}  # fmt: skip
    if function not in FUNCTIONS:
        return {"error": {"type": "NotProvided", "message": f"no {function}"}}
    args = decode(request["args"])
    try:
        if isinstance(args.get("tokenizer"), str):
            args["tokenizer"] = tokenizer_of(args["tokenizer"])
        result = FUNCTIONS[function](**args)
    except Exception as error:  # its own error (or no transformers), reported by its type
        return {"error": {"type": type(error).__name__, "message": str(error)}}
    return {"result": result}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        response = {"id": request["id"], **answer(request)}
        # ensure_ascii: a lone surrogate in a result crosses as a \\udXXX escape
        sys.stdout.write(json.dumps(response) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
