"""lcb_runner itself: loading it (source), producing goldens from it (producers, regen), and
what it says today (drift, resolver, differential, the comparability matrix, the judge)."""

from lcb_conformance.upstream.source import (
    CHECKOUT_HINT,
    INSTALLED,
    INSTALLED_DISTRIBUTION,
    PINNED_COMMIT,
    REPOSITORY,
    Upstream,
    UpstreamMissing,
    UpstreamSourceError,
)

__all__ = [
    "CHECKOUT_HINT",
    "INSTALLED",
    "INSTALLED_DISTRIBUTION",
    "PINNED_COMMIT",
    "REPOSITORY",
    "Upstream",
    "UpstreamMissing",
    "UpstreamSourceError",
]
