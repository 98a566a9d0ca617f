"""The benchmark's agent loop (paper, section 6.2): filter, prompt, one tool call, mocked step.

At each step (at most ``max_steps``) the filter picks the visible tools; the model is shown
the request, the current symbolic state and those tools' schemas only, and must call exactly
one of them (a reply with several calls, or none, is the model's failure). The run ends when
the goal variables are known (success if none of them is false), on the first failure, or at
the step limit. Every step yields a :class:`~planfilter.bench.traces.StepRecord`.

The loop runs on a :class:`planfilter.live.Session`, as any agent would: the session gives the
visible tools, decides every call (:meth:`~planfilter.live.Session.check`: visible now, a
JSON object that fits the schema, provenance, approval) and takes each result into its state.
This loop decides nothing itself: a call the session refuses is never executed and ends the
run, with the decision's kind and reason on its step. The session is configured as the run
asks: the approval policy (``approve_risky``, the paper's ``always`` by default), and the
provenance checks on under ``env="strict"`` (the default) and off under ``env="lenient"`` (the
paper artifact, whose mocks take any value of the right type; planfilter.suites.mocked). With
``goal="resolve"`` the session also resolves the goal from the request with the run's own
model (the task's goal is then only the yardstick of success and of goal accuracy); with
``goal="given"`` (the paper's setting) it is handed the task's goal.

One exception to "the first failure ends the run", so that the paper's six methods keep the
paper's semantics: for a recovering method (``cmtf-recover``, see planfilter.filters.recovery) a
failure of the environment (a tool that fails, an id the mocked service does not hold, a tool
without a mock) is recorded on its step and the run goes on, within the step limit, with the
filter told what failed; so does a refusal of the call's own arguments (:data:`RECOVERABLE`),
which the paper's environment answered with a failure. Other refusals and model failures
end every run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from ..core.compile import render
from ..core.contracts import Registry, Tool
from ..core.errors import PlanfilterError
from ..core.results import extract
from ..core.tasks import Task
from ..filters import RECOVERING_METHODS, Decision
from ..filters.risk import risky_off_path
from ..live import SWITCH_TOOL, Resolution, Session, switch_tool_schema
from ..models import ModelError, ModelReply, complete
from ..suites import Environment
from ..suites.bundled import MAX_STEPS, MockedEnvironment, goal_reached, succeeded
from .options import ENV_MODES, GOAL_MODES, AgentOptions, EnvMode, GoalMode
from .traces import RunKey, RunRecord, StepRecord, gold_next, trace_result

__all__ = ["ENV_MODES", "GOAL_MODES", "MAX_STEPS", "AgentOptions", "EnvMode", "GoalMode",
           "RunOutcome", "build_messages", "goal_reached", "run_task", "succeeded"]
#: Refusals a recovering method goes on after, as after a failed tool: the call's own
#: arguments were wrong (not JSON, off the schema, or a value obtained nowhere), which the
#: paper's environment answered with a failure. The session keeps the refused call; the
#: filter is not told of it (the tool did not fail).
RECOVERABLE = frozenset({"arguments", "invented"})


@dataclass(frozen=True)
class RunOutcome:
    steps: tuple[StepRecord, ...]
    run: RunRecord


def build_messages(task: Task, state: Mapping[str, Any], history: list[dict[str, Any]],
                   step: int, n_tools: int, max_steps: int) -> list[dict[str, str]]:
    lines = [(name, json.dumps(value, ensure_ascii=False)) for name, value in state.items()]
    system = _system_prompt()
    user = render("agent_user.j2", query=task.query, state=lines, history=history, step=step,
                  max_steps=max_steps, n_tools=n_tools).strip()
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


@lru_cache(maxsize=1)
def _system_prompt() -> str:
    return render("agent_system.j2").strip()


@lru_cache(maxsize=4096)
def _schema(tool: Tool) -> dict[str, Any]:
    return tool.function_schema()


def run_task(registry: Registry, task: Task, *, method: str, model: str, seed: int = 1,
             options: AgentOptions | None = None,
             environment: Environment | None = None) -> RunOutcome:
    """Run one task with one filter method and one model; never raises for a failed run.

    ``environment``: where the calls run (default: the task's mocks)."""
    key = RunKey(task.id, model, method, seed)
    # a YAML task's goal is its own: given unless the options say otherwise
    options = (options or AgentOptions()).for_suite(MAX_STEPS, oracle=False)
    if environment is None:
        environment = MockedEnvironment(registry, task, options.env == "strict")
    session = options.session(registry, method=method, model=model, seed=seed,
                              provenance=options.env == "strict")
    if options.goal == "resolve":  # the bundled tasks' state is what the user gave
        resolution = session.start(task.query, known=dict(task.state))
    else:
        resolution = session.start(task.query, goal=task.goal_steps, known=dict(task.state))
    pursued = task if resolution.goal == task.goal else task.model_copy(
        update={"goal": resolution.goal, "steps": resolution.steps})
    records = _steps(registry, task, pursued, key, session, options, environment)
    return RunOutcome(tuple(records), _run_line(task, key, options, session, resolution,
                                                records))


def _steps(registry: Registry, task: Task, pursued: Task, key: RunKey, session: Session,
           options: AgentOptions, environment: Environment) -> list[StepRecord]:
    """The run's steps, until the goal is reached, the first failure (a recovering method
    goes on after some) or the step limit; the last one marked done."""
    history: list[dict[str, Any]] = []
    records: list[StepRecord] = []
    recovering = key.method in RECOVERING_METHODS
    for step in range(1, options.steps + 1):
        if session.done:  # only before step 1: later steps check after acting
            break
        record, result = _step(registry, task, pursued, key, session, history, step, options,
                               environment)
        records.append(record)
        if record.decision == "switch":
            shown = session.switch(_switch_reason(record.arguments))
            records[-1] = replace(record, result=session.switch_text(shown))
            history.append({"tool": SWITCH_TOOL, "produced": list(shown.tools)})
            continue
        if record.error is not None and recovering and (
                record.tool_failed or record.decision in RECOVERABLE):
            assert record.chosen is not None
            session.record(record.chosen, _as_object(record.arguments), error=record.error)
            history.append({"tool": record.chosen, "produced": [f"failed: {record.error}"]})
            continue
        if record.error is not None:
            records[-1] = replace(record, done=True, success=False)
            break
        call = session.record(str(record.chosen), _as_object(record.arguments), result)
        records[-1] = replace(record, state_after=session.state, unfilled=call.unfilled,
                              result=trace_result(result))
        history.append({"tool": call.tool, "produced": sorted(call.produced)})
        if session.done:
            records[-1] = replace(records[-1], done=True, success=succeeded(task, session.state))
            break
    else:
        if records:
            records[-1] = replace(
                records[-1], done=True, success=False,
                error=f"step limit ({options.steps}) reached without the goal",
            )
    return records


def _run_line(task: Task, key: RunKey, options: AgentOptions, session: Session,
              resolution: Resolution, records: list[StepRecord]) -> RunRecord:
    """The run's line: success and error from its last step (from the state when the goal
    held before the first), tokens, model calls, and the goal it pursued."""
    state = session.state
    if not records:  # the goal held before the first step
        success = succeeded(task, state)
        error = None if success else "goal variables are known but false"
    else:
        success, error = bool(records[-1].success), records[-1].error
    return RunRecord(
        key, task.domain, success, len(records), error,
        sum(r.input_tokens for r in records) + resolution.input_tokens,
        sum(r.output_tokens for r in records) + resolution.output_tokens,
        goal=tuple(sorted(resolution.goal)), goal_by=str(options.goal) if options.goal != "resolve"
        else resolution.resolver, goal_correct=resolution.goal_steps == task.goal_steps,
        goal_known=dict(resolution.known), goal_notes=resolution.notes, query=task.query,
        switches=len(session.switches),
        final_goal=tuple(sorted(session.goal)) if len(session.candidates) > 1 else (),
        model_calls=resolution.replies + sum(1 for r in records if r.attempts),
    )


def _switch_reason(arguments: Any) -> str:
    reason = arguments.get("reason") if isinstance(arguments, Mapping) else None
    return str(reason)[:300] if reason else ""


def _json(text: str) -> Any:
    try:
        return json.loads(text) if text.strip() else {}
    except ValueError:
        return {}


def _as_object(arguments: Any) -> Mapping[str, Any]:
    return arguments if isinstance(arguments, Mapping) else {}


def _step(registry: Registry, task: Task, pursued: Task, key: RunKey, session: Session,
          history: list[dict[str, Any]], step: int, options: AgentOptions,
          environment: Environment) -> tuple[StepRecord, Any]:
    """One step and the tool's result as the environment gave it (None when nothing ran).
    ``task`` is the benchmark's (gold chain, mocks); ``pursued`` is the task with the goal
    the session pursues (the resolved one under ``goal="resolve"``)."""
    state = session.state
    known = frozenset(state)
    base = StepRecord(key=key, domain=task.domain, step=step, visible=(), chosen=None,
                      arguments=None, gold_next=gold_next(registry, task, known),
                      state_before=dict(state), state_after=dict(state))
    try:
        visible = session.visible()
    except PlanfilterError as exc:
        return (replace(base, error=f"filter {key.method} failed: {exc}"), None)
    base = replace(base, visible=visible.tools, info=visible.info, planner=visible.planner,
                   fallbacks=visible.fallbacks,
                   risky_off_path=risky_off_path(registry, visible.tools, state, session.goal,
                                                 options.filter))
    if not visible.tools:
        why = f" ({visible.info})" if visible.info else ""
        return (replace(base, error=f"no tool visible{why}"), None)
    tools = [_schema(registry.tool(name)) for name in visible.tools]
    if session.weighing:
        tools.append(switch_tool_schema())
        base = replace(base, goals=session.describe_candidates())
    messages = build_messages(pursued, state, history, step, len(tools), options.steps)
    try:
        reply = complete(key.model, messages, tools, seed=key.seed, options=options.call)
    except ModelError as exc:
        return (replace(base, error=f"model error: {exc}", faults=exc.kinds), None)
    base = replace(base, input_tokens=reply.input_tokens, output_tokens=reply.output_tokens,
                   latency_ms=round(reply.latency_ms, 3), attempts=reply.attempts,
                   calls=tuple(c.name for c in reply.calls), faults=reply.retried)
    if not reply.calls:
        said = f": {reply.content.strip()[:200]!r}" if reply.content else ""
        fault = "text instead of a tool call" if said else "empty answer"
        return (replace(base, error=f"model called no tool{said}",
                       faults=(*base.faults, fault)), None)
    return _take_call(registry, session, base, reply, state, environment)


def _take_call(registry: Registry, session: Session, base: StepRecord, reply: ModelReply,
               state: dict[str, Any], environment: Environment) -> tuple[StepRecord, Any]:
    """The step of the model's reply of one or more calls: a switch, several calls (the
    model's failure), or the session's decision on its one call and, when allowed, the call
    in the environment; with the tool's result (None when nothing ran). ``state``: the
    session's state when the step began."""
    known = frozenset(state)
    call = reply.calls[0]
    if call.name == SWITCH_TOOL and session.weighing and len(reply.calls) == 1:
        return (replace(base, chosen=call.name, arguments=_as_object(_json(call.arguments)),
                       decision="switch"), None)
    base = replace(base, chosen=call.name, arguments=call.arguments,
                   **_premature(registry, call.name, known))
    if len(reply.calls) > 1:
        names = ", ".join(c.name for c in reply.calls)
        return (replace(base, error=f"model called {len(reply.calls)} tools ({names}); "
                                   "exactly one is allowed",
                       faults=(*base.faults, "several tool calls")), None)
    decision = session.check(call.name, call.arguments)
    base = replace(base, decision=decision.kind, approval=decision.approval,
                   invented="invented" in (decision.kind, *decision.unchecked),
                   faults=(*base.faults, *_faults(decision)))
    if decision.arguments is not None:
        base = replace(base, arguments=dict(decision.arguments))
    if not decision.allowed:
        return (replace(base, error=decision.reason), None)
    arguments = dict(decision.arguments or {})
    outcome = environment.execute(call.name, arguments, state)
    if not outcome.ok:
        return (replace(base, error=outcome.error, tool_failed=True), None)
    # what the result gives each produced variable (a mock answers with exactly those)
    produced = dict(extract(registry.tool(call.name), outcome.result).values)
    return (replace(base, produced=produced, state_after={**state, **produced}),
            outcome.result)


def _faults(decision: Decision) -> tuple[str, ...]:
    """The model's fault that a refusal shows: a tool that does not exist, or arguments that
    are not a JSON object (counted among the model's faults, as a provider's are)."""
    if decision.kind == "unknown":
        return ("unknown tool",)
    if decision.kind == "arguments" and decision.arguments is None:
        return ("malformed JSON arguments",)
    return ()


def _premature(registry: Registry, name: str, known: frozenset[str]) -> dict[str, Any]:
    if name not in registry:
        return {}
    tool = registry.tool(name)
    missing = tuple(sorted(tool.pre - known))
    return {"premature": tool.side_effecting and bool(missing), "missing": missing}
