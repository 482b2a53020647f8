"""Model -> style resolver (lcb_conformance.resolver): the mapping of every LMStyle is held to
upstream's own prompts and extractions; the model list itself is the resolver/models golden,
re-produced from upstream by the drift run (test_upstream_drift.py)."""

from __future__ import annotations

import json

import pytest

from lcb_conformance import cases, goldens, resolver
from lcb_conformance.goldens import GoldenKey
from lcb_conformance.resolver import Listed

# --- resolving names (no upstream needed) --------------------------------------------------

MODELS = [
    Listed("meta-llama/Meta-Llama-3-8B-Instruct", "LLama3-8b-Ins", "LLaMa3"),
    Listed("meta-llama/Meta-Llama-3.1-8B-Instruct", "LLama3.1-8b-Ins", "LLaMa3"),
    Listed("meta-llama/Meta-Llama-3.1-70B", "LLama3.1-70b-Base", "GenericBase"),
    Listed("Qwen/Qwen2.5-7B-Instruct", "Qwen2.5-Ins-7B", "CodeQwenInstruct"),
    Listed("Qwen/Qwen2.5-32B-Instruct", "Qwen2.5-Ins-32B", "CodeQwenInstruct"),
    Listed("claude-3-opus-20240229", "Claude-3-Opus", "Claude3"),
    Listed("gpt-4o-2024-05-13", "GPT-4O-2024-05-13", "OpenAIChat"),
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
    resolution = resolver.resolve(MODELS, "claude-3-opus-20240229")
    assert resolution.exit_code() == 1
    text = resolver.render(resolution, "test upstream")
    assert "LMStyle:       Claude3" in text
    assert "no lcb_prompts style: " in text


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
    mapping = resolver.mapping_for("SomeFutureStyle")
    assert mapping.style is None
    assert "not known to this resolver" in mapping.note


def test_mapped_styles_are_the_suites_styles():
    styles = {mapping.style for mapping in resolver.MAPPINGS.values()} - {None}
    assert styles == set(cases.EXTRACTION_LMSTYLES)


# --- the mapping held to upstream -------------------------------------------------------------


def as_text(formatted) -> str:
    """One string for any shape format_prompt_generation returns: a prompt string, chat
    messages (contents joined by a blank line), or Claude3's (system, messages)."""
    if isinstance(formatted, str):
        return formatted
    if isinstance(formatted, tuple):
        system, messages = formatted
        return "\n\n".join([system, *(message["content"] for message in messages)])
    return "\n\n".join(message["content"] for message in formatted)


def golden_prompt(style: str, tokenizer: str | None, question_id: str) -> str:
    variant = next(
        v for v in cases.PROMPT_VARIANTS if v.style == style and v.tokenizer == tokenizer
    )
    return goldens.read(GoldenKey(goldens.PROMPT, variant.name, question_id))


@pytest.fixture(scope="module")
def upstream_prompts(upstream):
    """LMStyle name -> {question_id: upstream's prompt as text}, or the exception it raised."""
    found = {}
    for name in resolver.lmstyle_names(upstream):
        try:
            # every shape upstream returns (str, messages, tuple), unlike Upstream.prompt
            found[name] = {
                qid: upstream._format(name, row) for qid, row in cases.problems().items()
            }
        except NotImplementedError as error:
            found[name] = error
    return found


@pytest.mark.upstream
def test_every_upstream_lmstyle_has_a_mapping(upstream):
    missing = [name for name in resolver.lmstyle_names(upstream) if name not in resolver.MAPPINGS]
    assert not missing, f"add to resolver.MAPPINGS: {missing}"


@pytest.mark.upstream
def test_mapped_lmstyles_give_the_styles_prompts(upstream_prompts):
    """A mapped LMStyle's prompt is, for every fixture problem, the prompt golden of its
    lcb_prompts style (messages: their contents joined by a blank line, i.e. the untemplated
    generic prompt); two messages are [system = SYSTEM_MESSAGE, user]."""
    import lcb_prompts

    for name, mapping in resolver.MAPPINGS.items():
        if mapping.style is None or name not in upstream_prompts:
            continue
        for qid, formatted in upstream_prompts[name].items():
            assert as_text(formatted) == golden_prompt(mapping.style, mapping.tokenizer, qid), (
                f"LMStyle.{name} on {qid} is not lcb_prompts {mapping.summary()}"
            )
            if isinstance(formatted, list) and len(formatted) == 2:
                assert [m["role"] for m in formatted] == ["system", "user"]
                assert formatted[0]["content"] == lcb_prompts.SYSTEM_MESSAGE


@pytest.mark.upstream
def test_unmapped_lmstyles_match_no_style(upstream_prompts):
    """An LMStyle the resolver gives no style either has no code-generation prompt upstream
    (said so) or differs from every lcb_prompts style's prompt on some fixture problem."""
    for name, prompts in upstream_prompts.items():
        mapping = resolver.mapping_for(name)
        if isinstance(prompts, NotImplementedError):
            assert mapping.note == resolver._NOT_IMPLEMENTED, name
            continue
        assert mapping.note != resolver._NOT_IMPLEMENTED, f"LMStyle.{name} does have a prompt"
        if mapping.style is not None:
            continue
        for variant in cases.PROMPT_VARIANTS:
            assert any(
                as_text(formatted) != golden_prompt(variant.style, variant.tokenizer, qid)
                for qid, formatted in prompts.items()
            ), f"LMStyle.{name} gives lcb_prompts {variant.name} prompts; map it"


@pytest.mark.upstream
def test_mapped_lmstyles_extract_like_their_style(upstream):
    extract_code = upstream._function("extraction", "extract_code")
    for name, mapping in resolver.MAPPINGS.items():
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
    text = capsys.readouterr().out
    assert "LMStyle:       LLaMa3" in text
    assert "meta-llama/Meta-Llama-3-8B-Instruct" in text
    assert resolver.main([source, "--json", "gpt-4o-2024-05-13"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["lmstyle"], data["style"], data["official"]) == ("OpenAIChat", "generic", True)
    assert resolver.main([source, "some-org/not-a-listed-model-7B"]) == resolver.NOT_LISTED_EXIT


@pytest.mark.upstream
def test_resolve_all_prints_the_golden(capsys, pytestconfig):
    assert resolver.main([f"--upstream={pytestconfig.getoption('--upstream')}", "--all"]) == 0
    key = GoldenKey(goldens.RESOLVER, "", goldens.RESOLVER_CASE)
    assert capsys.readouterr().out == goldens.read(key)
