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
.repeats, .joining, .switching), worked out once per state; the session calls them and
holds what they return.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..core.contracts import Registry, Steps
from ..core.environment import Supplied
from ..core.errors import PlanfilterError
from ..core.provenance import Flow, accepted, found_under_keys
from ..core.results import extract, parse_result
from ..core.values import Source, SourceKind, ValueStore
from ..filters import (
    DEFAULT_OPTIONS,
    GOAL_DIRECTED_METHODS,
    Decision,
    DecisionKind,
    FilterOptions,
    ToolGuard,
    Visible,
    get_filter,
)
from ..filters.risk import ApprovalPolicy, ApprovalRequest, Approver, check_policy
from ..models import CallOptions
from . import joining, offers, progress, recognition, switching
from .candidates import candidate_goals, directed_reads, request_parts
from .delegation import Delegation, delegation, document_text
from .goal_input import given_candidates, given_goal
from .goals import RESOLVERS, GoalOption, Resolution, resolve_goal
from .opening import starting_facts, starting_store, supplied_values
from .recognition import DEFAULT_RECOGNITION, Belief, Origin, RecognitionOptions
from .records import (
    MAX_REQUEST_CHARS,
    MAX_VALUE_CHARS,
    Call,
    Fact,
    FactKind,
    check_known,
    check_size,
    declined_error,
    declined_refusal,
    result_keys,
)
from .request_values import links_in
from .snapshot import Snapshot, lead_of

__all__ = ["Call", "Fact", "FactKind", "Session", "declined_error", "declined_refusal"]


