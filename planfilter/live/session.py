"""One conversation of a live agent: :class:`Session`, the state machine of start, visible,
check, record, switch and decline.

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

The state holds every value of every variable with its source (planfilter.live.records):
the user, the request, the environment, call N, or what the model wrote for call N. Results
enter through the contract (planfilter.core.results); a failed call changes nothing and is
remembered, so ``cmtf-recover`` can route around it; a call :meth:`Session.check` refused
is kept but is no failure (it never ran). A goal in steps is planned to its first step not
reached (planfilter.core.steps). A declined call (:meth:`Session.decline`, or a "no" from the
session's ``approver`` unless ``remember_declines=False``) ends that action: the tool is
refused from then on without asking again. Every call is checked for data flow
(planfilter.core.provenance).

What to show and how the candidate goals move are pure functions of a
:class:`~planfilter.live.snapshot.Snapshot` of the state (planfilter.live.offers, .progress,
.repeats, .joining, .switching), worked out once per state; so are what a task starts from
(.opening), what a call adds to the records (.records), what the data-flow checks know
(.dataflow) and the refusals before a guard (.guards). The session calls them and holds
what they return; what it knows is read through the views it inherits
(planfilter.live.views).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.contracts import Registry
from ..core.environment import Supplied
from ..core.errors import PlanfilterError
from ..filters import DEFAULT_OPTIONS, FilterOptions, Visible
from ..filters.guard import Decision, DecisionKind, ToolGuard
from ..filters.risk import DEFAULT_POLICY, ApprovalPolicy, Approver
from ..models import CallOptions
from . import guards, joining, offers, progress, switching
from .delegation import Delegation
from .goals import GoalOption, Resolution
from .opening import Opening, Resolving, check_resolver, opening
from .recognition import DEFAULT_RECOGNITION, Belief, RecognitionOptions
from .records import Call, Fact, FactKind, Log, declined_error, declined_refusal, logged, read_again
from .views import SessionViews

__all__ = ["Call", "Fact", "FactKind", "Session", "declined_error", "declined_refusal"]


class Session(SessionViews):
    """Filters tools, checks calls and tracks state for one request.

    ``method`` is any filter method (``cmtf`` by default); ``model`` resolves the goal when
    :meth:`start` is not given one (``resolver="retrieval"`` needs no model). ``policy`` and
    ``approver`` decide high-risk calls as in :class:`~planfilter.filters.ToolGuard`
    (default :data:`~planfilter.filters.risk.DEFAULT_POLICY`, ``untainted``: approved unless
    a sensitive argument carries a value read from outside content; ``ask`` asks
    ``approver``, and its "no" ends that action as :meth:`decline` does unless
    ``remember_declines=False``); ``provenance=False`` turns off the refusal of invented
    argument values. A resolved goal is a ranked set of candidates weighed by the calls made
    (``recognition``; see planfilter.live.recognition); a goal given to :meth:`start` is the
    only candidate. A bad method, policy or resolver, or policy ``ask`` without an approver,
    raises PlanfilterError here.
    """

    def __init__(self, registry: Registry, *, method: str = "cmtf", model: str | None = None,
                 resolver: str = "model", options: FilterOptions = DEFAULT_OPTIONS,
                 policy: ApprovalPolicy = DEFAULT_POLICY, approver: Approver | None = None,
                 provenance: bool = True, call_options: CallOptions | None = None,
                 seed: int | None = None,
                 recognition: RecognitionOptions = DEFAULT_RECOGNITION,
                 remember_declines: bool = True):
        guards.check_guarding(method, policy, approver)  # named now, not at first use
        check_resolver(resolver)
        self.registry, self.method, self.model, self.resolver = registry, method, model, resolver
        self.options, self.policy, self.approver = options, policy, approver
        #: A "no" from ``approver`` ends that action for the task (:meth:`decline`); the
        #: benchmark's stand-in reviewer, which judges each state anew, turns this off.
        self.remember_declines, self.provenance = remember_declines, provenance
        self.call_options, self.seed = call_options or CallOptions(), seed
        self.recognition = recognition
        self._lock = threading.RLock()
        self._reset(Opening())

    def _reset(self, begun: Opening) -> None:
        """Hold what a task starts from (planfilter.live.opening), and nothing since (the
        attributes the views read are described in planfilter.live.views; the guards, the
        refusals, the goal's parts and the delegation are the session's own)."""
        self._opening = begun
        self._log = Log(begun.facts, begun.store)
        self._beliefs = begun.beliefs
        self._switches = []
        #: The guard of each step, built once (planfilter.live.guards).
        self._guards = guards.StepGuards(self.registry, self.method, self.policy, self.approver,
                                         self.request, self.options, self.provenance,
                                         self.remember_declines)
        self._declined = {}
        #: (tool, reason) of each refusal :meth:`check` gave.
        self._refusals: set[tuple[str, str]] = set()
        #: The request's later parts, weighed once the leading candidate is reached.
        self._parts: tuple[GoalOption, ...] = begun.parts
        #: The document the request hands what to do to, until its read comes back.
        self._delegation: Delegation | None = begun.delegation
        self._document = None
        self._version, self._switched_from, self._left, self._cache = 0, 0.0, None, None
        self._flow = None

    # -- starting ---------------------------------------------------------------------------

    def start(self, request: str, *, goal: Any = None,
              known: Mapping[str, Any] | None = None,
              candidates: Sequence[Any] | None = None,
              environment: Mapping[str, Supplied] | None = None) -> Resolution:
        """Begin the task and return its resolution. The goal is ``goal`` (a registry goal's
        name, variables, or a list of steps, each a name or a list of variables) or is
        resolved from ``request``; ``candidates``: several such goals, best first, weighed as
        a resolved goal's are (instead of ``goal``); ``known`` are values the user gave, each
        checked against the input schemas of the tools that take it (a list for a variable
        that takes one value gives several values of it: any of them is the user's).
        ``environment``: the values the system supplies (planfilter.core.environment);
        default: the registry's that need no tool call. They are bound as the user's are;
        the user's and the request's outrank them. Raises PlanfilterError for a request that
        is not text or too long, a known value that fits no tool, an environment value a
        tool call must supply, or a malformed goal (planfilter.live.opening)."""
        with self._lock:
            how = Resolving(self.method, self.resolver, self.model, self.seed,
                            self.call_options, self.recognition)
            begun = opening(self.registry, request, how, goal=goal, known=known,
                            candidates=candidates, environment=environment)
            self._reset(begun)
            self._advance(ran=False)
            return self._started()

    # -- the calls of an agent step --------------------------------------------------------

    def visible(self) -> Visible:
        """The tools to show now: under a goal-directed method (``cmtf``) the union of the next
        steps of the plausible candidates, the leading one's first, and the writes made for
        one of several listed values (offered for the others); once the leading candidate is
        reached, only those writes and what plausible candidates it did not reach ask for.
        Declined tools are left out (planfilter.live.offers)."""
        with self._lock:
            return self._showing().visible

    def tool_schemas(self) -> list[dict[str, Any]]:
        """The visible tools in OpenAI function-calling shape, ready for a model call."""
        return [self.registry.tool(name).function_schema() for name in self.visible().tools]

    def check(self, tool: str, arguments: Any) -> Decision:
        """The guard's decision on a call: visible now, valid arguments, no invented value,
        approval for a high-risk tool. Nothing runs; the decision is logged. Which candidate
        goals are plausible changes only what is visible, never the other checks. A "no"
        from the session's approver is remembered as :meth:`decline` remembers one (unless
        ``remember_declines=False``)."""
        with self._lock:
            self._guards.said_no = False
            decision = self._check(tool, arguments)
            if self._guards.said_no:  # the user said no: that action ends, not asked again
                self._declined[tool] = declined_refusal(tool)
                self._version += 1
                decision = replace(decision, reason=declined_error(tool),
                                   kind=DecisionKind.DECLINED)
            if not decision.allowed:
                self._refusals.add((tool, decision.reason))
            return decision

    def _check(self, tool: str, arguments: Any) -> Decision:
        """:meth:`check`'s decision, before a "no" of the user's is remembered (under the
        lock): the refusals asked before any guard (planfilter.live.guards.refused_first),
        then the guard of the candidate that offers ``tool`` (else the leading one's)."""
        if not isinstance(tool, str) or tool not in self.registry:
            return Decision(False, f"{tool!r} does not exist; refused", str(tool),
                            kind=DecisionKind.UNKNOWN)
        shown, now = self._showing(), self._snapshot()
        refusal = guards.refused_first(tool, arguments, self._declined, reached=self.done and
                                       not shown.frontiers and tool not in shown.writes)
        if refusal is not None:
            return refusal
        belief = next((b for b, offered in shown.offers if tool in offered), now.lead)
        return self._guard(belief).check_call(progress.planning_state(now, belief), tool,
                                              arguments, now.attempts, flow=self.flow(),
                                              shown=shown.tools)

    def record(self, tool: str, arguments: Mapping[str, Any] | None, result: Any = None, *,
               error: str | None = None) -> Call:
        """Take a call's result into the state. ``error`` (or an unknown tool) marks a failed
        call: the state is unchanged and the failure is remembered for recovery, unless
        ``error`` is the reason :meth:`check` refused the call with (it never ran)."""
        with self._lock:
            self._started()
            if error is None and tool not in self.registry:
                error = f"unknown tool {tool!r}"
            known = frozenset() if error is not None else \
                frozenset(self._log.facts) - progress.stale_variables(self._snapshot(),
                                                                      self._lead())
            self._log = logged(self.registry, self._log, tool, dict(arguments or {}), result,
                               error=error, refused=(tool, error) in self._refusals,
                               known=known, directed=tool in self._opening.directed)
            call = self._log.calls[-1]
            again = len(self._beliefs) > 1 and read_again(self.registry, self._log.calls)
            self._advance(ran=call.ok and not again)
            if self._delegation is not None:  # planfilter.live.joining.after_delegated_call
                self._delegation, beliefs = joining.after_delegated_call(
                    self._snapshot(), self._delegation, call, result)
                joined = self._delegation is None and beliefs is not None
                if joined:
                    self._document = len(self._log.calls)
                if beliefs is not None:
                    self._set_beliefs(beliefs)
                if joined:
                    self._advance(ran=False)
            return call

    def decline(self, tool: str, arguments: Mapping[str, Any] | None, how: str = "") -> Call:
        """The user was asked to approve this call and did not (``how``: the answer, e.g.
        "decline"). It is recorded as a failed call, and ``tool`` is refused from now on
        without asking: it leaves the frontier, and :meth:`check` answers ``declined``.
        Whoever asked the person calls this; a "no" from the session's own ``approver`` is
        remembered the same way by :meth:`check` (unless ``remember_declines=False``)."""
        with self._lock:
            call = self.record(tool, arguments, error=declined_error(tool, how))
            self._declined[tool] = declined_refusal(tool, call.index)
            self._version += 1
            return call

    def switch(self, reason: str = "") -> Visible:
        """The model (or client) says the tools shown do not fit: every plausible candidate
        that offers nothing but those tools is set aside, and the tools now visible are
        returned. Counted in :attr:`switches`. Raises PlanfilterError when the session weighs
        no candidates (its goal was given, or its method follows one goal)."""
        with self._lock:
            self._started()
            now, shown = self._snapshot(), self._showing()
            why = switching.no_switch(now)
            if why is not None:
                raise PlanfilterError(f"no other candidate goal to switch to: {why}; start "
                                      "a new task for another goal")
            beliefs, self._switched_from, self._left = switching.after_switch(
                now, shown.offers, shown.union, reason)
            self._set_beliefs(beliefs)
            self._switches.append(reason)
            return self.visible()

    # -- internals -------------------------------------------------------------------------

    def _showing(self) -> offers.Showing:
        """What to show in the state now, worked out once per version."""
        self._lead()  # an unstarted session says so
        now = self._snapshot()
        assert self._cache is not None
        if self._cache[2] is None:
            frontiers = [(b, self._guard(b).visible(progress.planning_state(now, b),
                                                    now.attempts))
                         for b in offers.planned_for(now)]
            self._cache = (self._version, now, offers.showing(now, frontiers, done=self.done))
        assert self._cache[2] is not None
        return self._cache[2]

    def _frontiers(self) -> list[tuple[Belief, ToolGuard, Visible]]:
        """(candidate, its guard, its next tools) of each candidate planned for."""
        return [(b, self._guard(b), v) for b, v in self._showing().frontiers]

    def _set_beliefs(self, beliefs: Sequence[Belief]) -> None:
        self._beliefs = tuple(beliefs)
        self._version += 1

    def _advance(self, *, ran: bool) -> None:
        """Mark every candidate's steps reached and weigh each anew (one more observation
        if a call ran); once the leading one is reached, the request's later parts join."""
        self._version += 1
        self._set_beliefs(progress.advanced(self._snapshot(), ran=ran))
        if self._parts and self._lead().done:
            parts, self._parts = self._parts, ()
            self._set_beliefs(joining.with_later_parts(self._snapshot(), parts))

    def _guard(self, belief: Belief) -> ToolGuard:
        """The guard of a candidate's current step (planfilter.live.guards.StepGuards)."""
        return self._guards.of(belief, len(self._beliefs) >= 2)
