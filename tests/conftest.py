from __future__ import annotations

import os
from pathlib import Path

import pytest

from planfilter.core.loading import load_registry, load_suite

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# toolscope-k filters embed with the deterministic hashing embedder in tests (fast, the same
# everywhere); the real MiniLM model has its own test, skipped when the extra is missing.
os.environ.setdefault("PLANFILTER_EMBEDDER", "hashing")
# relative dates in requests ("tomorrow") are read against one fixed day, whatever the clock
os.environ.setdefault("PLANFILTER_TODAY", "2026-12-01")

FIXTURES = Path(__file__).parent / "fixtures"
GOLDEN = Path(__file__).parent / "golden"
#: The small benchmark fixture (10 tools, 6 tasks) most run-level tests use.
BENCH = FIXTURES / "bench"


@pytest.fixture(scope="session")
def example_registry():
    return load_registry(FIXTURES / "example" / "registry.yaml")


@pytest.fixture(scope="session")
def example_suite():
    return load_suite(FIXTURES / "example" / "tasks.yaml")


@pytest.fixture(scope="session")
def registry():
    """The bench fixture's registry (test_bundled_suite overrides it with the bundled one)."""
    return load_registry(BENCH / "registry.yaml")


@pytest.fixture(scope="session")
def suite():
    return load_suite(BENCH / "tasks.yaml")


def held_out_tools(name: str, tmp_path_factory: pytest.TempPathFactory):
    """A held-out tool set under ``fixtures/`` (``outfitter``, ``ferrydesk``): its module,
    importable while the block runs, and its contracts as ``planfilter contracts infer``
    drafts them, unedited."""
    import importlib

    from click.testing import CliRunner

    from planfilter.cli import cli

    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(FIXTURES))
        tools = importlib.import_module(f"{name}.tools")
        out = tmp_path_factory.mktemp(name) / "drafted.yaml"
        result = CliRunner().invoke(cli, ["contracts", "infer", f"python:{name}.tools",
                                          "--embedder", "none", "--out", str(out)],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        yield tools, load_registry(out)
