"""The audit's request part: lcb_runner's request read from its request goldens, each harness's
record of the request read from the fixtures its own code wrote (fixtures/audit/generate_*.py)
and held to what the harness actually sent (the stub server's stub_received.jsonl), the
differences named in words, and their effect on the exit code."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from collections import Counter

import pytest

from lcb_conformance.run_audit import audit as run_audit
from lcb_conformance.run_audit import request as requested
from lcb_conformance.run_audit import request_logs
from lcb_conformance.run_formats import lighteval as lighteval_format
from lcb_conformance.run_formats import lm_eval as lm_eval_format
from lcb_conformance.suite import cases, goldens
from lcb_conformance.suite.families import request as request_goldens
from lcb_conformance.suite.goldens import GoldenKey

# a request golden marks the prompt instead of holding it
pytestmark = pytest.mark.transformers_independent

AUDIT = cases.FIXTURES_DIR / "audit"
REVIEWS = AUDIT / "evalscope/default/reviews/stub-model/live_code_bench_release_latest.jsonl"
EVALSCOPE_DATASET = AUDIT / "evalscope/default/dataset.jsonl"
LIGHTEVAL = AUDIT / "lighteval/as-shipped"
LIGHTEVAL_DETAILS = LIGHTEVAL / "details_lcb:codegeneration|0.parquet"
LIGHTEVAL_RESULTS = LIGHTEVAL / "results.json"
OPENCOMPASS_DATASET = AUDIT / "opencompass/dataset.jsonl"
PREDICTIONS = "predictions/stub-model/lcb_code_generation.json"
LCB_RUNNER_RESULTS = (
    AUDIT / "lcb_runner/openai-chat/output/GPT-4O-2024-08-06/Scenario.codegeneration_3_0.2.json"
)


def golden(lmstyle: str, variant: str = "default") -> dict:
    return json.loads(goldens.read(GoldenKey(request_goldens.REQUEST, variant, lmstyle)))


def golden_sent(lmstyle: str, variant: str = "default") -> dict:
    return request_goldens.sent_parameters(golden(lmstyle, variant))


def lm_eval(run: str):
    return AUDIT / "lm_eval" / run / "samples_lcb_audit.jsonl"


# the fixture runs' problems are the project's own, in no release: audited as such
OWN_PROBLEMS = "--not-a-release"


def audit_cli(pytestconfig, capsys, *args: str) -> tuple[int, tuple[str, str]]:
    """The exit code and what was printed: (stdout, stderr)."""
    code = run_audit.main([*args, "--upstream", pytestconfig.getoption("--upstream")])
    return code, capsys.readouterr()


def audit_request(pytestconfig, tmp_path, *args: str) -> tuple[int, dict]:
    """The command's exit code and the request part of its JSON report (--json FILE)."""
    target = tmp_path / "audit-report.json"
    upstream = pytestconfig.getoption("--upstream")
    code = run_audit.main([*args, OWN_PROBLEMS, "--json", str(target), "--upstream", upstream])
    report = json.loads(target.read_text("utf-8"))
    assert code == report["exit_code"]
    return code, report["request"]


def parameters(request: dict) -> dict[str, dict]:
    """The request's findings by parameter."""
    return {finding["parameter"]: finding for finding in request["parameters"]}


# -- lcb_runner's side: the request goldens ------------------------------------------------


@pytest.mark.parametrize("variant", request_goldens.VARIANTS)
@pytest.mark.parametrize("lmstyle", request_goldens.lmstyles())
def test_every_sampling_parameter_a_golden_sends_is_compared(lmstyle, variant):
    """No parameter lcb_runner sends is left out: each of the goldens' sampling names is read
    as one of the compared parameters, with its value."""
    expected = requested.expected(lmstyle, variant)
    if expected.unavailable:
        assert lmstyle == "MistralWeb" and variant != "default"  # built only with its key
        return
    sent = golden_sent(lmstyle, expected.golden.split("/")[1])
    for name in set(request_goldens.SENT) - {"n", "candidate_count"}:
        if name in sent:
            (parameter,) = [p for p, names in requested.GOLDEN_NAMES.items() if name in names]
            assert expected.values[parameter] == sent[name], (lmstyle, name)


