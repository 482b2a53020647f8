"""The maintainers' workshop, not shipped in the wheel: the docs' figures, mutation testing,
the Hypothesis profiles of the repository's tests, the peers page (tox installs it)."""
