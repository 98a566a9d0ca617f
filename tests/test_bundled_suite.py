"""The bundled suites: the benchmark's shape as the paper describes it, gold chains that are
minimal, and every gold chain (the benchmark's and the goals-in-steps suite's) replayed
through a live Session."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from typing import Any

import pytest

from planfilter.bench.agent import run_task
from planfilter.core.contracts import Registry
from planfilter.core.frontier import compute_frontier, executable, plan_is_valid
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.resources import data_dir, default_registry, default_suite
from planfilter.core.tasks import Suite, Task
from planfilter.core.validate import check_suite, step_segments, validate_paths
from planfilter.live import Session

STEPS = data_dir("tasks") / "steps.yaml"
SHAPES = {"summarise-send", "read-write", "check-book"}


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


@pytest.fixture(scope="module")
def steps_suite():
    return load_suite(STEPS)


def test_steps_suite_shape(registry, steps_suite):
    assert len(steps_suite) >= 12
    by_domain = Counter(t.domain for t in steps_suite)
    assert all(by_domain[d] >= 4 for d in ("calendar", "email", "files")), by_domain
    assert {t.family for t in steps_suite} == SHAPES
    assert len({t.query for t in steps_suite}) == len(steps_suite)
    for task in steps_suite:
        assert len(task.goal_steps) >= 2, task.id
        if task.family == "check-book":
            continue
        # The model writes: the last tool takes a required text it authors, which no state
        # holds (so only what the first step read can fill it).
        last = registry.tool(task.gold[-1])
        written = last.authored & set(last.parameters.get("required", ()))
        assert written and not written & task.known, task.id


def test_steps_suite_validates_without_a_warning(steps_suite):
    report = validate_paths([data_dir("domains"), STEPS])
    assert report.ok and report.problems == (), report.problems
    assert report.tasks == len(steps_suite)


def test_steps_gold_chains_are_minimal_step_by_step(registry, steps_suite):
    for task in steps_suite:
        segments, rest = step_segments(registry, task.known, task.goal_steps, task.gold)
        assert len(segments) == len(task.goal_steps) and rest == (), task.id
        for segment in segments:
            goal = task.goal_steps[segment.step]
            plan = compute_frontier(registry, segment.planning_state, goal, planner="native").plan
            assert plan == segment.calls, (task.id, segment.step)
            every = compute_frontier(registry, segment.planning_state, goal, planner="native",
                                     ties="all")
            assert all(name in task.mocks for name in every.frontier), task.id


def test_validate_names_a_gold_chain_that_misses_a_step_or_runs_past_the_goal(registry):
    base = {"id": "t", "query": "q", "state": {"email_id": "m1", "recipient_email": "a@b.c"},
            "goal": [["email_body"], ["email_sent"]],
            "mocks": {"read_email": {"email_body": "hi"}, "send_email": {"email_sent": True},
                      "archive_email": {"email_archived": True}}}
    suite = load_suite_from([
        {**base, "id": "order", "gold": ["send_email", "read_email"]},
        {**base, "id": "after", "gold": ["read_email", "send_email", "archive_email"]},
        {**base, "id": "long", "gold": ["read_email", "archive_email", "send_email"]},
        {**base, "id": "good", "gold": ["read_email", "send_email"]},
    ])
    problems = [str(p) for p in check_suite(registry, suite)]
    assert any("'order'" in p and "reaches 1 of the 2 steps" in p for p in problems), problems
    assert any("'after'" in p and "archive_email after the last step" in p for p in problems)
    assert any("'long'" in p and "warning" in p and "step 2" in p for p in problems), problems
    assert not any("'good'" in p for p in problems), problems


def load_suite_from(tasks: list[dict[str, Any]]) -> Suite:
    return Suite(tasks=tuple(Task.model_validate(t) for t in tasks), source="<test>")


def _arguments(registry: Registry, session: Session, tool: str) -> dict[str, Any]:
    """The arguments an agent passes: each parameter whose variable the session knows (the
    value the user gave when there is one, else the latest), and for a required authored
    parameter a text written from the last result."""
    contract = registry.tool(tool)
    required = set(contract.parameters.get("required", ()))
    facts = session.facts
    last = session.history[-1].produced if session.history else {}
    written = "; ".join(str(v) for v in last.values() if isinstance(v, str)) or "Thanks."
    out: dict[str, Any] = {}
    for param in contract.parameters.get("properties", {}):
        variable = contract.variable_of(param)
        if param in contract.authored:
            if param in required:
                out[param] = written
        elif variable in facts:
            given = [f.value for f in facts[variable] if f.given]
            out[param] = given[0] if given else facts[variable][-1].value
    return out


def replay(registry: Registry, task: Task) -> list[str]:
    """Replay ``task``'s gold chain through a Session under cmtf; what went wrong, if any."""
    session = Session(registry, method="cmtf", seed=1)
    session.start(task.query, goal=task.goal_steps, known=dict(task.state))
    segments, _ = step_segments(registry, task.known, task.goal_steps, task.gold)
    ends = {sum(len(s.calls) for s in segments[:i + 1]): s.step + 1
            for i, s in enumerate(segments)}
    for index, tool in enumerate(task.gold, 1):
        visible = session.visible().tools
        if visible != (tool,):
            return [f"call {index}: cmtf shows {visible}, not {tool}"]
        arguments = _arguments(registry, session, tool)
        decision = session.check(tool, arguments)
        if not decision.allowed:
            return [f"call {index}: {tool} refused ({decision.kind}): {decision.reason}"]
        result = {v: True for v in registry.tool(tool).produces} | dict(task.mocks[tool])
        session.record(tool, arguments, json.loads(json.dumps(result)))
        if index in ends and session.step < ends[index]:
            return [f"call {index}: {tool} should reach step {ends[index]}, "
                    f"the session is at step {session.step + 1}"]
    if not session.done:
        return [f"the chain ends at step {session.step + 1} of {len(session.steps)}"]
    return []


@pytest.mark.parametrize("which", ["benchmark", "steps"])
def test_every_bundled_gold_chain_replays_through_session(registry, suite, steps_suite, which):
    """Each gold call is the one tool cmtf shows, the session's guard allows it (schema, no
    invented or substituted value, approval) and the chain reaches every step of the goal."""
    tasks = suite if which == "benchmark" else steps_suite
    failures = {task.id: problems for task in tasks if (problems := replay(registry, task))}
    assert failures == {}


def test_sim_careful_solves_every_shape_under_cmtf_writing_from_what_it_read(registry,
                                                                             steps_suite):
    """Per shape, the careful simulated model solves at least one task under cmtf, with the
    steps in order; and where it writes a text (an authored parameter), the text is what the
    step before it returned, not something the state held from the start."""
    solved: dict[str, list[str]] = defaultdict(list)
    for task in steps_suite:
        outcome = run_task(registry, task, method="cmtf", model="sim/careful")
        if not outcome.run.success:
            continue
        chosen = [s.chosen for s in outcome.steps]
        assert chosen == list(task.gold), task.id  # one tool shown per step: the gold one
        last, before = outcome.steps[-1], outcome.steps[-2]
        contract = registry.tool(str(last.chosen))
        for param in contract.authored & set(contract.parameters.get("required", ())):
            assert isinstance(last.arguments, dict), task.id
            read = [v for v in before.produced.values() if isinstance(v, str)]
            assert last.arguments[param] == "; ".join(read), (task.id, param)
        solved[str(task.family)].append(task.id)
    assert set(solved) == SHAPES, dict(solved)


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