@pytest.mark.parametrize("lmstyle", request_goldens.lmstyles())
def test_lcb_runners_n_is_the_outputs_its_requests_gave(lmstyle):
    """n per request times the requests: the outputs upstream itself counted, wherever its run
    finished (the reasoning styles get one output and fail its own n == 10 assertion)."""
    expected = requested.expected(lmstyle)
    record = golden(lmstyle, expected.golden.split("/")[1])
    if "outputs" in record:
        assert expected.values[requested.N] == record["outputs"]
    else:
        assert expected.values[requested.N] == 1 and record["raised"].startswith("Assertion")


def test_mistral_web_is_held_to_the_request_it_sends_with_its_key():
    expected = requested.expected("MistralWeb")
    assert golden("MistralWeb").get("calls") == []  # its runner module needs the key
    assert expected.golden == "request/with-api-key/MistralWeb"
    assert (
        expected.values[requested.MAX_TOKENS]
        == golden_sent("MistralWeb", "with-api-key")["max_tokens"]
    )


def test_a_style_without_a_request_golden_is_cannot_check():
    check = requested.compare(
        requested.RunRequest("x", {requested.TEMPERATURE: 0.2}),
        requested.expected("NoSuchStyle"),
    )
    assert check.outcome == requested.CANNOT and "no request golden" in check.unavailable


# -- the comparison and its words ----------------------------------------------------------


def compared(lmstyle: str, variant: str = "default", arguments: bool = False, **values):
    names = {"max_tokens": requested.MAX_TOKENS, "reasoning_effort": requested.REASONING_EFFORT}
    run = requested.RunRequest(
        "test", {names.get(k, k): v for k, v in values.items()}, arguments=arguments
    )
    return requested.compare(run, requested.expected(lmstyle, variant))


def words(check) -> list[str]:
    return [finding.words for finding in check.findings if finding.words]


def test_each_difference_is_named_in_words():
    sent = golden_sent("OpenAIChat")
    check = compared("OpenAIChat", temperature=0.7, top_p=requested.NOT_SENT, max_tokens=32768)
    assert words(check) == [
        f"temperature 0.7, lcb_runner {sent['temperature']}",
        f"top_p {sent['top_p']} not sent",
        f"max tokens 32768, lcb_runner {sent['max_tokens']}",
    ]
    assert check.outcome == requested.DIFFERS


def test_a_stop_lcb_runner_sends_and_the_run_does_not_is_named():
    stop = golden_sent("DeepSeekCodeInstruct")["stop"]
    check = compared("DeepSeekCodeInstruct", stop=requested.NOT_SENT)
    assert words(check) == [f"stop {json.dumps(stop)} not sent"]
    assert compared("OpenAIChat", stop=[]).outcome == requested.IDENTICAL  # no stop either way


def test_a_parameter_lcb_runner_does_not_send_is_named_so():
    check = compared("OpenAIReason", temperature=0.2, reasoning_effort="high")
    effort = golden_sent("OpenAIReason")["reasoning_effort"]
    assert words(check) == [
        "temperature 0.2, lcb_runner sends none",
        f"reasoning effort high, lcb_runner {effort}",
    ]


def test_thinking_parameters_are_compared():
    thinking = golden_sent("Claude3Thinking")["thinking"]
    assert compared("Claude3Thinking", thinking=thinking).outcome == requested.IDENTICAL
    check = compared("Claude3Thinking", thinking=requested.NOT_SENT)
    assert words(check) == [f"thinking {json.dumps(thinking, sort_keys=True)} not sent"]


def test_the_variant_chooses_the_command_line_held_to():
    assert compared("OpenAIChat", max_tokens=32768).outcome == requested.DIFFERS
    assert compared("OpenAIChat", "max-tokens-32768", max_tokens=32768).outcome == (
        requested.IDENTICAL
    )


def test_n_alone_is_noted_never_failed():
    check = compared("OpenAIChat", n=3, temperature=0.2)
    (finding,) = check.named(requested.DIFFERS)
    assert finding.parameter == requested.N and not finding.fails
    assert check.outcome == requested.IDENTICAL
    assert any(requested.N_ONLY_NOTED in line for line in requested.render(check, "OpenAIChat"))


