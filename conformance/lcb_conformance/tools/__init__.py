"""Developer tooling, not part of a verdict: mutation testing, Hypothesis profiles, the docs'
figures."""
