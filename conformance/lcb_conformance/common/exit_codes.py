"""The exit codes of every subcommand: one meaning each, everywhere (docs/verdict.md).

    0  OK            comparable, consistent, identical: nothing to act on
    1  DIFFERS       something differs from lcb_runner (or a check asked for failed)
    2  UNUSABLE      the adapter or an input is unusable; one line on stderr says why
    3  SUITE_BROKEN  the suite itself cannot run here (its data missing: an incomplete install)
    4  INCOMPLETE    nothing differs in what was checked, but not everything asked for was:
                     the run did not finish, or a family the implementation provides could
                     not be run on its route; never a green
    6  REPORT_NOT_WRITTEN  the verdict was printed, but a report asked for was not written
                     (or stdout was closed by its reader before all was printed: cli.py)
"""

from collections.abc import Collection

OK = 0
DIFFERS = 1
UNUSABLE = 2
SUITE_BROKEN = 3
INCOMPLETE = 4
REPORT_NOT_WRITTEN = 6


def of_checks(codes: Collection[int]) -> int:
    """The exit code of several checks run to the end: DIFFERS if one differs, else INCOMPLETE
    if one could not be made, else OK."""
    for code in (DIFFERS, INCOMPLETE):
        if code in codes:
            return code
    return OK