def test_values_that_vary_across_samples_are_mixed_and_differ_unless_all_agree():
    temperature = golden_sent("OpenAIChat")["temperature"]
    mixed = requested.Mixed((temperature, 0.7))
    check = compared("OpenAIChat", temperature=mixed)
    assert words(check) == [f"temperature mixed ({temperature}, 0.7), lcb_runner {temperature}"]
    agreeing = requested.Mixed((temperature, temperature))
    assert compared("OpenAIChat", temperature=agreeing).outcome == requested.IDENTICAL


def test_an_argument_lcb_runners_runner_does_not_send_cannot_differ():
    """lcb_runner's file name records --temperature, which the reasoning runners never send."""
    assert compared("OpenAIReason", arguments=True, temperature=0.2).outcome == (
        requested.IDENTICAL
    )
    assert compared("OpenAIChat", arguments=True, temperature=0.7).outcome == requested.DIFFERS


def test_nothing_recorded_is_cannot_check_and_says_so():
    check = compared("OpenAIChat")
    assert check.outcome == requested.CANNOT
    assert {f.outcome for f in check.findings} == {requested.CANNOT}


# -- each harness's record, held to what it sent ---------------------------------------------


def received(folder) -> list[dict]:
    return [record for _, record in cases.iter_jsonl(folder / "stub_received.jsonl")]


def recorded(fmt: str, path, config=None) -> requested.RunRequest:
    readers = {
        request_logs.LM_EVAL: lm_eval_format.samples,
        run_audit.LIGHTEVAL: lighteval_format.samples,
    }
    samples = readers[fmt](path) if fmt in readers else []
    per_sample = Counter(sample.request for sample in samples if sample.request is not None)
    config = config or request_logs.default_config(fmt, path)
    return request_logs.read(fmt, path, config, per_sample)


SENT_BY_STUB = [
    pytest.param(run_audit.EVALSCOPE, REVIEWS, None, id="evalscope"),
    # reading its parquet details needs pyarrow, which comes with the upstream extra
    pytest.param(
        run_audit.LIGHTEVAL,
        LIGHTEVAL_DETAILS,
        LIGHTEVAL_RESULTS,
        id="lighteval",
        marks=pytest.mark.upstream,
    ),
    *(
        pytest.param(request_logs.LM_EVAL, lm_eval(run), None, id=f"lm-eval {run}")
        for run in ("conformant", "first-block", "no-system")
    ),
]


@pytest.mark.parametrize(("fmt", "path", "config"), SENT_BY_STUB)
def test_what_the_audit_reads_is_what_the_harness_sent(fmt, path, config):
    """Every parameter the audit reads from a harness's own files (a value, or 'not sent') is
    what the stub server received in every request of that run."""
    run = recorded(fmt, path, config)
    folder = path.parent if fmt != run_audit.EVALSCOPE else AUDIT / "evalscope/default"
    requests = received(folder)
    assert requests
    checked = 0
    for parameter, names in requested.GOLDEN_NAMES.items():
        value = run.value(parameter)
        if value is requested.NOT_RECORDED:
            continue
        checked += 1
        for request in requests:
            got = [request[name] for name in names if name in request]
            if value is requested.NOT_SENT:
                assert got in ([], [None], [[]]), (parameter, request)
            else:
                assert got == [value], (parameter, request)
    assert checked == len(requested.GOLDEN_NAMES)  # every parameter is recorded by these


@pytest.mark.upstream  # pyarrow, for lighteval's parquet details
def test_lighteval_without_its_results_file_reads_the_tasks_generation_size():
    """The details alone record the task's generation size, which lighteval's litellm, vLLM and
    transformers backends send and its inference-providers client does not (this run's: it
    sent none); the words say so, and the model's parameters are not recorded."""
    run = recorded(run_audit.LIGHTEVAL, LIGHTEVAL_DETAILS)
    assert run.value(requested.MAX_TOKENS) == 32768  # lighteval's lcb task's generation_size
    assert "inference-providers client sends none" in run.notes[requested.MAX_TOKENS]
    assert "max_tokens" not in received(LIGHTEVAL)[0]
    assert run.value(requested.TEMPERATURE) is requested.NOT_RECORDED


