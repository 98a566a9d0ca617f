"""One check path: every loop of the benchmark decides through ``Session.check``, and nothing
under planfilter/bench/ (nor the mocked tools) refuses a call itself."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import planfilter.bench
from planfilter.bench.agent import AgentOptions, run_task
from planfilter.bench.dialogue import run_dialogue
from planfilter.bench.replay import replay
from planfilter.core.loading import load_registry, load_suite
from planfilter.core.provenance import FLOW_KINDS
from planfilter.core.resources import default_registry, default_suite
from planfilter.core.tasks import Suite
from planfilter.filters import Decision, parse_arguments
from planfilter.filters.guard import REFUSALS
from planfilter.live import Session
from planfilter.models import CallOptions
from planfilter.suites import SuiteOptions, load_bench_suite
from planfilter.suites.bundled import YamlSuite

BENCH = Path(planfilter.bench.__file__).parent
MOCKS = Path(planfilter.bench.__file__).parent.parent / "suites" / "mocked.py"
#: What decides whether a call may run: only Session.check calls these.
DECIDERS = frozenset({"check_call", "approve", "needs_approval", "check_flow",
                      "invented_arguments", "held_values", "argument_errors", "value_errors",
                      "parse_arguments", "coerce_numbers", "ToolGuard", "Decision"})
KINDS = frozenset(REFUSALS) | frozenset(FLOW_KINDS)
NO_SLEEP = CallOptions(sleep=lambda s: None)


def decisions_made(source: str, deciders: frozenset[str] = DECIDERS) -> list[str]:
    """Where ``source`` decides a call itself: a call of one of ``deciders``, or a refusal
    kind written as a step's ``decision`` or ``kind`` (reading a Decision's kind is not
    deciding)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else \
                func.attr if isinstance(func, ast.Attribute) else ""
            if name in deciders:
                found.append(f"line {node.lineno}: calls {name}")
            found += [f"line {node.lineno}: writes {k.arg}={k.value.value!r}"
                      for k in node.keywords if k.arg in ("decision", "kind")
                      and isinstance(k.value, ast.Constant) and k.value.value in KINDS]
        elif isinstance(node, ast.Dict):
            found += [f"line {node.lineno}: writes {k.value}: {v.value!r}"
                      for k, v in zip(node.keys, node.values, strict=True)
                      if isinstance(k, ast.Constant) and k.value in ("decision", "kind")
                      and isinstance(v, ast.Constant) and v.value in KINDS]
        elif isinstance(node, ast.Assign):
            found += [f"line {node.lineno}: writes .{t.attr} = {node.value.value!r}"
                      for t in node.targets if isinstance(t, ast.Attribute)
                      and t.attr in ("decision", "kind") and isinstance(node.value, ast.Constant)
                      and node.value.value in KINDS]
    return found


def test_the_scan_finds_a_loop_that_decides_for_itself():
    """The scan below can fail: each way of deciding in the loop is found."""
    for source in ('replace(record, decision="hidden")', "guard.check_call(state, n, a)",
                   'probes.append({"kind": "invented"})', 'Decision(False, "no", kind="x")',
                   "approve(policy, request, None)", 'step.decision = "approval"',
                   "argument_errors(tool, arguments)"):
        assert decisions_made(source), source
    assert not decisions_made('replace(record, decision=decision.kind)\n'
                              'if decision.kind == "hidden": pass\n'
                              'RECOVERABLE = frozenset({"arguments", "invented"})')


@pytest.mark.parametrize("path", sorted(BENCH.glob("*.py")), ids=lambda p: p.name)
def test_nothing_under_bench_decides_a_refusal_itself(path: Path):
    assert decisions_made(path.read_text(encoding="utf-8")) == [], path


def test_the_mocks_answer_as_a_service_and_decide_nothing():
    """The mocked tools validate their input, as a service does (an error result), and
    decide nothing else: no provenance, no visibility, no approval."""
    service = DECIDERS - {"argument_errors", "value_errors"}
    assert decisions_made(MOCKS.read_text(encoding="utf-8"), service) == []


@pytest.fixture
def allow_everything(monkeypatch):
    """Session.check allows every call; the calls it was asked about are listed."""
    asked: list[str] = []

    def check(self: Session, tool: str, arguments: object) -> Decision:
        asked.append(tool)
        parsed = parse_arguments(arguments)
        return Decision(True, "allowed by the test", tool,
                        None if isinstance(parsed, str) else parsed)

    monkeypatch.setattr(Session, "check", check)
    return asked


def _refused(steps) -> list[tuple[str | None, str | None]]:
    return [(s.decision, s.error) for s in steps
            if s.decision not in (None, "allowed", "switch")
            or (s.error and s.error.endswith("refused"))]


REGISTRY = load_registry(default_registry())
SUITE = load_suite(default_suite())


@pytest.mark.parametrize(("env", "approve"), [("strict", "never"), ("lenient", "ask")])
def test_the_agent_loop_refuses_nothing_the_session_allows(allow_everything, env, approve):
    """With a Session.check that allows everything, no step of the bundled suite's runs is
    refused, whatever the method, the approval policy or the env: the loop has no check of
    its own (what fails is the model, or a tool answering with an error)."""
    options = AgentOptions(call=NO_SLEEP, env=env, approve_risky=approve)  # type: ignore[arg-type]
    tasks = SUITE.tasks[::13]
    for method in ("all", "keyword-5", "cmtf-recover"):
        for model in ("sim/careful", "sim/confusable"):
            for task in tasks:
                outcome = run_task(REGISTRY, task, method=method, model=model, options=options)
                assert _refused(outcome.steps) == [], (method, model, task.id)
    assert allow_everything  # the loop asked the session about its calls


def test_without_the_patch_the_same_runs_are_refused(monkeypatch):
    """The behavioural test above can fail: the same runs, decided by the real Session.check
    under ``never``, refuse calls."""
    options = AgentOptions(call=NO_SLEEP, approve_risky="never")
    refused = [r for task in SUITE.tasks[::13] for method in ("all", "cmtf")
               for r in _refused(run_task(REGISTRY, task, method=method, model="sim/careful",
                                          options=options).steps)]
    assert refused


def test_the_replay_refuses_nothing_the_session_allows(allow_everything):
    suite = YamlSuite(REGISTRY, Suite(tasks=SUITE.tasks[::13]))
    options = AgentOptions(approve_risky="never")
    for case in suite.cases():
        outcome = replay(suite, case, method="cmtf", options=options)
        assert _refused(outcome.steps) == [], case.id
    assert allow_everything


def test_the_dialogue_loop_refuses_nothing_the_session_allows(allow_everything):
    pytest.importorskip("agentdojo", reason="agentdojo is not installed (the agentdojo extra)")
    fixtures = Path(__file__).parent / "fixtures" / "agentdojo"
    banking = load_bench_suite("agentdojo:banking",
                               SuiteOptions(registry=(fixtures / "banking.yaml",)))
    suite = banking.with_tasks(Suite(tasks=banking.tasks.tasks[:2]))
    options = AgentOptions(max_steps=4, call=NO_SLEEP, approve_risky="never")
    for method in ("all", "cmtf"):
        for case in suite.cases():
            outcome = run_dialogue(suite, case, method=method, model="sim/careful",
                                   options=options)
            assert _refused(outcome.steps) == [], (method, case.id)
    assert allow_everything
