"""The bundled benchmark: the shape the paper describes, and gold chains that are minimal."""

from __future__ import annotations

from collections import Counter

import pytest

from planfilter.core.frontier import compute_frontier, executable, plan_is_valid
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import default_registry, default_suite


@pytest.fixture(scope="module")
def registry():
    return load_registry(default_registry())


@pytest.fixture(scope="module")
def suite():
    return load_suite(default_suite())


def test_shape(registry, suite):
    assert len(registry) == 100
    assert len(suite) == 102
    assert Counter(t.domain for t in suite) == {"calendar": 34, "email": 34, "files": 34}
    assert len({t.query for t in suite}) == 102
    assert len({tuple(sorted(t.state.items())) for t in suite}) == 102
    chains = {t.gold for t in suite}
    assert len(chains) >= 20
    assert {len(c) for c in chains} == {1, 2, 3, 4}
    domains = {t.domain for t in registry}
    assert {"finance", "web", "support", "analytics", "payments", "security",
            "database"} <= domains
    assert sum(t.risk == "high" for t in registry) >= 10


def test_gold_chains_are_minimal_causal_paths(registry, suite):
    for task in suite:
        assert plan_is_valid(registry, task.known, task.goal, task.gold) == "", task.id
        result = compute_frontier(registry, task.known, task.goal, planner="native")
        assert len(result.plan) == len(task.gold), task.id
        # The gold chain is the canonical plan, so CMTF's frontier is the gold next tool.
        assert result.plan == task.gold, task.id
        for tool in task.gold:
            assert set(task.mocks[tool]) == registry.tool(tool).produces, (task.id, tool)


def test_distractors_can_fire(registry, suite):
    counts = [len(executable(registry, t.known)) for t in suite]
    assert min(counts) >= 3
    assert sum(counts) / len(counts) >= 5
    fired = {name for t in suite for name in executable(registry, t.known)}
    assert len(fired - {g for t in suite for g in t.gold}) >= 20


def test_some_near_duplicates_tie_with_gold(registry, suite):
    tied = []
    for task in suite:
        every = compute_frontier(registry, task.known, task.goal, planner="native", ties="all")
        if len(every.frontier) > 1:
            tied.append(task.id)
            assert all(name in task.mocks for name in every.frontier), task.id
    assert len(tied) >= 6


def test_default_registry_is_the_top_level_files_only():
    """Subfolders of domains/ hold other suites' registries (domains/agentdojo/), whose tool
    names repeat across files: the default registry never walks into them."""
    from planfilter.core.resources import data_dir

    files = default_registry()
    assert files and all(f.parent == data_dir("domains") for f in files)
    nested = [p for p in data_dir("domains").rglob("*.yaml") if p.parent != data_dir("domains")]
    assert nested, "domains/agentdojo/ is bundled"
    assert not set(nested) & set(files)
    for path in sorted(data_dir("domains").glob("agentdojo/*.yaml")):
        assert len(load_registry(path)) > 0
    # a registry folder is its top-level files, as the default registry
    assert load_registry(data_dir("domains")).names == load_registry(files).names
    from planfilter.core.validate import validate_paths

    report = validate_paths([data_dir("domains"), data_dir("tasks")])
    assert report.ok and not report.problems, report.problems
