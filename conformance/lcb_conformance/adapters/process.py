"""`--impl-cmd CMD`: an implementation in another process, over JSON lines, with time and memory
limits.

An implementation in another process: ``--impl-cmd "CMD ..."`` runs any program (another
Python, another language, a harness with torch) that speaks JSON lines on stdin/stdout; a
Python adapter in its own environment is served by :mod:`lcb_conformance.adapters.jsonl_server`,
run by path with that environment's interpreter.

Protocol 1 (docs/impl-cmd.md; JSON Schema: docs/adapter-protocol.schema.json). The
suite writes one request a line and reads one response a line:

    {"id": 1, "function": "describe", "args": {}}
    -> {"id": 1, "result": {"provides": ["extract_code"], "styles": null, "deviations": []}}
    {"id": 2, "function": "extract_code", "args": {"model_output": "...", "style": "generic"}}
    -> {"id": 2, "result": "print(1)"}      or      {"id": 2, "error": {"type": "ValueError",
                                      "module": "builtins", "message": "unknown style"}}

Arguments are JSON values with the fixture values inlined; bytes are {"$bytes": "<hex>"}, a
value JSON cannot carry (an object a bad-input test passes) is {"$object": "<repr>"}, and a
tokenizer is its repo id (the program loads it itself; HF_HOME points at the suite's offline
cache). An error's type is raised here as the built-in exception of that name (so bad-input
tests see TypeError, ValueError, ...), the protocol's not-provided answer ("NotProvided" with no
module: implementation.not_provided) as not provided; the error object itself
(type, module, message) stays on the exception as its ``record``, the data the suite decides
from (implementation.raised).

The program is untrusted: it runs in a temporary directory, under an address-space limit,
contained by :class:`lcb_conformance.adapters.untrusted.Contained` (no network, none of the
user's files or variables; when it is stopped, every process it started goes with it), and
each request has a time limit. A program that exits,
hangs or answers garbage fails that case with a message saying so (and its stderr's last
lines); the next call starts it afresh.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import json
import os
import selectors
import shlex
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from lcb_conformance.adapters import implementation
from lcb_conformance.adapters.implementation import NOT_PROVIDED, NotProvided
from lcb_conformance.adapters.jsonl_server import PARAMETERS, PROTOCOL
from lcb_conformance.adapters.untrusted import Contained
from lcb_conformance.offline_tokenizers import hf_cache

DEFAULT_TIMEOUT = 60.0  # seconds per request (a first call may load a tokenizer)
DEFAULT_MEMORY_MB = 4096  # address space of the program
STDERR_TAIL = 1200  # characters of the program's stderr quoted in an error


class AdapterProcessError(RuntimeError):
    """The adapter program crashed, hung, or broke the protocol."""


class RemoteError(Exception):
    """The program reported an error whose type is not a built-in exception."""


def encode(value):
    """A call argument as JSON: bytes and values JSON cannot carry tagged (module docstring)."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, bytes | bytearray):
        return {"$bytes": bytes(value).hex()}
    if isinstance(value, list | tuple):
        return [encode(item) for item in value]
    if isinstance(value, dict) and all(isinstance(key, str) for key in value):
        return {key: encode(item) for key, item in value.items()}
    repo_id = getattr(value, "name_or_path", None)  # a tokenizer crosses by its repo id
    if isinstance(repo_id, str):
        return repo_id
    return {"$object": repr(value)[:200]}


def decode_result(function: str, result):
    """A result as Python has it: Claude3's (system, messages) pair crosses JSON as the array
    [system, messages] (a list of messages never starts with a string)."""
    if (
        function == "format_lcb_messages"
        and isinstance(result, list)
        and len(result) == 2
        and isinstance(result[0], str)
    ):
        return tuple(result)
    return result


