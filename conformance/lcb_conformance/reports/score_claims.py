"""`lcb-conformance score --claim X`: a claimed pass@1 held to the run's figures at the
claim's own precision; it holds when it is one of them and that figure covers the scope."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

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

    def matches(self, value: float) -> bool:
        """The figure, rounded to the claim's precision, is the claim (a half unit either
        way: both roundings of a figure on the boundary)."""
        return abs(Decimal(value) - self.percent) <= self.unit / 2


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
    fraction = not percent_sign and given <= 1
    percent = given * PERCENT if fraction else given
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
    matched = [f for f in valued if claim.matches(f["value"])]
    covered = [f for f in matched if not lacks_problems(f, allow_missing)]
    return {
        "claimed": claim.text,
        "claimed_percent": float(claim.percent),
        "precision": float(claim.unit),
        "read_as_fraction": claim.fraction,
        "is": [f["name"] for f in matched],
        "holds_with": [f["name"] for f in covered],
        "consistent": bool(covered),
    }


def claim_sentence(report: dict) -> str:
    """What the claim is: the figures it equals at its precision, and whether they cover the
    scope."""
    claim, found = report["claim"], {f["name"]: f for f in report["figures"]}
    text = f"claim {claim['claimed']}" + (
        f" (a fraction: {claim['claimed_percent']:g}%)" if claim["read_as_fraction"] else ""
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
