"""The pytest plugin (`-p lcb_conformance.plugin`): the conformance cases as items of an eval
package's own pytest session, run by the runner.

It is not loaded unless asked, so a session that did not ask sees no option, marker or
setting of ours, and nothing of its process changes:

    pytest -p lcb_conformance.plugin --lcb-impl mypkg.lcb      # or, in the package's config:
    [tool.pytest.ini_options]
    addopts = ["-p", "lcb_conformance.plugin"]
    lcb_conformance_impl = "mypkg.lcb"

Loaded, it adds the run's options under one prefix (``--lcb-impl``, ``--lcb-impl-cmd``,
``--lcb-tokenizers``, ... the table of lcb_conformance.runner.options) and, once an
implementation is named (``--lcb-impl``, ``--lcb-impl-cmd`` or the ini setting), one item per
golden case of the installed case index, run by the case runner: it passes when the answer is
identical to its golden, fails with the readable difference when not, and skips saying why
when the implementation does not provide it. The API contract's cases join only with
``--lcb-contract`` (they are not a comparability verdict). ``--lcb-results FILE`` streams the
typed results, as ``lcb-conformance run --results`` does, also under pytest-xdist; its footer
is written only when every planned case reported, so a session interrupted, stopped by
``-x`` or narrowed by ``-k`` leaves a file that reads as a run that did not finish. A session
in which no golden case was answered (every one not provided or skipped) fails: nothing was
compared. The suite's own self-tests never run here. An in-process adapter's cases run in a
case child (runner/case_child.py) under ``--lcb-case-timeout``: an adapter ending that process
(``os._exit``, ``sys.exit``) fails the case it was asked, in one line, and the next case
starts a fresh child, so no adapter ends the session with its own exit status.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from lcb_conformance.common import exit_codes
from lcb_conformance.reports.verdict import mismatch_report
from lcb_conformance.runner import case_child, options, results
from lcb_conformance.runner import run as runner
from lcb_conformance.suite import families, index

IMPL_INI = "lcb_conformance_impl"
RESULT_PROPERTY = "lcb_conformance_result"


def _flag(name: str) -> str:
    return f"--{options.PLUGIN_PREFIX}{name}"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("lcb-conformance", "LiveCodeBench conformance (lcb_conformance)")
    for name, arguments in options.for_plugin():
        # a value read as text and converted in pytest_configure: a bad one is the gate's
        # one-line usage error, exit 2, not pytest's usage block and its exit 4
        untyped = {key: value for key, value in arguments.items() if key != "type"}
        group.addoption(_flag(name), dest=_dest(name), **untyped)
    group.addoption(
        _flag("contract"),
        dest=_dest("contract"),
        action="store_true",
        default=False,
        help="also run the implementation's API-contract cases (bad input, properties)",
    )
    group.addoption(
        _flag("results"),
        dest=_dest("results"),
        default=None,
        metavar="FILE",
        help="stream every case's typed result here as JSON lines (lcb-conformance report "
        "FILE renders the verdict)",
    )
    parser.addini(
        IMPL_INI,
        "the implementation under test, MODULE[:ATTR]; setting it runs the conformance cases",
    )


def _dest(name: str) -> str:
    return f"{options.PLUGIN_PREFIX}{name}".replace("-", "_")


def _get(config: pytest.Config):
    return lambda name: config.getoption(_dest(name))


def asked_for(config: pytest.Config) -> bool:
    """Whether this session named an implementation to run the cases against (an option given
    empty too: an unset $IMPL is refused, not a session without the cases)."""
    get = _get(config)
    given = get("impl") is not None or get("impl-cmd") is not None
    return given or bool(config.getini(IMPL_INI))


def usage_error(message: str):
    """Stop the session before any item runs: one line on stderr and the gate's exit code for
    an unusable input (2, as on every other route), not pytest's usage code (4, which the
    gate's table reads as a run that did not finish)."""
    pytest.exit(f"lcb-conformance: {message}", returncode=exit_codes.UNUSABLE)


def _convert_values(config: pytest.Config) -> None:
    """Each typed option's value given as text, converted by its type (usage_error if not)."""
    for name, arguments in options.for_plugin():
        convert, given = arguments.get("type"), config.getoption(_dest(name))
        if convert is None or not isinstance(given, str):  # the default, or a worker's copy
            continue
        try:
            setattr(config.option, _dest(name), convert(given))
        except ValueError:
            usage_error(f"{_flag(name)}: invalid {convert.__name__} value: {given!r}")


def pytest_configure(config: pytest.Config) -> None:
    _convert_values(config)
    if not asked_for(config):
        return
    if (unknown := options.unknown_families(_get(config)("only"), _flag("only"))) is not None:
        usage_error(unknown)  # else a green of no case
    session = ConformanceSession(config)
    if (missing := session.spec.missing_folder(_flag)) is not None:
        usage_error(missing)
    config.pluginmanager.register(session, "lcb-conformance-session")


