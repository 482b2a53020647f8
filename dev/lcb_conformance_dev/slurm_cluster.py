"""A single-node Slurm cluster of this machine, started and stopped for `tox -e slurm`
(docs/regrade-slurm.md). Debian's slurm-wlm and munge are installed with apt-get when absent;
a slurm.conf, a munge key and every daemon's state live in one directory; munged, slurmctld
and slurmd are started there and stopped again, leaving nothing running.

    python -m lcb_conformance_dev.slurm_cluster run -- COMMAND...   # up, COMMAND, down always
    python -m lcb_conformance_dev.slurm_cluster up DIR | down DIR

COMMAND runs with SLURM_CONF naming the cluster's slurm.conf; its exit code is run's."""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PACKAGES = ("slurm-wlm", "munge")
NEEDED = ("munged", "mungekey", "slurmctld", "slurmd", "sinfo", "sbatch", "squeue", "scancel")
SBIN = "/usr/sbin"
# started last first when stopping: slurmd, then the controller, then munge
DAEMONS = ("munged", "slurmctld", "slurmd")
IDLE_WITHIN = 90  # seconds for the node to come up idle
STOP_WITHIN = 20  # seconds a daemon gets after SIGTERM, before SIGKILL

CONF = """\
ClusterName=lcbconformance
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={dir}/munge/munge.socket
StateSaveLocation={dir}/state
SlurmdSpoolDir={dir}/spool
SlurmctldPidFile={dir}/slurmctld.pid
SlurmdPidFile={dir}/slurmd.pid
SlurmctldLogFile={dir}/slurmctld.log
SlurmdLogFile={dir}/slurmd.log
SlurmctldPort={port}
SlurmdPort={slurmd_port}
# no cgroups: processes tracked through /proc, no task binding
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
{node} NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=main Nodes={name} Default=YES MaxTime=INFINITE State=UP
"""


def install() -> None:
    """Debian's packages, when a program of theirs is missing (root, the package mirror)."""
    if all(shutil.which(name) or Path(SBIN, name).exists() for name in NEEDED):
        return
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", *PACKAGES], check=True, env=env)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _node_line() -> str:
    """This machine as slurmd sees it (CPUs, sockets, cores, memory): `slurmd -C`'s node line."""
    found = subprocess.run([f"{SBIN}/slurmd", "-C"], check=True, capture_output=True, text=True)
    return found.stdout.splitlines()[0]


def write_config(folder: Path) -> Path:
    for name in ("munge", "state", "spool"):
        (folder / name).mkdir(mode=0o700, parents=True, exist_ok=True)
    node = _node_line()
    name = node.split()[0].removeprefix("NodeName=")
    conf = folder / "slurm.conf"
    host = socket.gethostname().split(".")[0]
    conf.write_text(CONF.format(host=host, dir=folder, node=node, name=name, port=_free_port(),
                                slurmd_port=_free_port()))  # fmt: skip
    return conf


def _environment(folder: Path) -> dict[str, str]:
    return {**os.environ, "SLURM_CONF": str(folder / "slurm.conf")}


def _start_daemons(folder: Path) -> None:
    munge = folder / "munge"
    key = munge / "munge.key"
    subprocess.run([f"{SBIN}/mungekey", "--create", f"--keyfile={key}"], check=True)
    subprocess.run([f"{SBIN}/munged", "--force", f"--socket={munge}/munge.socket",
                    f"--key-file={key}", f"--pid-file={folder}/munged.pid",
                    f"--log-file={munge}/munged.log", f"--seed-file={munge}/munged.seed"],
                   check=True)  # fmt: skip
    env = _environment(folder)
    conf = str(folder / "slurm.conf")
    # -i: a fresh controller ignores state it finds (there is none the first time)
    subprocess.run([f"{SBIN}/slurmctld", "-f", conf, "-i"], check=True, env=env)
    subprocess.run([f"{SBIN}/slurmd", "-f", conf], check=True, env=env)


def _wait_idle(folder: Path) -> None:
    env = _environment(folder)
    deadline = time.monotonic() + IDLE_WITHIN
    state = ""
    while time.monotonic() < deadline:
        shown = subprocess.run(["sinfo", "-h", "-N", "-o", "%t"], env=env, capture_output=True,
                               text=True)  # fmt: skip
        state = shown.stdout.strip()
        if shown.returncode == 0 and state == "idle":
            return
        time.sleep(1)
    raise RuntimeError(f"the node is not idle after {IDLE_WITHIN} s (sinfo: {state!r}); "
                       f"see {folder}/slurmctld.log and slurmd.log")  # fmt: skip


def up(folder: Path) -> None:
    """Install what is missing, write the cluster's files in ``folder``, start its daemons
    and wait for the node to be idle; on any failure stop what was started."""
    install()
    write_config(folder)
    try:
        _start_daemons(folder)
        _wait_idle(folder)
    except BaseException:
        down(folder)
        raise
    print(f"slurm: node idle, SLURM_CONF={folder / 'slurm.conf'}", flush=True)


def _pid(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _stop(pid: int) -> None:
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + STOP_WITHIN
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _alive(pid):
        os.kill(pid, signal.SIGKILL)


def _cancel_jobs(folder: Path) -> None:
    """Every job of the cluster cancelled and gone, so no slurmstepd outlives slurmd."""
    env = _environment(folder)
    if _pid(folder / "slurmctld.pid") is None:
        return
    subprocess.run(["scancel", "--full", "--user", "root"], env=env, capture_output=True)
    deadline = time.monotonic() + STOP_WITHIN
    while time.monotonic() < deadline:
        queued = subprocess.run(["squeue", "-h", "-o", "%i"], env=env, capture_output=True,
                                text=True)  # fmt: skip
        if queued.returncode != 0 or not queued.stdout.strip():
            return
        time.sleep(0.5)


def down(folder: Path) -> None:
    """Stop the cluster's jobs and daemons (by their pid files in ``folder``)."""
    _cancel_jobs(folder)
    for name in reversed(DAEMONS):
        pid = _pid(folder / f"{name}.pid")
        if pid is not None and _alive(pid):
            _stop(pid)
    print("slurm: stopped", flush=True)


def run(command: list[str]) -> int:
    folder = Path(tempfile.mkdtemp(prefix="lcb-slurm-"))
    # a SIGTERM (tox's, on a timeout or interrupt) unwinds through the finally too
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        up(folder)
        return subprocess.run(command, env=_environment(folder)).returncode
    finally:
        down(folder)
        shutil.rmtree(folder, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="slurm_cluster", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="action", required=True)
    commands.add_parser("run").add_argument("command", nargs="+")
    for action in ("up", "down"):
        commands.add_parser(action).add_argument("dir", type=Path)
    args = parser.parse_args(argv)
    if args.action == "run":
        return run(args.command)
    (up if args.action == "up" else down)(args.dir.resolve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
