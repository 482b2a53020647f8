"""lcb-conformance: proves a LiveCodeBench harness leaderboard-comparable.

Layers, each importing only those before it: suite (fixture cases, goldens, integrity) <-
upstream (lcb_runner itself: goldens produced from it, drift, resolver) <- reports (verdict
cells, JSON/HTML reports, the peers page) <- cli (the lcb-conformance command). adapters (how
an implementation plugs in) sits beside them; tools (mutation testing, Hypothesis profiles)
apart. docs/layout.md lists every module.
"""