def test_lighteval_finds_its_results_file_in_its_own_layout(tmp_path):
    date = "2025-01-01T00-00-00.000000"
    details = tmp_path / "details" / "org" / "model" / date
    details.mkdir(parents=True)
    shutil.copy(LIGHTEVAL_DETAILS, details / f"details_lcb:codegeneration|0_{date}.parquet")
    results = tmp_path / "results" / "org" / "model" / f"results_{date}.json"
    results.parent.mkdir(parents=True)
    shutil.copy(LIGHTEVAL_RESULTS, results)
    (path,) = details.iterdir()
    assert request_logs.default_config(run_audit.LIGHTEVAL, path) == results


def test_evalscope_and_opencompass_find_their_config_beside_the_samples():
    assert request_logs.default_config(run_audit.EVALSCOPE, REVIEWS) == (
        AUDIT / "evalscope/default/configs/task_config.yaml"
    )
    (dump,) = (AUDIT / "opencompass/as-shipped/configs").iterdir()
    path = AUDIT / "opencompass/as-shipped" / PREDICTIONS
    assert request_logs.default_config(run_audit.OPENCOMPASS, path) == dump
    conformant = AUDIT / "opencompass/conformant" / PREDICTIONS
    assert request_logs.default_config(run_audit.OPENCOMPASS, conformant) is None


def test_opencompass_as_shipped_sends_its_gpt_4o_configs_request():
    """OpenCompass's own GPT-4o model config: max_out_len 2048 and no temperature, so its
    OpenAI model's generate default (0.7); no top_p, no stop."""
    run = recorded(run_audit.OPENCOMPASS, AUDIT / "opencompass/as-shipped" / PREDICTIONS)
    assert run.value(requested.MAX_TOKENS) == 2048
    assert run.value(requested.TEMPERATURE) == request_logs.OPENCOMPASS_OPENAI_TEMPERATURE
    assert run.value(requested.TOP_P) is run.value(requested.STOP) is requested.NOT_SENT


def test_lcb_runners_file_name_records_its_temperature():
    run = recorded(request_logs.LCB_RUNNER, LCB_RUNNER_RESULTS)
    assert run.value(requested.TEMPERATURE) == 0.2 and run.arguments
    assert run.value(requested.MAX_TOKENS) is requested.NOT_RECORDED


# -- the command ---------------------------------------------------------------------------


@pytest.mark.upstream
def test_evalscope_as_shipped_names_its_request(pytestconfig, tmp_path):
    code, request = audit_request(
        pytestconfig, tmp_path, str(REVIEWS), "--dataset", str(EVALSCOPE_DATASET),
        "--style", "OpenAIChat", "--show", "0",
    )  # fmt: skip
    sent = golden_sent("OpenAIChat")
    assert code == run_audit.EXIT_DIFFERS
    assert (request["golden"], request["outcome"]) == ("request/default/OpenAIChat", "differs")
    assert request["source"].endswith("task_config.yaml's generation_config")
    failing = {name: f["words"] for name, f in parameters(request).items() if f["fails"]}
    assert failing == {
        "temperature": f"temperature 0.0, lcb_runner {sent['temperature']}",
        "top_p": f"top_p {sent['top_p']} not sent",
        "max tokens": f"max tokens {sent['max_tokens']} not sent",
    }


@pytest.mark.upstream
def test_a_conformant_lm_eval_run_sends_lcb_runners_request(pytestconfig, tmp_path):
    code, request = audit_request(
        pytestconfig, tmp_path, str(lm_eval("conformant")), "--style", "OpenAIChat"
    )
    assert code == run_audit.EXIT_OK
    assert request["source"].endswith("arguments.gen_args_0.arg_1")
    assert request["outcome"] == requested.IDENTICAL
    found = parameters(request)
    identical = [name for name, f in found.items() if f["outcome"] == requested.IDENTICAL]
    assert identical == [
        "temperature", "top_p", "max tokens", "stop", "thinking", "reasoning effort"
    ]  # fmt: skip
    n = found["n"]  # noted only
    assert (n["outcome"], n["fails"]) == (requested.DIFFERS, False)
    assert n["words"] == f"n 3, lcb_runner {golden('OpenAIChat')['outputs']}"


