"""The adapter protocol (lcb_conformance.adapters.implementation): --impl MODULE or
MODULE:ATTR, some of the functions, optionally STYLES; what is missing is "not provided",
never failed."""

from __future__ import annotations

import sys
import types

import pytest

import lcb_prompts
from lcb_conformance.adapters import implementation
from lcb_conformance.adapters.implementation import NOT_PROVIDED, NotProvided
from lcb_conformance.adapters.rendering import RENDERED_STYLE, NotMessages
from lcb_conformance.suite import cases, goldens, index

ROW = {"question_content": "Add two numbers.", "starter_code": ""}


@pytest.fixture
def adapter_module(monkeypatch):
    """A module `my_adapter` holding adapters of each kind the protocol allows."""
    module = types.ModuleType("my_adapter")

    class Harness:  # a class instance holding the functions as methods
        STYLES = ("generic",)

        def format_lcb_prompt(self, row, tokenizer=None, chat_template=False, style="generic"):
            return lcb_prompts.format_lcb_prompt(row, tokenizer, chat_template, style)

        def extract_code(self, model_output, style="generic"):
            return lcb_prompts.extract_code(model_output, style)

    module.harness = Harness()
    module.ns = types.SimpleNamespace(
        inner=types.SimpleNamespace(decode_context=lcb_prompts.decode_context)
    )
    module.bad_styles = types.SimpleNamespace(
        extract_code=lcb_prompts.extract_code, STYLES="generic"
    )
    module.bad_deviations = types.SimpleNamespace(
        extract_code=lcb_prompts.extract_code, DEVIATIONS="think"
    )
    module.unknown_deviation = types.SimpleNamespace(
        extract_code=lcb_prompts.extract_code, DEVIATIONS=("think", "no-such-deviation")
    )
    module.nothing = types.SimpleNamespace(helper=len)
    module.extract_code = lcb_prompts.extract_code  # the module itself provides one function
    monkeypatch.setitem(sys.modules, "my_adapter", module)
    return module


def test_a_module_is_its_own_adapter(adapter_module):
    impl = implementation.load("my_adapter")
    assert impl.provides("extract_code") and not impl.provides("format_lcb_prompt")
    assert impl.styles is None
    with pytest.raises(NotProvided, match=f"my_adapter {NOT_PROVIDED} format_lcb_prompt"):
        impl.format_lcb_prompt  # noqa: B018


def test_module_colon_attr_names_a_class_instance(adapter_module):
    impl = implementation.load("my_adapter:harness")
    assert impl.styles == ("generic",)
    assert impl.format_lcb_prompt(ROW) == lcb_prompts.format_lcb_prompt(ROW)
    assert impl.describe()["provides"] == ["format_lcb_prompt", "extract_code"]
    assert impl.describe()["styles_not_provided"] == [
        style for style in cases.EXTRACTION_LMSTYLES if style != "generic"
    ]


def test_a_dotted_attr_names_a_nested_namespace(adapter_module):
    impl = implementation.load("my_adapter:ns.inner")
    assert impl.decode_context([104, 105]) == "hi"


def test_a_style_outside_styles_is_not_provided(adapter_module):
    impl = implementation.load("my_adapter:harness")
    extract_code = impl.extract_code
    assert extract_code("```\nx\n```", style="generic") == "x"
    assert extract_code("```\nx\n```") == "x"  # the default style is generic
    for call in (
        lambda: extract_code("x", style="codeqwen"),
        lambda: extract_code("x", "deepseek"),
        lambda: impl.format_lcb_prompt(ROW, None, False, "genericbase"),
    ):
        with pytest.raises(NotProvided, match=f"{NOT_PROVIDED} .* for style '"):
            call()
    assert not impl.provides("extract_code", style="codeqwen")
    assert impl.provides("extract_code", style="generic")


def test_an_unknown_style_reaches_the_implementation(adapter_module):
    """So the bad-input tests still see the implementation's own ValueError."""
    with pytest.raises(ValueError, match="style"):
        implementation.load("my_adapter:harness").extract_code("x", style="no-such-style")


def test_the_reference_declares_its_think_deviation_and_an_adapter_none_by_default(
    adapter_module,
):
    assert implementation.load().deviations == ("think",)
    assert implementation.load().describe()["deviations"] == ["think"]
    assert implementation.load("my_adapter:harness").deviations == ()


def test_reference_declares_every_style_and_is_not_wrapped():
    impl = implementation.load()
    assert impl.not_provided_styles() == ()
    # no style check: only the first-call record every provided function has
    assert impl.extract_code.__wrapped__ is lcb_prompts.extract_code


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("my_adapter:missing", "has no attribute 'missing'"),
        ("my_adapter:nothing", "provides none of"),
        ("my_adapter:bad_styles", "STYLES must be a tuple or list"),
        ("my_adapter:bad_deviations", "DEVIATIONS must be a tuple or list"),
        ("my_adapter:unknown_deviation", "DEVIATIONS names 'no-such-deviation', not a deviation"),
        ("no_such_module_anywhere:x", "cannot import no_such_module_anywhere"),
    ],
)
def test_a_bad_impl_name_is_a_clear_error(adapter_module, name, message):
    with pytest.raises(ImportError, match=message):
        implementation.load(name)


