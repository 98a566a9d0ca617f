"""The bench machinery (not its timings) and the fast native path against a naive reference."""

from __future__ import annotations

import json
import random
from collections import deque

from click.testing import CliRunner

from planfilter.bench.synthetic import synthetic_registry
from planfilter.bench.timing import BenchRow, run_cell, with_ratios
from planfilter.cli import cli
from planfilter.core.contracts import Registry, Tool
from planfilter.core.frontier import compute_frontier, plan_is_valid
from planfilter.core.planners.native import NativePlanner


def algorithm_1(registry: Registry, known: frozenset, goal: frozenset):
    """The paper's Algorithm 1, verbatim: BFS over frozensets in registry order."""
    if goal <= known:
        return ()
    queue = deque([(known, ())])
    seen = {known}
    while queue:
        state, path = queue.popleft()
        if goal <= state:
            return path
        for tool in registry:
            if tool.requires <= state:
                nxt = state | tool.produces
                if nxt not in seen:
                    queue.append((nxt, path + (tool.name,)))
                    seen.add(nxt)
    return None


def random_registry(rng: random.Random, n_tools: int, n_vars: int) -> Registry:
    variables = [f"x{i}" for i in range(n_vars)]
    tools = []
    for i in range(n_tools):
        requires = rng.sample(variables, rng.randint(0, min(3, n_vars)))
        produces = rng.sample(variables, rng.randint(1, 2))
        tools.append(Tool(name=f"t{i}", requires=requires, produces=produces))
    return Registry(tools=tuple(tools))


def test_native_equals_algorithm_1_on_thousands_of_registries():
    rng = random.Random(7)
    native = NativePlanner()
    checked = 0
    for _ in range(2000):
        registry = random_registry(rng, rng.randint(1, 14), rng.randint(2, 9))
        variables = sorted(registry.variables)
        known = frozenset(rng.sample(variables, rng.randint(0, min(3, len(variables)))))
        goal = frozenset(rng.sample(variables, rng.randint(1, min(3, len(variables)))))
        expected = algorithm_1(registry, known, goal)
        result = native.solve(registry, known, goal)
        if expected is None:
            assert result.status.value == "unsolvable"
        else:
            assert result.plan == expected, (registry.names, known, goal)
            checked += 1
    assert checked > 500


def test_synthetic_registries_have_the_promised_mix():
    registry, queries = synthetic_registry(1000, seed=3)
    assert len(registry) == 1000
    assert {q.steps for q in queries} == {1, 2, 3, 4}
    for q in queries[:30]:
        result = compute_frontier(registry, q.known, q.goal, planner="native")
        assert len(result.plan) == q.steps
        assert plan_is_valid(registry, q.known, q.goal, result.plan) == ""
    ties = [q for q in queries
            if len(compute_frontier(registry, q.known, q.goal, planner="native",
                                    ties="all").frontier) > 1]
    assert ties, "near-duplicates should create tied frontiers"
    same, _ = synthetic_registry(1000, seed=3)
    assert same.names == registry.names


def test_run_cell_measures_own_paths_with_both_tie_modes():
    rows = run_cell("native", 100, seed=0, queries=5, repeat=1, timeout=5, budget=5)
    assert [r.ties for r in rows] == ["first", "all"]
    assert all(r.calls == 5 and r.median_ms is not None and r.status == "ok" for r in rows)


def test_goal_recognition_is_measured_as_one_step_over_eight_candidates():
    [row] = run_cell("candidates", 100, seed=0, queries=10, repeat=1, timeout=5, budget=5)
    assert (row.planner, row.ties, row.status, row.timeouts) == ("candidates", "all", "ok", 0)
    assert row.calls == 10 and row.median_ms is not None


def test_ratios_come_from_the_same_run():
    def row(planner, median):
        return BenchRow(planner, 100, "first", median, median, 0.0, 1, 0, 1.0, "ok")

    rows = with_ratios([row("native", 0.5), row("pyperplan-fresh", 10.0),
                        row("up:fast-downward", 500.0)])
    assert rows[0].vs_pyperplan == 20.0 and rows[0].vs_fast_downward == 1000.0


def test_bench_command_json():
    result = CliRunner().invoke(cli, ["bench", "--sizes", "100", "--planners",
                                      "native,pyperplan", "--repeat", "1", "--queries", "3",
                                      "--json"], catch_exceptions=False)
    rows = json.loads(result.stdout)
    assert {(r["planner"], r["ties"]) for r in rows} == {
        ("native", "first"), ("native", "all"), ("pyperplan", "first"), ("pyperplan", "all")}
    for r in rows:
        assert {"planner", "tools", "ties", "median_ms", "p95_ms", "prep_ms"} <= set(r)


def test_a_cell_over_time_is_killed_and_reported():
    from planfilter.bench.timing import _cell_in_subprocess

    rows = _cell_in_subprocess("pyperplan-fresh", 1000, seed=0, queries=20, repeat=50,
                               timeout=10, budget=60, cell_timeout=1.0)
    assert rows[0].status == "killed after 1 s" and rows[0].median_ms is None
