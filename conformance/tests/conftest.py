"""Shared fixtures and options of the suite's own pytest session (tox): the run's options
unprefixed (--impl, --impl-cmd, --tokenizers, ... from lcb_conformance.runner.options, the
table the command reads), --upstream and --real-vocab for the drift and real-vocabulary
tests, and the markers that split the suite between the tox envs. The implementation under
test is run through the case runner (lcb_conformance.runner), as `lcb-conformance run` does.
"""

from __future__ import annotations

import gc
import os
import shutil
import tempfile
from pathlib import Path

import hostile
import pytest
import upstream_trees
from false_greens import all_cases, commands
from golden_snapshot import NEVER_WRITTEN, extension_for
from hypothesis import settings

from lcb_conformance.adapters import implementation
from lcb_conformance.common import exit_codes
from lcb_conformance.offline_tokenizers import hf_cache, real_vocab
from lcb_conformance.runner import options
from lcb_conformance.runner import run as runner
from lcb_conformance.suite import goldens
from lcb_conformance.upstream import (
    INSTALLED,
    PINNED_COMMIT,
    Upstream,
    UpstreamSourceError,
    judge_cache,
)
from lcb_conformance_dev import hypothesis_profiles

# Seeded and deterministic ("ci") unless HYPOTHESIS_PROFILE names another ("long").
hypothesis_profiles.load()

