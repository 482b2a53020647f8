"""What the benchmarks share: the CPU of a process's finished children (sandboxes
included); the head of the JSON record the regrade benchmarks write (date, command, machine,
the lcb_runner it ran), which the docs figures read (dev/lcb_conformance_dev); and the
writing of every record, whole or not at all."""

from __future__ import annotations

import json
import os
import platform
import resource
import sys
import time

from lcb_conformance.adapters import untrusted
from lcb_conformance.common import report_files
from lcb_conformance.upstream import Upstream


def children_cpu() -> float:
    """CPU time of this process's finished children, the contained ones counted by their
    cgroup (wait() does not pass a sandbox's usage up)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime + untrusted.contained_cpu_seconds()


def record_head(script: str, load_at_start: tuple, upstream: Upstream, date_format: str,
                **machine) -> dict:  # fmt: skip
    """The record's first fields: when it finished, the command that wrote it (this
    process's arguments), the machine (its CPUs and 1-minute load at the start and now, its
    Python, and ``machine``'s other fields) and the upstream it graded with."""
    return {
        "date": time.strftime(date_format, time.gmtime()),
        "command": f"python bench/{script} " + " ".join(sys.argv[1:]),
        "machine": {
            "cpus": os.cpu_count(),
            "load_1min_at_start": round(load_at_start[0], 2),
            "load_1min_at_end": round(os.getloadavg()[0], 2),
            "python": platform.python_version(),
            **machine,
        },
        "upstream": upstream.provenance(),
    }


def write_record(path, record: dict) -> None:
    """The record as the figures read it (indented JSON), at ``path`` whole or not at all: a
    benchmark stopped while writing leaves the previous record."""
    report_files.write_atomically(path, json.dumps(record, indent=1) + "\n")