class Session:
    """Filters tools, checks calls and tracks state for one request.

    ``method`` is any filter method (``cmtf`` by default); ``model`` resolves the goal when
    :meth:`start` is not given one (``resolver="retrieval"`` needs no model). ``policy`` and
    ``approver`` decide high-risk calls as in :class:`~planfilter.filters.ToolGuard`
    (default ``untainted``: approved unless a sensitive argument carries a value read from
    outside content; ``ask`` asks ``approver``, and its "no" ends that action as
    :meth:`decline` does unless ``remember_declines=False``);
    ``provenance=False`` turns off the refusal of invented argument values. A resolved goal
    is a ranked set of candidates weighed by the calls made (``recognition``; see
    planfilter.live.recognition); a goal given to :meth:`start` is the only candidate.
    A bad method, policy or resolver, or policy ``ask`` without an approver, raises
    PlanfilterError here.
    """

    def __init__(self, registry: Registry, *, method: str = "cmtf", model: str | None = None,
                 resolver: str = "model", options: FilterOptions = DEFAULT_OPTIONS,
                 policy: ApprovalPolicy = "untainted", approver: Approver | None = None,
                 provenance: bool = True, call_options: CallOptions | None = None,
                 seed: int | None = None,
                 recognition: RecognitionOptions = DEFAULT_RECOGNITION,
                 remember_declines: bool = True):
        get_filter(method)  # a bad method, policy or resolver is named now, not at first use
        check_policy(policy)
        if policy == "ask" and approver is None:
            raise PlanfilterError("Session: policy 'ask' needs an approver callback that asks "
                                  "the user (it returns True to approve)")
        if resolver not in RESOLVERS:
            raise PlanfilterError(f"Session: goal resolver {resolver!r}: choose "
                                  f"{' or '.join(RESOLVERS)}")
        self.registry = registry
        self.method = method
        self.model = model
        self.resolver = resolver
        self.options = options
        self.policy: ApprovalPolicy = policy
        self.approver = approver
        #: A "no" from ``approver`` ends that action for the task (:meth:`decline`); the
        #: benchmark's stand-in reviewer, which judges each state anew, turns this off.
        self.remember_declines = remember_declines
        self.provenance = provenance
        self.call_options = call_options or CallOptions()
        self.seed = seed
        self.recognition = recognition
        self.request = ""
        self.resolution: Resolution | None = None
        self._lock = threading.RLock()
        self._reset((), {})

    def _reset(self, beliefs: Sequence[Belief], facts: dict[str, list[Fact]]) -> None:
        self._facts: dict[str, list[Fact]] = facts
        self._calls: list[Call] = []
        self._beliefs: tuple[Belief, ...] = tuple(beliefs)
        self._switches: list[str] = []
        self._guards: dict[tuple[Any, int], ToolGuard] = {}
        #: Tool -> why it is refused from now on: the user declined it (see ``decline``).
        self._declined: dict[str, str] = {}
        #: The approver said no during the check under way.
        self._said_no = False
        #: (tool, reason) of each refusal :meth:`check` gave.
        self._refusals: set[tuple[str, str]] = set()
        self._environment: dict[str, Supplied] = {}
        #: Every value that entered the session, with its sources (planfilter.core.values).
        self._store = ValueStore()
        #: The request's later parts, weighed once the leading candidate is reached.
        self._parts: tuple[GoalOption, ...] = ()
        #: The document the request hands what to do to, until its read comes back; then
        #: the call that read it (the ``call`` of the candidates its text gave).
        self._delegation: Delegation | None = None
        self._document: int | None = None
        #: The reads a sentence of the request directs to (planfilter.live.directions), and
        #: the texts they answered: where the user said the values are.
        self._directed: frozenset[str] = frozenset()
        self._directed_texts: list[str] = []
        #: Every successful call's arguments and result: what the model could have read.
        self._results: list[tuple[dict[str, Any], Any]] = []
        #: The state's version, and what was worked out for it (see :meth:`_snapshot`).
        self._version = 0
        #: The best weight at the first switch, and the goal the last switch left.
        self._switched_from = 0.0
        self._left: tuple[str, tuple[str, ...]] | None = None
        self._cache: tuple[int, Snapshot, offers.Showing | None] | None = None

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
        tool call must supply, or a malformed goal."""
        with self._lock:
            if not isinstance(request, str):
                raise PlanfilterError("the request must be text")
            check_size("the request", request, MAX_REQUEST_CHARS)
            given = dict(known or {})
            check_known(self.registry, given)
            supplied = supplied_values(self.registry, given, environment)
            parts: tuple[GoalOption, ...] = ()
            delegated: Delegation | None = None
            directed: frozenset[str] = frozenset()
            if candidates is not None:
                resolution, found = given_candidates(self.registry, candidates,
                                                     self.recognition, goal)
            elif goal is None:
                context = {**{n: s.value for n, s in supplied.items()}, **given}
                resolution = resolve_goal(self.registry, request, resolver=self.resolver,
                                          model=self.model, seed=self.seed,
                                          options=self.call_options, context=context)
                found = candidate_goals(self.registry, resolution, request, context,
                                        self.recognition)
                if len(found) > 1 and self.method in GOAL_DIRECTED_METHODS:
                    parts = request_parts(self.registry, request)
                    delegated = delegation(request)
                    directed = frozenset(t.name for o in directed_reads(self.registry, request)
                                         for t in self.registry.producers(o.variables))
            else:
                resolution, found = given_goal(self.registry, goal)
            self.request = request
            beliefs = [Belief(c) for c in found]
            if delegated is not None:  # the read of the document stands beside the first
                beliefs[1:1] = joining.delegated_reads(self.registry, delegated, found)
            self._reset(beliefs, starting_facts(self.registry, given, resolution.known,
                                                supplied))
            self._environment = {n: s for n, s in supplied.items() if n not in given
                                 and n not in resolution.known}
            self._store = starting_store(request, self._facts)
            self.resolution = resolution
            self._parts = parts
            self._delegation = delegated
            self._directed = directed
            self._advance(ran=False)
            return resolution

    # -- what the session knows ------------------------------------------------------------

    @property
    def goal(self) -> frozenset[str]:
        """Every variable of the leading candidate's goal, all steps together."""
        return self._lead().candidate.goal

    @property
    def steps(self) -> Steps:
        """The leading candidate's steps in order (one step for a goal of variables)."""
        return self._lead().candidate.steps

    @property
    def step(self) -> int:
        """The index of the leading candidate's first step not reached (``len(steps)`` when
        all are)."""
        return self._lead().step

    @property
    def current_goal(self) -> frozenset[str]:
        """The variables of the step the session plans to now (empty when done)."""
        belief = self._lead()
        steps = belief.candidate.steps
        return steps[belief.step] if belief.step < len(steps) else frozenset()

    @property
    def candidates(self) -> tuple[Belief, ...]:
        """Every candidate goal and what the calls made say of it, in the resolver's order."""
        with self._lock:
            return self._beliefs

    @property
    def leading(self) -> Belief:
        """The candidate the calls made so far favour (its goal is :attr:`goal`)."""
        return self._lead()

    @property
    def switches(self) -> tuple[str, ...]:
        """Each time the model said the tools shown do not fit, what it gave as the reason."""
        with self._lock:
            return tuple(self._switches)

    @property
    def weighing(self) -> bool:
        """Several candidate goals are kept (a resolved goal): the model may switch."""
        with self._lock:
            return self._snapshot().weighing

    def switch_text(self, visible: Visible) -> str:
        """What the model is told after a switch: the goal the last switch left and its next
        tools, when it left the leading one, then the tools shown now."""
        with self._lock:
            return switching.switch_text(visible, self._left)

    def describe_candidates(self) -> tuple[str, ...]:
        """One line per candidate goal, by weight (for traces and reports)."""
        with self._lock:
            return recognition.describe_candidates(self._beliefs, self.recognition)

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
    def environment(self) -> dict[str, Supplied]:
        """The values the environment supplied that this task took (the user's and the
        request's outrank them), each with where it came from."""
        with self._lock:
            return dict(self._environment)

    @property
    def declined(self) -> dict[str, str]:
        """The tools the user declined in this session, each with why it is refused now."""
        with self._lock:
            return dict(self._declined)

    @property
    def done(self) -> bool:
        """Every step of the leading candidate's goal is reached: the task is done as far as
        the session can tell. A plausible candidate that asks for more (an action after the
        read the request asked for, another read beside it) stays visible, for a model that
        goes on. After the document the request handed the task to is read, one of the
        goals it gave must be reached too: the read was only the way to them."""
        with self._lock:
            lead = self._lead()
            if not lead.done or self._document is None:
                return lead.done
            return any(b.done for b in self._beliefs if b.candidate.origin == Origin.DOCUMENT
                       and b.candidate.call == self._document)

    def held(self) -> dict[str, tuple[Any, ...]]:
        """The values held for each variable: the state's, and those found inside results
        under a key of the variable. They say which value is meant; the data-flow checks ask
        the value store where a value was seen, whatever it is called."""
        with self._lock:
            out: dict[str, list[Any]] = {}
            for name, facts in self._facts.items():
                values: list[Any] = []
                for fact in facts:
                    values.extend(accepted(fact.value))
                out[name] = values
            for call in self._calls:
                for name, found in call.found.items():
                    out.setdefault(name, []).extend(found)
            return {name: tuple(values) for name, values in out.items()}

    def flow(self) -> Flow:
        """What the data-flow checks know now: values held, values given, outside content."""
        with self._lock:
            # a list the user gave binds the variable to any of its items (or the whole list)
            given = {name: tuple(v for f in facts if f.given for v in accepted(f.value))
                     for name, facts in self._facts.items()}
            outside = tuple(f.value for facts in self._facts.values() for f in facts
                            if f.untrusted)
            seen = (self.request, *(v for values in given.values() for v in values),
                    *(result for _, result in self._results))
            return Flow(held=self.held(), given={k: v for k, v in given.items() if v},
                        outside=outside, exposed=self._exposed(), scope="all",
                        request=self.request, seen=seen, answers=tuple(self._results),
                        store=self._store)

    def planning_state(self) -> dict[str, Any]:
        """The state the planner sees for the leading candidate's current step: that step's
        variables that were not produced since the step before it count as not known yet."""
        with self._lock:
            return progress.planning_state(self._snapshot(), self._lead())

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
            self._said_no = False
            decision = self._check(tool, arguments)
            if self._said_no:  # the user said no: that action ends, not asked again
                self._declined[tool] = declined_refusal(tool)
                self._version += 1
                decision = replace(decision, reason=declined_error(tool),
                                   kind=DecisionKind.DECLINED)
            if not decision.allowed:
                self._refusals.add((tool, decision.reason))
            return decision

    def _check(self, tool: str, arguments: Any) -> Decision:
        """:meth:`check`'s decision, before a "no" of the user's is remembered (under the
        lock)."""
        if not isinstance(tool, str) or tool not in self.registry:
            return Decision(False, f"{tool!r} does not exist; refused", str(tool),
                            kind=DecisionKind.UNKNOWN)
        shown = self._showing()
        if self.done and not shown.frontiers and tool not in shown.writes:
            return Decision(False, f"the goal is reached; {tool!r} refused", tool,
                            kind=DecisionKind.HIDDEN)
        if tool in self._declined:
            return Decision(False, self._declined[tool], tool, kind=DecisionKind.DECLINED)
        if isinstance(arguments, Mapping):
            for name, value in arguments.items():
                try:
                    check_size(f"argument '{name}' of {tool}", value, MAX_VALUE_CHARS)
                except PlanfilterError as exc:
                    return Decision(False, f"{exc}; refused", tool,
                                    kind=DecisionKind.ARGUMENTS)
        now = self._snapshot()
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
            index = len(self._calls) + 1
            args = dict(arguments or {})
            parsed = parse_result(result)  # read once: the store, the keys, the answers
            if error is None and tool not in self.registry:
                error = f"unknown tool {tool!r}"
            if error is not None:
                refused = (tool, error) in self._refusals
                call = Call(index, tool, args, ok=False, error=error, refused=refused)
            else:
                contract = self.registry.tool(tool)
                got = extract(contract, result)
                before = frozenset(self._facts) - self._stale(self._lead())
                exposed = self._exposed()
                for name in sorted(contract.authored & set(args)):
                    variable = contract.variable_of(name)
                    self._facts.setdefault(variable, []).append(
                        Fact(args[name], FactKind.AUTHORED, index, exposed))
                    self._store = self._store.with_value(args[name], Source(
                        SourceKind.MODEL, index, tool, variable=variable, trusted=not exposed))
                self._store = self._store.with_result(index, tool, parsed,
                                                      trusted=not contract.untrusted)
                for name, value in got.values.items():  # a fact carries no outside content
                    outside = contract.untrusted and name not in contract.establishes
                    self._facts.setdefault(name, []).append(Fact(
                        value, FactKind.CALL, index, outside,
                        links_in(value) if outside else ()))
                new = frozenset(got.values) - before
                call = Call(index, tool, args, ok=True, produced=dict(got.values), new=new,
                            missing=got.missing, problems=got.problems,
                            found=found_under_keys(parsed, result_keys(self.registry)))
            # a read made again (for another value it lists) gathers more for the same step: it
            # is no step off a plan
            again = call.ok and len(self._beliefs) > 1 and self.registry.tool(tool).reads and any(
                c.ok and c.tool == tool for c in self._calls)
            self._calls.append(call)
            if call.ok:
                self._results.append((args, parsed))
            if call.ok and tool in self._directed:
                self._directed_texts.append(document_text(result))
            self._advance(ran=call.ok and not again)
            if self._delegation is not None:
                self._after_delegating(call, result)
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
            lead = now.lead
            self._switched_from = self._switched_from or switching.best_weight(now)
            self._set_beliefs(switching.switched(now, shown.offers, shown.union, reason))
            self._switches.append(reason)
            self._left = None if self._lead().candidate == lead.candidate else (
                lead.candidate.name, next((t for b, t in shown.offers if b == lead), ()))
            return self.visible()

    # -- internals -------------------------------------------------------------------------

    def _snapshot(self) -> Snapshot:
        """The state now, built once per version."""
        if self._cache is None or self._cache[0] != self._version:
            now = Snapshot(self.registry, self.method, self.recognition, self.request,
                           {n: tuple(f) for n, f in self._facts.items()}, tuple(self._calls),
                           self._beliefs, frozenset(self._declined),
                           tuple(self._directed_texts), self._switched_from)
            self._cache = (self._version, now, None)
        return self._cache[1]

    def _showing(self) -> offers.Showing:
        """What to show in the state now, worked out once per version."""
        self._lead()  # an unstarted session says so
        now = self._snapshot()
        assert self._cache is not None
        if self._cache[2] is None:
            frontiers = []
            for belief in offers.planned_for(now):
                guard = self._guard(belief)
                frontiers.append((belief, guard.visible(progress.planning_state(now, belief),
                                                        now.attempts)))
            self._cache = (self._version, now, offers.showing(now, frontiers, done=self.done))
        assert self._cache[2] is not None
        return self._cache[2]

    def _frontiers(self) -> list[tuple[Belief, ToolGuard, Visible]]:
        """(candidate, its guard, its next tools) of each candidate planned for."""
        return [(b, self._guard(b), v) for b, v in self._showing().frontiers]

    def _set_beliefs(self, beliefs: Sequence[Belief]) -> None:
        self._beliefs = tuple(beliefs)
        self._version += 1

    def _exposed(self) -> bool:
        return any(f.untrusted and f.call is not None and f.kind is not FactKind.AUTHORED
                   for facts in self._facts.values() for f in facts)

    def _stale(self, belief: Belief) -> frozenset[str]:
        return progress.stale_variables(self._snapshot(), belief)

    def _advance(self, *, ran: bool) -> None:
        """Mark every candidate's steps reached and weigh each anew (one more observation
        if a call ran); once the leading one is reached, the request's later parts join."""
        self._version += 1
        self._set_beliefs(progress.advanced(self._snapshot(), ran=ran))
        if self._parts and self._lead().done:
            parts, self._parts = self._parts, ()
            self._set_beliefs(joining.with_later_parts(self._snapshot(), parts))

    def _after_delegating(self, call: Call, result: Any) -> None:
        """A call while the document the request delegates to is unread: its read (whose
        goals then join, planfilter.live.joining.with_document_goals), a failed try of it
        (nothing changes), or another call, which sets the offer of the document's read
        aside (a read the request's own candidates make still counts when it comes)."""
        assert self._delegation is not None
        if joining.reads_document(self.registry, self._delegation, call):
            if call.ok:
                self._delegation = None
                beliefs = joining.with_document_goals(self._snapshot(), result)
                if beliefs is not None:
                    self._document = len(self._calls)
                    self._set_beliefs(beliefs)
                    self._advance(ran=False)
            return
        self._set_beliefs(joining.without_delegated(self._beliefs))

    def _lead(self) -> Belief:
        """The leading candidate (when none is reachable, the first one not set aside)."""
        with self._lock:
            if not self._beliefs:
                self._started()
            return lead_of(self._beliefs, self.recognition)

    def _started(self) -> Resolution:
        if self.resolution is None:
            raise PlanfilterError("the session has not started: call start(request) first")
        return self.resolution

    def _guard(self, belief: Belief) -> ToolGuard:
        """The guard of a candidate's current step (its goal is that step's variables)."""
        steps = belief.candidate.steps
        k = min(belief.step, len(steps) - 1)
        key = (steps, k)
        if key not in self._guards:
            # several candidates: any first step of a minimal plan of one is consistent with
            # it (the agent's order among equally short plans is not known), so each shows
            # them all
            options = self.options if len(self._beliefs) < 2 else \
                replace(self.options, ties="all")
            self._guards[key] = ToolGuard(self.registry, steps[k], method=self.method,
                                          policy=self.policy,
                                          approver=self._ask if self.approver else None,
                                          query=self.request, options=options,
                                          provenance=self.provenance)
        return self._guards[key]

    def _ask(self, request: ApprovalRequest) -> bool:
        """The session's approver, asked about one call; its "no" is remembered."""
        assert self.approver is not None
        approved = bool(self.approver(request))
        if not approved and self.remember_declines:
            self._said_no = True
        return approved