@pytest.mark.upstream
def test_a_request_difference_alone_fails_the_audit(pytestconfig, tmp_path):
    """lcb_runner's own run at --temperature 0.7: every sample identical, the request not."""
    run = tmp_path / "output" / "GPT-4O-2024-08-06" / "Scenario.codegeneration_3_0.7.json"
    run.parent.mkdir(parents=True)
    shutil.copy(LCB_RUNNER_RESULTS, run)
    target = tmp_path / "audit-report.json"
    upstream = pytestconfig.getoption("--upstream")
    code = run_audit.main([str(run), OWN_PROBLEMS, "--json", str(target), "--upstream", upstream])
    report = json.loads(target.read_text("utf-8"))
    assert code == report["exit_code"] == run_audit.EXIT_DIFFERS
    assert set(report["summary"]) == {run_audit.IDENTICAL}  # the samples: identical
    assert report["request"]["outcome"] == requested.DIFFERS
    failing = [f for f in report["request"]["parameters"] if f["fails"]]
    assert [f["words"] for f in failing] == [
        f"temperature 0.7, lcb_runner {golden_sent('OpenAIChat')['temperature']}"
    ]
    code, request = audit_request(
        pytestconfig, tmp_path, str(run), "--request-variant", "temperature-0.7"
    )
    assert code == run_audit.EXIT_OK and request["outcome"] == requested.IDENTICAL


@pytest.mark.upstream
def test_lighteval_request_config_given_and_reported_in_json_and_html(
    pytestconfig, capsys, tmp_path
):
    report, page = tmp_path / "audit.json", tmp_path / "audit.html"
    code, printed = audit_cli(
        pytestconfig, capsys, str(LIGHTEVAL_DETAILS), "--dataset",
        str(AUDIT / "lighteval/dataset.jsonl"), "--style", "OpenAIChat",
        "--request-config", str(LIGHTEVAL_RESULTS), "--json", str(report), "--html", str(page),
    )  # fmt: skip
    assert code == run_audit.EXIT_DIFFERS
    request = json.loads(report.read_text("utf-8"))["request"]
    assert request["golden"] == "request/default/OpenAIChat" and request["outcome"] == "differs"
    failing = {p["parameter"]: p["words"] for p in request["parameters"] if p["fails"]}
    sent = golden_sent("OpenAIChat")
    assert failing == {
        "temperature": f"temperature 0, lcb_runner {sent['temperature']}",
        "top_p": f"top_p {sent['top_p']} not sent",
        "max tokens": f"max tokens {sent['max_tokens']} not sent "
        "(lighteval's inference-providers client sends no generation_size)",
    }
    html = page.read_text("utf-8")
    assert '<h2 id="request">Request</h2>' in html
    assert f"<td>top_p {sent['top_p']} not sent</td>" in html


@pytest.mark.upstream
def test_an_opencompass_run_without_a_config_dump_leaves_the_request_unchecked(
    pytestconfig, tmp_path
):
    code, request = audit_request(
        pytestconfig, tmp_path, str(AUDIT / "opencompass/conformant" / PREDICTIONS),
        "--dataset", str(OPENCOMPASS_DATASET), "--style", "OpenAIChat",
    )  # fmt: skip
    assert code == run_audit.EXIT_OK
    assert request["outcome"] == requested.CANNOT
    unrecorded = {
        f["parameter"]: f["why"] for f in request["parameters"] if f["outcome"] == requested.CANNOT
    }
    assert list(unrecorded) == [
        "temperature", "top_p", "max tokens", "stop", "thinking", "reasoning effort"
    ]  # fmt: skip
    assert all(
        "OpenCompass's configs/<time>_<pid>.py does: none found beside them" in why
        for why in unrecorded.values()
    )


