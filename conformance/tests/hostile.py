"""The hostile corpus: programs that attack the machine running them (test_containment.py runs
each through every route that runs untrusted code and looks outside for its effect).

An attack is the body of a Python program. It knows everything a real attacker could guess
and more: the paths, ports and names of the test's world (``World``, formatted into the
program's prelude). It never reports its own success: the test looks at the world instead
(a file outside, a connection a listener saw, a process left running, a secret in any output,
a file the verdict rests on changed, a verdict another sample got). Where an attack can only
learn something, it raises it, so that a leak lands in the output the test searches.
"""

from __future__ import annotations

from dataclasses import dataclass

# What every attack starts with; the World's fields are its constants.
PRELUDE = """
import os, sys, time
OUTSIDE = {outside!r}
HOME = {home!r}
PORT = {port}
UDP_PORT = {udp_port}
ABSTRACT = {abstract!r}
UNIX_PATH = {unix_path!r}
SECRET_NAME = {secret_name!r}
HOST_PID = {host_pid}
UPSTREAM_FILE = {upstream_file!r}
GATE_FILE = {gate_file!r}
HOST_TMP_FILE = {host_tmp_file!r}
MARKED = {{{marker_name!r}: {marker_value!r}}}

def attempt(action):
    try:
        action()
    except BaseException:  # the sandbox said no: the next attempt
        pass

def spawn_python(code):
    import subprocess
    attempt(lambda: subprocess.run([sys.executable, "-c", code], env=dict(os.environ, **MARKED),
                                   timeout=20))

def leak(*found):
    raise RuntimeError("leaked: " + repr(found))
"""


@dataclass(frozen=True)
class Attack:
    name: str
    kind: str  # files, secrets, network, processes, verdicts
    body: str
    routes: tuple[str, ...] = ()  # () = every route; else only these


WRITE = "open(os.path.join(OUTSIDE, {name!r}), 'w').write('pwned')"

