"""Model -> style resolver (lcb_conformance.upstream.resolver): the mapping of every LMStyle
is held to the goldens and upstream's prompts and extractions; the model list itself is the
resolver/models golden, re-produced from upstream by the drift run (test_upstream_drift.py)."""

from __future__ import annotations

import json

import pytest

from lcb_conformance.suite import cases, goldens, styles
from lcb_conformance.suite.families import model_lists
from lcb_conformance.suite.goldens import GoldenKey
from lcb_conformance.upstream import Upstream, UpstreamMissing, resolver
from lcb_conformance.upstream.resolver import Listed

# --- resolving names (no upstream needed) --------------------------------------------------

MODELS = [
    Listed("meta-llama/Meta-Llama-3-8B-Instruct", "LLama3-8b-Ins", "LLaMa3"),
    Listed("meta-llama/Meta-Llama-3.1-8B-Instruct", "LLama3.1-8b-Ins", "LLaMa3"),
    Listed("meta-llama/Meta-Llama-3.1-70B", "LLama3.1-70b-Base", "GenericBase"),
    Listed("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-Ins-7B", "CodeQwenInstruct"),
    Listed("Qwen/Qwen2.5-32B-Instruct", "Qwen2.5-Ins-32B", "CodeQwenInstruct"),
    Listed("claude-3-opus-20240229", "Claude-3-Opus", "Claude3"),
    Listed("gpt-4o-2024-05-13", "GPT-4O-2024-05-13", "OpenAIChat"),
    Listed("databricks-dbrx-instruct", "DBRX-Ins", "DataBricks"),
]


@pytest.mark.parametrize(
    "query",
    [
        "meta-llama/Meta-Llama-3.1-8B-Instruct",
        "META-LLAMA/meta-llama-3.1-8b-instruct",
        "LLama3.1-8b-Ins",
        "Meta-Llama-3.1-8B-Instruct",
    ],
)
def test_a_listed_model_is_found_by_name_repr_or_name_without_org(query):
    resolution = resolver.resolve(MODELS, query)
    assert resolution.listed == MODELS[1]
    data = resolution.as_dict()
    assert data["official"] is True
    assert data["style"] == "generic"
    assert data["chat_template_tokenizer"] == cases.LLAMA3_TOKENIZER
    assert data["tokenizer_snapshot"] == "fixtures/tokenizers/meta-llama__Meta-Llama-3-8B-Instruct"
    assert resolution.exit_code() == 0


def test_a_listed_model_without_an_lcb_prompts_style_says_why():
    resolution = resolver.resolve(MODELS, "databricks-dbrx-instruct")
    assert resolution.exit_code() == 1
    text = resolver.render(resolution, "test upstream")
    assert "LMStyle:       DataBricks" in text
    assert "no lcb_prompts style: " in text


def test_a_message_style_model_gets_the_messages_call():
    resolution = resolver.resolve(MODELS, "claude-3-opus-20240229")
    assert resolution.exit_code() == 0
    assert resolution.as_dict()["calls"] == [
        'format_lcb_messages(row, style="claude3")',
        'extract_code(model_output, style="claude3")',
    ]


def test_an_unlisted_model_of_a_listed_family_gets_an_unofficial_suggestion():
    resolution = resolver.resolve(MODELS, "Qwen/Qwen2.5-14B-Instruct")
    assert resolution.listed is None
    assert resolution.suggestion == "CodeQwenInstruct"
    assert resolution.exit_code() == resolver.NOT_LISTED_EXIT
    text = resolver.render(resolution, "test upstream")
    assert "NOT LISTED" in text and "NOT OFFICIAL" in text
    assert 'format_lcb_prompt(row, style="codeqwen")' in text
    assert resolution.as_dict()["official"] is False


