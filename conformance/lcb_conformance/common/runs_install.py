"""The one install `audit`, `score` and `regrade` share beyond the gate, and the command line
that adds it, named by every refusal that finds a piece of it missing (docs/install.md).

What those commands need that a verdict does not: the upstream extra (lcb_runner's own imports:
anthropic < 1, datasets, so pyarrow for lighteval's parquet details, numpy, pandas), and the
offline stand-in for lcb_runner, nvidia-livecodebench, installed without its requirements:
they are every API client lcb_runner can call (cohere, google-genai, mistralai==0.4.2 exactly,
openai) and nemo-evaluator, none of which a run's check imports. Standard library only:
dev/first_verdict.py imports it from a clone before anything is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

from lcb_conformance.common import paths

EXTRA = "upstream"
STAND_IN_DISTRIBUTION = "nvidia-livecodebench"
# tox.ini's [upstream] install pins the same (test_runs_install.py holds them equal)
STAND_IN = f"{STAND_IN_DISTRIBUTION}==26.3"
# dev/first_verdict.py's option: adds both to the checkout's .venv
FIRST_VERDICT_OPTION = "--runs"
IN_CHECKOUT = f"python3 dev/first_verdict.py {FIRST_VERDICT_OPTION}"
# pip's --no-deps applies to a whole command line: two installs, one line
WITH_PIP = f"pip install 'lcb-conformance[{EXTRA}]' && pip install --no-deps {STAND_IN}"


def command() -> str:
    """The command line that installs it into the environment running this one: the checkout's
    .venv (first_verdict's) grows by first_verdict's option, any other by pip."""
    if paths.CHECKOUT and Path(sys.prefix).resolve() == (paths.CHECKOUT / ".venv").resolve():
        return IN_CHECKOUT
    return WITH_PIP
