"""End to end with a real model: the smallest known GGUF model, in process, on one task.

Runs only when the [local] extra is installed (llama-cpp-python and the model's packages);
skipped, with the reason, otherwise. It takes about 20 s on two cores.
"""

from __future__ import annotations

import json

import pytest

from planfilter.models.local_models import KNOWN_MODELS, installed

llama_cpp = pytest.importorskip("llama_cpp", reason="the [local] extra is not installed "
                                                    "(pip install 'planfilter[local]')")
SMALLEST = min(KNOWN_MODELS.values(), key=lambda m: m.size)
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not installed(SMALLEST),
                       reason=f"{SMALLEST.name} is not installed "
                              f"(pip install 'planfilter[{SMALLEST.extra}]')"),
]


def test_the_real_model_runs_the_benchmark_loop_through_litellm(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from planfilter.cli import cli

    monkeypatch.setenv("PLANFILTER_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "run"
    result = CliRunner().invoke(cli, [
        "run", "--models", f"llamacpp/{SMALLEST.name}?n_ctx=4096", "--methods", "cmtf",
        "--sample", "1", "--no-plots", "--out", str(out)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    steps = [line for line in lines if line["type"] != "run"]
    assert steps, lines
    first = steps[0]
    # one visible tool, one grammar-constrained call of it, real token counts
    assert len(first["visible"]) == 1
    assert first["chosen"] == first["visible"][0]
    assert first["input_tokens"] > 100 and first["output_tokens"] > 5
    assert isinstance(first["arguments"], dict)
