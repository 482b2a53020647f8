"""What a contract case is (runner/contract.py's cases, runner/properties.py's properties) and
the helpers their checks share: the functions a check calls, an expected error, equality."""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from lcb_conformance.suite import styles

# the seed's styles (the style table's), and those extracting the last fenced block
SEED_STYLES = styles.SEED_STYLES
FENCE_STYLES = styles.FENCED_SEED_STYLES


class Functions:
    """What a contract check calls: the implementation's functions by name (NotProvided when
    it lacks one), a tokenizer snapshot by repo id, the deviations it declares, and how many
    examples a property draws."""

    def __init__(self, impl, load_tokenizer: Callable[[str], object], examples: int):
        self.impl = impl
        self.tokenizer = load_tokenizer
        self.deviations = tuple(impl.deviations)
        self.examples = examples

    def __call__(self, name: str) -> Callable:
        return getattr(self.impl, name)


@dataclass(frozen=True)
class ContractCase:
    id: str  # contract/<group>/<name>
    group: str
    functions: tuple[str, ...]  # the functions it calls
    check: Callable[[Functions], None]  # raises AssertionError when the contract is broken
    in_process: bool = False  # passes objects no process boundary carries (a tokenizer)


@contextmanager
def expect_error(kinds, pattern: str):
    """The block must raise one of ``kinds`` whose message matches ``pattern``."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    names = " or ".join(kind.__name__ for kind in kinds)
    try:
        yield
    except kinds as error:
        if not re.search(pattern, str(error)):
            raise AssertionError(
                f"raised {type(error).__name__}({str(error)!r:.200}), whose message does not "
                f"name {pattern!r}"
            ) from None
    except Exception as error:
        raise AssertionError(
            f"expected {names} naming {pattern!r}; raised {type(error).__name__}"
            f"({str(error)!r:.200})"
        ) from None
    else:
        raise AssertionError(f"expected {names} naming {pattern!r}; nothing was raised")


def equal(actual, expected, what: str = "returned") -> None:
    if actual != expected:
        raise AssertionError(f"{what} {actual!r:.300}, expected {expected!r:.300}")