class ProcessAdapter:
    """The adapter object of an --impl-cmd program: an attribute per function it provides."""

    def __init__(self, command: str, timeout: float = DEFAULT_TIMEOUT,
                 memory_mb: int = DEFAULT_MEMORY_MB, environment: dict | None = None):  # fmt: skip
        self.command = command
        self.environment = environment or {}  # for the program, beyond the suite's own
        # it runs in a temporary directory: a path given relative to here is made absolute
        # (not resolved: a virtual environment's python is a symlink that must stay one)
        self.argv = [
            os.path.abspath(arg) if not os.path.isabs(arg) and os.path.exists(arg) else arg
            for arg in shlex.split(command)
        ]
        if not self.argv:
            raise ValueError("--impl-cmd: empty command")
        self.timeout = timeout
        self.memory_mb = memory_mb
        self.workdir = Path(tempfile.mkdtemp(prefix="lcb-impl-cmd-"))
        self._process: Contained | None = None
        self._buffer = b""
        self._next_id = 0
        atexit.register(self.remove)
        # the functions the suite may call: the server answers which of them it has
        described = self.request("describe", {"functions": list(implementation.functions())})
        if not isinstance(described, dict) or not isinstance(described.get("provides"), list):
            raise AdapterProcessError(
                f"--impl-cmd {command}: describe must return "
                f'{{"provides": [...], "styles": [...] or null, "deviations": [...]}}; '
                f"got {described!r:.200}"
            )
        self.provides = tuple(name for name in described["provides"] if isinstance(name, str))
        self.STYLES = described.get("styles")
        self.DEVIATIONS = tuple(described.get("deviations") or ())

    def __getattr__(self, function: str):
        if function not in self.__dict__.get("provides", ()):
            raise AttributeError(function)

        def call(*args, **kwargs):
            named = dict(zip(PARAMETERS.get(function, ()), args, strict=False)) | kwargs
            result = self.request(function, {name: encode(v) for name, v in named.items()})
            return decode_result(function, result)

        call.__name__ = function
        return call

    # --- the process ----------------------------------------------------------------------

    def _start(self) -> Contained:
        if self._process is None or self._process.poll() is not None:
            self.close()  # whatever a program that exited left running
            self._buffer = b""
            if shutil.which(self.argv[0]) is None:
                raise AdapterProcessError(
                    f"--impl-cmd {self.command}: cannot start {self.argv[0]} (not found, or "
                    "not executable); give a command that runs on this machine, e.g. "
                    '--impl-cmd "python3 my_adapter.py"'
                )
            with (self.workdir / "stderr.log").open("ab") as stderr:
                self._process = Contained(
                    self.argv,
                    memory_limit=self.memory_mb * 1024 * 1024,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                    read_only=[hf_cache.served_home()],
                    writable=[self.workdir],
                    cwd=self.workdir,
                    env=hf_cache.child_environment()
                    | {"LCB_CONFORMANCE_PROTOCOL": str(PROTOCOL)}
                    | self.environment,
                )
        return self._process

    def _stderr_tail(self) -> str:
        path = self.workdir / "stderr.log"
        text = path.read_text("utf-8", "replace") if path.is_file() else ""
        return f"; its stderr ends: {text[-STDERR_TAIL:]!r}" if text.strip() else ""

    def _fail(self, what: str) -> AdapterProcessError:
        self.close()
        return AdapterProcessError(f"--impl-cmd {self.command}: {what}{self._stderr_tail()}")

    def _read_line(self, process: Contained, timeout: float) -> bytes:
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while b"\n" not in self._buffer:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    raise self._fail(f"no answer within {timeout:g} s (killed)")
                chunk = os.read(process.stdout.fileno(), 1 << 16)
                if not chunk:
                    code = process.wait(timeout=5)
                    raise self._fail(f"exited with code {code} before answering")
                self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def request(self, function: str, args: dict, timeout: float | None = None):
        """Send one request and return its result, raising its error; ``timeout``: this
        request's time limit instead of the program's."""
        process = self._start()
        self._next_id += 1
        message = {"id": self._next_id, "function": function, "args": args}
        try:
            process.stdin.write(json.dumps(message).encode("ascii") + b"\n")
            process.stdin.flush()
        except OSError:  # it died before reading (a broken pipe)
            code = process.wait(timeout=5)
            raise self._fail(f"exited with code {code} before reading the request") from None
        line = self._read_line(process, timeout or self.timeout)
        try:
            response = json.loads(line)
        except ValueError:
            raise self._fail(f"answered a line that is not JSON: {line[:200]!r}") from None
        if not isinstance(response, dict) or response.get("id") != self._next_id:
            raise self._fail(f"answered {line[:200]!r}, not a response to request {message['id']}")
        if "error" in response:
            raise _exception(response["error"] if isinstance(response["error"], dict) else {})
        if "result" not in response:
            raise self._fail(f"answered {line[:200]!r}: neither result nor error")
        return response["result"]

    def close(self) -> None:
        """Stop the program and every process it started (the next request starts it
        again)."""
        process, self._process = self._process, None
        if process is not None:
            process.stop()
            for stream in (process.stdin, process.stdout):
                with contextlib.suppress(OSError):  # a write the program never read
                    stream.close()

    def remove(self) -> None:
        """Stop the program and remove its directory (at exit, or when done with it)."""
        self.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _exception(error: dict) -> Exception:
    """The exception an error object stands for, the object kept on it as its ``record``."""
    name, module = str(error.get("type")), error.get("module")
    record = {
        "type": name,
        "module": module if isinstance(module, str) else None,
        "message": str(error.get("message", "")),
    }
    found = getattr(builtins, name, None) if record["module"] in (None, "builtins") else None
    if implementation.not_provided(record):
        exception = NotProvided(record["message"] or f"the program {NOT_PROVIDED} it")
    elif isinstance(found, type) and issubclass(found, Exception):
        exception = found(record["message"])
    else:
        exception = RemoteError(f"{name}: {record['message']}")
    exception.record = record
    return exception


def load_command(
    command: str, timeout: float = DEFAULT_TIMEOUT, memory_mb: int = DEFAULT_MEMORY_MB
) -> implementation.Implementation:
    """The implementation an --impl-cmd program serves (ImportError when it cannot)."""
    try:
        adapter = ProcessAdapter(command, timeout, memory_mb)
    except (AdapterProcessError, ValueError) as error:
        raise ImportError(str(error)) from error
    if not adapter.provides:
        adapter.close()
        raise ImportError(
            f"--impl-cmd {command}: describe lists none of {', '.join(implementation.functions())}"
        )
    return implementation.wrap(f"cmd: {command}", adapter)
