"""Faults from models (seeded fault injection) and from planners (crash, hang, missing)."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from conftest import BENCH

import planfilter.models.sim_provider as sim_provider
from planfilter.bench.agent import AgentOptions, run_task
from planfilter.bench.runner import RunConfig, run_benchmark
from planfilter.core.errors import PlanfilterError
from planfilter.core.frontier import compute_frontier
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.planners import PLANNERS, PlanResult, Status
from planfilter.filters.base import FilterOptions, _frontier
from planfilter.models import CallOptions, check_model, complete, load_litellm
from planfilter.models.faults import KINDS, draw_fault, parse_sim_name, raise_provider_fault

REGISTRY = load_registry(BENCH / "registry.yaml")
SUITE = load_suite(BENCH / "tasks.yaml")
MOVE = SUITE.task("move-001")
NO_SLEEP = CallOptions(sleep=lambda s: None)


def test_fault_profiles_are_named_like_models():
    assert parse_sim_name("faulty") == ("careful", 0.3, None)
    assert parse_sim_name("confusable?faults=0.25@7") == ("confusable", 0.25, 7)
    assert parse_sim_name("careful") == ("careful", 0.0, None)
    check_model("sim/faulty@3")
    for bad, message in [("sim/careful?faults=2", "in \\[0, 1\\]"),
                         ("sim/careful?noise=1", "unknown option 'noise'"),
                         ("sim/careful?faults=x", "must be a number"),
                         ("sim/faulty@x", "seed after '@'"), ("sim/wild?faults=0.1", "wild")]:
        with pytest.raises(PlanfilterError, match=message):
            check_model(bad)


def test_fault_draws_are_seeded_and_cover_every_kind():
    messages = [{"role": "user", "content": "Request: q"}]
    tools = [{"type": "function", "function": {"name": "a"}}]
    draws = [draw_fault(messages, tools, seed, 1, 0.5) for seed in range(2000)]
    assert draws == [draw_fault(messages, tools, seed, 1, 0.5) for seed in range(2000)]
    counts = Counter(draws)
    assert 900 < counts[None] < 1100 and set(counts) == {None, *KINDS}
    assert all(draw_fault(messages, tools, s, 1, 0.0) is None for s in range(100))
    # a retry is a new draw
    assert [draw_fault(messages, tools, 5, a, 0.5) for a in range(1, 40)].count(None) > 5


def test_provider_faults_are_litellm_exceptions():
    litellm = load_litellm()
    for kind, cls, status in [("timeout", litellm.Timeout, 408),
                              ("rate_limit", litellm.RateLimitError, 429),
                              ("server_error", litellm.InternalServerError, 500)]:
        with pytest.raises(cls) as info:
            raise_provider_fault(kind, "sim/faulty")
        assert info.value.status_code == status


def _force(monkeypatch, by_attempt: dict[int, str | None]) -> None:
    def fake(messages, tools, seed, attempt, rate):
        return by_attempt.get(attempt)

    monkeypatch.setattr(sim_provider, "draw_fault", fake)


def test_transient_faults_are_retried_and_recorded(monkeypatch):
    _force(monkeypatch, {1: "rate_limit", 2: "timeout"})
    reply = complete("sim/faulty", [{"role": "user", "content": "Request: x"}],
                     [REGISTRY.tool("list_events").function_schema()], options=NO_SLEEP)
    assert reply.attempts == 3 and reply.retried == ("rate limit (429)", "timeout")
    assert reply.calls[0].name == "list_events"
    _force(monkeypatch, {1: "server_error", 2: "server_error", 3: "server_error"})
    outcome = run_task(REGISTRY, MOVE, method="cmtf", model="sim/faulty",
                       options=AgentOptions(call=NO_SLEEP))
    step = outcome.steps[0]
    assert step.error.startswith("model error: sim/faulty: gave up after 3 tries")
    assert step.faults == ("server error (5xx)",) * 3


@pytest.mark.parametrize("kind, fault, error", [
    ("empty", "empty answer", "model called no tool"),
    ("text", "text instead of a tool call", "model called no tool: 'You should"),
    ("malformed_json", "malformed JSON arguments", "arguments of "),
    ("several_calls", "several tool calls", "model called 2 tools"),
    ("unknown_tool", "unknown tool", "'delete_all_records_now' does not exist; refused"),
])
def test_faulty_answers_are_recorded_per_step(monkeypatch, kind, fault, error):
    _force(monkeypatch, {1: kind})
    outcome = run_task(REGISTRY, MOVE, method="all", model="sim/faulty",
                       options=AgentOptions(call=NO_SLEEP))
    step = outcome.steps[0]
    assert step.faults == (fault,) and step.error.startswith(error)
    assert step.state_after == step.state_before and not outcome.run.success


def test_a_faulty_benchmark_goes_on_and_the_report_counts_faults_by_kind(tmp_path):
    config = RunConfig(registry=REGISTRY, suite=SUITE, methods=("all", "cmtf"),
                       models=("sim/faulty",), seeds=4, out=tmp_path, plots=False)
    result = run_benchmark(config)
    assert result.ran == result.total == 6 * 2 * 4
    faults = Counter(dict(sum((Counter(dict(r.faults)) for r in result.report.rows),
                              Counter())))
    assert faults and set(faults) <= {"timeout", "rate limit (429)", "server error (5xx)",
                                      "empty answer", "text instead of a tool call",
                                      "malformed JSON arguments", "several tool calls",
                                      "unknown tool"}
    report = (tmp_path / "report.md").read_text()
    table = report.split("## Model faults by kind")[1]
    assert "| sim/faulty |" in table and all(k in table for k in faults)
    run_benchmark(RunConfig(registry=REGISTRY, suite=SUITE, methods=("all", "cmtf"),
                            models=("sim/faulty",), seeds=4, out=tmp_path / "b",
                            plots=False))
    assert (tmp_path / "b" / "report.md").read_text() == report  # seeded: reproducible


# --- planners -------------------------------------------------------------------------------

class FakePlanner:
    requirements = frozenset({"strips"})

    def __init__(self, name: str, behaviour: str):
        self.name = name
        self.behaviour = behaviour
        self.release = threading.Event()

    def unavailable_reason(self):
        return "fakeplan is not installed" if self.behaviour == "missing" else None

    def solve(self, registry, known, goal, *, objective="length", risk_lambda=0.0,
              timeout=None):
        if self.behaviour == "crash":
            raise RuntimeError("segfault in the search")
        if self.behaviour == "hang":
            self.release.wait(60)  # ignores its timeout
        return PlanResult(Status.ERROR, self.name, reason="released")


@pytest.mark.parametrize("behaviour, why", [
    ("crash", "fake: error: RuntimeError: segfault in the search"),
    ("hang", "fake: timeout: no answer within 0.3 s"),
    ("missing", "fake: error: unavailable: fakeplan is not installed"),
])
def test_a_failing_planner_falls_back_within_the_timeout(monkeypatch, behaviour, why):
    fake = FakePlanner("fake", behaviour)
    monkeypatch.setitem(PLANNERS, "fake", fake)
    _frontier.cache_clear()  # answers are cached by planner name
    start = time.perf_counter()
    try:
        result = compute_frontier(REGISTRY, MOVE.known, MOVE.goal, planner="fake", timeout=0.3)
    finally:
        fake.release.set()
    assert time.perf_counter() - start < 2.0
    assert result.planner == "native" and result.frontier == ("search_events",)
    assert result.fallbacks == (why,)
    # the agent's trace says which planner answered and why the other did not
    options = AgentOptions(call=NO_SLEEP, filter=FilterOptions(planner="fake", timeout=0.3))
    fake.release.clear()
    try:
        outcome = run_task(REGISTRY, MOVE, method="cmtf", model="sim/careful", options=options)
    finally:
        fake.release.set()
    _frontier.cache_clear()
    assert outcome.run.success
    for step in outcome.steps:
        assert step.planner == "native" and step.fallbacks == (why,)
        assert step.to_json()["fallbacks"] == [why]


def test_paper_planners_are_recorded_without_fallbacks():
    outcome = run_task(REGISTRY, MOVE, method="causal-path", model="sim/careful",
                       options=AgentOptions(call=NO_SLEEP))
    assert {s.planner for s in outcome.steps} == {"pyperplan"}
    assert all(s.fallbacks == () for s in outcome.steps)
    keyword = run_task(REGISTRY, MOVE, method="keyword-5", model="sim/careful",
                       options=AgentOptions(call=NO_SLEEP))
    assert {s.planner for s in keyword.steps} == {""}
