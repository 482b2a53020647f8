"""`lcb-conformance resolve`: model id → LMStyle → lcb_prompts call.

Model -> style: which lcb_prompts style, and which tokenizer snapshot, give a model the
prompt lcb_runner gives it on the leaderboard.

    lcb-conformance resolve MODEL_ID [--upstream pinned|installed|PATH] [--json FILE|-]
        [--scenario code-generation|self-repair|test-output|code-execution]
    lcb-conformance resolve --all          every listed model (the resolver/models golden)

The model list is lcb_runner's ``lm_styles.LanguageModelList`` (each LanguageModel has
model_name, model_repr, model_style): by default the pinned commit's, as regeneration
recorded it from upstream (the lm-styles golden), else read at run time from the installed
package or a checkout. The LMStyle -> lcb_prompts mapping is this module's, held to the
goldens and upstream by test_resolver.py and recorded, with the resolution of every listed
model, in the golden ``resolver/models`` (drift-checked).

``--scenario`` (a scenario's name here, its golden folder: suite/scenarios.py) answers for
one of lcb_runner's scenarios beside code generation instead: what lcb_runner's prompt
builder does for the model's LMStyle on each fixture input of the scenario -- the prompt's
shape, or what it raises -- read from the scenario's prompt goldens (pinned) or produced by
the upstream given, and the lcb_prompts calls.

A model lcb_runner does not list gets a suggestion from the listed models of the same
family, labelled as not official. Exit code: 0 listed, with an lcb_prompts style (with
--scenario: lcb_runner builds that scenario's prompt for its LMStyle); 1 listed, but
lcb_prompts has no style for its LMStyle (with --scenario: lcb_runner raises instead of
building the prompt); 2 not listed (the input names no model of lcb_runner's: a suggestion
only, labelled as such); 6 the --json file could not be written. ``--json FILE`` writes the
answer as JSON beside the text, as every command's --json does; ``--json -`` prints the JSON
instead of the text.
"""

from __future__ import annotations

import difflib
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from lcb_conformance.common import exit_codes, report_files, shared_options, showdiff
from lcb_conformance.suite import families, goldens, scenario_cases, scenarios, styles
from lcb_conformance.suite.families import scenario_prompt
from lcb_conformance.suite.styles import StyleMapping, mapping_for
from lcb_conformance.upstream.model_list import Listed, ModelList, table  # noqa: F401 (as resolver.*)
from lcb_conformance.upstream.producers import Producer
from lcb_conformance.upstream.source import Upstream, UpstreamMissing, UpstreamSourceError

NOT_LISTED_EXIT = exit_codes.UNUSABLE  # the input names no model lcb_runner lists
# listed, but no lcb_prompts style gives its prompt (with --scenario: lcb_runner raises)
NO_STYLE_EXIT = exit_codes.DIFFERS
PINNED = "pinned"
SNAPSHOTS = "fixtures/tokenizers"


@dataclass
class Resolution:
    query: str
    listed: Listed | None  # lcb_runner's entry, when it lists the model
    suggestion: str | None = None  # an LMStyle suggested for an unlisted model
    neighbours: list[tuple[Listed, float]] = field(default_factory=list)
    matched_as: str | None = None  # how the query named it, when not by model_name or repr

    @property
    def lmstyle(self) -> str | None:
        return self.listed.lmstyle if self.listed else self.suggestion

    @property
    def mapping(self) -> StyleMapping | None:
        return mapping_for(self.lmstyle) if self.lmstyle else None

    def exit_code(self) -> int:
        if self.listed is None:
            return NOT_LISTED_EXIT
        return exit_codes.OK if self.mapping and self.mapping.style else NO_STYLE_EXIT

    def as_dict(self) -> dict:
        mapping = self.mapping
        return {
            "query": self.query,
            "official": self.listed is not None,
            "model_name": self.listed.model_name if self.listed else None,
            "model_repr": self.listed.model_repr if self.listed else None,
            "matched_as": self.matched_as,
            "lmstyle": self.lmstyle,
            "style": mapping.style if mapping else None,
            "chat_template_tokenizer": mapping.tokenizer if mapping else None,
            "tokenizer_snapshot": (
                f"{SNAPSHOTS}/{mapping.tokenizer.replace('/', '__')}"
                if mapping and mapping.tokenizer
                else None
            ),
            "lcb_runner_sends": mapping.sends if mapping else None,
            "calls": mapping.calls() if mapping else [],
            "note": mapping.note if mapping else None,
            "nearest_listed": [
                {"model_name": m.model_name, "lmstyle": m.lmstyle, "similarity": round(s, 2)}
                for m, s in self.neighbours
            ],
        }