MARKERS = {
    "upstream": "runs the real lcb_runner (drift detection against the goldens)",
    "selftest": "checks the suite itself (integrity, the gate catching mutants, packaging)",
    "realvocab": "needs the real vocabularies from registry packages (tox -e realvocab, "
    "--real-vocab DIR)",
    "transformers_independent": "neither the case nor upstream's answer can depend on the "
    "transformers line (judge runs, extraction, scores: transformers_lines.py); the compat-tf* "
    "envs leave it to the default line's env",
    "slurm": "runs on a Slurm cluster (tox -e slurm starts one: docs/regrade-slurm.md); "
    "deselected unless -m names it",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lcb-conformance suite")
    for name, arguments in options.OPTIONS:
        group.addoption(f"--{name}", **arguments)
    group.addoption(
        "--upstream",
        default=INSTALLED,
        metavar="installed|PATH",
        help="upstream lcb_runner: the installed nvidia-livecodebench, or the path of a "
        "LiveCodeBench checkout (default: %(default)s)",
    )
    group.addoption(
        "--real-vocab",
        default=None,
        metavar="DIR",
        help="the real-vocabulary files fetched by "
        "lcb_conformance.offline_tokenizers.real_vocab_sources (tox -e realvocab); the "
        "realvocab-marked tests need it",
    )


def pytest_configure(config: pytest.Config) -> None:
    for name, meaning in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {meaning}")
    if getattr(config.option, "update_snapshots", False):
        # one line and exit 2, as every usage error of the gate (not pytest's exit 4)
        pytest.exit(NEVER_WRITTEN, returncode=exit_codes.UNUSABLE)
    # upstream lcb_runner loads tokenizers by repo id: this process serves the snapshots
    # offline, before anything imports huggingface_hub (it reads HF_HOME once, at import).
    hf_cache.serve(Path(config.getoption("--tokenizers")))
    hf_cache.activate_offline_cache(snapshots_dir=Path(config.getoption("--tokenizers")))
    # the judge cache a regrade keeps (and its children inherit): the session's, never the user's
    folder = tempfile.mkdtemp(prefix="lcb-judge-cache-")
    os.environ[judge_cache.ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _deselect_slurm(config, items)
    if config.getoption("--real-vocab") is None:
        skip = pytest.mark.skip(reason="needs the real vocabularies: tox -e realvocab")
        for item in items:
            if "realvocab" in item.keywords:
                item.add_marker(skip)


def _deselect_slurm(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A slurm test needs a cluster the default runs do not start: it runs only when the
    marker expression asks for it (tox -e slurm)."""
    if "slurm" in (config.getoption("markexpr") or ""):
        return
    # by the marker, not item.keywords: those hold every folder's name (a checkout in slurm/)
    deselected = [item for item in items if item.get_closest_marker("slurm")]
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = [item for item in items if not item.get_closest_marker("slurm")]


def pytest_report_header(config: pytest.Config) -> list[str]:
    recorded = goldens.provenance().get("upstream", {})
    impl = config.getoption("--impl-cmd") or config.getoption("--impl")
    return [
        f"implementation under test: {impl or implementation.REFERENCE}",
        # what the upstream-marked tests will find, as their skips and stops say it
        f"upstream: {Upstream(config.getoption('--upstream')).describe_source()}",
        f"goldens generated from: {recorded or 'unknown (no PROVENANCE.json)'}",
    ]


def _options(config: pytest.Config):
    return lambda name: config.getoption(f"--{name}")


LOADED = pytest.StashKey[runner.Runner]()


@pytest.fixture(scope="session")
def case_runner(pytestconfig: pytest.Config):
    """The case runner over the implementation under test (loaded once, before the first
    test: pytest_collection_finish)."""
    loaded = pytestconfig.stash[LOADED]
    yield loaded
    if loaded.over_process:
        loaded.impl.module.close()


@pytest.fixture(scope="session")
def impl(case_runner):
    return case_runner.impl


@pytest.fixture(scope="session")
def impl_function(impl):
    """impl_function(name): the function under test (a skip when it is not provided, or not
    for the style it is called with), for the differential fuzzing against live upstream."""

    def get(name: str):
        def call(*args, **kwargs):
            try:
                return getattr(impl, name)(*args, **kwargs)
            except implementation.NotProvided as missing:
                pytest.skip(str(missing))

        return call

    return get


@pytest.fixture(scope="session")
def upstream(pytestconfig: pytest.Config) -> Upstream:
    return Upstream(pytestconfig.getoption("--upstream"))


@pytest.fixture(scope="session")
def pinned_clone(pytestconfig: pytest.Config) -> Path:
    """--upstream's path when it is a git clone holding the pinned commit: what the tests
    copying, exporting or tampering with its lcb_runner tree make their trees from."""
    source = pytestconfig.getoption("--upstream")
    clone = None if source == INSTALLED else Path(source).expanduser().resolve()
    if clone is None or not upstream_trees.holds_pinned(clone):
        pytest.skip(f"needs --upstream=PATH, a LiveCodeBench clone holding {PINNED_COMMIT[:7]}")
    return clone


UNUSABLE = "lcb_conformance_unusable"


def pytest_collection_finish(session: pytest.Session) -> None:
    """An implementation that cannot be loaded, or an --upstream that cannot be imported,
    stops the run before its first test with one message (naming the file and line), not a
    failure per case (a pytest-xdist worker hands the message to the controller, which stops)."""
    wanted = {name for item in session.items for name in getattr(item, "fixturenames", ())}
    if "case_runner" in wanted:
        spec = options.spec(_options(session.config))
        try:
            # the contract's properties draw the Hypothesis profile's examples (not the verdict's)
            session.config.stash[LOADED] = runner.Runner(
                spec.load(), examples=settings.default.max_examples
            )
        except (Exception, SystemExit) as error:  # noqa: BLE001 - whatever the adapter raises
            _stop(session, f"cannot load {spec.given}: {error}")
    if "upstream" in wanted:
        try:
            Upstream(session.config.getoption("--upstream")).check_importable()
        except UpstreamSourceError as error:
            _stop(session, f"--upstream: {error}")


def _stop(session: pytest.Session, message: str) -> None:
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput[UNUSABLE] = message
    pytest.exit(message, returncode=2)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """The session's heap (the tokenizers' vocabularies: each full collection walks them, a
    third of a second) frozen after one last collection, before a pytest-xdist worker says it
    finished: pytest's own five collections at exit then take no time, and the worker ends
    within the 5 s execnet allows it before it SIGINTs it (a KeyboardInterrupt traceback,
    PytestUnraisableExceptionWarning, in a green run on a loaded machine)."""
    gc.collect()  # what is garbage now is still collected, its __del__ errors still reported
    gc.freeze()


def pytest_terminal_summary(terminalreporter) -> None:
    """How many rows the false-green table holds (test_false_greens.py runs them), and how
    many attacks the hostile corpus (test_containment.py)."""
    rows = all_cases()
    attacked = commands(rows)
    terminalreporter.write_line(
        f"false-green table: {len(rows)} rows over {len(attacked)} commands "
        f"({', '.join(attacked)}), each held to a non-zero exit"
    )
    terminalreporter.write_line(hostile.summary())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    if UNUSABLE in getattr(node, "workeroutput", {}):
        pytest.exit(node.workeroutput[UNUSABLE], returncode=2)


@pytest.fixture(scope="session")
def chat_tokenizer():
    """chat_tokenizer(repo_id): that snapshot's tokenizer, loaded once per session through
    transformers' own offline loading path."""
    return hf_cache.load_tokenizer


@pytest.fixture(scope="session")
def real_cache(pytestconfig: pytest.Config) -> Path:
    """The real-vocabulary files (--real-vocab DIR; realvocab-marked tests only)."""
    return Path(pytestconfig.getoption("--real-vocab"))


@pytest.fixture(scope="session")
def real_tokenizer(real_cache: Path, tmp_path_factory: pytest.TempPathFactory):
    """real_tokenizer(repo_id): the real tokenizer, loaded once from a cache built per session."""
    hub = real_vocab.build(tmp_path_factory.mktemp("real-vocab") / "hf-home", real_cache)
    loaded = {}

    def get(repo_id: str):
        if repo_id not in loaded:
            loaded[repo_id] = real_vocab.load(hub, repo_id)
        return loaded[repo_id]

    return get


@pytest.fixture
def golden(snapshot):
    """golden(key): a syrupy assertion against that golden file (byte-exact, read-only)."""

    def for_key(key: goldens.GoldenKey):
        # use_extension keeps the extension after the assertion, so the failure report
        # (rendered later, by pytest_assertrepr_compare) is this extension's readable diff.
        return snapshot.use_extension(extension_for(key.family, key.group))(name=key.case)

    return for_key


@pytest.fixture
def golden_copy(tmp_path, monkeypatch):
    """A scratch copy of the goldens, and goldens.* pointed at it: for tests that
    regenerate or tamper with goldens without touching the real ones."""
    copy = tmp_path / "goldens"
    shutil.copytree(goldens.GOLDENS_DIR, copy)
    monkeypatch.setattr(goldens, "GOLDENS_DIR", copy)
    monkeypatch.setattr(goldens, "MANIFEST_FILE", copy / goldens.MANIFEST_FILE.name)
    monkeypatch.setattr(goldens, "PROVENANCE_FILE", copy / goldens.PROVENANCE_FILE.name)
    goldens.recorded_manifest.cache_clear()
    yield copy
    goldens.recorded_manifest.cache_clear()
