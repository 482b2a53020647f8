"""The audit of a finished evaluation run (`lcb-conformance audit`): its samples, read from
lcb_runner's results or another harness's logs, against lcb_runner's prompt and extraction,
with its text, JSON and HTML reports."""