@pytest.mark.upstream
@pytest.mark.parametrize(
    ("fmt", "change", "message"),
    [
        (
            "evalscope",
            lambda text: text[: len(text) // 3] + "\n  - [unclosed",
            r"task_config.yaml: not a readable YAML file",
        ),
        (
            "opencompass",
            lambda text: text.replace("max_out_len=2048", "max_out_len=__import__('os').getpid()"),
            r"20250101_000000_0.py:\d+: models is not plain data",
        ),
    ],
)
def test_a_config_file_that_cannot_be_read_is_exit_2_naming_it(
    pytestconfig, capsys, tmp_path, fmt, change, message
):
    # tests the console's contract: an input error is one line naming file and line
    """Never run: a config dump with a call in it is refused, not executed."""
    source = {
        "evalscope": AUDIT / "evalscope/default",
        "opencompass": AUDIT / "opencompass/as-shipped",
    }
    shutil.copytree(source[fmt], tmp_path / "run")
    (config,) = (tmp_path / "run" / "configs").iterdir()
    config.write_text(change(config.read_text("utf-8")), "utf-8")
    samples = {"evalscope": REVIEWS.relative_to(source["evalscope"]), "opencompass": PREDICTIONS}
    dataset = {"evalscope": EVALSCOPE_DATASET, "opencompass": OPENCOMPASS_DATASET}
    code, (out, printed) = audit_cli(
        pytestconfig, capsys, str(tmp_path / "run" / samples[fmt]), "--dataset",
        str(dataset[fmt]), "--style", "OpenAIChat",
    )  # fmt: skip
    assert code == run_audit.EXIT_INPUT
    assert re.search(message, printed), printed
    assert "Traceback" not in printed and printed.strip() not in out


def test_request_config_is_refused_where_the_format_has_none(capsys):
    # tests the console's contract: an input error is one line naming the option
    code = run_audit.main([str(LCB_RUNNER_RESULTS), "--request-config", str(LIGHTEVAL_RESULTS)])
    assert code == run_audit.EXIT_INPUT
    assert "--request-config: lcb_runner's request is in its samples or file name" in (
        capsys.readouterr().err
    )
    code = run_audit.main([str(REVIEWS), "--request-config", "absent.yaml", "--dataset",
                           str(EVALSCOPE_DATASET), "--style", "OpenAIChat"])  # fmt: skip
    assert code == run_audit.EXIT_INPUT
    assert "--request-config absent.yaml: no such file" in capsys.readouterr().err


# -- the audit pages' examples ---------------------------------------------------------------

REPOSITORY = cases.FIXTURES_DIR.parent
AUDIT_DOCS = [REPOSITORY / "docs" / name for name in ("audit-request.md", "audit-scenarios.md")]


def console_examples() -> list:
    """(command line, the lines shown) of every ``console`` block running the audit, each
    named by its harness."""
    text = "\n".join(page.read_text("utf-8") for page in AUDIT_DOCS)
    blocks = re.findall(r"```console\n\$ (lcb-conformance audit [^\n]+)\n(.*?)```", text, re.S)
    return [
        pytest.param(command, shown.splitlines(), id=shlex.split(command)[2].split("/")[2])
        for command, shown in blocks
    ]


def test_the_docs_show_request_examples():
    assert len(console_examples()) >= 5


@pytest.mark.upstream
@pytest.mark.parametrize(("command", "shown"), console_examples())
def test_the_docs_request_examples_are_the_audits_real_output(
    pytestconfig, capsys, monkeypatch, command, shown
):
    # tests the console's contract: docs/audit.md shows the console's lines
    monkeypatch.chdir(REPOSITORY)  # the paths are the repository's
    _, (printed, _) = audit_cli(pytestconfig, capsys, *shlex.split(command)[2:])
    lines = printed.splitlines()
    for line in shown:
        assert line in lines, line


@pytest.mark.upstream
def test_a_lighteval_results_file_without_the_model_config_is_exit_2(
    pytestconfig, capsys, tmp_path
):
    # tests the console's contract: an input error is one line naming file and field
    results = json.loads(LIGHTEVAL_RESULTS.read_text("utf-8"))
    del results["config_general"]["model_config"]
    damaged = tmp_path / "results.json"
    damaged.write_text(json.dumps(results), "utf-8")
    code, (_, printed) = audit_cli(
        pytestconfig, capsys, str(LIGHTEVAL_DETAILS), "--dataset",
        str(AUDIT / "lighteval/dataset.jsonl"), "--style", "OpenAIChat",
        "--request-config", str(damaged),
    )  # fmt: skip
    assert code == run_audit.EXIT_INPUT
    assert f"{damaged}: no config_general.model_config" in printed
