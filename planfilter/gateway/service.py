"""What the gateway does, free of protocol: start a task, check and run a call, report.

:class:`Gateway` holds the completed registry, the upstream servers (anything with
``async call(tool, arguments) -> Outcome``) and the task table. The MCP adapter
(planfilter.gateway.server) turns its answers, plain JSON-able dicts, into MCP results.

A call goes: task handle -> the session's guard (visible now, schema, provenance) ->
approval of a high-risk tool (asked by the adapter) -> the upstream call -> the result into
the session's state (``Session.record``) -> the next frontier. A refused call never reaches
the upstream server. A call the user declined ends that action: the task remembers it
(``Session.decline``), never asks about that tool again, and says so in every answer after.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from ..core.contracts import Registry
from ..core.environment import Supplied, supply
from ..core.errors import PlanfilterError
from ..core.frozen import thaw
from ..core.provenance import is_taint
from ..filters import Decision
from ..filters.base import frontier_for
from ..filters.guard import parse_arguments
from ..filters.risk import POLICIES, ApprovalPolicy, ApprovalRequest, approve
from ..live import Session
from ..live.session import declined_error, declined_refusal
from .coverage import UpstreamTool
from .tasks import Task, TaskTable
from .upstream import Outcome

Mode = Literal["meta", "dynamic"]
MODES: tuple[str, ...] = ("meta", "dynamic")
#: The approval policies the gateway takes for a client that cannot be asked: every one but
#: ``ask``, since asking the user is the client's job (MCP elicitation), not a callback's.
APPROVE_RISKY: tuple[ApprovalPolicy, ...] = tuple(p for p in POLICIES if p != "ask")
#: Characters of an upstream result's text repeated in a call's answer.
RESULT_CHARS = 20_000


class Caller(Protocol):
    async def call(self, qualified: str, arguments: dict[str, Any]) -> Outcome: ...


@dataclass(frozen=True)
class GatewayOptions:
    mode: Mode = "meta"
    uncontracted: str = "hide"
    #: Without a client that can be asked: approve high-risk calls ``always``, ``never``, or
    #: ``untainted`` (a contracted call without a tainted argument; never an uncontracted one).
    #: ``never`` here, not the library's ``DEFAULT_POLICY``: the gateway cannot tell whether a
    #: person stands behind a client without elicitation, and the calls it forwards act on
    #: real servers, so a high-risk call nobody was shown does not run unless whoever starts
    #: the gateway says so (``--approve-risky``).
    approve_risky: ApprovalPolicy = "never"
    method: str = "cmtf"
    model: str | None = None
    resolver: str = "retrieval"

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise PlanfilterError(f"mode {self.mode!r}: choose meta or dynamic")
        if self.uncontracted not in ("hide", "expose"):
            raise PlanfilterError(f"uncontracted {self.uncontracted!r}: choose hide or expose")
        if self.approve_risky not in APPROVE_RISKY:
            raise PlanfilterError(f"approve-risky {self.approve_risky!r}: choose "
                                  + ", ".join(APPROVE_RISKY))


@dataclass(frozen=True)
class Checked:
    """A call that passed or failed the guard; ``risky`` calls still need approval."""

    task: Task
    tool: str
    arguments: dict[str, Any]
    refused: dict[str, str] | None = None
    risky: bool = False
    #: True for an uncontracted, exposed tool (outside the plan, not recorded in the state).
    outside: bool = False
    #: Why the call needs approval (high risk, tainted arguments), for the user.
    concerns: tuple[str, ...] = ()

    @property
    def refusal_kind(self) -> str:
        """The kind of refusal when it is not approved without asking (``approve_risky``)."""
        return "tainted" if any(is_taint(c) for c in self.concerns) \
            else "approval"


def unattended(policy: ApprovalPolicy, checked: Checked, why: str) -> str | None:
    """The decision on a risky call when the client cannot be asked: None when ``policy``
    approves it (planfilter.filters.risk.approve), else why not. ``untainted`` approves a
    contracted call whose arguments are not tainted; an uncontracted tool is outside the
    plan and its arguments were never checked, so it approves none of those."""
    tainted = tuple(c for c in checked.concerns if is_taint(c))
    request = ApprovalRequest(checked.tool, checked.arguments, {}, frozenset(),
                              checked.concerns, tainted=tainted)
    if approve(policy, request, None).approved and not (checked.outside
                                                       and policy == "untainted"):
        return None
    return (f"{why}; this client cannot be asked (no elicitation) and the gateway runs with "
            f"--approve-risky {policy}")


class Gateway:
    def __init__(self, registry: Registry, upstream: Caller, tools: tuple[UpstreamTool, ...],
                 options: GatewayOptions | None = None):
        self.registry = registry
        self.upstream = upstream
        self.options = options = options or GatewayOptions()
        self.tools = {t.qualified: t for t in tools}
        self.exposed = {n: t for n, t in self.tools.items()
                        if n not in registry and options.uncontracted == "expose"}
        self.tasks = TaskTable()

    # -- plan -----------------------------------------------------------------------------

    async def supplied(self, known: Any = None) -> dict[str, Supplied]:
        """The values the registry's ``environment`` names, its ``tool:`` sources called
        upstream with no arguments (each time a task starts: a directory or an account may
        have changed since) unless ``known`` (the client's values) gives the variable; a
        source that fails is an error naming the variable and tool."""
        given = set(known) if isinstance(known, Mapping) else set()
        outcomes = {}
        for tool in sorted({s.tool for n, s in self.registry.environment.items()
                            if s.tool and n not in given}):
            outcomes[tool] = await self.upstream.call(tool, {})

        def run(tool: str) -> Any:
            outcome = outcomes[tool]
            if not outcome.ok:
                raise PlanfilterError(outcome.error or "failed")
            return outcome.value

        return supply(self.registry, run=run, skip=frozenset(given))

    def plan(self, owner: str, request: Any, goal: Any = None, known: Any = None,
             environment: Mapping[str, Supplied] | None = None) -> dict:
        """Start a task: resolve the goal, return the handle and the frontier.
        ``environment``: what :meth:`supplied` gave (default: the values that need no call)."""
        if not isinstance(request, str) or not request.strip():
            raise PlanfilterError("'request' must be the user's request in words")
        if known is not None and not isinstance(known, Mapping):
            raise PlanfilterError("'known' must be an object of variable -> value")
        if goal is not None and not (isinstance(goal, str) or (
                isinstance(goal, list) and goal and all(
                    isinstance(g, str) or (isinstance(g, list) and g and
                                           all(isinstance(v, str) for v in g))
                    for g in goal))):
            raise PlanfilterError("'goal' must be a goal name, a list of variables, or a list "
                                  "of steps (each a name or a list of variables), in order")
        if goal is None and self.options.resolver == "model" and not self.options.model:
            raise PlanfilterError("give 'goal', or start the gateway with --model")
        # The session's guard approves every call it allows ("always"): the approval of a
        # risky call is the adapter's, asked of the user or decided by ``approve_risky``.
        session = Session(self.registry, method=self.options.method, model=self.options.model,
                          resolver=self.options.resolver, policy="always")
        resolution = session.start(request, goal=goal, known=dict(known or {}),
                                   environment=environment)
        # A Session keeps an unreachable goal (its frontier is empty and says why); a client
        # is better told at once, before it holds a task that cannot move.
        unknown = sorted(resolution.goal - self.registry.produced - set(session.state))
        if unknown:
            raise PlanfilterError(f"goal {sorted(resolution.goal)}: no tool produces "
                                  f"{', '.join(unknown)}")
        task = self.tasks.add(owner, session)
        out: dict[str, Any] = {"task": task.handle, "goal": sorted(resolution.goal),
                               "goal_name": resolution.name,
                               "resolved_by": resolution.resolver}
        if len(session.steps) > 1:
            out["steps"] = [sorted(s) for s in session.steps]
        if resolution.candidates:
            out["candidates"] = list(resolution.candidates)
        if session.environment:
            out["environment"] = {name: {"value": item.value, "from": item.source}
                                  for name, item in sorted(session.environment.items())}
        return {**out, **self.frontier(task)}

    def switch(self, owner: str, handle: Any, reason: Any = None) -> dict:
        """The client says the tools shown do not fit: the goals that offered only those are
        set aside and the next candidates' tools are returned (``plan`` with ``task``)."""
        task = self.tasks.get(owner, handle)
        if reason is not None and not isinstance(reason, str):
            raise PlanfilterError("'reason' must be text")
        session = task.session
        session.switch(reason or "")  # an error when it weighs no candidates
        return {"task": task.handle, "switched": len(session.switches),
                "goal": sorted(session.goal), **self.frontier(task)}

    def frontier(self, task: Task, schemas: bool = True) -> dict:
        """The tools the task may call now, and the plan behind them."""
        session = task.session
        visible = session.visible()
        if session.done and not visible.tools:
            return {"done": True, "status": "goal reached", "tools": [], "plan": [],
                    **self._exposed_part(schemas)}
        result = frontier_for(self.registry, session.planning_state(), session.current_goal,
                              session.options)
        tools = [self.tool_schema(n) if schemas else n for n in visible.tools]
        status = "goal reached" if session.done else "continue" if visible.tools else \
            "declined" if visible.declined else "stuck"
        out: dict[str, Any] = {"done": session.done, "status": status,
                               "tools": tools, "plan": list(result.plan)}
        if len(session.steps) > 1:
            out["step"] = session.step + 1
        if session.weighing:  # the candidate goals, by weight; `plan` with the task switches
            out["goal_candidates"] = list(session.describe_candidates())
        if not visible.tools:
            out["why"] = visible.info
        return {**out, **self._exposed_part(schemas)}

    def _exposed_part(self, schemas: bool) -> dict:
        if not self.exposed:
            return {}
        return {"outside_plan": [t.schema() if schemas else n for n, t in self.exposed.items()]}

    def tool_schema(self, name: str) -> dict[str, Any]:
        if name in self.tools:
            return self.tools[name].schema()
        tool = self.registry.tool(name)
        return {"name": name, "description": tool.description,
                "inputSchema": thaw(tool.parameters)}

    def visible_now(self, task: Task | None) -> list[str]:
        """Dynamic mode's list: the task's frontier, then the exposed tools."""
        names = [] if task is None else list(task.session.visible().tools)
        return names + [n for n in self.exposed if n not in names]

    # -- call -----------------------------------------------------------------------------

    def check(self, owner: str, handle: Any, tool: Any, arguments: Any) -> Checked:
        task = self.tasks.get(owner, handle)
        if not isinstance(tool, str):
            raise PlanfilterError("'tool' must be a tool name")
        parsed = parse_arguments({} if arguments is None else arguments)
        if tool in self.exposed:
            if tool in task.declined:
                return self._refused(task, tool, {}, "declined", task.declined[tool])
            if isinstance(parsed, str):
                return self._refused(task, tool, {}, "arguments", f"arguments of {tool}: "
                                     f"{parsed}; refused")
            return Checked(task, tool, parsed, risky=self.exposed[tool].destructive,
                           outside=True)
        decision: Decision = task.session.check(tool, arguments if arguments is not None
                                                else {})
        args = dict(decision.arguments or {})
        if not decision.allowed:
            return self._refused(task, tool, args, decision.kind, decision.reason)
        return Checked(task, tool, args, risky=bool(decision.concerns),
                       concerns=decision.concerns)

    def _refused(self, task: Task, tool: str, args: dict, kind: str, reason: str) -> Checked:
        return Checked(task, tool, args, refused={"kind": kind, "reason": reason})

    def refuse(self, checked: Checked, kind: str, reason: str) -> dict:
        """Answer a call that will not run (refused by the guard, or not approved)."""
        session = checked.task.session
        if checked.refused is None and not checked.outside:
            session.record(checked.tool, checked.arguments, error=reason)
        return self._refusal(checked, kind, reason)

    def decline(self, checked: Checked, how: str) -> dict:
        """Answer a call the user was asked about and did not approve (``how``: their answer).
        The task remembers it: that tool is refused from now on without asking again."""
        task = checked.task
        if checked.outside:  # not in the session's plan or history: the task keeps it
            task.declined[checked.tool] = declined_refusal(checked.tool)
        else:
            task.session.decline(checked.tool, checked.arguments, how)
        return self._refusal(checked, "declined", declined_error(checked.tool, how))

    def _refusal(self, checked: Checked, kind: str, reason: str) -> dict:
        return {"task": checked.task.handle, "tool": checked.tool, "ok": False,
                "refused": {"kind": kind, "reason": reason},
                **self.frontier(checked.task, self.options.mode == "meta")}

    async def execute(self, checked: Checked) -> dict:
        """Run an allowed (and approved) call upstream and take its result into the state."""
        if checked.refused is not None:
            return self.refuse(checked, checked.refused["kind"], checked.refused["reason"])
        task = checked.task
        outcome = await self.upstream.call(checked.tool, checked.arguments)
        task.upstream_calls += 1
        answer: dict[str, Any] = {"task": task.handle, "tool": checked.tool, "ok": outcome.ok}
        if outcome.structured is not None:
            answer["structuredContent"] = outcome.structured
        if outcome.text and outcome.structured is None:  # else the text repeats it as JSON
            answer["text"] = outcome.text[:RESULT_CHARS]
        other = [b for b in outcome.content if b.get("type") != "text"]
        if other:  # images, resources: passed on as the server sent them
            answer["content"] = other
        if outcome.error is not None:
            answer["error"] = outcome.error
        if checked.outside:
            task.outside.append((checked.tool, outcome.ok))
        else:
            call = task.session.record(checked.tool, checked.arguments,
                                       outcome.value if outcome.ok else None,
                                       error=outcome.error)
            if call.ok:
                answer["learned"] = sorted(call.produced)
                if call.problems:
                    answer["problems"] = list(call.problems)
        return {**answer, **self.frontier(task, self.options.mode == "meta")}

    # -- status ---------------------------------------------------------------------------

    def status(self, owner: str, handle: Any) -> dict:
        task = self.tasks.get(owner, handle)
        session = task.session
        return {
            "task": task.handle, "request": session.request, "goal": sorted(session.goal),
            **({"steps": [sorted(s) for s in session.steps], "step": session.step + 1}
               if len(session.steps) > 1 else {}),
            "state": {name: {"value": facts[-1].value, "source": facts[-1].source}
                      for name, facts in sorted(session.facts.items())},
            "history": [{"call": c.index, "tool": c.tool, "arguments": dict(c.arguments),
                         "ok": c.ok, **({"error": c.error} if c.error else {}),
                         **({"learned": sorted(c.produced)} if c.ok else {})}
                        for c in session.history],
            **({"outside_plan_calls": [{"tool": t, "ok": ok} for t, ok in task.outside]}
               if task.outside else {}),
            **self.frontier(task, schemas=False),
        }
