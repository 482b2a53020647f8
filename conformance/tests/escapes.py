"""Programs that try to outlive the process running them, and how the tests find what they
left (test_judge.py, test_impl_cmd.py).

Every process such a program starts carries a marker entry in its environment, unique to the
test (the ``marker`` fixture here; a test module binds it and ``containment`` by name), and
nothing else of its caller's environment (so the Contained run's own token, which
Contained.stop() sweeps for, cannot be what finds it): a test looks for survivors by that
marker right after the judge or adapter returns, with no waiting.
"""

from __future__ import annotations

import uuid

import pytest

from lcb_conformance.adapters import untrusted

MARKER = "LCB_CONFORMANCE_TEST_MARKER"

# A long sleeper that ignores SIGTERM and SIGHUP; it creates its file (argv[1]) when it is up.
SLEEPER = (
    "import signal, sys, time\n"
    "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\n"
    "    signal.signal(s, signal.SIG_IGN)\n"
    "open(sys.argv[1], 'w').close()\n"
    "time.sleep(1000)\n"
)
# Forks forever (bounded, should containment fail): each parent sleeps, its child forks on,
# so the process forking has a new pid every time and its parent is gone or going.
FORKER = (
    "import os, signal, sys, time\n"
    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
    "for generation in range(1000):\n"
    "    if generation == 5:\n"
    "        open(sys.argv[1], 'w').close()\n"
    "    time.sleep(0.02)\n"
    "    if os.fork():\n"
    "        time.sleep(1000)\n"
)

# What each program does; it returns once every sleeper it started is up.
PRELUDE = """
import os, sys, time
MARKED = {{{marker!r}: os.environ[{marker!r}]}}
READY = {ready!r}

def become(code, name):
    os.execve(sys.executable, [sys.executable, "-c", code, os.path.join(READY, name)], MARKED)

def wait_until_up(*names):
    deadline = time.monotonic() + 30
    while not all(os.path.exists(os.path.join(READY, n)) for n in names):
        assert time.monotonic() < deadline, "the escape never started"
        time.sleep(0.01)
"""
ESCAPES = {
    # a child in a session of its own: out of the process group
    "setsid": """
if os.fork() == 0:
    os.setsid()
    become(SLEEPER, "a")
wait_until_up("a")
""",
    # the daemon recipe: fork, setsid, fork again, the middle process exits (an orphan)
    "double-fork": """
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        become(SLEEPER, "a")
    os._exit(0)
os.waitpid(middle, 0)
wait_until_up("a")
""",
    # a child and a grandchild, both sleeping
    "grandchildren": """
if os.fork() == 0:
    if os.fork() == 0:
        become(SLEEPER, "a")
    become(SLEEPER, "b")
wait_until_up("a", "b")
""",
    # in a session of its own, forking on and on
    "keeps-forking": """
if os.fork() == 0:
    os.setsid()
    become(FORKER, "a")
wait_until_up("a")
""",
}
# Double-forks a sleeper that keeps the whole environment, then kills its supervisor (found
# up its parent chain). Inside a PID namespace the supervisor is out of sight (the namespace's
# init, its fork, ignores SIGKILL from inside); without one, Contained.stop()'s sweep for its
# token is what is left to find the sleeper.
KILLS_ITS_SUPERVISOR = """
import signal
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", SLEEPER, os.path.join(READY, "a")])
    os._exit(0)
os.waitpid(middle, 0)
wait_until_up("a")
pid = os.getpid()
while pid > 1:
    with open(f"/proc/{pid}/cmdline", "rb") as stream:
        if b"untrusted.py" in stream.read():
            os.kill(pid, signal.SIGKILL)
            break
    with open(f"/proc/{pid}/stat", "rb") as stream:
        pid = int(stream.read().rpartition(b")")[2].split()[1])
"""


def program(body: str, ready) -> str:
    """The escape ``body`` as a program writing its sleepers' files into ``ready``."""
    return (
        PRELUDE.format(marker=MARKER, ready=str(ready))
        + f"SLEEPER = {SLEEPER!r}\nFORKER = {FORKER!r}\n"
        + body
    )


def survivors(marker: str) -> list[tuple[int, int]]:
    return untrusted.carrying(marker)


@pytest.fixture
def marker(monkeypatch):
    """The test's marker entry, put in the environment every process it starts inherits;
    what a failing test left behind is killed afterwards."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARKER, value)
    entry = f"{MARKER}={value}"
    yield entry
    for found in survivors(entry):
        untrusted.kill(*found)


@pytest.fixture(params=["pid-namespace", "subreaper"])
def containment(request, monkeypatch):
    """Each layer on its own: the PID namespace (where the kernel allows), and the
    supervisor's subreaper and walk alone, as where namespaces are not allowed."""
    monkeypatch.setattr(untrusted, "PID_NAMESPACE", request.param == "pid-namespace")
    return request.param
