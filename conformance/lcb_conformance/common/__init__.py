"""Shared I/O of every command: where the suite's files are, JSON streaming, report files written
whole, the exit codes, readable text differences."""
