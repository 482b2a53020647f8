"""The implementation under test and the adapter protocol it follows: `--impl MODULE[:ATTR]`,
`STYLES`, `DEVIATIONS`, "not provided".

Chosen with ``--impl MODULE`` or ``--impl MODULE:ATTR``. MODULE is imported; ATTR (dotted
for nested attributes) names the object that holds the functions: a module, a class
instance, a class with static methods, a ``types.SimpleNamespace``. Without ATTR the module
itself is that object. The object provides any of:

    format_lcb_prompt(row, tokenizer=None, chat_template=False, style="generic",
                      enable_thinking=None) -> str
    format_lcb_messages(row, style="generic") -> list[dict] | tuple[str, list[dict]]
    extract_code(model_output, style="generic") -> str
    extract_code_prefix(model_output, style="generic") -> str
    decode_context(context) -> str
    judge_program(row, program, timeout) -> (results, metadata[, passed])
    ...         and every other function a golden family's cases call (the family module's
                case-index entries name it: suite/families/; docs/implementations.md lists
                them all)
    STYLES      optional: the styles it implements, e.g. ("generic",)
    DEVIATIONS  optional: the deliberate differences from lcb_runner it declares, by their
                id in conformance/deviations.toml, e.g. ("think",)

(the signatures of the reference ``lcb_prompts``). An adapter with ``format_lcb_messages`` but
no ``format_lcb_prompt`` (a chat harness) is held to the generic style's prompt cases through
its messages, rendered by the suite (lcb_conformance.adapters.rendering).

A case of a declared deviation is held to that deviation's golden (for "think": upstream's
extraction of the answer after </think>); without the declaration it is held to lcb_runner's
own golden, like every other case. A function it does not provide, or a case for a style
missing from its STYLES, is reported as not provided (the test skips saying so), never as a
failure. Not provided is an answer about a function, decided once: by the declaration (the
function absent, the style outside STYLES) or by the function's first call raising
``NotProvided``; a function that answered once and then raises NotProvided for an input has
declined that input (``Declined``: a difference of its own kind, never a skip), and after a
first call raising NotProvided the function is not called again. A style the suite does not
know is passed through untouched, so bad-input tests still see the implementation's own error.

``judge_program`` grades a candidate program against a dataset row's tests (public and
private, in the dataset's encoding) with a per-test ``timeout`` in seconds, and returns what
lcb_runner's judge returns for one program: the per-test results (True/False, or -1/-2/-3/-4
for global timeout, wrong answer, time limit, runtime error) and the metadata dict
(error_code, error_message, ...). A harness whose own pass rule is not lcb_runner's (every
result > 0, an empty list passing) adds its verdict as a third element. It raises when the
row's tests cannot be decoded. The suite calls it only in a child process
(lcb_conformance.upstream.judge), never in its own.

What an implementation raises crosses every process boundary as data (:func:`raised`): its
type's name and module, and its message. Not provided is a type, never a phrase in a message:
this module's ``NotProvided`` in-process, and over --impl-cmd the protocol's own not-provided
answer, ``{"type": "NotProvided"}`` with no module (what the generic server sends for a
function the adapter lacks); a program's own exception class that is merely named NotProvided
carries its module, and is an error like any other.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field

from lcb_conformance.adapters.jsonl_server import NOT_PROVIDED as NOT_PROVIDED_TYPE
from lcb_conformance.adapters.jsonl_server import error_record
from lcb_conformance.adapters.rendering import RENDERED_STYLE, render_messages
from lcb_conformance.suite import deviations, index
from lcb_conformance.suite.cases import EXTRACTION_LMSTYLES

# The seed's functions, first in every listing; the golden families hold an adapter to more
# (functions() adds every function the case index calls, in its order).
API = (
    "format_lcb_prompt",
    "format_lcb_messages",
    "extract_code",
    "extract_code_prefix",
    "decode_context",
    "judge_program",
)


def functions() -> tuple[str, ...]:
    """Every function the suite may call on an adapter: the protocol's, then the index's."""
    return tuple(dict.fromkeys([*API, *index.functions()]))
REFERENCE = "lcb_prompts"
# The styles the suite has cases for (format_lcb_prompt, extract_code, extract_code_prefix).
KNOWN_STYLES = tuple(EXTRACTION_LMSTYLES)
# Where each styled function takes ``style`` positionally, and its default.
STYLE_ARGUMENT = {
    "format_lcb_prompt": 3,
    "format_lcb_messages": 1,
    "extract_code": 1,
    "extract_code_prefix": 1,
}
DEFAULT_STYLE = "generic"
NOT_PROVIDED = "does not provide"  # the phrase of every not-provided message


class NotProvided(LookupError):
    pass


class Declined(Exception):
    """A function the implementation provides raised NotProvided for one input (not an
    answer about the function, which answered before): a difference, never a skip."""


DECLINED_TYPE = Declined.__qualname__


def raised(error: BaseException) -> dict:
    """What an implementation raised, as data: {"type", "module", "message"}. An --impl-cmd
    program's error is what it sent (process.py keeps it on the exception); a NotProvided of
    any subclass is the protocol's not-provided answer (the type NotProvided, no module)."""
    record = getattr(error, "record", None)
    if isinstance(record, dict):
        return record
    if isinstance(error, NotProvided):
        return {"type": NOT_PROVIDED_TYPE, "module": None, "message": str(error)}
    return error_record(error)


