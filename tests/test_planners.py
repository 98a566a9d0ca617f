"""The planners against the paper's definitions, on hypothesis-generated registries."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import FIXTURES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import (
    brute_cheapest,
    brute_minimal,
    is_plan,
    note_case,
    problems,
    reached,
)

from planfilter.core.frontier import compute_frontier, plan_cost, plan_is_valid
from planfilter.core.loading import load_registry
from planfilter.core.planners import PLANNERS, PlanResult, Status, get_planner
from planfilter.core.planners.index import index_for, never_given, unreachable_reason
from planfilter.core.planners.up_backend import installed_engines

FAST = ["native", "pyperplan"]


@pytest.fixture(params=FAST)
def planner(request):
    return request.param


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_frontier_matches_definitions(problem):
    registry, known, goal = problem
    note_case(registry, known, goal)
    best, firsts = brute_minimal(registry, known, goal)
    for name in FAST:
        result = compute_frontier(registry, known, goal, planner=name, fallback=None)
        assert result.planner == name
        if best is None:
            # No causal path: empty frontier and a reason.
            assert result.status == Status.UNSOLVABLE
            assert result.frontier == () and result.reason
            continue
        assert result.status == Status.SOLVED
        # The plan is valid and reaches the goal, and no shorter plan exists.
        assert is_plan(registry, known, goal, result.plan)
        assert len(result.plan) == len(best)
        # Canonical tie-breaking: the lexicographically smallest minimal plan.
        assert result.plan == best
        if best:
            assert result.frontier == (best[0],)
            # The frontier tool is executable in the state.
            assert registry.tool(result.frontier[0]).requires <= known
        else:
            assert result.frontier == ()
        every = compute_frontier(registry, known, goal, planner=name, ties="all", fallback=None)
        assert set(every.frontier) == firsts
        assert list(every.frontier) == [n for n in registry.names if n in firsts]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(costs=True), st.sampled_from([0.0, 0.5, 2.0]))
def test_cost_objective_is_cheapest(problem, risk_lambda):
    registry, known, goal = problem
    note_case(registry, known, goal)
    best, cost, firsts = brute_cheapest(registry, known, goal, risk_lambda)
    result = compute_frontier(registry, known, goal, planner="native", objective="cost",
                              risk_lambda=risk_lambda, fallback=None)
    reached()
    if best is None:
        assert result.status == Status.UNSOLVABLE and result.frontier == ()
        return
    assert result.plan == best
    assert plan_cost(registry, result.plan, "cost", risk_lambda) == cost
    every = compute_frontier(registry, known, goal, planner="native", objective="cost",
                             risk_lambda=risk_lambda, ties="all", fallback=None)
    assert set(every.frontier) == firsts


def test_running_example(example_registry, planner):
    known = {"date", "event_description", "new_time"}
    first = compute_frontier(example_registry, known, {"event_updated"}, planner=planner)
    assert first.frontier == ("search_events",)
    assert first.plan == ("search_events", "update_event")
    second = compute_frontier(example_registry, known | {"event_id"}, {"event_updated"},
                              planner=planner)
    assert second.frontier == ("update_event",)


def test_unreachable_reasons(example_registry, planner):
    nobody = compute_frontier(example_registry, {"date"}, {"refund_issued"}, planner=planner)
    assert nobody.status == Status.UNSOLVABLE
    assert nobody.frontier == ()
    assert "no tool produces goal variable(s) refund_issued" in nobody.reason
    never = compute_frontier(example_registry, {"date"}, {"event_updated"}, planner=planner)
    assert never.status == Status.UNSOLVABLE
    assert "event_description (no tool produces it; needed by search_events)" in never.reason
    assert "new_time" in never.reason


def test_goal_already_reached(example_registry, planner):
    result = compute_frontier(example_registry, {"event_updated"}, {"event_updated"},
                              planner=planner)
    assert result.status == Status.SOLVED and result.frontier == () and result.plan == ()


class Hanging:
    name = "hanging"
    requirements = frozenset({"strips"})

    def unavailable_reason(self):
        return None

    def solve(self, registry, known, goal, **kwargs):
        raise RuntimeError("segfault in planner")


def test_failing_planner_falls_back(example_registry, monkeypatch):
    monkeypatch.setitem(PLANNERS, "hanging", Hanging())
    result = compute_frontier(example_registry, {"date", "event_description", "new_time"},
                              {"event_updated"}, planner="hanging")
    assert result.planner == "native"
    assert result.frontier == ("search_events",)
    assert result.fallbacks == ("hanging: error: RuntimeError: segfault in planner",)


def test_plan_validation_says_what_is_wrong(example_registry):
    known = frozenset({"date", "event_description", "new_time"})
    goal = frozenset({"event_updated"})
    assert plan_is_valid(example_registry, known, goal, ("search_events", "update_event")) == ""
    assert plan_is_valid(example_registry, known, goal, ("search_events", "nope")) == \
        "step 2: unknown tool 'nope'"
    assert plan_is_valid(example_registry, known, goal, ("update_event",)) == \
        "step 1: update_event needs ['event_id']"
    assert plan_is_valid(example_registry, known, goal, ("search_events",)) == \
        "plan ends without goal variable(s) ['event_updated']"


class Invalid(Hanging):
    name = "invalid"

    def solve(self, registry, known, goal, **kwargs):
        return PlanResult(Status.SOLVED, self.name, ("update_event",))


def test_invalid_plan_is_rejected_and_falls_back(example_registry, monkeypatch):
    monkeypatch.setitem(PLANNERS, "invalid", Invalid())
    result = compute_frontier(example_registry, {"date", "event_description", "new_time"},
                              {"event_updated"}, planner="invalid")
    assert result.planner == "native"
    assert result.plan == ("search_events", "update_event")
    assert result.fallbacks == ("invalid: error: returned an invalid plan: step 1: update_event "
                                "needs ['event_id']",)


def test_timeouts_are_honoured(monkeypatch):
    from planfilter.core.contracts import Registry, Tool

    # A registry whose relevant search space is large: many tools producing optional parts.
    tools = [Tool(name=f"p{i}", requires=["start"], produces=[f"x{i}"]) for i in range(22)]
    tools.append(Tool(name="finish", requires=[f"x{i}" for i in range(22)], produces=["done"]))
    registry = Registry(tools=tuple(tools))
    for name in FAST:
        result = get_planner(name).solve(registry, frozenset({"start"}), frozenset({"done"}),
                                         timeout=0.05)
        assert result.status == Status.TIMEOUT, name
    fallen = compute_frontier(registry, {"start"}, {"done"}, planner="pyperplan", timeout=0.05,
                              fallback="native")
    assert fallen.status == Status.TIMEOUT
    assert len(fallen.fallbacks) == 2


def test_cost_objective_unsupported_by_pyperplan_falls_back(example_registry):
    result = compute_frontier(example_registry, {"date", "event_description", "new_time"},
                              {"event_updated"}, planner="pyperplan", objective="cost")
    assert result.planner == "native"
    assert "unsupported" in result.fallbacks[0]


def _up_engines():
    engines = installed_engines()
    if isinstance(engines, str):
        return []
    return [e for e in ("fast-downward", "fast-downward-opt") if e in engines]


@pytest.mark.slow
@pytest.mark.skipif(not _up_engines(), reason="no unified-planning engine installed")
@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems(max_tools=5))
def test_up_engines_agree_after_normalisation(problem):
    """The engines' plans, normalised, are the brute-force minimal plans. Time is not what is
    tested: each call may take a minute on a loaded machine (a Fast Downward call on a one-tool
    registry took 24 s at a load of 15 on 2 cores)."""
    registry, known, goal = problem
    note_case(registry, known, goal)
    best, _ = brute_minimal(registry, known, goal)
    for engine in _up_engines():
        result = compute_frontier(registry, known, goal, planner=f"up:{engine}", fallback=None,
                                  timeout=60)
        assert result.planner == f"up:{engine}"
        if best is None:
            assert result.status == Status.UNSOLVABLE
        else:
            assert result.plan == best
            if engine.endswith("-opt"):
                assert len(result.planner_plan) == len(best)


def _planner_processes(mark: str) -> list[int]:
    """The live processes of a planner call: the worker, and the Fast Downward the
    up-fast-downward package installs (its ``downward`` directory is on their command line),
    that carry ``mark`` in their environment: this test's own, not another test's or another
    user's on the machine."""
    import importlib.resources

    home = str(importlib.resources.files("up_fast_downward") / "downward")
    worker = "planfilter.core.planners.up_worker"
    mine = f"PLANFILTER_TEST_MARK={mark}".encode()
    found = []
    for proc in Path("/proc").iterdir():
        try:
            command = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            environment = (proc / "environ").read_bytes().split(b"\0")
        except (OSError, UnicodeDecodeError):
            continue  # not a process, gone, or not ours to read
        if (home in command or worker in command) and mine in environment:
            found.append(int(proc.name))
    return found