_SIZE = re.compile(r"(?<![a-z0-9.])\d+(?:\.\d+)?(?:x\d+)?[bm](?![a-z])")


def family(model_id: str) -> str:
    """A model id without its org and parameter count: Qwen/Qwen2.5-14B-Instruct ->
    qwen2.5-*-instruct."""
    return _SIZE.sub("*", model_id.lower().rsplit("/", 1)[-1])


# "(N=1)" in a leaderboard folder name (LiveCodeBench/submissions' "O1-Mini-2024-09-12 (N=1)",
# "O1-2024-12-17 (N=1) (High)"): the model_repr of the older lm_styles its builder globbed
# (`{model_repr}/Scenario...`); the pinned list's model_repr has no "(N=1)"
SAMPLES_MARK = re.compile(r"\s*\(N=\d+\)")
FOLDER_NAME = "a leaderboard folder name (LiveCodeBench/submissions), its (N=...) dropped"


def _find(models: list[Listed], query: str) -> tuple[Listed | None, str | None]:
    """The listed model the query names, and how, when not by its own name or repr."""
    lowered = query.lower()
    for matches in (
        lambda m: m.model_name == query,
        lambda m: m.model_name.lower() == lowered,
        lambda m: m.model_repr.lower() == lowered,
        lambda m: m.model_name.lower().rsplit("/", 1)[-1] == lowered.rsplit("/", 1)[-1],
    ):
        found = [model for model in models if matches(model)]
        if found:
            return found[0], None
    folder = SAMPLES_MARK.sub("", query).strip().lower()
    found = [model for model in models if folder != lowered and model.model_repr.lower() == folder]
    return (found[0], FOLDER_NAME) if found else (None, None)


SUGGEST_SIMILARITY = 0.75  # family similarity for a suggestion (1.0: same family, other size)


def resolve(models: list[Listed], query: str) -> Resolution:
    listed, matched_as = _find(models, query)
    if listed is not None:
        return Resolution(query, listed, matched_as=matched_as)
    org = query.lower().split("/", 1)[0] if "/" in query else None
    same_org = [m for m in models if org and m.model_name.lower().startswith(org + "/")]
    pool = same_org or models
    scored = sorted(
        (
            (m, difflib.SequenceMatcher(None, family(query), family(m.model_name)).ratio())
            for m in {m.model_name: m for m in pool}.values()
        ),
        key=lambda pair: -pair[1],
    )
    neighbours = scored[:3]
    suggestion = None
    if neighbours and neighbours[0][1] >= SUGGEST_SIMILARITY:
        close = {m.lmstyle for m, score in neighbours if score >= SUGGEST_SIMILARITY}
        if len(close) == 1:
            suggestion = close.pop()
    return Resolution(query, None, suggestion, neighbours)


def render(resolution: Resolution, source: str) -> str:
    data = resolution.as_dict()
    lines = [f"model:         {resolution.query}"]
    if resolution.listed:
        lines.append(
            f"lcb_runner:    listed as {resolution.listed.model_name} "
            f"({resolution.listed.model_repr}) in lm_styles of {source}"
            + (f", named by {resolution.matched_as}" if resolution.matched_as else "")
        )
    else:
        lines.append(f"lcb_runner:    NOT LISTED in lm_styles of {source}")
        if resolution.suggestion:
            near = ", ".join(f"{m.model_name} ({m.lmstyle})" for m, _ in resolution.neighbours)
            lines.append(
                f"suggestion:    NOT OFFICIAL: LMStyle.{resolution.suggestion}, the style of the "
                f"listed models of the same family: {near}"
            )
        else:
            near = ", ".join(
                f"{m.model_name} ({m.lmstyle}, {score:.2f})" for m, score in resolution.neighbours
            )
            lines.append(
                "suggestion:    none: lcb_runner lists no model of this family (nearest listed: "
                f"{near}). Unofficially, by how the model is served: a chat model behind an "
                "OpenAI-compatible API gets OpenAIChat's messages (lcb_prompts generic, no "
                "template); a base model gets GenericBase (genericbase)."
            )
            return "\n".join(lines)
    mapping = resolution.mapping
    official = "" if resolution.listed else " (suggested, NOT OFFICIAL)"
    lines.append(f"LMStyle:       {resolution.lmstyle}{official}")
    lines.append(f"lcb_runner:    sends {mapping.sends}")
    if mapping.style is None:
        lines.append(f"lcb_prompts:   no lcb_prompts style: {mapping.note}")
        return "\n".join(lines)
    lines.append(f"lcb_prompts:   {mapping.summary()}")
    for call in mapping.calls():
        lines.append(f"               {call}")
    if mapping.tokenizer:
        lines.append(
            f"tokenizer:     {mapping.tokenizer} (snapshot {data['tokenizer_snapshot']}); "
            "this template, not the model's own, gives the leaderboard prompt"
        )
    else:
        lines.append("tokenizer:     none needed for the prompt text")
    lines.append(f"note:          {mapping.note}")
    return "\n".join(lines)


