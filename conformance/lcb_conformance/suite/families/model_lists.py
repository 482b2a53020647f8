"""Golden families: lcb_runner's LMStyle and model lists, the resolver table; their drift as list
changes.

lcb_runner's lists: lm-styles/lm_styles (its LMStyle names and LanguageModelList as data,
what `lcb-conformance resolve` answers from offline) and resolver/models (every LMStyle and
listed model resolved to an lcb_prompts style). Their drift is a list change, told apart from
a prompt change."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass

from lcb_conformance.suite import goldens
from lcb_conformance.suite.families import Family
from lcb_conformance.suite.goldens import JSON_SUFFIX, GoldenKey

# upstream/resolver.py: lcb_runner's lm_styles read, and the resolver's table over it
MODEL_LIST = "resolver.ModelList.of"
TABLE = "resolver.table"


def lm_styles_change(key: GoldenKey, recorded: str, produced: str) -> str:
    before, after = json.loads(recorded), json.loads(produced)
    parts = []
    for field in ("LMStyle", "LanguageModelList"):
        old = Counter(map(json.dumps, before[field]))
        new = Counter(map(json.dumps, after[field]))
        removed, added = sum((old - new).values()), sum((new - old).values())
        if removed or added:
            parts.append(f"{field}: {removed} entries not listed any more, {added} new")
    return "; ".join(parts)


@dataclass(frozen=True)
class TableChange:
    """How two resolver tables differ. An LMStyle block both list but word differently is
    this project's mapping changing; LMStyles or model lines only one lists are upstream's
    lists changing (a model given another LMStyle is one line gone, one new)."""

    remapped: tuple[str, ...]  # LMStyles whose mapping text differs
    removed: tuple[str, ...]  # entries only in the first (the golden)
    added: tuple[str, ...]  # entries only in the second

    @property
    def list_only(self) -> bool:
        return not self.remapped

    def describe(self) -> str:
        parts = []
        if self.remapped:
            parts.append(f"LMStyles mapped differently: {', '.join(self.remapped)}")
        for what, entries in (("not listed any more", self.removed), ("new", self.added)):
            if entries:
                shown = ", ".join(entries[:6]) + (", ..." if len(entries) > 6 else "")
                parts.append(f"{len(entries)} {what} ({shown})")
        return "; ".join(parts) or "identical"


def compare_tables(golden: str, produced: str) -> TableChange:
    old_styles, old_models = _entries(golden)
    new_styles, new_models = _entries(produced)
    shared = old_styles.keys() & new_styles.keys()
    remapped = sorted(k for k in shared if old_styles[k] != new_styles[k])
    removed = [k for k in old_styles if k not in new_styles]
    added = [k for k in new_styles if k not in old_styles]
    removed += list((Counter(old_models) - Counter(new_models)).elements())
    added += list((Counter(new_models) - Counter(old_models)).elements())
    return TableChange(tuple(remapped), tuple(removed), tuple(added))


def _entries(text: str) -> tuple[dict[str, list[str]], list[str]]:
    """The LMStyle blocks (name -> lines) and the model lines of a resolver table."""
    styles: dict[str, list[str]] = {}
    models: list[str] = []
    section = name = ""
    for line in text.splitlines():
        if line == "LMStyles:" or line.startswith("models ("):
            section = line
        elif not line or not section:
            continue
        elif section.startswith("models"):
            models.append(line)
        elif line.startswith("    "):  # the current LMStyle block goes on
            styles[name].append(line)
        else:
            name = line.split(" -> ")[0]
            styles[name] = [line]
    return styles, models


def resolver_change(key: GoldenKey, recorded: str, produced: str) -> str:
    change = compare_tables(recorded, produced)
    return change.describe() if change.list_only else ""


FAMILIES = (
    Family(
        goldens.LM_STYLES,
        "lm-styles",
        "upstream lm_styles: LMStyle names and LanguageModelList",
        lambda: [GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE)],
        lambda source, key: goldens.canonical_json(
            source.run(MODEL_LIST, source.upstream).as_json()
        ),
        suffix=JSON_SUFFIX,
        list_change=lm_styles_change,
        runs=(MODEL_LIST,),
    ),
    Family(
        goldens.RESOLVER,
        "resolver",
        "resolver.py over upstream lm_styles.LanguageModelList",
        lambda: [GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE)],
        lambda source, key: source.run(TABLE, source.run(MODEL_LIST, source.upstream)),
        list_change=resolver_change,
        runs=(MODEL_LIST, TABLE),
    ),
)
