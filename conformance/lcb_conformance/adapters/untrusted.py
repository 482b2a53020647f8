"""Untrusted programs (the judge's child, `--impl-cmd` programs) under a supervisor: memory
limit, PID namespace where allowed, child subreaper; nothing they start outlives them (runnable
by path, standard library only).

:class:`Contained` starts a program (an ``--impl-cmd`` adapter, the judge's child running
candidate programs) under a small supervisor: this file, run by path with the suite's Python
(``python -I -S untrusted.py [--memory-limit BYTES] [--no-pid-namespace] -- ARGV...``,
standard library only). The supervisor

- sets the address-space limit (RLIMIT_AS) that the program and its children inherit;
- makes itself a child subreaper (``prctl(PR_SET_CHILD_SUBREAPER)``), so a process the program
  orphans -- a double fork, a ``setsid`` daemon -- is re-parented to it, not to init;
- where the kernel allows (root, or unprivileged user namespaces), starts the program inside a
  new PID namespace whose first process (the namespace's init) is the supervisor's own fork:
  when it exits, the kernel kills every process in the namespace, and no process inside can
  see, signal or outlive the supervisor's side;
- when the program exits, or when asked to stop (SIGTERM, :meth:`Contained.stop`), kills every
  descendant with SIGKILL -- found by walking /proc by parent pid, again until none is left --
  and reaps them, then exits as the program did (its exit code, or its signal).

:meth:`Contained.stop` also kills any process still carrying the run's token in its environment
(``LCB_CONFORMANCE_CONTAINED``): one that escaped a supervisor killed from inside. What remains
possible is in docs/judge-sandbox.md ("Running untrusted code").

Processes are signalled through a pidfd opened after checking the pid still names the process
that was found (its start time), so a recycled pid is never hit. Linux only (/proc, prctl).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import resource
import secrets
import signal
import subprocess
import sys
from pathlib import Path

SUPERVISOR = Path(__file__).resolve()
# Set in the program's environment, one random value per Contained: what stop() sweeps for.
TOKEN_VARIABLE = "LCB_CONFORMANCE_CONTAINED"
# Seconds stop() gives the supervisor to kill everything before it kills its process group.
STOP_GRACE_SECONDS = 10.0
# The PID namespace layer, where the kernel allows it (tests turn it off to check the rest).
PID_NAMESPACE = True

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
# What Python ignores in itself and a program must not inherit (subprocess' restore_signals).
RESTORED_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
EXIT_CANNOT_START = 127
# wait statuses (signal number in the low bits)
KILLED_BY_SIGKILL, KILLED_BY_SIGTERM = int(signal.SIGKILL), int(signal.SIGTERM)


class Contained(subprocess.Popen):
    """``argv`` run under the supervisor, a ``subprocess.Popen`` of it (pipes, ``poll``,
    ``wait``): its exit code is the program's. Call :meth:`stop` when done with it."""

    def __init__(self, argv: list[str], *, memory_limit: int | None = None,
                 env: dict[str, str] | None = None, **popen_arguments):  # fmt: skip
        self.token = f"{TOKEN_VARIABLE}={secrets.token_hex(16)}"
        environment = dict(os.environ if env is None else env)
        environment[TOKEN_VARIABLE] = self.token.partition("=")[2]
        options = [f"--memory-limit={memory_limit}"] if memory_limit else []
        if not PID_NAMESPACE:
            options.append("--no-pid-namespace")
        super().__init__(
            [sys.executable, "-I", "-S", str(SUPERVISOR), *options, "--", *argv],
            env=environment,
            start_new_session=True,
            **popen_arguments,
        )

    def stop(self) -> None:
        """Kill the program and every process it started; return when they are gone."""
        if self.poll() is None:
            self.send_signal(signal.SIGTERM)
            try:
                self.wait(STOP_GRACE_SECONDS)
            except subprocess.TimeoutExpired:  # the supervisor is stuck: its group, at least
                os.killpg(self.pid, signal.SIGKILL)
                self.wait()
        while escaped := carrying(self.token):
            for found in escaped:
                kill(*found)


# ---- processes, from /proc ---------------------------------------------------------------