# --- resolve --style NAME: lcb_prompts' style names and lcb_runner's LMStyles, both ways ---
def style_answer(name: str, models: list[Listed]) -> dict | None:
    """What NAME is: an LMStyle (the lcb_prompts style giving its prompt) or an lcb_prompts
    style (the LMStyles it gives); exact names first, then case-blind. None: neither."""
    for same in (lambda a, b: a == b, lambda a, b: a.lower() == b.lower()):
        lmstyle = next((known for known in styles.MAPPINGS if same(known, name)), None)
        if lmstyle is not None:
            mapping = styles.mapping_for(lmstyle)
            return {"query": name, "lmstyle": lmstyle, "styles": [_style_row(lmstyle, mapping)],
                    "models": sorted(m.model_name for m in models if m.lmstyle == lmstyle)}
        style = next((known for known in _style_names() if same(known, name)), None)
        if style is not None:
            rows = [_style_row(known, styles.mapping_for(known))
                    for known in styles.lmstyles_of(style)]
            whose = [known for known, mapping in styles.MAPPINGS.items()
                     if mapping.user_message_prompt == style]
            return {"query": name, "style": style, "styles": rows, "user_message_of": whose}
    return None  # fmt: skip


def _style_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys((*styles.PROMPT_STYLES, *styles.MESSAGE_STYLES)))


def _style_row(lmstyle: str, mapping: StyleMapping) -> dict:
    return {
        "lmstyle": lmstyle,
        "style": mapping.style,
        "summary": mapping.summary(),
        "lcb_runner_sends": mapping.sends,
        "calls": mapping.calls(),
        "note": mapping.note,
    }


def render_style(answer: dict) -> str:
    if "lmstyle" in answer:
        lines = [f"LMStyle:       {answer['lmstyle']} (lcb_runner's)"]
        listed = answer["models"]
        shown = ", ".join(listed[:6]) + (f", ... ({len(listed)} in all)" if len(listed) > 6 else "")
        lines.append(f"models:        {shown or 'none listed'}")
    else:
        lines = [f"style:         {answer['style']} (lcb_prompts'), gives the LMStyles below"]
        if answer["user_message_of"]:
            lines.append(f"               and the one user message of "
                         f"{', '.join(answer['user_message_of'])} (format_lcb_prompt)")  # fmt: skip
    for row in answer["styles"]:
        lines.append(f"LMStyle.{row['lmstyle']}: lcb_runner sends {row['lcb_runner_sends']}")
        lines.append(f"   lcb_prompts: {row['summary']}")
        lines += [f"      {call}" for call in row["calls"]]
        if row["style"] is None:
            lines.append(f"   why: {row['note']}")
    return "\n".join(lines)


def _answer_style(args, models: list[Listed]) -> int:
    """--style NAME (or a MODEL_ID that is an LMStyle's name): the table's row(s), exit 0;
    an LMStyle lcb_prompts has no style for, 1; a name that is neither, one line, exit 2."""
    answer = style_answer(args.style, models)
    if answer is None:
        showdiff.write(f"lcb-conformance resolve: --style {args.style}: neither an lcb_prompts "
                       f"style ({', '.join(_style_names())}) nor an LMStyle "
                       f"({', '.join(styles.MAPPINGS)})", sys.stderr)  # fmt: skip
        return exit_codes.UNUSABLE
    if not _answer(args, answer, render_style(answer)):
        return report_files.REPORT_NOT_WRITTEN
    return NO_STYLE_EXIT if not any(row["style"] for row in answer["styles"]) else exit_codes.OK


# resolve --scenario: code generation (the default) or a declared scenario
SCENARIO_CHOICES = (scenarios.CODE_GENERATION, *scenarios.SCENARIOS)
# how code generation's judge is called: the scoring of a scenario without its own scorer
JUDGE_CALL = "judge_program(row, program, timeout)"


