"""docs/regrade-slurm.md's job array run on a real Slurm cluster (tox -e slurm starts a single-node
one: dev/lcb_conformance_dev/slurm_cluster.py): the page's job script
submitted with `sbatch --wait`, each array task a `regrade --shard I/N` in its own Slurm job
(bubblewrap containment under slurmd), the page's `regrade merge` of the slices, equal to an
unsliced regrade of the same run byte for byte but for what was measured, `--recheck`
included, each slice's sample lines byte for byte in the merged file."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import regrade_inputs as inputs

from lcb_conformance import cli
from lcb_conformance.common import paths
from lcb_conformance.regrade import results_file

pytestmark = pytest.mark.slurm

PAGE = paths.ROOT / "docs" / "regrade-slurm.md"
RECIPE = re.compile(r"<!-- needs: slurm[^>]*-->\n```bash\n(?P<script>.*?)^```", re.M | re.S)
MERGE = re.compile(r"^(lcb-conformance regrade merge slices/\*\.jsonl .*)$", re.M)
SLICES = 2  # the machine's cores: one array task each
SPINS = "while True:\n    pass\n"  # a time limit at every run: timing-sensitive, rechecked
# what the page leaves to the reader (its cluster's size, its run and paths) and what this run
# adds: the fixture's rows are no release, the stand-in's judge differences are known
WHAT_IS_SUBSTITUTED = {
    "--array=1-16 --cpus-per-task=8": f"--array=1-{SLICES} --cpus-per-task=1",
    '"$SLURM_ARRAY_TASK_ID/16"': f'"$SLURM_ARRAY_TASK_ID/{SLICES}"',
    "regrade RUN ": "regrade {run} ",
    "/data/code_generation_lite": "{dataset}",
    "/opt/LiveCodeBench": "{upstream}",
    '.jsonl"\n': '.jsonl" {extra}\n',
}


def _recipe() -> tuple[str, str]:
    """The page's job script and its merge command, as written."""
    text = PAGE.read_text("utf-8")
    return RECIPE.search(text)["script"], MERGE.search(text)[1]


def _job_script(run: Path, dataset: Path, upstream: str, extra: list[str]) -> str:
    script, _ = _recipe()
    for written, here in WHAT_IS_SUBSTITUTED.items():
        assert script.count(written) == 1, f"{PAGE.name}'s job script no longer holds {written!r}"
        script = script.replace(written, here)
    return script.format(run=run, dataset=dataset, upstream=upstream, extra=" ".join(extra))


def _run_with_a_time_limit(folder: Path) -> tuple[Path, Path]:
    """Four problems answered by a program that passes, the first also by one that spins: a
    time limit, the one sample --recheck grades again; (run, dataset folder)."""
    run = inputs.release_run(folder, count=4)
    rows = json.loads(run.read_text("utf-8"))
    rows[0]["output_list"].append(f"```python\n{SPINS}```\n")
    rows[0]["code_list"].append(SPINS.rstrip("\n"))
    rows[0]["graded_list"].append(False)
    run.write_text(json.dumps(rows), "utf-8")
    graded = {row["question_id"] for row in rows}
    table = [row for row in inputs.release_rows("release_v1") if row["question_id"] in graded]
    return run, inputs.write(folder / "dataset", table)


def _cluster_environment() -> dict[str, str]:
    if "SLURM_CONF" not in os.environ or not shutil.which("sbatch"):
        pytest.skip("needs a Slurm cluster: tox -e slurm")
    # the array tasks get this environment (sbatch exports it): this lcb-conformance first
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_the_pages_job_array_merged_equals_the_whole_run(pytestconfig, upstream, tmp_path):
    env = _cluster_environment()
    run, dataset = _run_with_a_time_limit(tmp_path / "inputs")
    accept = ["--accept-judge-differences"] if upstream.checkout is None else []
    extra = ["--not-a-release", "--timeout", "1", "--recheck", "1", *accept]
    script = tmp_path / "regrade.sbatch"
    script.write_text(_job_script(run, dataset, pytestconfig.getoption("--upstream"), extra))
    submitted = subprocess.run(["sbatch", "--wait", str(script)], cwd=tmp_path, env=env,
                               capture_output=True, text=True, timeout=900)  # fmt: skip
    logs = "".join(p.read_text() for p in sorted(tmp_path.glob("slurm-*.out")))
    # sbatch --wait: the array's highest exit code, each task's its slice's verdict
    said = submitted.stdout + submitted.stderr + logs
    assert submitted.returncode == inputs.agreeing_exit(upstream), said
    slices = [tmp_path / "slices" / f"{i}.jsonl" for i in range(1, SLICES + 1)]
    assert all(path.is_file() for path in slices), logs
    # each slice was graded by its own array task, under slurmd
    assert len(list(tmp_path.glob("slurm-*_*.out"))) == SLICES, logs

    _, merge = _recipe()
    merged = subprocess.run(["bash", "-c", merge], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)  # fmt: skip
    assert merged.returncode == inputs.agreeing_exit(upstream), merged.stdout + merged.stderr
    whole = tmp_path / "whole.jsonl"
    argv = [str(run), "--dataset", str(dataset), "--style", "OpenAIChat", "--upstream",
            pytestconfig.getoption("--upstream"), *extra, "--results", str(whole)]  # fmt: skip
    assert cli.main(["regrade", *argv]) == inputs.agreeing_exit(upstream)

    result = tmp_path / "regrade.jsonl"
    assert inputs.unmeasured(result) == inputs.unmeasured(whole)
    assert inputs.sample_lines(result) == inputs.sample_lines(*slices)
    samples = results_file.read(result).samples
    assert [len(s.get("rechecks", ())) for s in samples] == [0, 1, 0, 0, 0]
    assert samples[1]["regrade"]["graded"] == samples[1]["rechecks"][0]["graded"] == [-3]
    assert json.loads((tmp_path / "regrade.json").read_text("utf-8"))["timing"]["sensitive"] == [
        f"{samples[1]['question_id']}[1]"
    ]
