"""The generic `--impl-cmd` server: any adapter `MODULE[:ATTR]` over the JSON-lines protocol,
from a harness's own Python (3.8+, standard library only, run by path).

The adapter is served over protocol 1 (docs/impl-cmd.md) from the environment of the Python
that runs it.

    python3.10 /path/to/jsonl_server.py MODULE[:ATTR] [--path DIR]...
    python -m lcb_conformance.adapters.jsonl_server --where    # prints /path/to/jsonl_server.py

Standard library only, Python 3.8 or later, and one file: run it by path with a harness's own
interpreter, where lcb-conformance is not installed (it needs another Python, or imports torch):

    lcb-conformance --impl-cmd "/envs/harness/bin/python $(python -m \\
        lcb_conformance.adapters.jsonl_server --where) my_adapter:adapter --path adapters"

MODULE is imported (``--path`` folders first on sys.path), ATTR (dotted) names the adapter
object in it, exactly as ``--impl``. ``describe`` answers which of the functions the suite
names (its ``functions`` argument; the protocol's five when absent) the adapter has, its
STYLES and DEVIATIONS; every other request calls one of those with the arguments by name:
``{"$bytes": hex}`` becomes bytes, ``{"$object": repr}`` an object whose repr that is, and a
tokenizer (its repo id) is loaded with transformers' AutoTokenizer where the harness's
environment has transformers. Its exceptions are answered as data, their type's name and
module and their message (:func:`error_record`; an exception class of the adapter's own named
NotProvided is one of them, an error), a function it lacks with the protocol's not-provided
answer (the type NotProvided and no module), a result JSON cannot carry as ResultNotJSON. The
adapter's own output to stdout (or reads from stdin) cannot break the protocol: fd 1 and fd 0
are the protocol's alone, what the harness prints goes to stderr, and what it reads (a judged
program's ``open(0)``) is /dev/null.

Started by the suite, it runs contained as the suite's own judge children are
(adapters/untrusted.py: no network, no user files). A ``judge_program`` answer is made JSON as
the suite's judge child makes it (numpy scalars as their value, anything else as its repr:
:func:`plain`).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from functools import lru_cache

PATH = os.path.abspath(__file__)
PROTOCOL = 1
# The protocol's functions and their arguments, in order (positional calls are sent by name).
PARAMETERS = {
    "format_lcb_prompt": ("row", "tokenizer", "chat_template", "style", "enable_thinking"),
    "format_lcb_messages": ("row", "style"),
    "extract_code": ("model_output", "style"),
    "extract_code_prefix": ("model_output", "style"),
    "decode_context": ("context",),
}
EXIT_CANNOT_LOAD = 2
# the error type of the protocol's not-provided answer, sent without a module (an adapter's
# exception carries its module, so none can pass for it)
NOT_PROVIDED = "NotProvided"
JUDGE = "judge_program"


class Opaque:
    """A value the suite could not send as JSON (a bad-input test's object)."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def decode(value):
    """An argument as the adapter receives it (the inverse of process.encode)."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if isinstance(value, dict):
        if set(value) == {"$bytes"}:
            return bytes.fromhex(value["$bytes"])
        if set(value) == {"$object"}:
            return Opaque(value["$object"])
        return {key: decode(item) for key, item in value.items()}
    return value


@lru_cache(maxsize=None)
def tokenizer(repo_id: str):
    from transformers import AutoTokenizer  # only where a call needs a chat template

    return AutoTokenizer.from_pretrained(repo_id)


def load(name: str):
    """The adapter object ``MODULE[:ATTR]`` names."""
    module_name, _, attribute = name.partition(":")
    adapter = importlib.import_module(module_name)
    for part in attribute.split(".") if attribute else ():
        adapter = getattr(adapter, part)
    return adapter


def describe(adapter, functions=None) -> dict:
    """What the adapter provides of ``functions`` (the names the suite may call)."""
    styles = getattr(adapter, "STYLES", None)
    deviations = getattr(adapter, "DEVIATIONS", ())
    names = [name for name in functions or PARAMETERS if isinstance(name, str)]
    return {
        "provides": [
            name
            for name in names
            if not name.startswith("_") and callable(getattr(adapter, name, None))
        ],
        # a str or another wrong type is passed on, for the suite to name it
        "styles": list(styles) if isinstance(styles, (list, tuple)) else styles,
        "deviations": list(deviations) if isinstance(deviations, (list, tuple)) else deviations,
    }


def error_record(error: BaseException) -> dict:
    """An exception as data, the same from every boundary (the suite's sandboxed children use
    it too): its type's name and module, and its message."""
    kind = type(error)
    return {"type": kind.__qualname__, "module": kind.__module__, "message": str(error)}


def plain(value):
    """A value json cannot encode, as the judge's answer carries it: a numpy scalar (lcb_runner's
    results hold np.bool_) as its value, anything else as its repr."""
    if hasattr(value, "item"):
        return value.item()
    return repr(value)


def _error(kind: str, message: str) -> dict:
    return {"error": {"type": kind, "message": message}}


def answer(adapter, request: dict) -> dict:
    """The response to one request, without its id."""
    function = request.get("function")
    if function == "describe":
        return {"result": describe(adapter, (request.get("args") or {}).get("functions"))}
    public = isinstance(function, str) and not function.startswith("_")
    found = getattr(adapter, function, None) if public else None
    if not callable(found):
        return _error(NOT_PROVIDED, f"the adapter has no {function}")
    args = decode(request.get("args") or {})
    try:
        if isinstance(args.get("tokenizer"), str):
            args["tokenizer"] = tokenizer(args["tokenizer"])
        result = found(**args)
    except Exception as error:  # the adapter's own error (or no transformers), by its type
        return {"error": error_record(error)}
    try:
        if function == JUDGE:
            result = json.loads(json.dumps(result, default=plain))
        else:
            json.dumps(result)
    except (TypeError, ValueError) as error:
        return _error("ResultNotJSON", f"{function} returned {result!r:.200}: {error}")
    return {"result": result}


def _protocol_streams():
    """(requests, responses): the process's stdin and stdout, kept for the protocol; fd 0
    becomes /dev/null and fd 1 stderr, for whatever the adapter reads or prints."""
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    responses = os.fdopen(os.dup(1), "w", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return requests, responses


def serve(adapter, requests, responses) -> None:
    for line in requests:
        request = json.loads(line)
        response = dict(id=request.get("id"), **answer(adapter, request))
        # ensure_ascii: a lone surrogate in a result crosses as a \udXXX escape
        responses.write(json.dumps(response) + "\n")
        responses.flush()


def main(argv: list[str] | None = None) -> int:
    # a usage error is one line, as the commands' (shared_options.CommandParser, which this file
    # cannot import: it runs by path where lcb-conformance is not installed): argparse's usage
    # block goes, and the suite quotes that line in its own when the server exits
    parser = argparse.ArgumentParser(
        prog="jsonl_server.py",
        usage=argparse.SUPPRESS,
        description="Serve an adapter over the lcb-conformance --impl-cmd protocol (JSON lines "
        "on stdin/stdout).",
    )
    parser.add_argument("adapter", nargs="?", metavar="MODULE[:ATTR]")
    parser.add_argument(
        "--path",
        action="append",
        default=[],
        metavar="DIR",
        help="a folder to import MODULE from (first on sys.path; may be repeated)",
    )
    parser.add_argument("--where", action="store_true", help="print this file's path and exit")
    args = parser.parse_args(argv)
    if args.where:
        print(PATH)
        return 0
    if not args.adapter:
        parser.error("name the adapter: MODULE[:ATTR]")
    requests, responses = _protocol_streams()
    sys.path[:0] = [os.path.abspath(folder) for folder in args.path]
    try:
        adapter = load(args.adapter)
    except (ImportError, AttributeError) as error:
        print(
            f"jsonl_server.py: cannot load {args.adapter} with {sys.executable}: "
            f"{type(error).__name__}: {error}",
            file=sys.stderr,
        )
        return EXIT_CANNOT_LOAD
    serve(adapter, requests, responses)
    return 0


if __name__ == "__main__":
    sys.exit(main())
