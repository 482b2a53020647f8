"""The `ci` and `long` Hypothesis profiles, chosen with the HYPOTHESIS_PROFILE environment
variable.

ci (default)  derandomized: every run draws the same examples, so a red run is the code's
              doing and a rerun reproduces it; no example database; the budgets that keep the
              suite fast (100 examples unless a test sets its own).
long          local bug hunting: random examples, 20x the budget, failures saved to
              .hypothesis/ and replayed first on the next run.
              HYPOTHESIS_PROFILE=long pytest -m upstream conformance/tests/test_differential_fuzz.py

Both print the ``@reproduce_failure`` blob of a failure. Tests that scale their budget read
``settings.default.max_examples`` (see test_differential_fuzz.py).
"""

from __future__ import annotations

import os

from hypothesis import settings

ENV = "HYPOTHESIS_PROFILE"
DEFAULT = "ci"

settings.register_profile(
    "ci", max_examples=100, derandomize=True, database=None, deadline=None, print_blob=True
)
settings.register_profile("long", max_examples=2000, deadline=None, print_blob=True)


def load() -> str:
    """Load the profile named by $HYPOTHESIS_PROFILE ("ci" when unset); returns its name."""
    name = os.environ.get(ENV) or DEFAULT
    settings.load_profile(name)
    return name
