"""The golden families: one module each in this package, found by name, so a new family is a
module (and its goldens, written by regeneration).

A family says everything the suite does with its goldens: which keys the current fixtures
call for, how upstream produces each one (for regeneration and the drift run), the call an
implementation is held to and its cell of the verdict matrix (its entry in the case index),
how an implementation's return value becomes golden text, its label in the verdict, how its
drift reads and what its provenance records. Modules define ``FAMILIES``: a tuple of
:class:`Family`.

A family's ``produce(source, key)`` is a function of its module. ``source`` is
upstream/producers.py's ``Producer``, the same for every family: ``source(key)`` is another
golden's text, ``source.upstream`` is lcb_runner (upstream/source.py: its prompts, messages,
extract_code), ``source.once(what, make)`` computes something once per producer, and
``source.run("module.function", ...)`` calls a function of ``lcb_conformance.upstream`` by
name. The suite never imports upstream/ (docs/layout.md, the layers): a family that runs
lcb_runner in a way of its own names the function that does (``Family.runs``; every name a
family gives is checked to exist by test_extension_points.py), and the function lives in
upstream/.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import cache

from lcb_conformance.suite.goldens import SUFFIX, GoldenKey

# How an implementation's answer is compared with a golden (the case index's "compare"): the
# text itself; as canonical JSON; its tokenization under the call's tokenizer
# (suite/tokenization.py; the value keeps its first name); a judge verdict
# normalised as docs/judge.md says.
TEXT = "text"
CANONICAL_JSON = "canonical-json"
TOKENIZATION = "token-audit"
JUDGE_VERDICT = "judge-verdict"


class NotProducibleHere(LookupError):
    """A golden no run in this environment can produce (a token audit of another transformers
    line; a family's subclasses say why else): regeneration keeps it, the drift run names it."""

    counted_as = "other transformers line"  # how regeneration and the drift run count it


class NotText(TypeError):
    """An implementation returned something that is not the kind of value its golden holds."""


def as_text(value: object, arguments: dict) -> str:
    """The golden text of a function returning a string: the string itself."""
    if not isinstance(value, str):
        raise NotText(f"returned {type(value).__name__} {value!r:.200}, not a str")
    return value


def no_entry(key: GoldenKey) -> dict:
    """A family no implementation is held to (upstream only: the drift run checks it)."""
    return {}


@dataclass(frozen=True)
class Family:
    name: str  # its folder under conformance/goldens/ (may hold a slash)
    label: str  # short name in the verdict's "checks" column
    produced_by: str  # how its goldens are made, for PROVENANCE.json
    keys: Callable[[], Iterable[GoldenKey]]  # every golden the current fixtures call for
    # (producers.Producer, key) -> golden text (this package's docstring: what ``source`` has)
    produce: Callable[[object, GoldenKey], str]
    # a key's case-index fields: for a case an implementation is held to "call" and "cell";
    # "upstream" (what upstream runs), "lmstyles", "deviation", "golden", ... where they apply
    entry: Callable[[GoldenKey], dict] = no_entry
    # (the implementation's return value, the call's arguments) -> golden text
    render: Callable[[object, dict], str] = as_text
    suffix: str = SUFFIX
    compare: str = TEXT  # what ``render`` does, in words a runner in another language reads
    upstream: bool = True  # produced by upstream lcb_runner (False: the reference lcb_prompts)
    # the transformers line a key is recorded under (None: the same under every line)
    line_of: Callable[[GoldenKey], str] | None = None
    # drift: how two goldens differ when only lcb_runner's lists differ, in words ("" when
    # something else differs); None for families whose every difference is drift
    list_change: Callable[[GoldenKey, str, str], str] | None = None
    in_history: bool = True  # part of `drift --history` (the tokenizer side is not)
    # its calls run untrusted code: the runner makes them in sandboxed child processes
    sandboxed: bool = False
    # golden text -> whether an implementation meets it by raising (lcb_runner raises there:
    # the golden records its exception); None: a raising implementation never meets a golden
    met_by_raising: Callable[[str], bool] | None = None
    # the fixture files its calls refer to (relative to fixtures/) -> the value an entry id
    # stands for (cases.FIXTURE_VALUES, judge_cases.FIXTURE_VALUES, or its own)
    fixtures: Mapping[str, Callable[[str], object]] = field(default_factory=dict)
    # the functions of lcb_conformance.upstream ("module.function") ``produce`` calls by name
    runs: tuple[str, ...] = ()
    # "module.function" of lcb_conformance.upstream returning what its goldens depend on besides
    # lcb_runner's commit, recorded in PROVENANCE.json under the module's name
    provenance: str | None = None
    # "module.function" of lcb_conformance.upstream, (upstream, key.case) -> why that upstream (an
    # installed stand-in) lacks what the golden needs, or None: the drift run names it missing
    known_gap: str | None = None


@cache
def registry() -> dict[str, Family]:
    """name -> family, every module of this package, in module-name order."""
    found: dict[str, Family] = {}
    for module in sorted(info.name for info in pkgutil.iter_modules(__path__)):
        for family in importlib.import_module(f"{__name__}.{module}").FAMILIES:
            if family.name in found:
                raise ValueError(f"golden family {family.name!r} is defined twice")
            found[family.name] = family
    return found


def get(name: str) -> Family:
    try:
        return registry()[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a golden family ({', '.join(registry())})") from None


def upstream_families() -> tuple[str, ...]:
    return tuple(name for name, family in registry().items() if family.upstream)


def key_of(name: str) -> GoldenKey:
    """The key of a golden's relative path or id ("prompt/generic/x.txt", "prompt/generic/x")."""
    family = max((f for f in registry() if name.startswith(f + "/")), key=len, default=None)
    if family is None:
        raise ValueError(f"{name!r} is in no golden family ({', '.join(registry())})")
    group, _, case = name[len(family) + 1 :].rpartition("/")
    return GoldenKey(family, group, case.removesuffix(get(family).suffix))


def suffix_of(family: str) -> str:
    return get(family).suffix


def expected_keys(family: str | None = None) -> list[GoldenKey]:
    """Every golden the current fixtures call for (of one family, if given)."""
    return [key for key in _all_expected_keys() if family is None or key.family == family]


@cache
def _all_expected_keys() -> tuple[GoldenKey, ...]:
    return tuple(sorted(key for family in registry().values() for key in family.keys()))


def fixture_value(pointer: dict) -> object:
    """The value a case's fixture pointer ({"fixture": file, "id": entry}) stands for."""
    for family in registry().values():
        if pointer["fixture"] in family.fixtures:
            return family.fixtures[pointer["fixture"]](pointer["id"])
    raise ValueError(f"no golden family reads the fixture file {pointer['fixture']!r}")


def upstream_functions() -> set[str]:
    """Every function of lcb_conformance.upstream a family names ("module.function")."""
    return {
        name
        for family in registry().values()
        for name in (*family.runs, family.provenance, family.known_gap)
        if name
    }


def in_this_environment(key: GoldenKey) -> bool:
    """False for a golden recorded under another transformers line."""
    from lcb_conformance.suite.tokenization import transformers_line

    line_of = get(key.family).line_of
    return line_of is None or line_of(key) == transformers_line()


