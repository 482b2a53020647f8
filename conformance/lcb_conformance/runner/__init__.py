"""The case runner: every case of the index (and the API contract's) run against an
implementation, one typed result per case, streamed to a JSON-lines results file that every
view (the console verdict, the JSON and HTML reports, the peers page, the pytest plugin) reads.
"""
