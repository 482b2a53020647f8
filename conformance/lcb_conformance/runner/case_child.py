"""The child process an in-process adapter's cases run in, so the verdict outlives the adapter;
a time limit per case.

An adapter imported with ``--impl`` is Python the gate calls, and Python can end the process
calling it: ``os._exit(0)``, ``sys.exit(0)``, a crash. Called in the command's own process, it
would end the run with the code it chose, a green among them, having answered a fraction of
the cases. So the command and the pytest plugin ask each golden and contract case of an
in-process adapter of a :class:`CaseChild`: one child process (spawned: nothing inherited but
the :class:`~lcb_conformance.runner.options.Spec`), which loads the adapter from the spec and runs
the cases it is sent, one at a time, sending back each typed result. The caller waits at most
the case time limit (``--case-timeout``) for each: a case over it is killed with its child, is
its own kind of failure (``timed-out``, naming the limit), and the next case starts a fresh
child. A child that ends before answering (whatever the code, or a ``SystemExit`` the adapter
raised, which the child turns into ending) is :class:`AdapterEnded`: the run cannot finish,
and the command exits INCOMPLETE without the results file's footer.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable

DEFAULT_CASE_TIMEOUT = 120.0  # seconds: a contract property's examples, a first tokenizer load


class AdapterEnded(RuntimeError):
    """The adapter ended the process its cases run in before answering a case."""


class CaseChild:
    """One child running cases for ``serve(spec, connection)`` (run._serve_cases), started on
    the first case and again after a case over its time limit killed it."""

    def __init__(self, spec, serve: Callable, limit: float = DEFAULT_CASE_TIMEOUT):
        self.spec, self.serve, self.limit = spec, serve, limit
        self._process = None
        self._connection = None

    def _start(self):
        if self._process is None:
            context = multiprocessing.get_context("spawn")  # a fresh interpreter
            self._connection, theirs = context.Pipe()
            self._process = context.Process(
                target=self.serve, args=(self.spec, theirs), daemon=True
            )
            self._process.start()
            theirs.close()  # ours alone: its end closes when the child ends, so recv sees EOF
        return self._connection

    def ask(self, case_id: str, first_calls: dict) -> tuple[dict, dict] | None:
        """The child's (result as JSON, its first_calls) for a case, told the first calls
        decided so far (implementation.Implementation.first_calls: they hold in every child);
        None when the case ran over the time limit (the child is killed);
        AdapterEnded when the child ended before answering."""
        connection = self._start()
        try:
            connection.send((case_id, first_calls))
            if not connection.poll(self.limit):
                self.close()
                return None
            found, first_calls = connection.recv()
        except (EOFError, OSError):  # its end closed: it exited, or was killed
            self._process.join(5)
            why = f"it exited with code {self._process.exitcode}"
            found = None
        else:
            why = first_calls  # a child ending says how (SystemExit) in place of them
        if found is None:
            self.close()
            raise AdapterEnded(
                f"the adapter ended the process its cases run in ({why}) before answering "
                f"{case_id}: the run did not finish"
            )
        return found, first_calls

    def close(self) -> None:
        process, self._process = self._process, None
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(5)
            self._connection.close()
