"""How each golden family is produced from upstream: the one place regeneration and the drift run
share.

Generic: what a family's goldens are made of is its module's (suite/families/); a function of
upstream/ a family names ("module.function", e.g. "score.compute_metrics") is resolved here,
so the suite never imports upstream/ (docs/layout.md, the layers).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Hashable
from typing import TypeVar

from lcb_conformance.suite import families, tokenization
from lcb_conformance.suite.families import NotProducibleHere
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream

T = TypeVar("T")
PACKAGE = "lcb_conformance.upstream"


def upstream_function(name: str) -> Callable:
    """The function a family names: "module.attribute[.attribute]" of lcb_conformance.upstream
    ("resolver.ModelList.of")."""
    module, *attributes = name.split(".")
    try:
        found: object = importlib.import_module(f"{PACKAGE}.{module}")
    except ModuleNotFoundError as missing:
        if missing.name != f"{PACKAGE}.{module}":
            raise
        raise LookupError(f"{name!r}: {PACKAGE} has no module {module!r}") from None
    for attribute in attributes:
        try:
            found = getattr(found, attribute)
        except AttributeError:
            raise LookupError(f"{name!r}: {PACKAGE}.{module} has no {attribute!r}") from None
    if not attributes or not callable(found):
        raise LookupError(f"{name!r} is not a function of {PACKAGE}.{module}")
    return found


class Producer:
    """Computes the expected text of any golden key by its family's ``produce`` (suite/
    families/): upstream for the upstream families, the reference lcb_prompts for the
    reference-impl ones. Results are memoised."""

    def __init__(self, upstream: Upstream):
        self.upstream = upstream
        self._produced: dict[GoldenKey, str] = {}
        self._made: dict[Hashable, object] = {}

    def __call__(self, key: GoldenKey) -> str:
        if key not in self._produced:
            self._produced[key] = families.get(key.family).produce(self, key)
        return self._produced[key]

    def run(self, function: str, *args, **kwargs):
        """A function of upstream/ a family names ("module.function"), called."""
        return upstream_function(function)(*args, **kwargs)

    def once(self, what: Hashable, make: Callable[[], T]) -> T:
        """make()'s value, made once per producer (every request golden from one child); an
        exception is kept and raised again for every golden that needs the value."""
        if what not in self._made:
            try:
                self._made[what] = make()
            except Exception as error:  # kept, raised again for each golden
                self._made[what] = error
        made = self._made[what]
        if isinstance(made, Exception):
            raise made
        return made

    @staticmethod
    def check_line(line: str) -> None:
        """Raise NotProducibleHere for a golden of another transformers line."""
        if line != tokenization.transformers_line():
            raise NotProducibleHere(
                f"recorded under {line}; this environment runs {tokenization.transformers_line()}"
            )