class ConformanceSession:
    """The runner of this session (one loaded implementation) and its results file."""

    def __init__(self, config: pytest.Config):
        get = _get(config)
        self.spec = options.spec(get, default_impl=config.getini(IMPL_INI) or None)
        only = get("only")
        self.selection = runner.Selection(
            families=frozenset(only) if only else None, contract=bool(get("contract"))
        )
        self.results_path = get("results")
        self.recorded = {name: get(name) for name, _ in options.for_plugin()}
        self._runner: runner.Runner | None = None
        self._in_child: runner.InChild | None = None  # in-process: where its cases run
        self._sandboxed: dict[str, results.CaseResult] | None = None
        self._writer: results.ResultsWriter | None = None
        self._counts: Counter = Counter()
        self._golden = Counter()  # golden cases reported / answered (ran)

    def runner(self) -> runner.Runner:
        if self._runner is None:
            try:
                self._runner = runner.Runner(self.spec.load())
            # whatever the adapter raises, once; an exit at its import too (not the session's)
            except (Exception, SystemExit) as error:  # noqa: BLE001
                usage_error(
                    f"cannot load {self.spec.given}: "
                    f"{type(error).__name__}: {error}"
                )
        return self._runner

    def answer(self, case) -> results.CaseResult:
        """A golden (not sandboxed) or contract case's result: over --impl-cmd here (the
        program is the other process), in-process in the case child."""
        here = self.runner()
        if here.over_process:
            return here.golden(case) if isinstance(case, dict) else here.contract(case)
        if self._in_child is None:
            self._in_child = runner.InChild(self.spec)
        try:
            return self._in_child.result(case)
        except case_child.AdapterEnded as ended:
            pytest.fail(f"lcb-conformance: {ended}", pytrace=False)

    def sandboxed(self, case_id: str) -> results.CaseResult:
        """The judge family's cases run at once, on the first one asked for."""
        if self._sandboxed is None:
            cases = [case for case in runner.Plan.of(self.selection).sandboxed]
            self._sandboxed = {r.id: r for r in self.runner().sandboxed(cases)}
        return self._sandboxed[case_id]

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, session: pytest.Session, items: list) -> None:
        """The cases join the session's items here, before -k and -m select: not by collecting
        the case index as a path, which pytest skips where the gate is installed in a virtual
        environment inside the project (uv's .venv), and which would make it collect that
        environment's packages beside the host's tests where it does not."""
        cases = CaseFile.from_parent(session, path=index.index_file(), session_runner=self)
        items.extend(cases.collect())

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        # the adapter loads before any item runs: one that cannot is one usage error that
        # ends the session here (before xdist starts its workers), not a failure per case
        describe = self.runner().impl.describe()
        if self.results_path and not hasattr(session.config, "workerinput"):
            planned = len(runner.Plan.of(self.selection))
            head = results.header(describe, planned, options=self.recorded)
            try:
                self._writer = results.ResultsWriter(Path(self.results_path), head)
            except OSError as error:  # a folder, no such parent: one line, not a traceback
                usage_error(
                    f"cannot write {_flag('results')} {self.results_path}: "
                    f"{error.strerror or error}"
                )

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":  # the teardown's report carries the same properties again
            return
        for name, value in report.user_properties:
            if name == RESULT_PROPERTY:
                found = results.CaseResult.from_json(json.loads(value))
                self._counts[found.status] += 1
                if found.tier != results.CONTRACT:
                    self._golden["reported"] += 1
                    self._golden["answered"] += found.ran
                if self._writer is not None:
                    self._writer.write(found)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(session.config, "workerinput"):
            return  # the controller (or a serial session) decides and writes
        if self.nothing_compared and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        if self._writer is not None:
            if self._counts.total() == self._writer.planned:
                self._writer.close(dict(self._counts))
            else:  # interrupted, stopped early or narrowed: not the whole run
                self._writer.abandon()
        if self._in_child is not None:
            self._in_child.close()
        if self._runner is not None:
            close = getattr(self._runner.impl.module, "close", None)
            if self._runner.over_process and callable(close):
                close()

    @property
    def nothing_compared(self) -> bool:
        """Golden cases ran in this session and none was answered."""
        return bool(self._golden["reported"]) and not self._golden["answered"]

    def pytest_terminal_summary(self, terminalreporter) -> None:
        if self.nothing_compared:
            terminalreporter.write_line(
                f"lcb-conformance: FAILED: no golden case was answered (all "
                f"{self._golden['reported']} not provided or skipped): nothing was compared "
                "with lcb_runner",
                red=True,
            )


class CaseFile(pytest.File):
    """The case index as a test file: an item per case the session selected."""

    def __init__(self, *, session_runner: ConformanceSession, **kwargs):
        super().__init__(**kwargs)
        self.session_runner = session_runner

    def collect(self):
        plan = runner.Plan.of(self.session_runner.selection)
        for case in [*plan.golden, *plan.sandboxed]:
            yield CaseItem.from_parent(self, name=case["id"], case=case)
        for contract_case in plan.contract:
            yield CaseItem.from_parent(self, name=contract_case.id, case=contract_case)


class CaseFailed(AssertionError):
    def __init__(self, result: results.CaseResult):
        super().__init__(result.id)
        self.result = result


class CaseItem(pytest.Item):
    def __init__(self, *, case, **kwargs):
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        session = self.parent.session_runner
        if isinstance(self.case, dict) and families.get(self.case["family"]).sandboxed:
            found = session.sandboxed(self.case["id"])
        else:
            found = session.answer(self.case)
        self.user_properties.append((RESULT_PROPERTY, json.dumps(found.to_json())))
        if found.status in (results.NOT_PROVIDED, results.SKIPPED):
            pytest.skip(found.reason)
        if found.not_ok:
            raise CaseFailed(found)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, CaseFailed):
            return mismatch_report(excinfo.value.result)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"lcb-conformance: {self.name}"
