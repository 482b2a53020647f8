"""`lcb-conformance score --claim X`: a claimed pass@1 held to the run's figures at the
claim's own precision; it holds when it is one of them and that figure covers the scope.

Compared exactly, never as floats: the figure's exact value (a fraction over its problems)
rounded to the claim's last digit is the claim, within half a unit of it; a figure exactly on
the half may be claimed either way (the leaderboard's toFixed rounds it up, Python's format to
the even digit). An integer is whole percent points ("43" is 43%: 42.5 <= figure <= 43.5;
"0", "1" likewise); a fraction is a number at most 1 with a decimal point ("0.537", as
lcb_runner writes pass@1)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction

from lcb_conformance.reports.score_figures import coverage_words, lacks_problems
from lcb_conformance.reports.score_run import RunError

PERCENT = Decimal(100)


@dataclass(frozen=True)
class Claim:
    """A claimed pass@1 as given: its value in percent and its precision (the unit of its last
    digit, in percent points)."""

    text: str
    percent: Decimal
    unit: Decimal
    fraction: bool  # given as a fraction (at most 1, as lcb_runner writes pass@1)

    def matches(self, exact: str) -> bool:
        """The figure's exact value ("p/q", in percent), rounded to the claim's precision, is
        the claim (half a unit either way: both roundings of a figure exactly on the half)."""
        return abs(Fraction(exact) - Fraction(self.percent)) <= Fraction(self.unit) / 2

    def meaning(self) -> str:
        """What the claim was read as, in words."""
        if self.fraction:
            return f"a fraction: {self.percent.normalize():f}%"
        if self.unit == 1:
            return f"a whole percent: {self.percent:f}%, the figure rounded to whole points"
        return f"{self.percent:f}%"


def parse_claim(text: str) -> Claim:
    """X (percent), X% (percent), or a fraction when at most 1; refused when impossible (not a
    number, below 0, above 100 percent) or vaguer than a whole percent point."""
    percent_sign = text.endswith("%")
    try:
        given = Decimal(text.removesuffix("%"))
    except InvalidOperation:
        given = None
    if given is None or not given.is_finite():
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a pass@1: 53.7, 53.7%, 0.537)")
    if given < 0 or (percent_sign or given > 1) and given > PERCENT:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no pass@1: a pass@1 is a share of problems, 0..100 percent"
        )
    # an integer is percent points ("1" is 1%); a fraction has a decimal point ("0.537")
    fraction = not percent_sign and given <= 1 and given.as_tuple().exponent < 0
    digits = given.as_tuple()  # times 100 by its exponent: exact at any length (no context)
    percent = Decimal((digits.sign, digits.digits, digits.exponent + 2)) if fraction else given
    unit = Decimal(1).scaleb(given.as_tuple().exponent) * (PERCENT if fraction else 1)
    if unit > 1:
        raise argparse.ArgumentTypeError(
            f"{text!r} is {percent.normalize():f}% give or take {(unit / 2).normalize():f} "
            f"points: give a claim to a whole percent point at least ({percent.quantize(1)}%)"
        )
    return Claim(text, percent, unit, fraction)


def check_claim(claim: Claim, found: list[dict], allow_missing: bool) -> dict:
    """Which figures the claim is, at its precision; it holds when one of them covers every
    problem of the scope (with ``allow_missing``, the problems the run has) and none extra."""
    valued = [f for f in found if f["value"] is not None]
    if not valued:
        raise RunError(
            f"claim {claim.text}: no figure to hold it to (no problem of the run in the window)"
        )
    matched = [f for f in valued if claim.matches(f["exact"])]
    covered = [f for f in matched if not lacks_problems(f, allow_missing)]
    return {
        "claimed": claim.text,
        "claimed_percent": float(claim.percent),
        "precision": float(claim.unit),
        "read_as_fraction": claim.fraction,
        "read_as": claim.meaning(),
        "rounding": "to the claim's last digit; exactly on the half, either way",
        "is": [f["name"] for f in matched],
        "holds_with": [f["name"] for f in covered],
        "consistent": bool(covered),
    }


def claim_sentence(report: dict) -> str:
    """What the claim is: the figures it equals at its precision, and whether they cover the
    scope."""
    claim, found = report["claim"], {f["name"]: f for f in report["figures"]}
    text = f"claim {claim['claimed']}" + (
        f" ({claim['read_as']})" if claim["read_as_fraction"] or claim["precision"] == 1 else ""
    )
    if claim["consistent"]:
        named = [found[name] for name in claim["holds_with"]]
        return f"{text}: is {', and '.join(_figure_words(f) for f in named)}"
    if claim["is"]:
        named = [found[name] for name in claim["is"]]
        gaps = "; ".join(f"{f['name']} is {coverage_words(f)}" for f in named)
        allow = "" if report["allow_missing"] else " (--allow-missing: the problems the run has)"
        return f"{text}: is {', and '.join(_figure_words(f) for f in named)}, but {gaps}{allow}"
    values = ", ".join(
        f"{f['label']} {f['value']:.2f}" for f in found.values() if f["value"] is not None
    )
    return (
        f"{text}: INCONSISTENT: no figure is {claim['claimed']} at its precision "
        f"(±{claim['precision'] / 2:g} points): {values}"
    )


def _figure_words(figure: dict) -> str:
    return f"{figure['label']} ({figure['value']:.2f}, on {figure['count']:,} problems)"
