"""The pytest plugin (entry point ``pytest11``): the conformance cases inside any pytest session.

It holds the suite's options (``--impl``, ``--impl-cmd``, ``--upstream``, ``--tokenizers``, ...)
and markers, so the suite's own runs (tox, ``lcb-conformance``) and an eval package's session
read them from one place. In an eval package it does nothing until asked:

    pytest --lcb-conformance --impl mypkg.lcb          # or, in the package's pytest config:
    [tool.pytest.ini_options]
    lcb_conformance_impl = "mypkg.lcb"

Then the installed suite's cases (``lcb_conformance/data/conformance/tests``) join the session,
without the upstream-, selftest- and realvocab-marked ones, with the same verdicts as
``lcb-conformance``: a failure is a case that differs from lcb_runner's golden (with its
readable diff), a skip is something the implementation does not provide.
docs/pytest-plugin.md shows an example.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from lcb_conformance.adapters import implementation, process
from lcb_conformance.suite import hf_cache, paths
from lcb_conformance.upstream import INSTALLED

MARKERS = {
    "upstream": "runs the real lcb_runner (drift detection against the goldens)",
    "selftest": "runs the suite in a subprocess against a mutant to prove the gate catches it "
    "(slow)",
    "realvocab": "needs the real vocabularies from registry packages (tox -e realvocab, "
    "--real-vocab DIR)",
    "transformers_independent": "neither the case nor upstream's answer can depend on the "
    "transformers line (judge runs, extraction fuzzing); the compat-tf* envs leave it to the "
    "upstream env",
}
# What an eval package's session runs of the suite: the verdict's cases, as lcb-conformance.
EXCLUDED_MARKERS = ("upstream", "selftest", "realvocab")
IMPL_INI = "lcb_conformance_impl"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lcb-conformance")
    group.addoption(
        "--lcb-conformance",
        action="store_true",
        help="run the LiveCodeBench conformance cases in this session (implied by the "
        f"{IMPL_INI} ini setting)",
    )
    parser.addini(
        IMPL_INI,
        "the implementation under test, MODULE[:ATTR]; setting it runs the conformance "
        "cases in this session",
    )
    group.addoption(
        "--impl",
        default=None,
        metavar="MODULE[:ATTR]",
        help="module under test, or MODULE:ATTR for an adapter object in it that holds "
        "the functions (and optionally STYLES) (default: the ini setting "
        f"{IMPL_INI}, else {implementation.REFERENCE})",
    )
    for flag, arguments in process.OPTIONS:
        group.addoption(flag, **arguments)
    group.addoption(
        "--upstream",
        default=INSTALLED,
        metavar="installed|PATH",
        help="upstream lcb_runner: the installed nvidia-livecodebench, or the path "
        "of a LiveCodeBench checkout (default: %(default)s)",
    )
    group.addoption(
        "--tokenizers",
        default=str(hf_cache.SNAPSHOTS_DIR),
        metavar="DIR",
        help="tokenizer snapshots to serve offline, e.g. an upgraded copy of "
        "fixtures/tokenizers whose effect on every prompt you want to see (default: %(default)s)",
    )
    group.addoption(
        "--real-vocab",
        default=None,
        metavar="DIR",
        help="the real-vocabulary files fetched by lcb_conformance.suite.real_vocab_sources "
        "(tox -e realvocab); the realvocab-marked tests need it",
    )


def joins_the_session(config: pytest.Config) -> bool:
    """Whether this session is an eval package's that asked for the conformance cases."""
    return bool(config.getoption("--lcb-conformance") or config.getini(IMPL_INI))


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    config.option.impl = (
        config.getoption("--impl") or config.getini(IMPL_INI) or implementation.REFERENCE
    )
    if not joins_the_session(config):
        return
    try:
        # Before the suite's conftest (collected later) imports transformers.
        hf_cache.activate_offline_cache(snapshots_dir=Path(config.getoption("--tokenizers")))
    except RuntimeError as error:
        raise pytest.UsageError(f"lcb-conformance: {error}") from None
    # The goldens are read through syrupy, which would call the goldens a -k or the
    # excluded markers leave out "unused" and fail the session.
    config.option.warn_unused_snapshots = True
    config.args.append(str(paths.TESTS_DIR))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not joins_the_session(config):
        return
    excluded = [
        item
        for item in items
        if item.path.is_relative_to(paths.TESTS_DIR)
        and any(item.get_closest_marker(name) for name in EXCLUDED_MARKERS)
    ]
    if excluded:
        config.hook.pytest_deselected(items=excluded)
        dropped = set(excluded)
        items[:] = [item for item in items if item not in dropped]