def test_an_unlisted_model_of_no_listed_family_gets_no_style():
    resolution = resolver.resolve(MODELS, "mistralai/Mistral-7B-Instruct-v0.3")
    assert resolution.suggestion is None and resolution.lmstyle is None
    text = resolver.render(resolution, "test upstream")
    assert "suggestion:    none" in text
    assert resolution.exit_code() == resolver.NOT_LISTED_EXIT


def test_family_drops_org_and_size():
    assert resolver.family("Qwen/Qwen2.5-14B-Instruct") == "qwen2.5-*-instruct"
    assert resolver.family("mistralai/Mixtral-8x7B-Instruct") == "mixtral-*-instruct"
    assert resolver.family("deepseek-ai/deepseek-coder-6.7b-base") == "deepseek-coder-*-base"


def test_an_lmstyle_the_resolver_does_not_know_is_reported_not_guessed():
    mapping = styles.mapping_for("SomeFutureStyle")
    assert mapping.style is None
    assert "not known to this resolver" in mapping.note


# --- the style table held to the goldens (all produced by upstream) -------------------------


@pytest.mark.parametrize(
    "lmstyle", [name for name, mapping in styles.MAPPINGS.items() if mapping.user_message_prompt]
)
def test_a_one_user_message_lmstyle_sends_the_string_prompt_it_claims(lmstyle):
    """The row's claim "its one user message is format_lcb_prompt(style=S)": upstream's
    messages goldens for the LMStyle carry exactly the prompt goldens of S."""
    style = styles.MAPPINGS[lmstyle].user_message_prompt
    for question_id in cases.problems():
        messages = json.loads(goldens.read(GoldenKey(goldens.MESSAGES, lmstyle, question_id)))
        assert [message["role"] for message in messages] == ["user"]
        assert messages[0]["content"] == goldens.read(GoldenKey(goldens.PROMPT, style, question_id))


@pytest.mark.parametrize("style", sorted({v.style for v in cases.MESSAGE_VARIANTS}))
def test_the_lmstyles_sharing_a_messages_style_have_the_same_goldens(style):
    """One format_lcb_messages style stands for several LMStyles only because upstream gives
    them byte-identical messages."""
    lmstyles = [v.lmstyle for v in cases.MESSAGE_VARIANTS if v.style == style]
    for question_id in cases.problems():
        texts = {goldens.read(GoldenKey(goldens.MESSAGES, name, question_id)) for name in lmstyles}
        assert len(texts) == 1, f"{lmstyles} differ on {question_id}"


def test_the_pinned_model_list_resolves_every_model_to_a_style():
    """lcb_runner's own list at the reference commit (the lm-styles golden): every model gets
    an lcb_prompts style."""
    model_list = resolver.ModelList.pinned()
    unresolved = [
        m.model_name for m in model_list.models if not styles.mapping_for(m.lmstyle).style
    ]
    assert not unresolved, f"models with no lcb_prompts style: {unresolved}"
    assert len(model_list.models) == len(json.loads(_lm_styles_golden())["LanguageModelList"])


def _lm_styles_golden() -> str:
    return goldens.read(GoldenKey(goldens.LM_STYLES, "", goldens.LM_STYLES_CASE))


def test_resolve_all_answers_offline_from_the_pinned_list(capsys):
    # tests the console's contract: --all prints the resolver golden's table, byte for byte
    assert resolver.main(["--all"]) == 0
    assert capsys.readouterr().out == goldens.read(
        GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE)
    )
    assert resolver.main(["deepseek-ai/DeepSeek-R1"]) == 0
    pinned = list(resolver.ModelList.pinned().models)
    found = resolver.resolve(pinned, "deepseek-ai/DeepSeek-R1").as_dict()
    assert (found["official"], found["lmstyle"]) == (True, "DeepSeekR1")
    assert found["style"] == "deepseekr1"
    assert 'format_lcb_prompt(row, style="deepseekr1")' in found["calls"]


