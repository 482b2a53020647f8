"""`lcb-conformance regrade`: a dataset that is not the release it is meant to be, a dataset
that is no release graded without saying so, a run the dataset cannot grade, and slices that
do not make one run; each named before a number is given."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import regrade_inputs as inputs
import upstream_trees

from false_greens import CLONE, FalseGreen
from lcb_conformance.common import exit_codes
from lcb_conformance.regrade import results_file
from lcb_conformance.upstream.pinned_tree import PINNED_COMMIT

RUN = str(inputs.LCB_RUNNER_RUN)
FORGED = f"{{tmp}}/{CLONE}"  # the clone of a row needing "checkout", forged by its prepare


def _release_missing_one(tmp: Path) -> None:
    table = inputs.release_rows("release_v1")
    del table[3]
    inputs.write(tmp / "dataset", table, "test.jsonl")


def _release_other_date(tmp: Path) -> None:
    table = inputs.release_rows("release_v1")
    table[5]["contest_date"] = "2031-02-03T00:00:00"
    inputs.write(tmp / "dataset", table, "test.jsonl")


def _hub_cache_test_changed(tmp: Path) -> None:
    inputs.hub_cache(tmp / "dataset", inputs.release_rows("release_v1"))
    blob = next((tmp / "dataset" / inputs.HUB / "blobs").iterdir())
    blob.write_text(blob.read_text("utf-8").replace('\\"output\\": \\"1', '\\"output\\": \\"7', 1))


def _fixture_rows(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl"))


def _fixture_rows_as_release(tmp: Path) -> None:
    table = inputs.rows(inputs.cases.FIXTURES_DIR / "problems.jsonl")
    inputs.write(tmp / "dataset", table, "test.jsonl")


def _run_rows_without_one(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows()[1:])


def _slices(tmp: Path, *slices: tuple[str, list | None, bool]) -> None:
    """Slice files s0.jsonl, s1.jsonl, ...: (run sha256, shard, finished)."""
    for number, (run, shard, finished) in enumerate(slices):
        header = {**inputs.REGRADE_HEADER, "run_sha256": run, "shard": shard}
        writer = results_file.Writer(tmp / f"s{number}.jsonl", header)
        writer.write(inputs.regrade_sample(number, False))
        writer.close() if finished else writer.abandon()


# A regrade of four samples, every verdict the harness's too but sample 3's (the harness
# passed it, lcb_runner not: its judge), and the same without that disagreement.
DISAGREEING = [inputs.regrade_sample(0, True), *(inputs.regrade_sample(n, False) for n in (1, 2)),
               inputs.regrade_sample(3, False, harness=True)]  # fmt: skip
AGREEING = [inputs.regrade_sample(n, n == 0) for n in range(4)]
RAISED_FOR = "CodeQwenInstruct"  # an LMStyle lcb_runner 28fef95 builds no self-repair prompt for
# A regrade with --recheck 2 (docs/regrade-timing.md): sample 0 a slow pass (its tests 4 s of
# its 6 s limit: timing-sensitive) that timed out on its first recheck, a flip the timing band
# shows (its number 0 in that round, not 25)
TIME_LIMIT = json.dumps({"error_code": -3, "error_message": "Time Limit Exceeded"})
SLOW = {"wall": 6.1, "cpu": 6.0, "execution": None, "global_timeout": False}
RECHECKED = [
    {**AGREEING[0], "timing": {**inputs.QUICK, "execution": 4.0, "wall": 4.1, "cpu": 4.0},
     "rechecks": [{"passed": False, "graded": [-3], "metadata": TIME_LIMIT, "timing": SLOW},
                  {"passed": True, "graded": [True], "metadata": "{}",
                   "timing": {**inputs.QUICK, "execution": 3.9}}]},
    *AGREEING[1:],
]  # fmt: skip


def _forged_regrade(samples: list[dict], edit, shards: int = 1, rechecks: int = 0):
    """A prepare: the regrade of ``samples`` (as ``shards`` slices s1.jsonl.., else
    s0.jsonl; graded with --recheck ``rechecks``), then ``edit(records)`` on the records of
    the last file, as a forger would."""

    def prepare(tmp: Path) -> None:
        numbers = range(1, shards + 1) if shards > 1 else [0]
        paths = [tmp / f"s{number}.jsonl" for number in numbers]
        for number, path in enumerate(paths, start=1):
            shard = [number, shards] if shards > 1 else None
            header = {**inputs.REGRADE_HEADER, "shard": shard, "recheck": rechecks}
            writer = results_file.Writer(path, header)
            for sample in samples[number - 1 :: shards]:
                writer.write(sample)
            writer.close()
        records = [json.loads(line) for line in paths[-1].read_text("ascii").splitlines()]
        edit(records)
        paths[-1].write_text("".join(json.dumps(r) + "\n" for r in records), "ascii")

    return prepare


def _sample(n: int, change):
    """An edit: ``change(sample)`` on the records' sample ``n``."""

    def edit(records: list[dict]) -> None:
        change(next(r["sample"] for r in records if r.get("sample", {}).get("n") == n))

    return edit


