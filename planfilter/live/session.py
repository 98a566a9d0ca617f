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
changes nothing and is remembered, so ``cmtf-recover`` can route around it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.provenance import accepted
from ..core.results import extract
from ..filters import DEFAULT_OPTIONS, Attempt, Decision, FilterOptions, ToolGuard, Visible
from ..filters.risk import ApprovalPolicy, Approver
from ..models import CallOptions
from .goals import Resolution, resolve_goal


@dataclass(frozen=True)
class Fact:
    """One value of a variable and where it came from."""

    value: Any
    #: "user", "request" (read out of the request by the goal resolver) or "call N".
    source: str
    #: The call that produced it (1-based), None for the user's and the request's values.
    call: int | None = None


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
        self._guard: ToolGuard | None = None
        self._lock = threading.RLock()

    # -- starting ---------------------------------------------------------------------------

    def start(self, request: str, *, goal: Iterable[str] | str | None = None,
              known: Mapping[str, Any] | None = None) -> Resolution:
        """Begin the task: the goal is ``goal`` (variables, or a registry goal's name) or is
        resolved from ``request``; ``known`` are values the user gave."""
        with self._lock:
            self.request = request
            self._facts = {}
            self._calls = []
            given = dict(known or {})
            if goal is None:
                resolution = resolve_goal(self.registry, request, resolver=self.resolver,
                                          model=self.model, seed=self.seed,
                                          options=self.call_options, context=given)
            else:
                variables = self._goal_variables(goal)
                resolution = Resolution(variables, ",".join(sorted(variables)))
            for name, value in given.items():
                self._facts[name] = [Fact(value, "user")]
            for name, value in resolution.known.items():
                if name not in given:  # what the user gave outranks what was read
                    self._facts[name] = [Fact(value, "request")]
            self.resolution = resolution
            self._guard = ToolGuard(self.registry, resolution.goal, method=self.method,
                                    policy=self.policy, approver=self.approver,
                                    query=request, options=self.options,
                                    provenance=self.provenance)
            return resolution

    def _goal_variables(self, goal: Iterable[str] | str) -> frozenset[str]:
        """A registry goal's variables, or the variables named. A goal no tool can reach is
        kept: the frontier is then empty and says why, as for any unreachable goal."""
        if isinstance(goal, str):
            named = {g.name: g.variables for g in self.registry.goals}
            return named.get(goal, frozenset({goal}))
        variables = frozenset(goal)
        if not variables:
            raise PlanfilterError("the goal names no variable")
        return variables

    # -- what the session knows ------------------------------------------------------------

    @property
    def goal(self) -> frozenset[str]:
        return self._started().goal

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
    def done(self) -> bool:
        """Every goal variable is known."""
        return self.goal <= frozenset(self._facts)

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

    # -- the three calls of an agent step --------------------------------------------------

    def visible(self) -> Visible:
        """The tools to show now (the frontier under ``cmtf``)."""
        guard = self._guard_or_raise()
        with self._lock:
            return guard.visible(self.state, self._attempts())

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The visible tools in OpenAI function-calling shape, ready for a model call."""
        return [self.registry.tool(name).function_schema() for name in self.visible().tools]

    def check(self, tool: str, arguments: Any) -> Decision:
        """The guard's decision on a call: visible now, valid arguments, no invented value,
        approval for a high-risk tool. Nothing runs; the decision is logged."""
        guard = self._guard_or_raise()
        with self._lock:
            return guard.check_call(self.state, tool, arguments, self._attempts(), self.held())

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
                got = extract(self.registry.tool(tool), result)
                new = frozenset(got.values) - frozenset(self._facts)
                for name, value in got.values.items():
                    self._facts.setdefault(name, []).append(Fact(value, f"call {index}", index))
                call = Call(index, tool, args, ok=True, produced=dict(got.values), new=new,
                            missing=got.missing, problems=got.problems)
            self._calls.append(call)
            return call

    # -- internals -------------------------------------------------------------------------

    def _attempts(self) -> tuple[Attempt, ...]:
        return tuple(c.attempt for c in self._calls)

    def _started(self) -> Resolution:
        if self.resolution is None:
            raise PlanfilterError("the session has not started: call start(request) first")
        return self.resolution

    def _guard_or_raise(self) -> ToolGuard:
        self._started()
        assert self._guard is not None
        return self._guard
