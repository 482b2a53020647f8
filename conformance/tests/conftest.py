"""Shared fixtures of the suite. Its options (--impl, --impl-cmd, --upstream, --tokenizers, ...)
and markers are lcb_conformance.plugin's, which pyproject.toml's addopts load (and the pytest11
entry point, in an eval package's session).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from lcb_conformance.adapters import implementation, process
from lcb_conformance.suite import audit, goldens, hf_cache, index, real_vocab
from lcb_conformance.suite.snapshot import extension_for
from lcb_conformance.tools import hypothesis_profiles
from lcb_conformance.upstream import Upstream, UpstreamSourceError

# Seeded and deterministic ("ci") unless HYPOTHESIS_PROFILE names another ("long").
hypothesis_profiles.load()


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "update_snapshots", False):
        raise pytest.UsageError(
            "tests never write goldens; regenerate them from upstream with "
            f"`{goldens.REGEN_COMMAND}`"
        )
    # Before anything imports huggingface_hub: it reads HF_HOME once, at import.
    hf_cache.activate_offline_cache(snapshots_dir=Path(config.getoption("--tokenizers")))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--real-vocab") is None:
        skip = pytest.mark.skip(reason="needs the real vocabularies: tox -e realvocab")
        for item in items:
            if "realvocab" in item.keywords:
                item.add_marker(skip)


def pytest_report_header(config: pytest.Config) -> list[str]:
    recorded = goldens.provenance().get("upstream", {})
    return [
        f"implementation under test: "
        f"{config.getoption('--impl-cmd') or config.getoption('--impl')}",
        f"upstream: {config.getoption('--upstream')}",
        f"goldens generated from: {recorded or 'unknown (no PROVENANCE.json)'}",
    ]


@pytest.fixture(scope="session")
def impl(pytestconfig: pytest.Config):
    command = pytestconfig.getoption("--impl-cmd")
    if command is None:
        yield implementation.load(pytestconfig.getoption("--impl"))
        return
    served = process.load_command(
        command,
        pytestconfig.getoption("--impl-timeout"),
        pytestconfig.getoption("--impl-memory-mb"),
    )
    yield served
    served.module.close()


@pytest.fixture(scope="session")
def impl_function(impl):
    """impl_function(name): the function under test, or a skip saying it is not provided
    (the function, or, called for a style outside the adapter's STYLES, that style)."""

    def get(name: str):
        try:
            function = getattr(impl, name)
        except implementation.NotProvided as missing:
            pytest.skip(str(missing))
        if not impl.not_provided_styles():
            return function

        def call(*args, **kwargs):
            try:
                return function(*args, **kwargs)
            except implementation.NotProvided as missing:
                pytest.skip(str(missing))

        return call

    return get


@pytest.fixture(scope="session")
def upstream(pytestconfig: pytest.Config) -> Upstream:
    return Upstream(pytestconfig.getoption("--upstream"))


UNUSABLE_UPSTREAM = "lcb_conformance_unusable_upstream"


def pytest_collection_finish(session: pytest.Session) -> None:
    """An --upstream that cannot be imported stops the run before its first test, with one
    message naming the file and line, not a failure per case (a pytest-xdist worker hands the
    message to the controller, which stops)."""
    if not any("upstream" in getattr(item, "fixturenames", ()) for item in session.items):
        return
    try:
        Upstream(session.config.getoption("--upstream")).check_importable()
    except UpstreamSourceError as error:
        message = f"--upstream: {error}"
        if hasattr(session.config, "workeroutput"):
            session.config.workeroutput[UNUSABLE_UPSTREAM] = message
        pytest.exit(message, returncode=2)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:
    if UNUSABLE_UPSTREAM in getattr(node, "workeroutput", {}):
        pytest.exit(node.workeroutput[UNUSABLE_UPSTREAM], returncode=2)


@pytest.fixture(scope="session")
def chat_tokenizer():
    """chat_tokenizer(repo_id): that snapshot's tokenizer, loaded once per session through
    transformers' own offline loading path."""
    return audit.load_tokenizer


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


def _family_of(nodeid: str) -> str | None:
    """The golden family of the case a test checks (None: not a golden case)."""
    _, bracket, parameter = nodeid.partition("[")
    case = index.by_id().get(parameter[:-1]) if bracket else None
    return case["family"] if case else None


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    """Print the comparability matrix after a run that checked chat renderings."""
    ran = [
        report
        for outcome in ("passed", "failed")
        for report in terminalreporter.stats.get(outcome, [])
        if _family_of(report.nodeid) in (goldens.CHAT_PROMPT, goldens.TOKEN_AUDIT)
    ]
    if not ran:
        return
    line = audit.transformers_line()
    matrix = goldens.GoldenKey(goldens.COMPARABILITY, "", line)
    terminalreporter.section(f"comparability with lcb_runner ({matrix.relative})")
    terminalreporter.write(goldens.read(matrix) or "(no matrix golden)\n")
    failed = [report for report in ran if report.failed]
    impl = config.getoption("--impl")
    if failed:
        terminalreporter.write_line(
            f"{impl} failed {len(failed)} chat-rendering/token-audit cases: the matrix above "
            "is lcb_runner's, not what it produces."
        )
    else:
        terminalreporter.write_line(f"{impl} renders every chat prompt as above.")


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
