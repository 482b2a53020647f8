"""Adapters that put other LiveCodeBench harnesses ("peers") under the conformance suite.

One module per peer, each calling the peer's own installed code (never a re-typed copy of its
prompt): nvidia_generic_oai, evalscope_lcb, lighteval_lcb, opencompass_lcb,
opencompass_scenarios, skythought_lcb (served from Python 3.10 over --impl-cmd), verl_prime_code,
skyrl_gym_lcb. Each declares
STYLES (the lcb_runner style it claims to follow), PEER, DISTRIBUTION and FOLLOWS (how its
calls map onto that style). Run one with ``tox -e peer-<name>`` or
``lcb-conformance --impl peers.<module>``; docs/peers.md compares them all.
"""