def test_resolve_json_takes_a_file_like_every_command(capsys, tmp_path):
    """--json FILE: the text on stdout, the answer as JSON in the file; --json -: the JSON on
    stdout instead of the text (the same JSON)."""
    answer = tmp_path / "answer.json"
    assert resolver.main(["--json", str(answer), "deepseek-ai/DeepSeek-R1"]) == 0
    assert "LMStyle:       DeepSeekR1" in capsys.readouterr().out
    written = json.loads(answer.read_text("utf-8"))
    assert (written["lmstyle"], written["style"]) == ("DeepSeekR1", "deepseekr1")
    assert resolver.main(["--json", "-", "deepseek-ai/DeepSeek-R1"]) == 0
    assert json.loads(capsys.readouterr().out) == written


# The folders of LiveCodeBench/submissions 4d04b02 holding "(N=1)": its builder globbed
# `{model_repr}/Scenario...` with the model_repr of an older lm_styles
SUBMISSION_FOLDERS = {
    "O1-Mini-2024-09-12 (N=1)": "o1-mini-2024-09-12",
    "O1-Preview-2024-09-12 (N=1)": "o1-preview-2024-09-12",
    "O1-2024-12-17 (N=1) (High)": "o1-2024-12-17__high",
    "O1-2024-12-17 (N=1) (Low)": "o1-2024-12-17__low",
    "O1-2024-12-17 (N=1) (Med)": "o1-2024-12-17__medium",
    "O3-Mini-2025-01-31 (N=1) (High)": "o3-mini-2025-01-31__high",
    "O3-Mini-2025-01-31 (N=1) (Low)": "o3-mini-2025-01-31__low",
    "O3-Mini-2025-01-31 (N=1) (Med)": "o3-mini-2025-01-31__medium",
    "QwQ-32B-Preview (N=1)": "Qwen/QwQ-32B-Preview",
}


@pytest.mark.parametrize("folder", SUBMISSION_FOLDERS)
def test_a_leaderboard_folder_name_resolves_to_its_model(capsys, folder):
    assert resolver.main(["--json", "-", folder]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert (answer["official"], answer["model_name"]) == (True, SUBMISSION_FOLDERS[folder])
    assert answer["model_repr"] == resolver.SAMPLES_MARK.sub("", folder)
    assert answer["matched_as"] == resolver.FOLDER_NAME and answer["style"]


def test_a_name_with_samples_marked_but_no_listed_repr_is_not_listed(capsys):
    assert resolver.main(["--json", "-", "Gemini-Flash-2.0-Thinking-01-21 (N=1)"]) == 2
    assert json.loads(capsys.readouterr().out)["official"] is False


def _style(capsys, *argv) -> tuple[int, dict]:
    code = resolver.main(["--json", "-", *argv])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "lmstyle", [name for name, mapping in styles.MAPPINGS.items() if mapping.style]
)
def test_an_lmstyle_and_its_lcb_prompts_style_resolve_both_ways(capsys, lmstyle):
    code, answer = _style(capsys, "--style", lmstyle)
    [row] = answer["styles"]
    assert code == 0 and (answer["lmstyle"], row["lmstyle"]) == (lmstyle, lmstyle)
    style = row["style"]
    assert row["calls"] == styles.MAPPINGS[lmstyle].calls()
    code, back = _style(capsys, "--style", style)  # "qwq" the style, "QwQ" the LMStyle
    assert code == 0 and back["style"] == style
    assert [r["lmstyle"] for r in back["styles"]] == list(styles.lmstyles_of(style))
    assert lmstyle in [r["lmstyle"] for r in back["styles"]]
    assert _style(capsys, lmstyle) == (0, answer)  # an LMStyle's name as MODEL_ID


def test_a_style_answer_names_the_listed_models_and_the_user_message_it_is(capsys):
    code, answer = _style(capsys, "--style", "OpenAIReasonPreview")
    assert code == 0 and "o1-mini-2024-09-12" in answer["models"]
    code, answer = _style(capsys, "--style", "generic")
    assert code == 0 and answer["user_message_of"] == ["OpenAIReasonPreview", "Grok"]
    assert _style(capsys, "--style", "OPENAICHAT")[1]["lmstyle"] == "OpenAIChat"  # case-blind