def raised_type(record: dict) -> str:
    """A raised record's type, qualified by its module (``zlib.error``,
    ``builtins.KeyError``) when the record names one."""
    module = record.get("module")
    return f"{module}.{record['type']}" if module else str(record["type"])


def not_provided(record: dict) -> bool:
    """Whether a raised record says the function or case is not provided: the protocol's
    not-provided answer, by its type and the absence of a module (an exception class of a
    program's own that is named NotProvided has one: it is an error)."""
    return record.get("type") == NOT_PROVIDED_TYPE and not record.get("module")


def declined(record: dict) -> bool:
    """Whether a raised record is a provided function declining an input (this module's
    Declined, as a sandboxed child sends it)."""
    return record.get("type") == DECLINED_TYPE and record.get("module") == __name__


def describe_raised(record: dict) -> str:
    """A raised record for a person: ``Type: message``."""
    return f"{record['type']}: {record['message']}"


@dataclass(frozen=True)
class Implementation:
    name: str  # as given to --impl: "module" or "module:attr"
    module: object  # the adapter object holding the functions (a module unless :attr)
    styles: tuple[str, ...] | None = None  # its declared STYLES; None: every style
    deviations: tuple[str, ...] = ()  # its declared DEVIATIONS (ids in deviations.toml)
    # each function's first call, once made: True (it answered, or raised anything but
    # NotProvided: it is provided), or why it is not provided (its first call raised
    # NotProvided). The only state: what the first call decided holds for every later call.
    first_calls: dict[str, bool | str] = field(default_factory=dict, compare=False, repr=False)

    def provides(self, function: str, style: str | None = None) -> bool:
        if function == "format_lcb_prompt" and self.renders_messages():
            return style is None or (style == RENDERED_STYLE and self._declares(style))
        if not callable(getattr(self.module, function, None)):
            return False
        return style is None or function not in STYLE_ARGUMENT or self._declares(style)

    def renders_messages(self) -> bool:
        """Its generic prompts are its messages rendered by the suite (it has no
        format_lcb_prompt of its own)."""
        return not callable(getattr(self.module, "format_lcb_prompt", None)) and callable(
            getattr(self.module, "format_lcb_messages", None)
        )

    def not_provided_styles(self) -> tuple[str, ...]:
        """Known styles its STYLES leaves out (their cases are reported as not provided)."""
        return tuple(style for style in KNOWN_STYLES if not self._declares(style))

    def unknown_declared_styles(self) -> tuple[str, ...]:
        """Styles in its STYLES the suite has no cases for (a typo, or its own extension)."""
        return tuple(style for style in self.styles or () if style not in KNOWN_STYLES)

    def describe(self) -> dict[str, object]:
        return {
            "name": self.name,
            "provides": [function for function in functions() if self.provides(function)],
            "not_provided": [function for function in functions() if not self.provides(function)],
            "styles": list(self.styles) if self.styles is not None else None,
            "styles_not_provided": list(self.not_provided_styles()),
            "styles_unknown_to_the_suite": list(self.unknown_declared_styles()),
            "deviations": list(self.deviations),
            "prompts_rendered_from_messages": self.renders_messages(),
        }

    def _declares(self, style: object) -> bool:
        return self.styles is None or style not in KNOWN_STYLES or style in self.styles

    def __getattr__(self, function: str):
        if function.startswith("_") or function not in functions():
            raise AttributeError(function)
        if function == "format_lcb_prompt" and self.renders_messages():
            return self._prompt_from_messages()
        found = getattr(self.module, function, None)
        if not callable(found):
            raise NotProvided(f"{self.name} {NOT_PROVIDED} {function}")
        found = self._decided_once(function, found)
        if function not in STYLE_ARGUMENT or not self.not_provided_styles():
            return found
        return self._style_checked(function, found)

    def _decided_once(self, function: str, found: Callable) -> Callable:
        """found, whose first call decides whether it is provided (first_calls): NotProvided
        from it later, after it answered, is Declined, never a case left unasked."""

        @functools.wraps(found)
        def decided(*args, **kwargs):
            first = self.first_calls.get(function)
            if isinstance(first, str):
                raise NotProvided(first)
            try:
                value = found(*args, **kwargs)
            except NotProvided as missing:
                if first is None:
                    self.first_calls[function] = (
                        f"{self.name} {NOT_PROVIDED} {function} (its first call raised "
                        f"NotProvided: {missing})"
                    )
                    raise NotProvided(self.first_calls[function]) from None
                raise Declined(
                    f"{self.name} declined this input of {function}, which it provides (it "
                    f"raised NotProvided: {missing}); not provided is decided by a function's "
                    "first call, never per input"
                ) from None
            except BaseException:
                self.first_calls.setdefault(function, True)  # a raise is an answer
                raise
            self.first_calls.setdefault(function, True)
            return value

        return decided

    def _style_checked(self, function: str, found: Callable) -> Callable:
        """found, raising NotProvided when called for a known style outside STYLES."""
        position = STYLE_ARGUMENT[function]

        @functools.wraps(found)
        def checked(*args, **kwargs):
            if "style" in kwargs:
                style = kwargs["style"]
            else:
                style = args[position] if len(args) > position else DEFAULT_STYLE
            if not self._declares(style):
                raise NotProvided(
                    f"{self.name} {NOT_PROVIDED} {function} for style {style!r} "
                    f"(its STYLES: {', '.join(self.styles or ())})"
                )
            return found(*args, **kwargs)

        return checked


    def _prompt_from_messages(self) -> Callable:
        messages_of = self.__getattr__("format_lcb_messages")

        def format_lcb_prompt(
            row, tokenizer=None, chat_template=False, style=DEFAULT_STYLE, enable_thinking=None
        ) -> str:
            if style != RENDERED_STYLE:
                raise NotProvided(
                    f"{self.name} {NOT_PROVIDED} format_lcb_prompt for style {style!r} (it "
                    f"provides format_lcb_messages only; the suite renders {RENDERED_STYLE!r} "
                    "messages, other prompt styles are strings lcb_runner builds)"
                )
            messages = messages_of(row, style=RENDERED_STYLE)
            return render_messages(messages, tokenizer, chat_template, enable_thinking)

        return format_lcb_prompt


