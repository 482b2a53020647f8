"""Programs that try to outlive the process running them, and how the tests find what they
left (test_judge.py, test_impl_cmd.py).

Every process such a program starts carries a marker entry in its environment, unique to the
test (the ``marker`` fixture here) and written into the program itself: a contained program
sees none of its caller's variables (adapters/untrusted.py's allow-list). A test looks for
survivors by that marker, on the host, right after the judge or adapter returns, with no
waiting. The program's sleepers say they are up by files in a folder of the sandbox's own
/tmp, which the program waits for before it returns: an answer that came means they were up.
"""

from __future__ import annotations

import os
import signal
import uuid

import pytest

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
MARKED = {{{name!r}: {value!r}}}
READY = {ready!r}
os.makedirs(READY, exist_ok=True)

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
# Double-forks a sleeper, then kills the process running it and every ancestor it can see (up
# its parent chain, to the sandbox's init, which ignores the signal): what it started must be
# gone all the same.
KILLS_ITS_ANCESTORS = """
import signal
middle = os.fork()
if middle == 0:
    os.setsid()
    if os.fork() == 0:
        become(SLEEPER, "a")
    os._exit(0)
os.waitpid(middle, 0)
wait_until_up("a")
pid = os.getpid()
while pid > 1:
    with open(f"/proc/{pid}/stat", "rb") as stream:
        parent = int(stream.read().rpartition(b")")[2].split()[1])
    os.kill(pid, signal.SIGKILL)
    pid = parent
"""


def program(body: str, marker: str) -> str:
    """The escape ``body`` as a program whose processes carry ``marker`` ("NAME=value")."""
    name, _, value = marker.partition("=")
    return (
        PRELUDE.format(name=name, value=value, ready=f"/tmp/escape-ready-{value}")
        + f"SLEEPER = {SLEEPER!r}\nFORKER = {FORKER!r}\n"
        + body
    )


def _started(pid: int) -> int | None:
    """The start time of process ``pid``, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            return int(stream.read().rpartition(b")")[2].split()[19])
    except OSError:
        return None


def survivors(marker: str) -> list[tuple[int, int]]:
    """(pid, start time) of every process on the host whose environment holds ``marker``."""
    wanted, found = marker.encode(), []
    for pid in [int(name) for name in os.listdir("/proc") if name.isdigit()]:
        try:
            with open(f"/proc/{pid}/environ", "rb") as stream:
                environment = stream.read().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        started = _started(pid)
        if wanted in environment and pid != os.getpid() and started is not None:
            found.append((pid, started))
    return found


def kill(pid: int, started: int) -> None:
    """SIGKILL ``pid`` if it is still the process that started at ``started``."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        if _started(pid) == started:
            signal.pidfd_send_signal(descriptor, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        os.close(descriptor)


@pytest.fixture
def marker(monkeypatch):
    """The test's marker entry, put in the environment every process it starts inherits;
    what a failing test left behind is killed afterwards."""
    value = uuid.uuid4().hex
    monkeypatch.setenv(MARKER, value)
    entry = f"{MARKER}={value}"
    yield entry
    for found in survivors(entry):
        kill(*found)