ATTACKS = [
    # ---- the user's files, and what a verdict rests on -------------------------------------
    Attack("write-outside", "files", f"attempt(lambda: {WRITE.format(name='plain')})"),
    Attack("write-home", "files",
           "attempt(lambda: open(os.path.join(HOME, 'pwned'), 'w').write('x'))"),
    Attack("delete-outside", "files", "attempt(lambda: os.remove(os.path.join(OUTSIDE, 'keep')))"),
    Attack("append-to-upstream-judge", "files",
           "attempt(lambda: open(UPSTREAM_FILE, 'a').write('\\nprint = None\\n'))"),
    Attack("append-to-the-gate", "files",
           "attempt(lambda: open(GATE_FILE, 'a').write('\\nimport os; os.system(\"id\")\\n'))"),
    Attack("chmod-the-gate", "files", "attempt(lambda: os.chmod(GATE_FILE, 0o777))"),
    Attack("write-after-reloading-os", "files", f"""
import importlib
importlib.reload(os)
attempt(lambda: os.system("echo x > " + os.path.join(OUTSIDE, "reloaded")))
attempt(lambda: {WRITE.format(name="reloaded-open")})
"""),
    Attack("write-through-posix-system", "files", """
import posix
attempt(lambda: posix.system("touch " + os.path.join(OUTSIDE, "posix")))
"""),
    Attack("write-through-ctypes-system", "files", """
import ctypes
attempt(lambda: ctypes.CDLL(None).system(("touch " + os.path.join(OUTSIDE, "ctypes")).encode()))
"""),
    Attack("write-through-a-reimported-subprocess", "files", """
sys.modules.pop("subprocess", None)
import subprocess
attempt(lambda: subprocess.run(["touch", os.path.join(OUTSIDE, "subprocess")], timeout=20))
"""),
    Attack("write-from-a-spawned-python", "files",
           f"spawn_python({WRITE.format(name='spawned')!r})"),
    Attack("write-the-hosts-tmp", "files",
           "attempt(lambda: open(HOST_TMP_FILE, 'w').write('x'))"),
    Attack("write-through-a-symlink", "files", """
attempt(lambda: os.symlink(OUTSIDE, "/tmp/outside-link"))
attempt(lambda: open("/tmp/outside-link/symlinked", "w").write("x"))
"""),
    Attack("remount-read-write", "files", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER, CLONE_NEWNS, MS_REMOUNT, MS_BIND = 0x10000000, 0x00020000, 32, 4096
libc.unshare(CLONE_NEWUSER | CLONE_NEWNS)
folder = os.path.dirname(UPSTREAM_FILE).encode()
libc.mount(None, folder, None, MS_REMOUNT | MS_BIND, None)
attempt(lambda: open(UPSTREAM_FILE, 'a').write('\\nprint = None\\n'))
"""),
    Attack("write-through-proc-1-root", "files",
           "attempt(lambda: open(f'/proc/1/root{OUTSIDE}/p1root', 'w').write('x'))"),
    Attack("write-the-kernels-hostname", "files",
           "attempt(lambda: open('/proc/sys/kernel/hostname', 'w').write('pwned'))"),
    Attack("set-the-hostname", "files", """
import ctypes
ctypes.CDLL(None).sethostname(b"pwned", 5)
"""),
    Attack("write-dev-shm", "files",
           "attempt(lambda: open('/dev/shm/lcb-' + MARKED[next(iter(MARKED))], 'w').write('x'))"),
    # ---- secrets ---------------------------------------------------------------------------
    Attack("read-an-environment-secret", "secrets",
           "leak(os.environ.get(SECRET_NAME), dict(os.environ))"),
    Attack("read-a-secret-under-home", "secrets",
           "leak(open(os.path.join(HOME, '.secret')).read())"),
    Attack("scan-procs-environments", "secrets", """
found = []
for pid in os.listdir("/proc"):
    try:
        found.append(open(f"/proc/{pid}/environ", "rb").read())
    except Exception:
        pass
leak(found)
"""),
    Attack("read-the-host-process-environment", "secrets",
           "leak(open(f'/proc/{HOST_PID}/environ', 'rb').read())"),
    Attack("read-the-host-process-memory", "secrets", """
maps = open(f"/proc/{HOST_PID}/maps").read()
leak(open(f"/proc/{HOST_PID}/mem", "r+b").read(16), maps)
"""),
    Attack("read-a-spawned-childs-environment", "secrets",
           "import subprocess\nleak(subprocess.run(['env'], capture_output=True).stdout)"),
    Attack("read-etc-shadow", "secrets", "leak(open('/etc/shadow').read())"),
    Attack("read-a-file-outside", "secrets", "leak(open(os.path.join(OUTSIDE, 'keep')).read())"),
    Attack("list-the-outside", "secrets", "leak(os.listdir(OUTSIDE), os.listdir(HOME))"),
    # ---- the network -----------------------------------------------------------------------
    Attack("connect-socket", "network", """
import socket
attempt(lambda: socket.create_connection(("127.0.0.1", PORT), timeout=2).sendall(b"pwned"))
"""),
    Attack("connect-raw-_socket", "network", """
import _socket
def go():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(("127.0.0.1", PORT))
attempt(go)
"""),
    Attack("connect-the-patched-class-base", "network", """
import socket
def go():
    base = socket.socket.__mro__[-2]  # _socket.socket under any subclass patched over it
    s = base(socket.AF_INET, socket.SOCK_STREAM)
    s.settimeout(2)
    s.connect(("127.0.0.1", PORT))
attempt(go)
"""),
    Attack("connect-from-a-spawned-python", "network", """
spawn_python("import socket; socket.create_connection(('127.0.0.1', %d), timeout=2)" % PORT)
"""),
    Attack("send-udp", "network", """
import socket
datagrams = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
attempt(lambda: datagrams.sendto(b"pwned", ("127.0.0.1", UDP_PORT)))
"""),
    Attack("connect-abstract-unix-socket", "network", """
import socket
attempt(lambda: socket.socket(socket.AF_UNIX).connect(ABSTRACT))
"""),
    Attack("connect-unix-socket-file", "network", """
import socket
attempt(lambda: socket.socket(socket.AF_UNIX).connect(UNIX_PATH))
"""),
    # ---- processes -------------------------------------------------------------------------
    Attack("daemon-that-outlives-the-run", "processes", """
import subprocess
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                 env=dict(os.environ, **MARKED), start_new_session=True)
"""),
    Attack("fork-bomb", "processes", """
import importlib, signal
importlib.reload(os)
started = 0
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(600)"], MARKED)
    started += 1
leak(f"forked {started}")
"""),
    Attack("unshare-a-user-namespace", "processes", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000) == 0:
    leak("created a user namespace")
"""),
    Attack("signal-every-visible-process", "processes", """
import signal
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit()]:
    if pid != os.getpid():
        attempt(lambda: os.kill(pid, signal.SIGSTOP))
"""),
    # ---- verdicts: regrade's answer channel ------------------------------------------------
    Attack("write-answers-into-the-grading-process-pipes", "verdicts", """
forged = b'{"graded": [true], "metadata": "{}", "passed": true}\\n' * 3
for pid in [p for p in os.listdir("/proc") if p.isdigit()]:
    try:
        descriptors = os.listdir(f"/proc/{pid}/fd")
    except OSError:
        continue
    for fd in descriptors:
        try:
            out = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            os.write(out, forged)
            os.close(out)
        except OSError:
            pass
""", routes=("grading",)),
    Attack("write-a-siblings-result-pipe", "verdicts", """
import pickle
forged = pickle.dumps(([True], {"execution time": 0.0}))
time.sleep(0.5)  # the siblings are running by now
for pid in [p for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    for fd in (3, 4, 5, 6, 7, 8):
        try:
            out = os.open(f"/proc/{pid}/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK)
            os.write(out, forged)
            os.close(out)
        except OSError:
            pass
""", routes=("grading",)),
    Attack("ptrace-a-sibling", "verdicts", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
PTRACE_ATTACH = 16
time.sleep(0.5)
for pid in [int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid()]:
    if libc.ptrace(PTRACE_ATTACH, pid, None, None) == 0:
        leak("attached to", pid)
""", routes=("grading",)),
]


# The routes that run untrusted code (test_containment.run_route); every attack runs on the
# first three, the other two (the same sandbox, other callers) take the core of each kind.
ROUTES = ("judge", "upstream-judge", "grading", "impl-cmd", "impl-child")
EVERY_ATTACK = ("judge", "grading", "impl-cmd")
CORE = {"write-outside", "write-through-ctypes-system", "read-an-environment-secret",
        "connect-socket", "daemon-that-outlives-the-run"}  # fmt: skip


def cases() -> list[tuple[str, Attack]]:
    """(route, attack) for every run of the corpus."""
    return [
        (route, attack)
        for attack in ATTACKS
        for route in attack.routes
        or [r for r in ROUTES if r in EVERY_ATTACK or attack.name in CORE]
    ]


def summary() -> str:
    routes = [route for route in ROUTES if any(r == route for r, _ in cases())]
    return (f"hostile corpus: {len(ATTACKS)} attacks, {len(cases())} runs over {len(routes)} "
            f"routes ({', '.join(routes)}), each held to no effect outside")  # fmt: skip
