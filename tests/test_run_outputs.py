"""``planfilter run`` and ``report`` write without losing data: the manifest, --force, stale
charts, and --resume keyed by the run's settings."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from planfilter.cli import cli
from planfilter.core.outputs import MANIFEST

SMALL = ["run", "--sample", "1", "--methods", "cmtf", "--models", "sim/careful"]


def invoke(*args):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "out"
    result = invoke(*SMALL, "--out", str(out))
    assert result.exit_code == 0, result.output
    return out


def test_a_run_lists_what_it_wrote_and_its_settings(done):
    manifest = json.loads((done / MANIFEST).read_text())
    assert {"traces.jsonl", "summary.csv", "report.md", "report.html",
            "success_by_method.png"} <= set(manifest["files"])
    assert manifest["fingerprint"]["methods"] == "cmtf"
    assert manifest["fingerprint"]["max_steps"] == "6"


def test_resume_with_other_settings_is_refused_naming_them(done):
    before = (done / "traces.jsonl").read_bytes()
    result = invoke(*SMALL, "--out", str(done), "--resume", "--max-steps", "3",
                    "--env", "lenient")
    assert result.exit_code == 1
    assert "env (strict -> lenient)" in result.output
    assert "max_steps (6 -> 3)" in result.output
    assert (done / "traces.jsonl").read_bytes() == before
    same = invoke(*SMALL, "--out", str(done), "--resume")
    assert same.exit_code == 0, same.output
    assert "1 runs were already complete, 0 ran now" in same.output


def test_report_keeps_foreign_files_and_drops_stale_charts(done, tmp_path):
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(done, folder)
    (folder / "notes.md").write_text("mine")
    result = invoke("report", str(folder), "--no-plots")
    assert result.exit_code == 0, result.output
    assert not (folder / "success_by_method.png").exists()
    assert (folder / "notes.md").read_text() == "mine"
    (folder / MANIFEST).unlink()  # a folder planfilter does not know it wrote
    before = (folder / "summary.csv").read_bytes()
    refused = invoke("report", str(folder))
    assert refused.exit_code == 1 and "--force" in refused.output
    assert (folder / "summary.csv").read_bytes() == before
    assert invoke("report", str(folder), "--force").exit_code == 0


def test_a_summary_csv_that_is_a_folder_stops_the_run_before_it_starts(tmp_path):
    (tmp_path / "summary.csv").mkdir()
    result = invoke(*SMALL, "--out", str(tmp_path))
    assert result.exit_code == 1
    assert "summary.csv: is a folder" in result.output
    assert not (tmp_path / "traces.jsonl").exists()


@pytest.mark.slow
def test_a_run_that_fails_validation_keeps_the_traces(done, tmp_path):
    pytest.importorskip("agentdojo")
    import shutil

    folder = tmp_path / "copy"
    shutil.copytree(done, folder)
    before = (folder / "traces.jsonl").read_bytes()
    result = invoke("run", "--suite", "agentdojo:banking", "--models", "oracle",
                    "--methods", "cmtf", "--attack", "important_instructions",
                    "--injection-tasks", "injection_task_999", "--out", str(folder))
    assert result.exit_code == 1
    assert "injection_task_999" in result.output
    assert (folder / "traces.jsonl").read_bytes() == before


def test_a_run_that_breaks_is_recorded_as_failed_and_the_others_go_on(tmp_path, monkeypatch):
    """Whatever one run raises (a fault of planfilter's own, an outside suite's), that run
    is written as failed with the error, the other runs complete, and no traceback ends the
    benchmark."""
    import planfilter.bench.runner as runner

    real = runner.run_case
    broken = {}

    def run_case(bench, case, **kwargs):
        if not broken:
            broken[case.id] = True
            raise ValueError("could not convert string to float: '123.456.789'")
        return real(bench, case, **kwargs)

    monkeypatch.setattr(runner, "run_case", run_case)
    out = tmp_path / "out"
    result = invoke("run", "--sample", "3", "--methods", "cmtf", "--models", "sim/careful",
                    "--out", str(out), "--no-plots")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    runs = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()
            if json.loads(line)["type"] == "run"]
    [failed] = [r for r in runs if r["task"] in broken]
    assert not failed["success"] and "ValueError: could not convert" in failed["error"]
    assert len(runs) > 1 and all(r["error"] is None or r["task"] in broken for r in runs)