def _self_repair_header(claims: dict):
    """An edit: the header a self-repair run of a Qwen2.5-Ins-7B folder's (LMStyle
    CodeQwenInstruct, for which lcb_runner 28fef95 raises building self-repair prompts) would
    have, with ``claims`` over it."""

    def edit(records: list[dict]) -> None:
        head = records[0]["header"]
        head.update(format="lcb_runner_self_repair", scenario="selfrepair", lmstyle=RAISED_FOR)
        head.pop("lcb_runner_raises", None)
        head.update(claims)

    return edit


def _passed(sample: dict) -> None:
    sample["regrade"]["passed"] = True


def _passed_and_graded(sample: dict) -> None:
    sample["regrade"].update(passed=True, graded=[True])


def _flip_hidden(sample: dict) -> None:
    sample["rechecks"][0]["passed"] = True


def _rechecks_dropped(sample: dict) -> None:
    del sample["rechecks"]


def _starved_kept(sample: dict) -> None:
    """The run alone's verdict replaced by a starved time limit (6 s of wall, 0.5 of CPU)."""
    sample["regrade"].update(graded=[-3], metadata=TIME_LIMIT)
    sample["timing"] = {**SLOW, "cpu": 0.5}


def _footer_samples(records: list[dict]) -> None:
    records[-1]["footer"]["samples"] = 5


def _unfinished_results(tmp: Path) -> None:
    _slices(tmp, ("a", None, False))


def _evalscope_folder(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows())
    (tmp / "dataset" / "extra.jsonl").write_text(json.dumps({"question_id": "x"}) + "\n")


def _run_rows_reordered(tmp: Path) -> None:
    inputs.write(tmp / "dataset", inputs.rows()[::-1])


def _results_without_verdicts(tmp: Path) -> None:
    _fixture_rows(tmp)
    plain = inputs.LCB_RUNNER_RUN.with_name("Scenario.codegeneration_3_0.2.json")
    (tmp / "run.json").write_bytes(plain.read_bytes())


def _forged_checkout(tmp: Path) -> None:
    upstream_trees.forge(tmp / CLONE)
    _fixture_rows(tmp)