# ---- a chat harness: messages only, its generic prompts rendered by the suite -----------------


@pytest.fixture
def messages_only():
    return implementation.wrap(
        "chat_harness", types.SimpleNamespace(format_lcb_messages=lcb_prompts.format_lcb_messages)
    )


def _generic_prompt_cases():
    prompts = [
        case
        for case in index.held_cases(goldens.PROMPT)
        if case["call"]["args"].get("style", "generic") == RENDERED_STYLE
    ]
    return prompts + index.held_cases(goldens.CHAT_PROMPT)


def test_messages_only_adapter_is_held_to_every_generic_prompt_through_its_messages(
    messages_only, chat_tokenizer
):
    """Blank-line join without a template, the family's template with one: every generic
    prompt and chat-prompt golden, byte for byte, from lcb_runner's OpenAIChat messages."""
    held = _generic_prompt_cases()
    assert {case["family"] for case in held} == {goldens.PROMPT, goldens.CHAT_PROMPT}
    assert messages_only.provides("format_lcb_prompt", RENDERED_STYLE)
    for case in held:
        arguments = index.arguments(case["call"])
        if arguments.get("tokenizer") is not None:
            arguments["tokenizer"] = chat_tokenizer(arguments["tokenizer"])
        rendered = messages_only.format_lcb_prompt(**arguments)
        assert rendered == goldens.read(goldens.key_of(case["golden"])), case["id"]


def test_messages_only_adapter_has_no_string_styles(messages_only):
    assert not messages_only.provides("format_lcb_prompt", "codeqwen")
    with pytest.raises(NotProvided, match="provides format_lcb_messages only"):
        messages_only.format_lcb_prompt(ROW, style="codeqwen")
    assert messages_only.describe()["prompts_rendered_from_messages"] is True


def test_an_adapter_with_its_own_prompt_function_is_not_rendered():
    reference = implementation.load()
    assert reference.renders_messages() is False
    assert reference.format_lcb_prompt.__wrapped__ is lcb_prompts.format_lcb_prompt


@pytest.mark.parametrize(
    "returned, message",
    [
        ("system\n\nuser", "got str"),
        ([{"role": "user"}], "message 0 is not a dict with 'role' and 'content'"),
        ([{"role": "user", "content": ["a", "b"]}], "message 0's content is list"),
    ],
)
def test_messages_that_are_not_messages_are_a_clear_error(returned, message):
    adapter = implementation.wrap(
        "bad_chat", types.SimpleNamespace(format_lcb_messages=lambda row, style="generic": returned)
    )
    with pytest.raises(NotMessages, match=message):
        adapter.format_lcb_prompt(ROW)


# ---- not provided is about a function, decided by its first call ----------------------------

ONE_BLOCK = "```python\nx = 1\n```"
TWO_BLOCKS = "```\na\n```\n```\nb\n```"


def test_a_provided_function_declining_an_input_is_declined_not_not_provided():
    import miniatures

    impl = implementation.wrap("miniatures:declines_inputs", miniatures.declines_inputs)
    assert impl.extract_code(ONE_BLOCK) == "x = 1"
    with pytest.raises(implementation.Declined, match="declined this input of extract_code"):
        impl.extract_code(TWO_BLOCKS)
    record = implementation.raised(implementation.Declined("d"))
    assert implementation.declined(record) and not implementation.not_provided(record)


def test_a_first_call_raising_not_provided_decides_for_every_later_call():
    calls = []

    def extract_code(model_output, style="generic"):
        calls.append(model_output)
        if len(calls) == 1:
            raise NotProvided("not this harness")
        return model_output  # a later answer is never asked for

    impl = implementation.wrap("my_adapter", types.SimpleNamespace(extract_code=extract_code))
    for output in (TWO_BLOCKS, ONE_BLOCK):
        with pytest.raises(NotProvided, match="its first call raised NotProvided"):
            impl.extract_code(output)
    assert calls == [TWO_BLOCKS]


def test_a_style_outside_styles_is_no_first_call():
    """The declaration decides a style's cases; a call for it does not decide the function."""
    import miniatures

    impl = implementation.wrap("miniatures:declines_inputs", miniatures.declines_inputs)
    with pytest.raises(NotProvided, match="for style 'deepseek'"):
        impl.extract_code(TWO_BLOCKS, style="deepseek")
    assert impl.first_calls == {}
    assert impl.extract_code(ONE_BLOCK) == "x = 1"
