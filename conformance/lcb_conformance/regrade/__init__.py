"""`lcb-conformance regrade`: a finished run's raw outputs re-extracted and re-judged by
lcb_runner's own code on LiveCodeBench's published dataset, the comparable number, and per
problem what the harness did differently; in slices for a batch scheduler's job array."""