def _stat(pid: int | str) -> tuple[int, int] | None:
    """(parent pid, start time) of a process, None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stream:
            fields = stream.read().rpartition(b")")[2].split()
    except OSError:
        return None
    return int(fields[1]), int(fields[19])


def _pids() -> list[int]:
    return [int(name) for name in os.listdir("/proc") if name.isdigit()]


def descendants(root: int) -> list[tuple[int, int]]:
    """(pid, start time) of every process below ``root``, by parent pid."""
    children: dict[int, list[tuple[int, int]]] = {}
    for pid in _pids():
        found = _stat(pid)
        if found is not None:
            children.setdefault(found[0], []).append((pid, found[1]))
    below, queue = [], [root]
    while queue:
        for child in children.get(queue.pop(), ()):
            below.append(child)
            queue.append(child[0])
    return below


def carrying(entry: str) -> list[tuple[int, int]]:
    """(pid, start time) of every process (of this user) whose environment holds ``entry``
    ("NAME=value"), this one excepted."""
    wanted = entry.encode()
    found = []
    for pid in _pids():
        if pid == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as stream:
                environment = stream.read().split(b"\0")
        except OSError:  # gone, or another user's
            continue
        stat = _stat(pid)
        if wanted in environment and stat is not None:
            found.append((pid, stat[1]))
    return found


def kill(pid: int, started: int) -> None:
    """SIGKILL the process ``pid`` if it is still the one that started at ``started``."""
    try:
        descriptor = os.pidfd_open(pid)
    except ProcessLookupError:
        return
    try:
        found = _stat(pid)
        if found is not None and found[1] == started:
            signal.pidfd_send_signal(descriptor, signal.SIGKILL)
    except ProcessLookupError:
        pass
    finally:
        os.close(descriptor)


# ---- the supervisor (this file run as a program) ---------------------------------------------


class _Stopped(Exception):
    """SIGTERM: the caller wants everything gone."""


def _stopped(signum, frame):
    raise _Stopped


def _detach() -> None:
    """Let go of the caller's standard streams: the caller sees end of file on its pipes
    when the program's side is gone."""
    null = os.open(os.devnull, os.O_RDWR)
    for descriptor in (0, 1, 2):
        os.dup2(null, descriptor)
    os.close(null)


def _run(argv: list[str]) -> int:
    """Start the program, leave it the standard streams, and return its wait status (orphans
    re-parented here meanwhile are reaped)."""
    try:
        child = os.posix_spawnp(argv[0], argv, os.environ, setsigdef=RESTORED_SIGNALS)
    except OSError as error:
        print(f"lcb-conformance: cannot start {argv[0]}: {error.strerror}", file=sys.stderr)
        return EXIT_CANNOT_START << 8
    _detach()
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            return status


def _kill_descendants() -> None:
    """SIGKILL every process below this one, again until none is left, and reap them."""
    try:
        if os.readlink("/proc/self") != str(os.getpid()):
            return  # /proc is another PID namespace's: its pids are not ours
    except OSError:
        return
    while below := descendants(os.getpid()):
        for found in below:
            kill(*found)
        try:
            os.waitpid(-1, 0)  # one of the killed children (its orphans come here next)
            while os.waitpid(-1, os.WNOHANG)[0]:
                pass
        except ChildProcessError:
            pass


def _enter_pid_namespace(libc) -> bool:
    """Make the next child the first process of a new PID namespace, if the kernel allows."""
    if libc.unshare(CLONE_NEWPID) == 0:
        return True
    uid, gid = os.geteuid(), os.getegid()
    if libc.unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0:
        return False
    # the user's own ids, unchanged inside (without a map they read as nobody)
    for name, line in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):  # fmt: skip
        try:
            Path(f"/proc/self/{name}").write_text(line)
        except OSError:
            break
    return True


def _namespace_init(libc, argv: list[str], report: int) -> None:
    """The first process of the new PID namespace: runs the program, writes its wait status
    to ``report`` and exits, which makes the kernel kill everything left in the namespace."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # init ignores it from inside the namespace
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the supervisor gone: all go
    try:
        os.write(report, str(_run(argv)).encode())
    finally:
        os._exit(0)


def _exit_as(status: int) -> None:
    """Exit as the program did: its exit code, or killed by its signal."""
    code = os.waitstatus_to_exitcode(status)
    if code < 0:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
        code = 128 - code
    os._exit(code)


def supervise(argv: list[str], memory_limit: int | None, pid_namespace: bool) -> None:
    if memory_limit:
        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    signal.signal(signal.SIGTERM, _stopped)
    status = KILLED_BY_SIGKILL  # a namespace's init that reported nothing was killed
    init = None
    try:
        if pid_namespace and _enter_pid_namespace(libc):
            reading, report = os.pipe()
            init = os.fork()
            if init == 0:
                os.close(reading)
                _namespace_init(libc, argv, report)
            os.close(report)
            _detach()
            os.waitpid(init, 0)
            init = None
            status = int(os.read(reading, 32) or status)
        else:
            status = _run(argv)
    except _Stopped:
        status = KILLED_BY_SIGTERM
        if init is not None:
            os.kill(init, signal.SIGKILL)  # the namespace goes with its init
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    _kill_descendants()
    _exit_as(status)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="untrusted.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory-limit", type=int, metavar="BYTES")
    parser.add_argument("--no-pid-namespace", action="store_true")
    parser.add_argument("command", nargs="+", metavar="-- ARGV")
    args = parser.parse_args(argv)
    supervise(args.command, args.memory_limit, not args.no_pid_namespace)


if __name__ == "__main__":
    main()