def _styles_of(name: str, adapter: object) -> tuple[str, ...] | None:
    declared = getattr(adapter, "STYLES", None)
    if declared is None:
        return None
    if isinstance(declared, str) or not all(isinstance(style, str) for style in declared):
        raise ImportError(
            f"--impl {name}: STYLES must be a tuple or list of style names, e.g. "
            f'("generic",); got {declared!r}'
        )
    return tuple(declared)


def _deviations_of(name: str, adapter: object) -> tuple[str, ...]:
    declared = getattr(adapter, "DEVIATIONS", ())
    known = deviations.ids()
    if isinstance(declared, str) or not all(isinstance(item, str) for item in declared):
        raise ImportError(
            f"--impl {name}: DEVIATIONS must be a tuple or list of deviation ids, e.g. "
            f'("think",); got {declared!r}'
        )
    unknown = [item for item in declared if item not in known]
    if unknown:
        raise ImportError(
            f"--impl {name}: DEVIATIONS names {', '.join(map(repr, unknown))}, not a deviation "
            f"of conformance/deviations.toml (known: {', '.join(known)})"
        )
    return tuple(declared)


def load(name: str = REFERENCE) -> Implementation:
    """The implementation named ``module`` or ``module:attr``."""
    module_name, _, attribute = name.partition(":")
    if not module_name.strip():  # an unset variable ($IMPL) must not run some other adapter
        raise ImportError(f"--impl {name!r}: names no module; give MODULE[:ATTR]")
    try:
        adapter = importlib.import_module(module_name)
    except ImportError as error:
        raise ImportError(
            f"--impl {name}: cannot import {module_name} ({error}). Make it importable here "
            f"({sys.executable}): --impl-path DIR (the folder holding it), PYTHONPATH=DIR, or "
            "pip install it into this environment; or, if it needs another Python or its own "
            'environment, serve it with --impl-cmd "CMD" (docs/impl-cmd.md)'
        ) from error
    except SystemExit as error:  # its import ended the process: an unusable adapter, said so
        raise ImportError(
            f"--impl {name}: importing {module_name} called sys.exit({error.code!r})"
        ) from error
    if attribute:
        for part in attribute.split("."):
            try:
                adapter = getattr(adapter, part)
            except AttributeError:
                raise ImportError(
                    f"--impl {name}: {module_name} has no attribute {attribute!r}"
                ) from None
    if not any(callable(getattr(adapter, function, None)) for function in functions()):
        raise ImportError(f"--impl {name}: provides none of {', '.join(functions())}")
    return wrap(name, adapter)


def wrap(name: str, adapter: object) -> Implementation:
    """The implementation of an adapter object, its STYLES and DEVIATIONS checked."""
    return Implementation(name, adapter, _styles_of(name, adapter), _deviations_of(name, adapter))