def test_a_style_name_that_is_neither_or_has_no_call_is_not_green(capsys):
    assert resolver.main(["--style", "CodeLLaMaInstruct"]) == resolver.NO_STYLE_EXIT
    assert "no lcb_prompts style" in capsys.readouterr().out
    assert resolver.main(["--style", "generik"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("lcb-conformance resolve: --style generik: neither an lcb_prompts")


def test_a_table_change_of_list_entries_only_is_told_apart():
    golden = _resolver_golden()
    lines = golden.splitlines(keepends=True)
    model_line = next(i for i, line in enumerate(lines) if line.startswith("models ("))
    fewer = "".join(lines[: model_line + 1] + lines[model_line + 2 :])
    change = model_lists.compare_tables(golden, fewer)
    assert change.list_only and len(change.removed) == 1 and not change.added
    reworded = golden.replace("-> qwq", "-> codeqwen", 1)
    assert not model_lists.compare_tables(golden, reworded).list_only


def _resolver_golden() -> str:
    return goldens.read(GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE))


# --- the mapping held to upstream -------------------------------------------------------------


@pytest.mark.upstream
def test_every_upstream_lmstyle_has_a_mapping(upstream):
    missing = [
        name for name in resolver.ModelList.of(upstream).lmstyles if name not in styles.MAPPINGS
    ]
    assert not missing, f"add to styles.MAPPINGS: {missing}"


@pytest.mark.upstream
def test_an_unmapped_lmstyle_builds_no_prompt_upstream(upstream):
    """The resolver gives no style only where lcb_runner builds no code-generation prompt
    (or, for the installed stand-in, to its own LMStyle, which is not lcb_runner's)."""
    row = next(iter(cases.problems().values()))
    for name in resolver.ModelList.of(upstream).lmstyles:
        mapping = styles.mapping_for(name)
        if mapping.style is not None or name in styles.NOT_LCB_RUNNER:
            continue
        with pytest.raises(UpstreamMissing):
            upstream.format(name, row)
        assert styles.NOT_IMPLEMENTED in mapping.note, name


@pytest.mark.upstream
def test_mapped_lmstyles_extract_like_their_style(upstream):
    """Every LMStyle this upstream has extracts every fixture output as its style's golden
    (produced from the style's own LMStyle) says."""
    extract_code = upstream._function("extraction", "extract_code")
    for name in resolver.ModelList.of(upstream).lmstyles:
        mapping = styles.mapping_for(name)
        if mapping.style is None:
            continue
        for output in cases.outputs().values():
            extracted = extract_code(output.output, upstream.lmstyle(name))
            golden = goldens.read(GoldenKey(goldens.EXTRACT, mapping.style, output.id))
            assert extracted == golden, f"LMStyle.{name} extracts {output.id} differently"


@pytest.mark.upstream
def test_resolve_command_reads_upstreams_list(capsys, pytestconfig):
    source = f"--upstream={pytestconfig.getoption('--upstream')}"
    assert resolver.main([source, "meta-llama/Meta-Llama-3-70B-Instruct"]) == 0
    capsys.readouterr()
    models = list(resolver.ModelList.of(Upstream(pytestconfig.getoption("--upstream"))).models)
    found = resolver.resolve(models, "meta-llama/Meta-Llama-3-70B-Instruct").as_dict()
    assert (found["official"], found["lmstyle"]) == (True, "LLaMa3")
    assert found["chat_template_tokenizer"] == "meta-llama/Meta-Llama-3-8B-Instruct"
    assert resolver.main([source, "--json", "-", "gpt-4o-2024-05-13"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["lmstyle"], data["style"], data["official"]) == ("OpenAIChat", "generic", True)
    assert resolver.main([source, "some-org/not-a-listed-model-7B"]) == resolver.NOT_LISTED_EXIT
