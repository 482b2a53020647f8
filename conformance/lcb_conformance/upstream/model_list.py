"""lcb_runner's LMStyle names and model list, live or pinned, and the resolver table.

lcb_runner's LMStyle names and LanguageModelList: read from a live upstream, or the
pinned commit's as regeneration recorded them (the lm-styles golden); and the table of every
LMStyle's and listed model's lcb_prompts style (the resolver/models golden). The resolver
(upstream/resolver.py) answers from them; the producers record them."""

from __future__ import annotations

import json
from dataclasses import dataclass

from lcb_conformance.suite import goldens
from lcb_conformance.suite.styles import mapping_for
from lcb_conformance.upstream.source import PINNED_COMMIT


@dataclass(frozen=True)
class Listed:
    model_name: str
    model_repr: str
    lmstyle: str


@dataclass(frozen=True)
class ModelList:
    """An lcb_runner's LMStyle names and LanguageModelList (in its order, duplicates kept)."""

    source: str  # for messages: which upstream
    lmstyles: tuple[str, ...]
    models: tuple[Listed, ...]

    @classmethod
    def of(cls, upstream) -> ModelList:
        """Read now from a live upstream's lm_styles module."""
        module = upstream.lm_styles()
        return cls(
            upstream.describe_source(),
            tuple(member.name for member in module.LMStyle),
            tuple(
                Listed(model.model_name, model.model_repr, model.model_style.name)
                for model in module.LanguageModelList
            ),
        )

    @classmethod
    def pinned(cls) -> ModelList:
        """The pinned lcb_runner's list, as regeneration recorded it from upstream (the
        lm-styles golden): answers offline for the pinned commit."""
        text = goldens.read(goldens.GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE))
        if text is None:
            raise LookupError(f"no {goldens.LM_STYLES} golden; {goldens.REGEN_COMMAND}")
        data = json.loads(text)
        return cls(
            f"lcb_runner {PINNED_COMMIT[:7]} (pinned; recorded by regeneration)",
            tuple(data["LMStyle"]),
            tuple(Listed(*entry) for entry in data["LanguageModelList"]),
        )

    def as_json(self) -> dict:
        """The lm-styles golden's content."""
        return {
            "LMStyle": list(self.lmstyles),
            "LanguageModelList": [
                [model.model_name, model.model_repr, model.lmstyle] for model in self.models
            ],
        }


def table(model_list: ModelList) -> str:
    """Every LMStyle's mapping and every listed model's resolution (the resolver/models golden)."""
    lines = [
        "lcb_runner's lm_styles -> lcb_prompts (lcb-conformance resolve MODEL_ID).",
        "Per LMStyle: the lcb_prompts style and chat-template tokenizer giving lcb_runner's",
        "prompt, what lcb_runner sends, and why when there is no style. Then every model of",
        "LanguageModelList in its order: model_name (model_repr): LMStyle -> resolution.",
        "",
        "LMStyles:",
    ]
    for name in model_list.lmstyles:
        mapping = mapping_for(name)
        lines.append(f"{name} -> {mapping.summary()}")
        lines.append(f"    sends: {mapping.sends}")
        lines.append(f"    {'why not' if mapping.style is None else 'note'}: {mapping.note}")
    lines += ["", f"models ({len(model_list.models)}):"]
    for model in model_list.models:
        lines.append(
            f"{model.model_name} ({model.model_repr}): {model.lmstyle} -> "
            f"{mapping_for(model.lmstyle).summary()}"
        )
    return "\n".join(lines) + "\n"
