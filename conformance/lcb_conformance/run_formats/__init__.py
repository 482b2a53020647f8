"""Finished runs, one module per log format: each reads a run's samples (what was sent, the
raw output, what the harness scored and its own verdict, the problem's name) streamed, for
every command that reads a run (audit, score, regrade); registry.py tells the format."""
