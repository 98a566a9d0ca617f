"""One conversation of a live agent: :class:`Session`.

::

    session = Session(registry, model="openai/gpt-4o-mini")
    session.start("Move tomorrow's dentist appointment to 4 PM", known={"date": "2026-12-02"})
    while not session.done:
        tools = session.tool_schemas()            # only the frontier, as OpenAI tools
        name, arguments = ask_the_model(tools)     # the agent's own model call
        decision = session.check(name, arguments)  # visible now, schema, provenance, risk
        result = run_the_tool(name, arguments) if decision.allowed else None
        session.record(name, arguments, result, error=None if decision.allowed else
                       decision.reason)

The state holds every known variable with its value and where it came from: the user (given
to :meth:`Session.start`), the request (read out by the goal resolver) or tool call N.
Results enter the state through the contract (planfilter.core.results); a failed call
changes nothing and is remembered, so ``cmtf-recover`` can route around it. Values the model
wrote for a tool's *authored* parameters are recorded too, as ``authored (call N)``.

A goal may be an ordered list of steps (``[[current_time], [file_written]]``). The session
plans to the first step not yet reached, and :meth:`visible` is that step's frontier. A step
is reached when each of its variables was given by the user or produced after the step
before it was reached: effects are events, so a tool whose effect one step needed may be
shown again for a later step that needs it again (two messages, two bookings), and the
state keeps every value a variable took.

Every call is checked for data flow (planfilter.core.provenance): no invented value, no
substitute for a value the user gave, and no sensitive argument taken from an untrusted
result without approval.

A call the user was asked about and declined (:meth:`Session.decline`, from whoever asked:
the gateway asks through MCP elicitation) ends that action: the tool leaves the frontier and
a later call of it is refused as ``declined`` without asking again, so an agent that retries
does not put the same question to the user twice. A new session asks afresh.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry, Steps, Tool, goal_steps, show_steps
from ..core.errors import PlanfilterError
from ..core.provenance import Flow, accepted
from ..core.results import extract
from ..core.schemas import value_errors
from ..core.steps import GIVEN, advance, stale
from ..filters import DEFAULT_OPTIONS, Attempt, Decision, FilterOptions, ToolGuard, Visible
from ..filters.risk import ApprovalPolicy, Approver
from ..models import CallOptions
from .goals import Resolution, resolve_goal


@dataclass(frozen=True)
class Fact:
    """One value of a variable and where it came from."""

    value: Any
    #: "user", "request" (read out of the request by the goal resolver), "call N", or
    #: "authored (call N)" (the model wrote it as an argument of call N).
    source: str
    #: The call that produced it (1-based), None for the user's and the request's values.
    call: int | None = None
    #: It came from outside content: an untrusted tool's result, or what the model wrote
    #: after such content entered the state.
    untrusted: bool = False

    @property
    def given(self) -> bool:
        """The user gave it (directly, or in the request)."""
        return self.call is None


@dataclass(frozen=True)
class Call:
    """One call recorded in the session."""

    index: int
    tool: str
    arguments: Mapping[str, Any]
    ok: bool
    error: str | None = None
    #: Produced variables the result gave, with their values.
    produced: Mapping[str, Any] = field(default_factory=dict)
    #: Produced variables that were not known before this call.
    new: frozenset[str] = frozenset()
    #: Produced variables the result did not give.
    missing: tuple[str, ...] = ()
    #: Where the result breaks the contract's ``returns`` schema.
    problems: tuple[str, ...] = ()

    @property
    def attempt(self) -> Attempt:
        return Attempt(self.tool, self.error, self.new)


def declined_error(tool: str, how: str = "") -> str:
    """The error of the call the user declined (``how``: their answer, e.g. "decline")."""
    return f"the user declined {tool}{f' ({how})' if how else ''}; the action is ended"


def declined_refusal(tool: str, call: int | None = None) -> str:
    """Why a later call of a tool the user declined (at ``call``) is refused."""
    at = f" at call {call}" if call is not None else ""
    return f"the user declined {tool}{at}; it is not asked again in this task; refused"


#: Characters of a request, and of one argument or known value, that a session accepts.
MAX_REQUEST_CHARS = 20_000
MAX_VALUE_CHARS = 100_000


def check_size(what: str, value: Any, limit: int) -> None:
    """Raise, naming the limit, when ``value`` (as text) is longer than ``limit``."""
    size = len(value) if isinstance(value, str) else len(repr(value))
    if size > limit:
        raise PlanfilterError(f"{what} is {size:,} characters long; the limit is {limit:,}")


@lru_cache(maxsize=16)
def carriers(registry: Registry) -> dict[str, tuple[tuple[Tool, str], ...]]:
    """Variable -> every (tool, parameter) whose argument carries it (authored ones aside)."""
    out: dict[str, list[tuple[Tool, str]]] = {}
    for tool in registry:
        for param in tool.parameters.get("properties", {}):
            if param not in tool.authored:
                out.setdefault(tool.variable_of(param), []).append((tool, param))
    return {name: tuple(found) for name, found in out.items()}


class Session:
    """Filters tools, checks calls and tracks state for one request.

    ``method`` is any filter method (``cmtf`` by default); ``model`` resolves the goal when
    :meth:`start` is not given one (``resolver="retrieval"`` needs no model). ``policy`` and
    ``approver`` decide high-risk calls as in :class:`~planfilter.filters.ToolGuard`;
    ``provenance=False`` turns off the refusal of invented argument values.
    """

    def __init__(self, registry: Registry, *, method: str = "cmtf", model: str | None = None,
                 resolver: str = "model", options: FilterOptions = DEFAULT_OPTIONS,
                 policy: ApprovalPolicy = "always", approver: Approver | None = None,
                 provenance: bool = True, call_options: CallOptions | None = None,
                 seed: int | None = None):
        self.registry = registry
        self.method = method
        self.model = model
        self.resolver = resolver
        self.options = options
        self.policy: ApprovalPolicy = policy
        self.approver = approver
        self.provenance = provenance
        self.call_options = call_options or CallOptions()
        self.seed = seed
        self.request = ""
        self.resolution: Resolution | None = None
        self._facts: dict[str, list[Fact]] = {}
        self._calls: list[Call] = []
        #: Per step reached, the number of calls made when it was reached.
        self._reached: list[int] = []
        self._guards: dict[int, ToolGuard] = {}
        #: Tool -> why it is refused from now on: the user declined it (see ``decline``).
        self._declined: dict[str, str] = {}
        self._lock = threading.RLock()

    # -- starting ---------------------------------------------------------------------------

    def start(self, request: str, *, goal: Any = None,
              known: Mapping[str, Any] | None = None) -> Resolution:
        """Begin the task: the goal is ``goal`` (a registry goal's name, variables, or a list
        of steps, each a name or a list of variables) or is resolved from ``request``;
        ``known`` are values the user gave, each checked against the input schemas of the
        tools that take it."""
        with self._lock:
            if not isinstance(request, str):
                raise PlanfilterError("the request must be text")
            check_size("the request", request, MAX_REQUEST_CHARS)
            given = dict(known or {})
            self._check_known(given)
            if goal is None:
                resolution = resolve_goal(self.registry, request, resolver=self.resolver,
                                          model=self.model, seed=self.seed,
                                          options=self.call_options, context=given)
            else:
                steps = self._goal_steps(goal)
                union = frozenset().union(*steps)
                resolution = Resolution(union, show_steps(steps) if len(steps) > 1
                                        else ",".join(sorted(union)),
                                        steps=steps if len(steps) > 1 else ())
            self.request = request
            self._facts = {}
            self._calls = []
            self._reached = []
            self._guards = {}
            self._declined = {}
            for name, value in given.items():
                self._facts[name] = [Fact(value, "user")]
            for name, value in resolution.known.items():
                if name not in given:  # what the user gave outranks what was read
                    self._facts[name] = [Fact(value, "request")]
            self.resolution = resolution
            self._advance()
            return resolution

    def _goal_steps(self, goal: Any) -> Steps:
        """Steps of registry goals' names and variables. A goal no tool can reach is kept:
        the frontier is then empty and says why, as for any unreachable goal."""
        named = {g.name: g.goal_steps for g in self.registry.goals}
        if isinstance(goal, str):
            return named.get(goal, (frozenset({goal}),))
        items = list(goal) if isinstance(goal, Iterable) else None
        if not items:
            raise PlanfilterError("the goal names no variable")
        if all(isinstance(i, str) for i in items) and len(items) == 1 and items[0] in named:
            return named[items[0]]
        try:
            steps = goal_steps(items)
        except (TypeError, ValueError) as exc:
            raise PlanfilterError(f"goal {goal!r}: {exc}") from None
        out: list[frozenset[str]] = []
        for step in steps:  # a step of one registry goal's name is that goal's steps
            if len(step) == 1 and next(iter(step)) in named and len(steps) > 1:
                out.extend(named[next(iter(step))])
            else:
                out.append(step)
        return tuple(out)

    def _check_known(self, given: Mapping[str, Any]) -> None:
        """Each known value fits the input schema of every tool parameter that carries it."""
        problems = []
        for name, value in given.items():
            if not isinstance(name, str) or not name:
                problems.append(f"known: {name!r} is not a variable name")
                continue
            try:
                check_size(f"known value '{name}'", value, MAX_VALUE_CHARS)
            except PlanfilterError as exc:
                problems.append(str(exc))
                continue
            for tool, param in carriers(self.registry).get(name, ()):
                for problem in value_errors(tool, param, value):
                    problems.append(f"known value '{name}' does not fit {tool.name}."
                                    f"{param}: {problem}")
        if problems:
            raise PlanfilterError("; ".join(sorted(set(problems))))

    # -- what the session knows ------------------------------------------------------------

    @property
    def goal(self) -> frozenset[str]:
        """Every variable of the goal, all steps together."""
        return self._started().goal

    @property
    def steps(self) -> Steps:
        """The goal's steps in order (one step for a goal of variables)."""
        return self._started().goal_steps

    @property
    def step(self) -> int:
        """The index of the first step not reached (``len(steps)`` when all are)."""
        with self._lock:
            return len(self._reached)

    @property
    def current_goal(self) -> frozenset[str]:
        """The variables of the step the session plans to now (empty when done)."""
        steps = self.steps
        with self._lock:
            return steps[len(self._reached)] if len(self._reached) < len(steps) else frozenset()

    @property
    def state(self) -> dict[str, Any]:
        """Each known variable's latest value."""
        with self._lock:
            return {name: facts[-1].value for name, facts in self._facts.items()}

    @property
    def facts(self) -> dict[str, tuple[Fact, ...]]:
        """Every value each variable has held, oldest first, with where it came from."""
        with self._lock:
            return {name: tuple(facts) for name, facts in self._facts.items()}

    @property
    def history(self) -> tuple[Call, ...]:
        with self._lock:
            return tuple(self._calls)

    @property
    def declined(self) -> dict[str, str]:
        """The tools the user declined in this session, each with why it is refused now."""
        with self._lock:
            return dict(self._declined)

    @property
    def done(self) -> bool:
        """Every step of the goal is reached."""
        steps = self.steps
        with self._lock:
            return len(self._reached) >= len(steps)

    def held(self) -> dict[str, tuple[Any, ...]]:
        """Every value that may be passed on as an argument, per variable."""
        with self._lock:
            out: dict[str, tuple[Any, ...]] = {}
            for name, facts in self._facts.items():
                values: list[Any] = []
                for fact in facts:
                    values.extend(accepted(fact.value))
                out[name] = tuple(values)
            return out

    def flow(self) -> Flow:
        """What the data-flow checks know now: values held, values given, outside content."""
        with self._lock:
            # a list the user gave binds the variable to any of its items (or the whole list)
            given = {name: tuple(v for f in facts if f.given for v in accepted(f.value))
                     for name, facts in self._facts.items()}
            outside = tuple(f.value for facts in self._facts.values() for f in facts
                            if f.untrusted)
            return Flow(held=self.held(), given={k: v for k, v in given.items() if v},
                        outside=outside, exposed=self._exposed(), scope="all",
                        request=self.request)

    def planning_state(self) -> dict[str, Any]:
        """The state the planner sees for the current step: the current step's variables
        that were not produced since the step before it count as not known yet."""
        with self._lock:
            state = self.state
            for name in self._stale():
                state.pop(name, None)
            return state

    # -- the three calls of an agent step --------------------------------------------------

    def visible(self) -> Visible:
        """The tools to show now (the frontier of the current step under ``cmtf``); none once
        every step is reached."""
        with self._lock:
            guard = self._guard_or_raise()
            if self.done:
                return Visible((), info="goal reached")
            visible = guard.visible(self.planning_state(), self._attempts())
            declined = tuple(t for t in visible.tools if t in self._declined)
            if not declined:
                return visible
            kept = tuple(t for t in visible.tools if t not in self._declined)
            if kept:
                return replace(visible, tools=kept, declined=declined)
            return replace(visible, tools=(), declined=declined, info=(
                f"the user declined {', '.join(declined)}, and nothing else moves the task "
                "forward now: it ends here (start a new task to be asked again)"))

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The visible tools in OpenAI function-calling shape, ready for a model call."""
        return [self.registry.tool(name).function_schema() for name in self.visible().tools]

    def check(self, tool: str, arguments: Any) -> Decision:
        """The guard's decision on a call: visible now, valid arguments, no invented value,
        approval for a high-risk tool. Nothing runs; the decision is logged."""
        with self._lock:
            guard = self._guard_or_raise()
            if self.done:
                return Decision(False, f"the goal is reached; {tool!r} refused", tool,
                                kind="hidden")
            if tool in self._declined:
                return Decision(False, self._declined[tool], tool, kind="declined")
            if isinstance(arguments, Mapping):
                for name, value in arguments.items():
                    try:
                        check_size(f"argument '{name}' of {tool}", value, MAX_VALUE_CHARS)
                    except PlanfilterError as exc:
                        return Decision(False, f"{exc}; refused", tool, kind="arguments")
            return guard.check_call(self.planning_state(), tool, arguments, self._attempts(),
                                    flow=self.flow())

    def record(self, tool: str, arguments: Mapping[str, Any] | None, result: Any = None, *,
               error: str | None = None) -> Call:
        """Take a call's result into the state. ``error`` (or an unknown tool) marks a failed
        call: the state is unchanged and the failure is remembered for recovery."""
        self._guard_or_raise()
        with self._lock:
            index = len(self._calls) + 1
            args = dict(arguments or {})
            if error is None and tool not in self.registry:
                error = f"unknown tool {tool!r}"
            if error is not None:
                call = Call(index, tool, args, ok=False, error=error)
            else:
                contract = self.registry.tool(tool)
                got = extract(contract, result)
                before = frozenset(self._facts) - self._stale()
                exposed = self._exposed()
                for name in sorted(contract.authored & set(args)):
                    variable = contract.variable_of(name)
                    self._facts.setdefault(variable, []).append(
                        Fact(args[name], f"authored (call {index})", index, exposed))
                for name, value in got.values.items():
                    self._facts.setdefault(name, []).append(
                        Fact(value, f"call {index}", index, contract.untrusted))
                new = frozenset(got.values) - before
                call = Call(index, tool, args, ok=True, produced=dict(got.values), new=new,
                            missing=got.missing, problems=got.problems)
            self._calls.append(call)
            self._advance()
            return call

    def decline(self, tool: str, arguments: Mapping[str, Any] | None, how: str = "") -> Call:
        """The user was asked to approve this call and did not (``how``: the answer, e.g.
        "decline"). It is recorded as a failed call, and ``tool`` is refused from now on
        without asking: it leaves the frontier, and :meth:`check` answers ``declined``.

        Whoever asked the person calls this. A refusal by the session's own ``approver``
        (policy ``ask``) is not remembered: the benchmark's stand-in reviewer judges each
        state anew, so an approver that asks a person calls this when the person says no."""
        with self._lock:
            call = self.record(tool, arguments, error=declined_error(tool, how))
            self._declined[tool] = declined_refusal(tool, call.index)
            return call

    # -- internals -------------------------------------------------------------------------

    def _attempts(self) -> tuple[Attempt, ...]:
        return tuple(c.attempt for c in self._calls)

    def _exposed(self) -> bool:
        return any(f.untrusted and f.call is not None and not f.source.startswith("authored")
                   for facts in self._facts.values() for f in facts)

    def _producers(self, name: str) -> list[int]:
        """The call that produced each value of ``name`` (GIVEN for the user's)."""
        return [f.call or GIVEN for f in self._facts.get(name, ())]

    def _stale(self) -> frozenset[str]:
        """The current step's variables not produced since the step before it was reached."""
        return stale(len(self._reached), self._started().goal_steps, self._reached,
                     self._producers)

    def _advance(self) -> None:
        """Mark every step reached in order, as far as the state reaches."""
        advance(self._started().goal_steps, self._reached, self._producers, len(self._calls))

    def _started(self) -> Resolution:
        if self.resolution is None:
            raise PlanfilterError("the session has not started: call start(request) first")
        return self.resolution

    def _guard_or_raise(self) -> ToolGuard:
        """The guard of the current step (its goal is that step's variables)."""
        steps = self._started().goal_steps
        k = min(len(self._reached), len(steps) - 1)
        if k not in self._guards:
            assert self.resolution is not None
            self._guards[k] = ToolGuard(self.registry, steps[k], method=self.method,
                                        policy=self.policy, approver=self.approver,
                                        query=self.request, options=self.options,
                                        provenance=self.provenance)
        return self._guards[k]