@pytest.mark.slow
@pytest.mark.skipif("fast-downward" not in _up_engines(), reason="Fast Downward not installed")
@pytest.mark.skipif(not Path("/proc/self/environ").exists(), reason="needs Linux's /proc")
def test_up_timeout_kills_the_whole_process_group(monkeypatch):
    import time
    import uuid

    from planfilter.bench.synthetic import synthetic_registry

    mark = uuid.uuid4().hex  # the planner's processes inherit it from this one
    monkeypatch.setenv("PLANFILTER_TEST_MARK", mark)
    registry, queries = synthetic_registry(10000, seed=1)
    start = time.perf_counter()
    result = compute_frontier(registry, queries[0].known, queries[0].goal,
                              planner="up:fast-downward", timeout=2.0)
    assert time.perf_counter() - start < 15  # compiling 10,000 tools to PDDL included
    assert result.planner == "native" and result.found
    assert "up:fast-downward: timeout" in result.fallbacks[0]
    assert _planner_processes(mark) == []


def test_never_given_names_what_only_the_user_can_give():
    """The variables a goal needs that no tool produces and the state lacks: those
    unreachable_reason names as never obtained; none once they are known."""
    index = index_for(load_registry(FIXTURES / "example" / "registry.yaml"))
    goal = frozenset({"event_updated"})
    missing = never_given(index, frozenset(), goal)
    assert missing == ("date", "event_description", "new_time")
    reason = unreachable_reason(index, frozenset(), goal)
    assert all(f"{v} (no tool produces it" in reason for v in missing)
    assert never_given(index, frozenset({"date"}), goal) == ("event_description", "new_time")
    assert never_given(index, frozenset(missing), goal) == ()
    assert never_given(index, frozenset(), frozenset({"nowhere"})) == ("nowhere",)
