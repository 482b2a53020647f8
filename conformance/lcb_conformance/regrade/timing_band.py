"""A regrade's timing, from its results file: the timing-sensitive verdicts, the starved ones
run again alone, and with ``--recheck N`` the number's timing band and the samples that
flipped (docs/regrade-timing.md).

The band is the number over N rounds: round r takes every rechecked sample's r-th recheck
in place of its verdict (the others as they are), as if the run had been graded N more
times with only those verdicts moving; it spans the regrade's own number and the N rounds'.
Everything is re-derived from the samples (upstream/timing.py's rules), as every view is.
"""

from __future__ import annotations

from collections.abc import Callable

from lcb_conformance.common import listing
from lcb_conformance.regrade.results_file import BEFORE_MODULE_ALARM, UNTIMED
from lcb_conformance.upstream import timing

SHOWN = 5  # flipped samples named in the headline before "... and N more"


def named(sample: dict) -> str:
    return f"{sample['question_id']}[{sample['index']}]"


def _sensitive(sample: dict, head: dict) -> bool:
    verdict = sample["regrade"]
    module_alarm = head["schema"] != BEFORE_MODULE_ALARM
    return timing.sensitive(
        verdict["passed"], verdict["metadata"], sample["timing"], head["timeout"], module_alarm
    )


def summary(samples: list[dict], head: dict, pass_at_1: Callable) -> dict | None:
    """The timing of a regrade's samples; None for a file written before timings were.
    ``pass_at_1(verdict)``: the number with each sample's verdict ``verdict(sample)``."""
    if head["schema"] in UNTIMED:
        return None
    rounds = head.get("recheck", 0)

    def in_round(number: int):
        def verdict(sample: dict) -> bool:
            if "rechecks" in sample:
                return sample["rechecks"][number]["passed"]
            return sample["regrade"]["passed"]

        return verdict

    band = None
    if rounds:
        values = [pass_at_1(lambda sample: sample["regrade"]["passed"])]
        values += [pass_at_1(in_round(number)) for number in range(rounds)]
        band = [min(values), max(values)]
    return {
        "recheck": rounds,
        "sensitive": [named(s) for s in samples if _sensitive(s, head)],
        "starved": [
            {"sample": named(s), "starved": s["starved"]["passed"], "alone": s["regrade"]["passed"]}
            for s in samples if "starved" in s
        ],
        "flipped": [
            named(s) for s in samples
            if any(o["passed"] is not s["regrade"]["passed"] for o in s.get("rechecks", ()))
        ],
        "band": band,
    }  # fmt: skip


def _samples(names: list[str]) -> str:
    return listing.named(names, SHOWN)


def band_words(found: dict | None) -> str:
    """The headline's words for the band ("" without rechecks): "timing band 45.00-45.38 over 3
    rechecks; 1 sample flipped: j_range[3]"."""
    if not found or not found["band"]:
        return ""
    low, high = found["band"]
    flipped = found["flipped"]
    words = f"timing band {low:.2f}\u2013{high:.2f} over {found['recheck']} rechecks; "
    if not flipped:
        return words + "no sample flipped"
    plural = "sample" if len(flipped) == 1 else "samples"
    return words + f"{len(flipped)} {plural} flipped: {_samples(flipped)}"


def lines(found: dict | None) -> list[str]:
    """The text view's lines on timing."""
    if found is None:
        return ["timing: not recorded (a results file written before timings were)"]
    said = [
        f"timing: {len(found['sensitive'])} timing-sensitive verdicts (a time limit, or a pass "
        "whose tests took over half a test's limit)"
        + ("" if found["recheck"] else "; --recheck N grades them again for the timing band")
    ]
    if found["starved"]:
        said.append(f"  {len(found['starved'])} starved time limits (far less CPU than wall "
                    "time) graded again alone, that verdict final:")  # fmt: skip
        said += [
            f"    {s['sample']}: {_word(s['starved'])} starved, {_word(s['alone'])} alone"
            for s in found["starved"][:SHOWN]
        ]
        said += listing.rest(len(found["starved"]), SHOWN, "    ", "--json")
    if found["band"]:
        said.append(f"  {band_words(found)}")
    return said


def _word(passed: bool) -> str:
    return "passed" if passed else "failed"
