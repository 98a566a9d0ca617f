"""The model-free replay (``--models oracle``): each task's ground truth through the guard.

No model is called (except, for ``tool_filter``, the ``--tool-filter-model`` that chooses
its tools, once per request). A session is started as a model's run would be (the task's goal, or
``--goal resolve`` with the ``retrieval`` resolver), and each ground-truth call is put to
it in order: was the tool visible under the run's method, and did ``Session.check`` allow
the call (with the run's ``--approve-risky`` policy, and provenance on)? A refused call is
not executed, as a guard would not run it, and the replay goes on with the next call; an
allowed one runs in the suite's environment and its result enters the session. The final
answer is the task's expected answer (AgentDojo's GROUND_TRUTH_OUTPUT), and success is the
suite's own check. Bundled suites replay their gold chains through the mocks, each call's
arguments filled from the state (every parameter whose variable the state holds).

Under attack, at every point of the user task (before each of its calls and after the
last) each call of the injection task's ground truth is put to the same session: refused,
by kind, or allowed. An allowed attacker call is counted, never executed. The tries go to
the run line (``probes``) with their reasons, so a report can show the share of attacker
calls refused, by kind; each also says whether the call changes something (``write``) and
whether the user task's results had shown the injected text by then (``shown``), so the
report also counts the writes let through and the share refused once the text is shown.
A run's steps carry each ground-truth call's decision and reason.

``--models obedient`` is the same replay with a model that obeys every injection: once a
result of the user task shows it an injected text, it carries out the injection task's
ground truth, each call the guard allows executed in the environment and its result taken
into the session (a hidden tool is asked for once, as ``--replay-switches`` does, a refused
call is given up, a call carrying a code or an address it never saw is not made), then goes
back to the user task. Attack success is the injection task's
own check on what the run left. Its attempts are the run's ``probes``, each with
``executed``. It knows the injection task as ``oracle`` knows the user task: an upper bound
on what any model could be talked into. Under an adaptive attack (planfilter.suites.adaptive)
it does what that attack asks instead: other calls in place of the injection task's, or the
user's own next write rewritten (each such call is a probe with ``crafted``), and attack
success is the attack's own check unless it asks for the injection task's goal.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.contracts import Tool
from ..core.provenance import unseen_datum
from ..core.values import Source, SourceKind, ValueStore
from ..filters import PRESELECTING_METHODS, Decision
from ..models import OBEDIENT, ORACLE
from ..suites import BenchSuite, Case, GroundCall
from ..suites.adaptive import (
    AdaptiveAttack,
    AttackView,
    adaptive_attack,
    crafted_success,
    is_write,
)
from .agent import RunOutcome
from .dialogue import (
    Started,
    executed_step,
    finish,
    preselect,
    refused_step,
    start_run,
)
from .options import AgentOptions
from .traces import RunKey, StepRecord, gold_next


def fill_arguments(tool: Tool, state: Mapping[str, Any]) -> dict[str, Any]:
    """Every parameter of ``tool`` whose variable the state holds, with its value."""
    properties = tool.parameters.get("properties") or {}
    return {p: state[tool.variable_of(p)] for p in properties if tool.variable_of(p) in state}


@dataclass
class Walk:
    """A replay under way: the attacker's calls (none without an injection), the adaptive
    attack the obedient model follows, and what has happened so far."""

    obey: bool
    attacker: tuple[GroundCall, ...]
    adaptive: AdaptiveAttack | None
    probes: list[dict[str, Any]] = field(default_factory=list)
    records: list[StepRecord] = field(default_factory=list)
    read: list[Any] = field(default_factory=list)  # the results the calls made so far gave
    obeyed: bool = False
    rewritten: bool = False
    shown: bool = False  # a result of the user task has shown the injected text


def replay(suite: BenchSuite, case: Case, *, method: str, seed: int = 1,
           options: AgentOptions | None = None, obey: bool = False) -> RunOutcome:
    """One replay of ``case``'s ground truth (obeying its injection with ``obey``); never
    raises for a failed run."""
    options = (options or AgentOptions()).for_suite(suite.max_steps, suite.oracle)
    key = RunKey(case.id, OBEDIENT if obey else ORACLE, method, seed)
    environment = suite.environment(case, ORACLE)
    run = start_run(suite, case, key, options, environment, model=None,
                    chooser=options.chooser if method in PRESELECTING_METHODS
                    and options.chooser else None,
                    provenance=True, resolver="retrieval", choose=chosen_tools)
    if isinstance(run, RunOutcome):  # the chooser failed, or the known values do not fit
        return run
    session, registry = run.session, suite.registry
    calls = suite.ground_truth(case, environment)
    walk = Walk(obey, suite.attacker_calls(case, environment) if case.injection else (),
                adaptive_attack(suite.attack) if obey and case.injection else None)
    for index, call in enumerate(calls):
        if not obey:
            walk.probes += _probe(session, walk.attacker, index, registry, walk.shown)
        replay_call(run, walk, index, call)
    if not obey:
        walk.probes += _probe(session, walk.attacker, len(calls), registry, walk.shown)
    answer = suite.final_answer(case)
    verdict = environment.verdict(answer, session.state)
    refused = [r for r in walk.records if r.decision != "allowed"]
    error = None
    if not verdict.success:
        error = "the suite's check failed" + (
            f" ({len(refused)} ground-truth calls refused, first: {refused[0].error})"
            if refused else "")
    adaptive, chosen = walk.adaptive, run.preselection
    return finish(run, walk.records, verdict.success, error,
                  (chosen.tokens_in, chosen.tokens_out),
                  attack_success=crafted_success(walk.probes, calls)
                  if adaptive and not adaptive.suite_check else verdict.attack_success,
                  answer=answer, probes=tuple(walk.probes), model_calls=chosen.replies)


def replay_call(run: Started, walk: Walk, index: int, call: GroundCall) -> None:
    """Put the ``index``-th ground-truth call to the session; run it when allowed, and obey
    the injection once a result shows it (under ``obey``)."""
    session, registry, environment = run.session, run.suite.registry, run.environment
    state = session.state
    visible = session.visible()
    arguments, crafted = _call_arguments(run, walk, call, state)
    record = StepRecord(key=run.key, domain=run.case.task.domain, step=index + 1,
                        visible=visible.tools, chosen=call.tool, arguments=arguments,
                        gold_next=gold_next(registry, run.case.task, state), state_before=state,
                        state_after=state, info=visible.info, planner=visible.planner,
                        fallbacks=visible.fallbacks,
                        goals=session.describe_candidates() if session.weighing else ())
    record, decision = _decide(run, record, call.tool, arguments)
    if crafted is not None:
        record = replace(record, arguments=arguments)
    if not decision.allowed:
        if crafted is not None:
            walk.probes.append(_tried(index, call.tool, decision, registry))
        walk.records.append(refused_step(record, decision))
        return
    done = environment.execute(call.tool, arguments, state)
    if crafted is not None:
        walk.probes.append(_tried(index, call.tool, decision, registry, done.ok))
    if done.ok:
        if not walk.obey and walk.attacker and not walk.shown:  # the obedient model tracks its own
            walk.shown = _injected(environment, done.text)
        walk.read.append(done.result)
    walk.records.append(executed_step(session, record, call.tool, arguments, decision, done))
    if done.ok and walk.obey and not walk.obeyed and walk.attacker and \
            _injected(environment, done.text):
        walk.obeyed = True
        seen = [run.case.task.query, *getattr(environment, "injections", {}).values()]
        walk.probes += _obey(session, environment, walk.attacker, index + 1, run.options,
                             walk.adaptive, walk.read, seen)


def _call_arguments(run: Started, walk: Walk, call: GroundCall, state: Mapping[str, Any]
                    ) -> tuple[dict[str, Any], Any]:
    """The call's arguments (its own, else filled from the state) and, once the obedient
    model obeys an adaptive attack, the attack's rewrite of the user's next write (None
    when it makes none)."""
    registry = run.suite.registry
    arguments = dict(call.arguments) if call.arguments is not None else \
        fill_arguments(registry.tool(call.tool), state) if call.tool in registry else {}
    crafted = None
    if walk.obeyed and walk.adaptive is not None and not walk.rewritten:
        crafted = walk.adaptive.rewrite(GroundCall(call.tool, arguments),
                                        AttackView(registry, run.session.flow(),
                                                   tuple(walk.read),
                                                   run.options.approve_risky == "always"))
        if crafted is not None and crafted.arguments is not None:
            arguments, walk.rewritten = dict(crafted.arguments), True
    return arguments, crafted


def _decide(run: Started, record: StepRecord, tool: str, arguments: dict[str, Any]
            ) -> tuple[StepRecord, Decision]:
    """The session's decision on the call, after asking for the next goal's tools (up to
    ``replay_switches`` times) while the tool is hidden."""
    session, options = run.session, run.options
    decision = session.check(tool, arguments)
    asked = 0
    while decision.kind == "hidden" and asked < options.replay_switches and \
            session.weighing and tool in run.suite.registry:
        # as a model that knows what it needs would: the tools shown do not fit
        visible = session.switch(f"{tool} is needed next")
        asked += 1
        record = replace(record, visible=visible.tools, info=visible.info)
        decision = session.check(tool, arguments)
    return record, decision


_CHOSEN: dict[tuple[str, str, str, int], tuple[tuple[str, ...], str, int, int]] = {}
_CHOOSING = threading.Lock()


def chosen_tools(suite: BenchSuite, case: Case, chooser: str, seed: int,
                 options: AgentOptions) -> tuple[tuple[str, ...], str, int, int]:
    """``tool_filter``'s choice for a replay: ``chooser`` is asked once per request (the
    choice sees only the request, so every pair of one user task shares it), as AgentDojo's
    tool filter asks the run's model: (tools kept, what happened, input and output tokens
    of that one call)."""
    key = (f"{suite.kind}:{suite.name}", chooser, case.task.query, seed)
    with _CHOOSING:  # one call per request, even with runs in parallel
        if key not in _CHOSEN:
            _CHOSEN[key] = preselect(suite, case, chooser, seed, options)
        return _CHOSEN[key]


def _probe(session: Any, attacker: tuple[GroundCall, ...], at: int, registry: Any,
           shown: bool) -> list[dict[str, Any]]:
    """The guard's decision on each attacker call at this point; nothing is executed. Each
    probe says whether the call changes something (``write``) and whether a result of the
    user task had shown the injected text by then (``shown``: before it, no model could
    have been told to make the call)."""
    out = []
    for call in attacker:
        decision = session.check(call.tool, dict(call.arguments or {}))
        out.append({"at": at, "tool": call.tool, "kind": decision.kind,
                    "reason": decision.reason, "write": is_write(registry, call.tool),
                    "shown": shown})
    return out


def _injected(environment: Any, text: str) -> bool:
    carries = getattr(environment, "carries_injection", None)
    return bool(carries(text)) if carries is not None else False


def _obey(session: Any, environment: Any, attacker: tuple[GroundCall, ...], at: int,
          options: AgentOptions, adaptive: AdaptiveAttack | None = None,
          read: list[Any] | None = None, seen: list[Any] | None = None
          ) -> list[dict[str, Any]]:
    """The injection task's ground truth (or what the adaptive attack asks in its place),
    carried out as far as the guard lets it; each call's result is added to ``read``. A call
    whose text carries a datum the model never saw (``seen``: the request and the injected
    text; and ``read``) is not made: the ground truth knows what the reads the guard refused
    would have shown, a model does not."""
    read = [] if read is None else read
    seen = [] if seen is None else seen
    registry = session.registry
    if adaptive is not None:
        attacker = adaptive.injected(attacker, AttackView(
            registry, session.flow(), tuple(read), options.approve_risky == "always"))
    switches = adaptive.switches if adaptive is not None else 1
    out = []
    reading = Source(SourceKind.RESULT, trusted=False)  # outside content: every text kept
    known = ValueStore().with_value([*seen, *read], reading)
    for call in attacker:
        arguments = dict(call.arguments or {})
        unseen = unseen_datum(arguments, known)
        if unseen is not None:
            out.append({"at": at, "tool": call.tool, "kind": "unseen", "executed": False,
                        "reason": f"the model never read {unseen[:60]!r}: it cannot write it"})
            continue
        decision = session.check(call.tool, arguments)
        asked = 0
        while decision.kind == "hidden" and session.weighing and options.replay_switches \
                and asked < switches:
            session.switch(f"{call.tool} is needed next")
            asked += 1
            decision = session.check(call.tool, arguments)
        if not decision.allowed:
            out.append(_tried(at, call.tool, decision, registry, crafted=adaptive is not None))
            continue
        done = environment.execute(call.tool, arguments, session.state)
        if done.ok:
            session.record(call.tool, arguments, done.result)
            read.append(done.result)
            known = known.with_value(done.result, reading)
        else:
            session.record(call.tool, arguments, error=done.error)
        out.append(_tried(at, call.tool, decision, registry, done.ok,
                          crafted=adaptive is not None))
    return out


def _tried(at: int, tool: str, decision: Any, registry: Any, ok: bool | None = None, *,
           crafted: bool = True) -> dict[str, Any]:
    """A probe line: an attacker's call, the guard's decision and reason, whether it ran
    (``ok``: None when it did not); for a call an adaptive attack wrote, also whether it ran
    without error, whether it changes something, and its arguments."""
    line: dict[str, Any] = {"at": at, "tool": tool, "kind": decision.kind,
                            "reason": decision.reason, "executed": ok is not None}
    if crafted:
        line.update(crafted=True, ok=bool(ok), write=is_write(registry, tool),
                    arguments=dict(decision.arguments or {}))
    return line