def _regraded_then(edit, *options: str):
    """A prepare: the fixture run regraded with ``options`` into s0.jsonl, in its own
    interpreter (it may import the row's clone's lcb_runner), never green as written; then
    ``edit(header)`` on its header, as a forger would."""

    def prepare(tmp: Path) -> None:
        _fixture_rows(tmp)
        results = tmp / "s0.jsonl"
        argv = [RUN, "--dataset", str(tmp / "dataset"), "--not-a-release", "--results",
                str(results), *(option.format(tmp=tmp) for option in options)]  # fmt: skip
        done = subprocess.run(
            [sys.executable, "-m", "lcb_conformance.cli", "regrade", *argv],
            capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        assert done.returncode == exit_codes.INCOMPLETE, done.stdout[-2000:] + done.stderr
        records = [json.loads(line) for line in results.read_text("ascii").splitlines()]
        edit(records[0]["header"])
        results.write_text("".join(json.dumps(r) + "\n" for r in records), "ascii")

    return prepare


def _forged_and_regraded(tmp: Path) -> None:
    upstream_trees.forge(tmp / CLONE)
    _regraded_then(_tree_changes_dropped, "--upstream", FORGED, "--allow-modified-upstream")(tmp)


def _tree_changes_dropped(head: dict) -> None:
    head["upstream"]["tree"].update(changes=[], equal_to=PINNED_COMMIT)


def _judge_differs_dropped(head: dict) -> None:
    head["judge_differs"] = []


def _shadowing_module_at_the_root(tmp: Path) -> None:
    # lcb_runner's evaluation imports tqdm: a tqdm.py at the root (first on sys.path) is
    # imported in its place, lcb_runner's files untouched
    (tmp / CLONE / "tqdm.py").write_text("def tqdm(iterable=None, **_):\n    return iterable\n")
    _fixture_rows(tmp)


CASES = [
    FalseGreen(
        id="regrade-upstream-root-module-shadows-an-import",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release", "--upstream", FORGED),
        prepare=_shadowing_module_at_the_root,
        expect=exit_codes.UNUSABLE,
        why="a tree whose lcb_runner files are 28fef95's but whose root holds a module lcb_runner "
        "imports in place of the installed one is not lcb_runner 28fef95",
        needs=("upstream", "checkout"),
        says=("importable beside lcb_runner: tqdm.py", "--allow-modified-upstream"),
    ),
    FalseGreen(
        id="regrade-upstream-testing-util-appended",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release", "--upstream", FORGED),
        prepare=_forged_checkout,
        expect=exit_codes.UNUSABLE,
        why="a checkout whose .git says 28fef95 but whose run_test credits a program it marks is "
        "not lcb_runner 28fef95's judge, though it passes the judge check",
        needs=("upstream", "checkout"),
        says=(f"changed {upstream_trees.TESTING_UTIL}", "--allow-modified-upstream"),
    ),
    FalseGreen(
        id="regrade-modified-upstream-allowed",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release", "--upstream", FORGED,
              "--allow-modified-upstream"),  # fmt: skip
        prepare=_forged_checkout,
        expect=exit_codes.INCOMPLETE,
        why="a number graded by a modified lcb_runner is not lcb_runner 28fef95's number",
        needs=("upstream", "checkout"),
        says=("upstream: MODIFIED lcb_runner tree", f"changed {upstream_trees.TESTING_UTIL}",
              "INCOMPLETE:"),  # fmt: skip
    ),
    FalseGreen(
        id="regrade-stand-in-judge-unsaid",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="the stand-in's judge grades the stdin-buffer programs unlike 28fef95's",
        needs=("upstream",),
        says=("--accept-judge-differences",),
    ),
    FalseGreen(
        id="regrade-stand-in-judge-accepted",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release", "--accept-judge-differences"),
        prepare=_fixture_rows,
        expect=exit_codes.INCOMPLETE,
        why="a number graded by a judge that differs from 28fef95's on judge cases is not "
        "lcb_runner's number, however every harness verdict agrees with it (exited 0)",
        needs=("upstream",),
        says=("INCOMPLETE:", "by a judge that differs from 28fef95's on"),
    ),
    FalseGreen(
        id="regrade-harness-judged-otherwise",
        command="regrade",
        argv=("{tmp}/Scenario.codegeneration_3_0.2_eval_all.json", "--dataset",
              "{tmp}/dataset", "--not-a-release", "--style", "OpenAIChat",
              "--accept-judge-differences"),  # fmt: skip
        prepare=inputs.judged_otherwise,
        expect=exit_codes.DIFFERS,
        why="a harness that failed right programs (its judge, its extraction) is not lcb_runner",
        needs=("upstream",),
        says=("j_sum: differs", "sample 0", "judge differs", "extraction differs"),
    ),
    FalseGreen(
        id="regrade-positions-of-another-order",
        command="regrade",
        argv=(str(inputs.EVALSCOPE_RUN), "--dataset", "{tmp}/dataset", "--not-a-release",
              "--style", "OpenAIChat"),  # fmt: skip
        prepare=_run_rows_reordered,
        expect=exit_codes.UNUSABLE,
        why="evalscope names problems by position: another order grades them against others' tests",
        says=("group_id 0 is lc_starter_null_token_bucket",),
    ),
    FalseGreen(
        id="regrade-no-workers",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release", "--workers", "0"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="no worker grades nothing: a regrade of no sample has no number",
        says=("at least 1",),
    ),
    FalseGreen(
        id="regrade-no-harness-verdicts",
        command="regrade",
        argv=("{tmp}/run.json", "--dataset", "{tmp}/dataset", "--not-a-release",
              "--style", "OpenAIChat", "--accept-judge-differences"),  # fmt: skip
        prepare=_results_without_verdicts,
        expect=exit_codes.INCOMPLETE,
        why="a log without the harness's verdicts compares nothing: no agreement was shown",
        needs=("upstream",),
        says=("not compared",),
    ),
    FalseGreen(
        id="regrade-dataset-missing-a-problem",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset"),
        prepare=_release_missing_one,
        expect=exit_codes.UNUSABLE,
        why="a release missing a problem gives a number on another problem set",
        says=("not release release_v1", "1 problems of release_v1 missing"),
    ),
    FalseGreen(
        id="regrade-dataset-one-file-missing-a-problem",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset/test.jsonl"),
        prepare=_release_missing_one,
        expect=exit_codes.UNUSABLE,
        why="test.jsonl given alone is release_v1 by its name: held to the release as the "
        "folder is, a problem missing is another problem set",
        says=("not release release_v1", "1 problems of release_v1 missing"),
    ),
    FalseGreen(
        id="regrade-dataset-other-metadata",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--release", "release_v1"),
        prepare=_release_other_date,
        expect=exit_codes.UNUSABLE,
        why="a problem dated otherwise than the release moves it across every window",
        says=("2031-02-03",),
    ),
    FalseGreen(
        id="regrade-dataset-test-changed-in-hub-cache",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset"),
        prepare=_hub_cache_test_changed,
        expect=exit_codes.UNUSABLE,
        why="a test case edited after download judges against other tests than the release's",
        says=("changed since download",),
    ),
    FalseGreen(
        id="regrade-no-release-without-saying-so",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="a private or fixture set graded silently passes for a leaderboard number",
        says=("--not-a-release",),
    ),
    FalseGreen(
        id="regrade-fixture-set-named-like-a-release",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset"),
        prepare=_fixture_rows_as_release,
        expect=exit_codes.UNUSABLE,
        why="a file named test.jsonl is not release_v1 because of its name",
        says=("problems of release_v1 missing",),
    ),
    FalseGreen(
        id="regrade-run-problem-not-in-dataset",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_run_rows_without_one,
        expect=exit_codes.UNUSABLE,
        why="a problem the dataset lacks cannot be graded: the number would leave it out",
        says=("atc_grid_robot_detour",),
    ),
    FalseGreen(
        id="regrade-dataset-with-a-stray-file",
        command="regrade",
        argv=(RUN, "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_evalscope_folder,
        expect=exit_codes.UNUSABLE,
        why="a file of the folder that is no dataset rows is not silently skipped",
        says=("extra.jsonl",),
    ),
    FalseGreen(
        id="regrade-unknown-model",
        command="regrade",
        argv=(str(inputs.EVALSCOPE_RUN), "--dataset", "{tmp}/dataset", "--not-a-release"),
        prepare=_fixture_rows,
        expect=exit_codes.UNUSABLE,
        why="a model lcb_runner does not list has no LMStyle: the extraction would be a guess",
        says=("--style LMSTYLE",),
    ),
    FalseGreen(
        id="regrade-merge-slice-of-another-run",
        command="regrade",
        argv=("merge", "{tmp}/s0.jsonl", "{tmp}/s1.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=lambda tmp: _slices(tmp, ("a", [1, 2], True), ("b", [2, 2], True)),
        expect=exit_codes.UNUSABLE,
        why="half of one run and half of another is neither run's number",
        says=("another regrade",),
    ),
    FalseGreen(
        id="regrade-merge-overlapping-slices",
        command="regrade",
        argv=("merge", "{tmp}/s0.jsonl", "{tmp}/s1.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=lambda tmp: _slices(tmp, ("a", [1, 2], True), ("a", [1, 2], True)),
        expect=exit_codes.UNUSABLE,
        why="a slice counted twice weighs its problems double",
        says=("both slice 1/2",),
    ),
    FalseGreen(
        id="regrade-merge-missing-slice",
        command="regrade",
        argv=("merge", "{tmp}/s0.jsonl", "{tmp}/s1.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=lambda tmp: _slices(tmp, ("a", [1, 3], True), ("a", [3, 3], True)),
        expect=exit_codes.INCOMPLETE,
        why="two slices of three are a number on a third fewer problems",
        says=("slice 2/3 missing",),
    ),
    FalseGreen(
        id="regrade-merge-unfinished-slice",
        command="regrade",
        argv=("merge", "{tmp}/s0.jsonl", "{tmp}/s1.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=lambda tmp: _slices(tmp, ("a", [1, 2], True), ("a", [2, 2], False)),
        expect=exit_codes.INCOMPLETE,
        why="a slice whose job died holds only the samples graded before it did",
        says=("did not finish",),
    ),
    FalseGreen(
        id="regrade-show-sample-passed-flipped",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _sample(1, _passed)),
        expect=exit_codes.UNUSABLE,
        why="a sample edited to passed raises pass@1, but its graded list is lcb_runner's fail",
        says=("s0.jsonl:3: sample 1 says lcb_runner passed True, but its graded list [False] "
              "is passed False",),  # fmt: skip
    ),
    FalseGreen(
        id="regrade-show-sample-graded-edited-too",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _sample(1, _passed_and_graded)),
        expect=exit_codes.UNUSABLE,
        why="a sample's verdict and graded list edited to pass keep lcb_runner's Wrong Answer",
        says=("sample 1 says lcb_runner passed, but its metadata records error_code -2",),
    ),
    FalseGreen(
        id="regrade-show-headline-edited",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(DISAGREEING, _sample(3, lambda sample: sample.update(why=[]))),
        expect=exit_codes.UNUSABLE,
        why="a sample the harness graded otherwise, its why emptied: the headline would say "
        "no problem graded differently",
        says=("sample 3 says why [], but its verdicts give ['judge']",),
    ),
    FalseGreen(
        id="regrade-show-header-claims-lcb-runner-builds-the-prompts",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _self_repair_header({"lcb_runner_raises": ""})),
        expect=exit_codes.UNUSABLE,
        why="a self-repair run of an LMStyle lcb_runner raises for is no run it wrote: a header "
        "claiming it builds those prompts would make the regrade's agreement a green",
        says=("the header says lcb_runner_raises '', but lcb_runner 28fef95 raises building",),
    ),
    FalseGreen(
        id="regrade-show-lcb-runner-raises-unrecorded",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _self_repair_header({})),
        expect=exit_codes.DIFFERS,
        why="every sample agreeing is no green for a run lcb_runner could not have written: "
        "derived from the scenario and LMStyle, not read from the header",
        says=("NOT LCB_RUNNER'S RUN", "no run lcb_runner could have written"),
    ),
    FalseGreen(
        id="regrade-show-footer-edited",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _footer_samples),
        expect=exit_codes.UNUSABLE,
        why="a footer counting other samples than the file holds is not the regrade's",
        says=("the footer says {'complete': True, 'samples': 5}, but the file holds 4 samples",),
    ),
    FalseGreen(
        id="regrade-merge-slice-edited",
        command="regrade",
        argv=("merge", "{tmp}/s1.jsonl", "{tmp}/s2.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=_forged_regrade(AGREEING, _sample(1, _passed), shards=2),
        expect=exit_codes.UNUSABLE,
        why="a slice whose sample was edited to passed would merge into a number nobody graded",
        says=("s2.jsonl:2: sample 1 says lcb_runner passed True",),
    ),
    FalseGreen(
        id="regrade-show-timing-band-flip-hidden",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(RECHECKED, _sample(0, _flip_hidden), rechecks=2),
        expect=exit_codes.UNUSABLE,
        why="a recheck's time limit edited to a pass narrows the timing band to the number "
        "alone: no sample flipped",
        says=("sample 0 says lcb_runner passed True, but its graded list [-3] is passed False",),
    ),
    FalseGreen(
        id="regrade-show-timing-band-rechecks-dropped",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(RECHECKED, _sample(0, _rechecks_dropped), rechecks=2),
        expect=exit_codes.UNUSABLE,
        why="a timing-sensitive verdict's rechecks dropped: a band without its flip",
        says=("sample 0 says 0 rechecks, but its timing and --recheck 2 ask 2",),
    ),
    FalseGreen(
        id="regrade-merge-timing-band-edited",
        command="regrade",
        argv=("merge", "{tmp}/s1.jsonl", "{tmp}/s2.jsonl", "--results", "{tmp}/whole.jsonl"),
        prepare=_forged_regrade(RECHECKED[1:] + RECHECKED[:1], _sample(0, _flip_hidden),
                                shards=2, rechecks=2),  # fmt: skip
        expect=exit_codes.UNUSABLE,
        why="a slice whose recheck was edited would merge into a band nobody measured",
        says=("s2.jsonl:", "sample 0 says lcb_runner passed True, but its graded list [-3]"),
    ),
    FalseGreen(
        id="regrade-show-starved-verdict-kept",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_regrade(AGREEING, _sample(1, _starved_kept)),
        expect=exit_codes.UNUSABLE,
        why="a starved time limit (it waited for a core) is the machine's verdict, not the "
        "program's: never final without its run alone",
        says=("sample 1 says a starved time limit (far less CPU than wall time) as its verdict",),
    ),
    FalseGreen(
        id="regrade-show-header-tree-changes-dropped",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_forged_and_regraded,
        expect=exit_codes.UNUSABLE,
        why="a regrade by a modified lcb_runner (--allow-modified-upstream, exit 4), its header "
        "edited to name no change and 28fef95, would read as lcb_runner 28fef95's number",
        needs=("upstream", "checkout"),
        says=("s0.jsonl:1: the header says the upstream's lcb_runner tree's changes [] and "
              f"equal_to '{PINNED_COMMIT}', but its sha256 ",
              f"is not the digest of {PINNED_COMMIT[:7]}'s files"),  # fmt: skip
    ),
    FalseGreen(
        id="regrade-show-header-judge-differs-dropped",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_regraded_then(_judge_differs_dropped, "--accept-judge-differences"),
        expect=exit_codes.UNUSABLE,
        why="a regrade by the stand-in, whose judge differs from 28fef95's on judge cases "
        "(--accept-judge-differences, exit 4), its header edited to name none, would read as "
        "lcb_runner 28fef95's number",
        needs=("upstream",),
        says=("s0.jsonl:1: the header says judge_differs [], but the judge of "
              "nvidia-livecodebench 26.3 (installed) differs from 28fef95's on",),  # fmt: skip
    ),
    FalseGreen(
        id="regrade-show-unfinished",
        command="regrade",
        argv=("show", "{tmp}/s0.jsonl"),
        prepare=_unfinished_results,
        expect=exit_codes.INCOMPLETE,
        why="a regrade that died is no number for the run",
        says=("did not finish",),
    ),
]