def scenario_calls(
    declared: scenarios.Scenario, lmstyle: str, tokenizer: str | None, extract_code: str
) -> list[str]:
    """The lcb_prompts calls of a scenario for an LMStyle: its prompt, extraction and scoring
    (a scenario without its own extracts and is judged like code generation)."""
    cot = ", cot=False|True" if declared.modes else ""
    template = f', tokenizer=AutoTokenizer.from_pretrained("{tokenizer}")' if tokenizer else ""
    prompt = declared.prompt
    calls = [f'{prompt.function}({prompt.argument}, lmstyle="{lmstyle}"{cot}{template})']
    extraction = declared.extraction
    calls.append(
        f'{extraction.function}(model_output, lmstyle="{lmstyle}"{cot})'
        if extraction
        else extract_code
    )
    scoring = declared.scoring
    calls.append(f"{scoring.function}(row, generations)" if scoring else JUDGE_CALL)
    return calls


@dataclass
class ScenarioAnswer:
    """What lcb_runner does for one LMStyle in a scenario, over the scenario's fixture inputs:
    the prompt shapes it builds and the errors it raises, each with the inputs (golden ids)."""

    scenario: str
    lmstyle: str
    builds: dict[str, list[str]]  # shape -> golden ids
    raises: dict[str, list[str]]  # "Type: message" -> golden ids
    kept: list[str]  # self-repair of a program that passed: "" (its code is kept), any LMStyle

    def exit_code(self) -> int:
        return exit_codes.OK if self.builds else NO_STYLE_EXIT

    def calls(self) -> list[str]:
        mapping = mapping_for(self.lmstyle)
        extract_code = (
            mapping.calls()[1]
            if mapping.style
            else f"extract_code: no lcb_prompts style extracts like LMStyle.{self.lmstyle}"
        )
        return scenario_calls(
            scenarios.get(self.scenario),
            self.lmstyle,
            scenario_cases.CHAT_TEMPLATES.get(self.lmstyle),
            extract_code,
        )

    def as_dict(self) -> dict:
        return {
            "scenario": self.scenario,
            "lmstyle": self.lmstyle,
            "builds": self.builds,
            "raises": self.raises,
            "kept": self.kept,
            "calls": self.calls() if self.builds else [],
        }


def shape(golden: object) -> str:
    """A prompt golden's shape, in words."""
    if isinstance(golden, str):
        return "a prompt string"
    if isinstance(golden, list):
        return f"chat messages [{', '.join(message['role'] for message in golden)}]"
    return "(system, [user]): the system text apart from the messages"


def _inputs(count: int) -> str:
    return f"{count} fixture input{'s' if count != 1 else ''}"


def scenario_answer(scenario: str, lmstyle: str, produce=None) -> ScenarioAnswer:
    """What lcb_runner does for ``lmstyle`` on each of the scenario's fixture inputs: from the
    prompt goldens (the pinned commit), or ``produce`` (a producers.Producer over another
    upstream)."""
    builds: dict[str, list[str]] = {}
    raises: dict[str, list[str]] = {}
    kept: list[str] = []
    for key in families.expected_keys(scenario_prompt.family_name(scenario)):
        if scenario_prompt.parse(key)[2] != lmstyle:
            continue
        recorded = json.loads(produce(key) if produce else goldens.read(key))
        if isinstance(recorded, dict) and scenario_prompt.RAISES in recorded:
            error = recorded[scenario_prompt.RAISES]
            raises.setdefault(f"{error['type']}: {error['message']}", []).append(str(key))
        elif recorded == "":
            kept.append(str(key))
        else:
            builds.setdefault(shape(recorded), []).append(str(key))
    return ScenarioAnswer(scenario, lmstyle, builds, raises, kept)


