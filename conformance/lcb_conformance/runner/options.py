"""A run's options, declared once for the command (`--impl`) and the plugin (`--lcb-impl`).

The options of a conformance run, declared once (the implementation's, adapters/impl_options.py,
and the run's own): the command takes them as ``--NAME``
(``lcb-conformance run --impl ...``), the pytest plugin as ``--lcb-NAME`` (``pytest -p
lcb_conformance.plugin --lcb-impl ...``), both from this table, and both build the same
:class:`Spec` and :class:`Selection`. Light on purpose: ``lcb-conformance --help`` prints the
run's options, and the run's machinery (runner/run.py, the contract's Hypothesis) is not
imported for that.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lcb_conformance.adapters import impl_options, implementation, process
from lcb_conformance.offline_tokenizers import hf_cache
from lcb_conformance.runner import case_child
from lcb_conformance.suite import families

PLUGIN_PREFIX = "lcb-"


@dataclass(frozen=True)
class Spec:
    """How to load the implementation under test, in this process or a worker."""

    impl: str = implementation.REFERENCE
    impl_path: tuple[str, ...] = ()
    impl_cmd: str | None = None
    impl_timeout: float = process.DEFAULT_TIMEOUT
    impl_memory_mb: int = process.DEFAULT_MEMORY_MB
    tokenizers: str = str(hf_cache.SNAPSHOTS_DIR)
    case_timeout: float = case_child.DEFAULT_CASE_TIMEOUT  # in-process, seconds per case

    def missing_folder(self, flag=lambda name: f"--{name}") -> str | None:
        """Which folder option (spelt by ``flag``) names no folder, or None: a typo must not
        run as a run without snapshots, or import the adapter from elsewhere."""
        if not Path(self.tokenizers).is_dir():
            return f"{flag('tokenizers')} {self.tokenizers}: no such folder"
        return impl_options.missing_folder(self.impl_path, flag)

    @property
    def given(self) -> str:
        """The implementation as its option names it (quoted when blank: an unset $IMPL)."""
        named = self.impl if self.impl_cmd is None else self.impl_cmd
        return named if named.strip() else repr(named)

    def load(self) -> implementation.Implementation:
        """The implementation (ImportError, one line, when it cannot be loaded)."""
        if (missing := self.missing_folder()) is not None:
            raise ImportError(missing)
        hf_cache.serve(Path(self.tokenizers))
        return impl_options.load(lambda name: getattr(self, name.replace("-", "_")))


@dataclass
class Selection:
    """Which cases run: the golden families (None: all), the contract, case ids (None: all)."""

    families: frozenset[str] | None = None
    contract: bool = True
    ids: frozenset[str] | None = None

    def wants(self, case_id: str, family: str | None) -> bool:
        if self.ids is not None and case_id not in self.ids:
            return False
        return family is None or self.families is None or family in self.families

# (name, argparse/pytest keyword arguments); type and action are ones both accept.
OPTIONS = (
    *impl_options.OPTIONS,
    (
        "tokenizers",
        dict(
            default=str(hf_cache.SNAPSHOTS_DIR),
            metavar="DIR",
            help="tokenizer snapshots to serve offline, e.g. an upgraded copy of "
            "fixtures/tokenizers whose effect on every prompt you want to see (default: the "
            "suite's)",
        ),
    ),
    (
        "case-timeout",
        dict(
            type=float,
            default=case_child.DEFAULT_CASE_TIMEOUT,
            metavar="SECONDS",
            help="an in-process adapter's time limit per case (its cases run in a child "
            "process; a case over it is timed-out, a failure; over --impl-cmd the limit is "
            "--impl-timeout per request) (default: %(default)s)",
        ),
    ),
    (
        "strict-contract",
        dict(
            action="store_true",
            default=False,
            help="count the API contract (bad input, properties) in the verdict's exit code; "
            "without it the contract is reported apart",
        ),
    ),
    (
        "no-contract",
        dict(action="store_true", default=False, help="run the golden cases only"),
    ),
    (
        "only",
        dict(
            action="append",
            default=[],
            metavar="FAMILY",
            help="run the cases of this golden family only (prompt, messages, extract, ...); "
            "repeat the option for more families, one each",
        ),
    ),
)


# The plugin's items are the cases: the contract's join with --lcb-contract, and a failing one
# fails the session, so these two of the command's do not apply there.
COMMAND_ONLY = ("no-contract", "strict-contract")


def for_plugin() -> tuple:
    return tuple((name, arguments) for name, arguments in OPTIONS if name not in COMMAND_ONLY)


def defaults() -> dict[str, object]:
    """Each option's default, by name (for a command taking only some of them)."""
    return {name: arguments.get("default") for name, arguments in OPTIONS}


def spec(get: Callable[[str], object], default_impl: str | None = None) -> Spec:
    """The Spec of the options ``get(name)`` returns (a name with "-" as in OPTIONS)."""
    return Spec(
        # given empty (an unset $IMPL), refused when loaded: not the default run instead
        impl=get("impl") if get("impl") is not None else default_impl or implementation.REFERENCE,
        impl_path=tuple(str(folder) for folder in get("impl-path") or ()),
        impl_cmd=get("impl-cmd"),
        impl_timeout=get("impl-timeout"),
        impl_memory_mb=get("impl-memory-mb"),
        tokenizers=str(get("tokenizers")),
        case_timeout=get("case-timeout"),
    )


def unknown_families(only: list[str], flag: str = "--only") -> str | None:
    """Why ``only`` (--only's values) names no golden family; None when each is one."""
    unknown = sorted(set(only) - set(families.registry()))
    if not unknown:
        return None
    known = ", ".join(families.registry())
    return f"{flag} {', '.join(unknown)}: no such golden family (known: {known})"


def selection(get: Callable[[str], object]) -> Selection:
    only = get("only")
    return Selection(
        families=frozenset(only) if only else None,
        contract=not get("no-contract"),
    )


def recorded(get: Callable[[str], object]) -> dict:
    """The options as a results file's header records them."""
    return {name: get(name) for name, _ in OPTIONS}