def render_scenario(resolution: Resolution, answer: ScenarioAnswer, source: str) -> str:
    lines = render(resolution, source).splitlines()[:2]
    official = "" if resolution.listed else " (suggested, NOT OFFICIAL)"
    lines.append(f"LMStyle:       {answer.lmstyle}{official}")
    lines.append(f"scenario:      {answer.scenario}")
    for what, cases in answer.builds.items():
        lines.append(f"lcb_runner:    builds {what} ({_inputs(len(cases))})")
    for error, cases in answer.raises.items():
        lines.append(f"lcb_runner:    RAISES {error} ({_inputs(len(cases))}, e.g. {cases[0]})")
    if answer.kept:
        lines.append(
            f"lcb_runner:    returns '' for a program that passed ({_inputs(len(answer.kept))}): "
            "its code is kept, whatever the LMStyle"
        )
    if not answer.builds:
        lines.append(
            "lcb_prompts:   none: lcb_runner builds no prompt for this LMStyle in this scenario; "
            "lcb_prompts raises NoLcbRunnerPrompt saying so"
        )
        return "\n".join(lines)
    for number, call in enumerate(answer.calls()):
        lines.append(f"{'lcb_prompts:' if number == 0 else ''}".ljust(15) + call)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = shared_options.CommandParser(
        prog="lcb-conformance resolve",
        description="Which lcb_prompts style and tokenizer give MODEL_ID lcb_runner's prompt "
        "(from upstream's lm_styles). Exit 0: listed, with a style; "
        f"{NO_STYLE_EXIT}: listed, no lcb_prompts style; {NOT_LISTED_EXIT}: not listed (a "
        "suggestion, not official).",
    )
    parser.add_argument("model", nargs="?", metavar="MODEL_ID")
    parser.add_argument("--all", action="store_true", help="every listed model, as a table")
    parser.add_argument(
        "--style", metavar="NAME", help="an lcb_prompts style (the LMStyles it gives) or an "
        "LMStyle (the lcb_prompts style giving its prompt), instead of a MODEL_ID"
    )
    shared_options.add(
        parser,
        "upstream",
        default=PINNED,
        metavar=f"{PINNED}|{shared_options.INSTALLED}|PATH",
        help="whose model list to read: 'pinned', lcb_runner at the pinned commit as "
        "regeneration recorded it (offline), 'installed' (nvidia-livecodebench) or a "
        "LiveCodeBench checkout (default: %(default)s)",
    )
    parser.add_argument(
        "--scenario",
        choices=SCENARIO_CHOICES,
        default=scenarios.CODE_GENERATION,
        help="lcb_runner's scenario (default: %(default)s); the others say what lcb_runner's "
        "prompt builder does for the model's LMStyle, a prompt or an error",
    )
    shared_options.add(
        parser, "json", metavar="FILE|-", help="write the answer as JSON here ('-': print the "
        "JSON instead of the text)"
    )
    args = parser.parse_args(argv)
    if sum(map(bool, (args.all, args.model, args.style))) != 1:
        parser.error("give one of MODEL_ID, --style NAME or --all")
    if args.all and args.json:
        parser.error("--json answers for one MODEL_ID; --all prints the table (the "
                     "resolver/models golden holds it as JSON)")
    try:
        if args.upstream == PINNED:
            model_list = ModelList.pinned()
        else:
            model_list = ModelList.of(Upstream(args.upstream))
        source = model_list.source
        if args.all:
            showdiff.write(table(model_list), end="")
            return exit_codes.OK
        resolution = None if args.style else resolve(list(model_list.models), args.model)
        if resolution is None or resolution.listed is None and args.model in styles.MAPPINGS:
            args.style = args.style or args.model  # an LMStyle's name given as MODEL_ID
            return _answer_style(args, list(model_list.models))
        if args.scenario != scenarios.CODE_GENERATION and resolution.lmstyle:
            return _answer_scenario(args, resolution, args.scenario, source)
    except (UpstreamSourceError, UpstreamMissing, LookupError) as error:
        showdiff.write(f"lcb-conformance resolve: {error}", sys.stderr)
        return exit_codes.UNUSABLE
    if not _answer(args, resolution.as_dict() | {"upstream": source}, render(resolution, source)):
        return report_files.REPORT_NOT_WRITTEN
    if resolution.listed is None:  # exit 2, the answer printed: one stderr line says why
        showdiff.write(f"lcb-conformance resolve: {args.model}: NOT LISTED in {source}: no "
                       "official prompt", sys.stderr)  # fmt: skip
    return resolution.exit_code()


STDOUT = Path("-")  # --json -: the JSON on stdout, instead of the text


def _answer(args, payload: dict, text: str) -> bool:
    """The text on stdout and, with --json FILE, the JSON written whole; with --json -, the
    JSON on stdout instead. False when the file could not be written."""
    as_json = json.dumps(payload, indent=1) + "\n"
    if args.json == STDOUT:
        sys.stdout.write(as_json)
        return True
    showdiff.write(text)
    return report_files.write_reports(
        "lcb-conformance resolve", {"JSON": (args.json, lambda: as_json)}
    )


def _answer_scenario(args, resolution: Resolution, scenario: str, source: str) -> int:
    produce = None if args.upstream == PINNED else Producer(Upstream(args.upstream))
    answer = scenario_answer(scenario, resolution.lmstyle, produce)
    payload = resolution.as_dict() | {"upstream": source, "scenario": answer.as_dict()}
    if not _answer(args, payload, render_scenario(resolution, answer, source)):
        return report_files.REPORT_NOT_WRITTEN
    return NOT_LISTED_EXIT if resolution.listed is None else answer.exit_code()
