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

A request that hands what to do to a document it names ("read the file 'notice.txt' and
follow the instructions") is followed there: once the read of that document comes back, the
goals its text gives join the candidates (planfilter.live.delegation). No other result
sets a goal. A request that says where the values are ("you can find details in Alice's
inbox", planfilter.live.pointers) has that read first on the way to each action, and the
names its text lists together ("the 'general' and 'random' channels") keep a write made for
one of them offered for the others, as names the request lists do.

A call the user was asked about and declined (:meth:`Session.decline`, from whoever asked:
the gateway asks through MCP elicitation) ends that action: the tool leaves the frontier and
a later call of it is refused as ``declined`` without asking again, so an agent that retries
does not put the same question to the user twice. A "no" from the session's own ``approver``
(policy ``ask``) is such a decline. A new session asks afresh.

A call :meth:`Session.check` refused, recorded with the refusal as its error (as above), is
kept in the history but is no failure of the tool: it never ran, so ``cmtf-recover`` does
not route around the tool.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any

from ..core.contracts import Registry, Steps, Tool, goal_steps, show_steps
from ..core.environment import Supplied, supply, tool_sources
from ..core.errors import PlanfilterError
from ..core.provenance import (
    Flow,
    accepted,
    found_under_keys,
    key_variables,
    listed_with,
    within,
)
from ..core.results import extract, parse_result
from ..core.schemas import accepts_list, value_errors
from ..core.steps import GIVEN, advance, stale
from ..core.values import Source, SourceKind, ValueStore
from ..filters import (
    DEFAULT_OPTIONS,
    GOAL_DIRECTED_METHODS,
    Attempt,
    Decision,
    FilterOptions,
    ToolGuard,
    Visible,
    get_filter,
)
from ..filters.risk import ApprovalPolicy, ApprovalRequest, Approver, check_policy
from ..models import CallOptions
from .delegation import Delegation, delegation, document_reads, document_text
from .goals import RESOLVERS, GoalOption, Resolution, resolve_goal
from .hypotheses import (
    candidate_goals,
    kin_of_variables,
    kin_reads,
    listed_kinds,
    pointed_reads,
    request_parts,
    written_kinds,
)
from .recognition import (
    DEFAULT_RECOGNITION,
    Belief,
    Candidate,
    RecognitionOptions,
    candidates_from,
    describe_candidates,
    leading,
    observe,
    plausible,
    remaining_cost,
    switch_away,
    union,
)
from .stated import POINTERS, named_with, pointed_by, pointers_in, stated_for


@dataclass(frozen=True)
class Fact:
    """One value of a variable and where it came from."""

    value: Any
    #: "user", "request" (read out of the request by the goal resolver), "environment (...)"
    #: (the system supplied it), "call N", or "authored (call N)" (the model wrote it as an
    #: argument of call N).
    source: str
    #: The call that produced it (1-based), None for the user's and the request's values.
    call: int | None = None
    #: It came from outside content: an untrusted tool's result, or what the model wrote
    #: after such content entered the state.
    untrusted: bool = False
    #: The web addresses and file names an untrusted result states (planfilter.live.stated
    #: POINTERS), read once when the result comes in.
    pointers: tuple[tuple[str, str], ...] = ()

    @property
    def given(self) -> bool:
        """The user gave it (directly, or in the request), or the environment supplied it."""
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
    #: Values found inside the result under a key that is (or maps to) a variable: they say
    #: which value of that variable is meant (planfilter.core.provenance.found_under_keys);
    #: whether a value was obtained is the value store's answer, whatever its key.
    found: Mapping[str, tuple[Any, ...]] = field(default_factory=dict)
    #: It never ran: :meth:`Session.check` refused it, and ``error`` is the refusal.
    refused: bool = False

    @property
    def unfilled(self) -> bool:
        """It succeeded, its tool produces something, and its result filled nothing."""
        return self.ok and not self.produced and bool(self.missing)

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


#: The tool a model calls to say the tools shown do not fit (see :meth:`Session.switch`).
SWITCH_TOOL = "ask_for_other_tools"


def switch_tool_schema() -> dict[str, Any]:
    """The switch as an OpenAI function, offered beside the visible tools while a session
    weighs several candidate goals."""
    return {"type": "function", "function": {
        "name": SWITCH_TOOL,
        "description": "Call this when none of the other tools offered is what the user's "
                       "request needs next: the tools of the next most likely goal are shown "
                       "instead.",
        "parameters": {"type": "object", "properties": {"reason": {
            "type": "string", "description": "What the request needs that no tool offered "
                                            "does"}}, "required": ["reason"]}}}


#: Characters of a request, and of one argument or known value, that a session accepts.
MAX_REQUEST_CHARS = 20_000
MAX_VALUE_CHARS = 100_000


def check_size(what: str, value: Any, limit: int) -> None:
    """Raise, naming the limit, when ``value`` (as text) is longer than ``limit``."""
    size = len(value) if isinstance(value, str) else len(repr(value))
    if size > limit:
        raise PlanfilterError(f"{what} is {size:,} characters long; the limit is {limit:,}")


def json_key(value: Any) -> str:
    """A value as comparable text (values may be lists or objects, which do not hash)."""
    return json.dumps(value, sort_keys=True, default=str)


@lru_cache(maxsize=16)
def result_keys(registry: Registry) -> dict[str, frozenset[str]]:
    """Result key -> the variables a value under it may be (one map per registry)."""
    return key_variables(registry)


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
    ``approver`` decide high-risk calls as in :class:`~planfilter.filters.ToolGuard`
    (default ``untainted``: approved unless a sensitive argument carries a value read from
    outside content; ``ask`` asks ``approver``, and its "no" ends that action as
    :meth:`decline` does unless ``remember_declines=False``);
    ``provenance=False`` turns off the refusal of invented argument values. A resolved goal
    is a ranked set of candidates weighed by the calls made (``recognition``; see
    planfilter.live.recognition); a goal given to :meth:`start` is the only candidate.
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
        self._facts: dict[str, list[Fact]] = {}
        self._calls: list[Call] = []
        self._beliefs: list[Belief] = []
        self._switches: list[str] = []
        self._guards: dict[tuple[Steps, int], ToolGuard] = {}
        #: Tool -> why it is refused from now on: the user declined it (see ``decline``).
        self._declined: dict[str, str] = {}
        #: The approver said no during the check under way.
        self._said_no = False
        #: (tool, reason) of each refusal :meth:`check` gave.
        self._refusals: set[tuple[str, str]] = set()
        self._environment: dict[str, Supplied] = {}
        #: The request's later parts, weighed once the leading candidate is reached.
        self._parts: tuple[GoalOption, ...] = ()
        #: The document the request hands what to do to, until its read comes back; then
        #: the origin of the candidates its text gave.
        self._delegation: Delegation | None = None
        self._document = ""
        #: The reads a sentence of the request points at (planfilter.live.pointers), and the
        #: texts they answered: where the user said the values are.
        self._pointed: frozenset[str] = frozenset()
        self._pointed_texts: list[str] = []
        #: Every successful call's arguments and result: what the model could have read.
        self._results: list[tuple[dict[str, Any], Any]] = []
        #: Every value that entered the session, with its sources (planfilter.core.values).
        self._store = ValueStore()
        self._lock = threading.RLock()

    # -- starting ---------------------------------------------------------------------------

    def start(self, request: str, *, goal: Any = None,
              known: Mapping[str, Any] | None = None,
              candidates: Sequence[Any] | None = None,
              environment: Mapping[str, Supplied] | None = None) -> Resolution:
        """Begin the task: the goal is ``goal`` (a registry goal's name, variables, or a list
        of steps, each a name or a list of variables) or is resolved from ``request``;
        ``candidates``: several such goals, best first, weighed as a resolved goal's are
        (instead of ``goal``); ``known`` are values the user gave, each checked against the
        input schemas of the tools that take it (a list for a variable that takes one value
        gives several values of it: any of them is the user's). ``environment``: the values
        the system supplies (planfilter.core.environment); default: the registry's that need
        no tool call. They are bound as the user's are; the user's and the request's outrank
        them."""
        with self._lock:
            if not isinstance(request, str):
                raise PlanfilterError("the request must be text")
            check_size("the request", request, MAX_REQUEST_CHARS)
            given = dict(known or {})
            self._check_known(given)
            if environment is None:
                unread = sorted(f"'{n}' (tool {t})" for n, t in
                                tool_sources(self.registry).items() if n not in given)
                if unread:
                    raise PlanfilterError(
                        f"{self.registry.source or '<registry>'}: the environment supplies "
                        f"{', '.join(unread)} by a tool call: pass what it returned "
                        "(Session.start(environment=planfilter.core.environment.supply("
                        "registry, run=...))), as the gateway does")
                environment = supply(self.registry, skip=frozenset(given))
            supplied = {n: s for n, s in environment.items() if n not in given}
            self._check_known({n: s.value for n, s in supplied.items()}, "environment value")
            parts: tuple[GoalOption, ...] = ()
            delegated: Delegation | None = None
            pointed: frozenset[str] = frozenset()
            if candidates is not None:
                if isinstance(candidates, str | Mapping):
                    raise PlanfilterError("candidates: a list of goals, best first (each a "
                                          "goal's name, variables, or steps)")
                if goal is not None or not candidates:
                    raise PlanfilterError("give either a goal or a non-empty list of candidate "
                                          "goals")
                listed = [(self._name(s), s, "given") for s in map(self._goal_steps,
                                                                  candidates)]
                found = candidates_from(listed, replace(self.recognition,
                                                        candidates=len(listed)))
                first = found[0]
                resolution = Resolution(first.goal, first.name,
                                        steps=first.steps if len(first.steps) > 1 else ())
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
                    pointed = frozenset(t.name for o in pointed_reads(self.registry, request)
                                        for t in self.registry.producers(o.variables))
            else:
                steps = self._goal_steps(goal)
                name = self._name(steps)
                resolution = Resolution(frozenset().union(*steps), name,
                                        steps=steps if len(steps) > 1 else ())
                found = (Candidate(name, steps, 1.0, "given"),)
            self.request = request
            self._facts = {}
            self._calls = []
            self._results = []
            self._switches = []
            self._guards = {}
            self._declined = {}
            self._refusals = set()
            for name, value in given.items():
                self._facts[name] = [Fact(v, "user") for v in self._values(name, value)]
            for name, value in resolution.known.items():
                if name not in given:  # what the user gave outranks what was read
                    self._facts[name] = [Fact(v, "request") for v in self._values(name, value)]
            # the user's values and the request's outrank what the environment supplies
            self._environment = {n: s for n, s in supplied.items() if n not in self._facts}
            for name, item in self._environment.items():
                self._facts[name] = [Fact(v, f"environment ({item.source})")
                                     for v in self._values(name, item.value)]
            self._store = ValueStore().with_text(request, Source(SourceKind.USER))
            for name, facts in self._facts.items():
                kind = SourceKind.USER if name not in self._environment else \
                    SourceKind.ENVIRONMENT
                for fact in facts:
                    self._store = self._store.with_value(fact.value,
                                                         Source(kind, variable=name))
            self.resolution = resolution
            self._parts = parts
            self._delegation = delegated
            self._document = ""
            self._pointed = pointed
            self._pointed_texts = []
            self._beliefs = [Belief(c) for c in found]
            if delegated is not None:  # the read of the document stands beside the first
                held = {c.steps for c in found}
                reads = [Belief(Candidate(o.name, o.goal_steps, found[0].prior, "delegated"))
                         for o in document_reads(self.registry, delegated)
                         if o.goal_steps not in held]
                self._beliefs[1:1] = reads
            self._advance(ran=False)
            return resolution

    @staticmethod
    def _name(steps: Steps) -> str:
        return show_steps(steps) if len(steps) > 1 else ",".join(sorted(steps[0]))

    def _values(self, name: str, value: Any) -> list[Any]:
        """Several values of one variable (a list where every tool that takes the variable
        takes one value), else the value itself."""
        if isinstance(value, list | tuple) and value and self._takes_one(name):
            return list(value)
        return [value]

    def _takes_one(self, name: str) -> bool:
        found = carriers(self.registry).get(name, ())
        return bool(found) and all(not accepts_list(tool, param) for tool, param in found)

    def _goal_steps(self, goal: Any) -> Steps:
        """Steps of registry goals' names and variables. A goal no tool can reach is kept:
        the frontier is then empty and says why, as for any unreachable goal."""
        named = {g.name: g.goal_steps for g in self.registry.goals}
        if isinstance(goal, str):
            if not goal.strip():
                raise PlanfilterError("the goal names no variable")
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

    def _check_known(self, given: Mapping[str, Any], what: str = "known value") -> None:
        """Each known value fits the input schema of every tool parameter that carries it
        (each of several values, when the variable takes one value and a list is given)."""
        problems = []
        for name, value in given.items():
            if not isinstance(name, str) or not name:
                problems.append(f"known: {name!r} is not a variable name")
                continue
            try:
                check_size(f"{what} '{name}'", value, MAX_VALUE_CHARS)
            except PlanfilterError as exc:
                problems.append(str(exc))
                continue
            values = self._values(name, value)
            for tool, param in carriers(self.registry).get(name, ()):
                for item in values:
                    for problem in value_errors(tool, param, item):
                        problems.append(f"{what} '{name}' does not fit {tool.name}."
                                        f"{param}: {problem}")
        if problems:
            raise PlanfilterError("; ".join(sorted(set(problems))))

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
            return tuple(self._beliefs)

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
            return len(self._beliefs) > 1 and self.method in GOAL_DIRECTED_METHODS

    def switch_text(self, visible: Visible) -> str:
        """What the model is told after a switch."""
        if not visible.tools:
            return "No other goal is left to show tools for: answer the user in words."
        return ("The tools of the next most likely goal are shown now: "
                + ", ".join(visible.tools) + ".")

    def describe_candidates(self) -> tuple[str, ...]:
        """One line per candidate goal, by weight (for traces and reports)."""
        with self._lock:
            return describe_candidates(self._beliefs, self.recognition)

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
            if not lead.done or not self._document:
                return lead.done
            return any(b.done for b in self._beliefs if b.candidate.origin == self._document)

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
            return self._planning_state(self._lead())

    # -- the three calls of an agent step --------------------------------------------------

    def visible(self) -> Visible:
        """The tools to show now: under a goal-directed method (``cmtf``) the union of the next
        steps of the plausible candidates, the leading one's first, and the writes made for
        one of several listed values (offered for the others); once the leading candidate is
        reached, only those writes and what plausible candidates it did not reach ask for."""
        with self._lock:
            frontiers = self._frontiers()
            again = self._writes_again()
            if not frontiers:
                if self.done and again:
                    visible = Visible(again, info="goal reached; the write made for one of "
                                      "several listed values stays offered for the others")
                    return self._less_declined(visible)
                return Visible((), info="goal reached" if self.done else
                               "no candidate goal left: the model set every one aside")
            first = frontiers[0][2]
            tools = tuple(dict.fromkeys((*self._shown(self._offers(frontiers)), *again)))
            if len(frontiers) == 1:
                visible = replace(first, tools=tools)
            else:
                info = "; ".join(f"{b.candidate.name}: {v.info}" for b, _, v in frontiers)
                visible = Visible(tools, info=f"candidates {info}", planner=first.planner,
                                  fallbacks=first.fallbacks)
            return self._less_declined(visible)

    def _less_declined(self, visible: Visible) -> Visible:
        """``visible`` less the tools the user declined; when none is left, the task ends
        with a message saying so."""
        with self._lock:
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
        approval for a high-risk tool. Nothing runs; the decision is logged. Which candidate
        goals are plausible changes only what is visible, never the other checks."""
        with self._lock:
            self._said_no = False
            decision = self._check(tool, arguments)
            if self._said_no:  # the user said no: that action ends, not asked again
                self._declined[tool] = declined_refusal(tool)
                decision = replace(decision, reason=declined_error(tool), kind="declined")
            if not decision.allowed:
                self._refusals.add((tool, decision.reason))
            return decision

    def _check(self, tool: str, arguments: Any) -> Decision:
        """:meth:`check`'s decision, before a "no" of the user's is remembered (under the
        lock)."""
        if not isinstance(tool, str) or tool not in self.registry:
            return Decision(False, f"{tool!r} does not exist; refused", str(tool),
                            kind="unknown")
        frontiers = self._frontiers()
        again = self._writes_again()
        if self.done and not frontiers and tool not in again:
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
        offers = self._offers(frontiers)
        shown = tuple(dict.fromkeys((*self._shown(offers), *again))) if frontiers \
            else again
        belief = next((b for b, offered in offers if tool in offered), self._lead())
        return self._guard(belief).check_call(self._planning_state(belief), tool,
                                              arguments, self._attempts(),
                                              flow=self.flow(), shown=shown)

    def record(self, tool: str, arguments: Mapping[str, Any] | None, result: Any = None, *,
               error: str | None = None) -> Call:
        """Take a call's result into the state. ``error`` (or an unknown tool) marks a failed
        call: the state is unchanged and the failure is remembered for recovery, unless
        ``error`` is the reason :meth:`check` refused the call with (it never ran)."""
        with self._lock:
            self._started()
            index = len(self._calls) + 1
            args = dict(arguments or {})
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
                        Fact(args[name], f"authored (call {index})", index, exposed))
                    self._store = self._store.with_value(args[name], Source(
                        SourceKind.MODEL, index, tool, variable=variable, trusted=not exposed))
                self._store = self._store.with_result(index, tool, parse_result(result),
                                                      trusted=not contract.untrusted)
                for name, value in got.values.items():  # a fact carries no outside content
                    outside = contract.untrusted and name not in contract.establishes
                    self._facts.setdefault(name, []).append(Fact(
                        value, f"call {index}", index, outside,
                        pointers_in(value) if outside else ()))
                new = frozenset(got.values) - before
                call = Call(index, tool, args, ok=True, produced=dict(got.values), new=new,
                            missing=got.missing, problems=got.problems,
                            found=found_under_keys(parse_result(result),
                                                   result_keys(self.registry)))
            # a read made again (for another value it lists) gathers more for the same step: it
            # is no step off a plan
            again = call.ok and len(self._beliefs) > 1 and self.registry.tool(tool).reads and any(
                c.ok and c.tool == tool for c in self._calls)
            self._calls.append(call)
            if call.ok:
                self._results.append((args, parse_result(result)))
            if call.ok and tool in self._pointed:
                self._pointed_texts.append(document_text(result))
            self._advance(ran=call.ok and not again)
            if self._delegation is not None:
                self._after_delegating(call, result)
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

    def switch(self, reason: str = "") -> Visible:
        """The model (or client) says the tools shown do not fit: every plausible candidate
        that offers nothing but those tools is set aside, and the next candidates are shown.
        Counted in :attr:`switches`. A session that weighs no candidates (its goal was
        given, or its method follows one goal) has none to switch to: an error says so."""
        with self._lock:
            self._started()
            if not self.weighing:
                why = f"method {self.method} follows one goal" \
                    if self.method not in GOAL_DIRECTED_METHODS else "its goal was given" \
                    if all(b.candidate.origin == "given" for b in self._beliefs) else \
                    "the request allows one candidate goal"
                raise PlanfilterError(f"no other candidate goal to switch to: {why}; start "
                                      "a new task for another goal")
            offers = self._offers(self._frontiers())
            away = switch_away(offers, self._shown(offers))
            why = f"the model set it aside: {reason}" if reason else "the model set it aside"
            self._beliefs = [replace(b, dropped=why) if b.candidate.name in away else b
                             for b in self._beliefs]
            self._switches.append(reason)
            return self.visible()

    # -- internals -------------------------------------------------------------------------

    def _frontiers(self) -> list[tuple[Belief, ToolGuard, Visible]]:
        """(candidate, its guard, its next tools) of each plausible candidate not reached,
        leading first; once the leading one is reached, of those that ask for something it
        did not reach (a request may ask for several things: create the file, then share
        it); only the leading one for a method that is not goal-directed."""
        lead = self._lead()
        # a reached goal calls for no more calls: a call made now is weighed among the
        # candidates not reached, so they are plausible against the best of them
        pool = [b for b in self._beliefs if not b.done] if lead.done else self._beliefs
        beliefs = [b for b in plausible(pool, self.recognition) if not b.done]
        if lead.done:
            beliefs = [b for b in beliefs if not b.candidate.goal <= lead.candidate.goal]
        elif not beliefs:  # none reachable: the first standing one's frontier says why
            beliefs = [b for b in self._beliefs if not b.dropped and not b.done][:1]
        if self.method not in GOAL_DIRECTED_METHODS:
            beliefs = beliefs[:1]
        out = []
        for belief in beliefs:
            guard = self._guard(belief)
            out.append((belief, guard, guard.visible(self._planning_state(belief),
                                                     self._attempts())))
        return out

    def _offers(self, frontiers: list[tuple[Belief, ToolGuard, Visible]]
                ) -> list[tuple[Belief, tuple[str, ...]]]:
        """Each frontier's candidate and the tools it offers (:meth:`_offered`), the reads
        to make again worked out once for all of them."""
        again = self._again(reads=True) if self.method in GOAL_DIRECTED_METHODS else ()
        return [(b, self._offered(b, v, again)) for b, _, v in frontiers]

    def _shown(self, offers: list[tuple[Belief, tuple[str, ...]]]) -> tuple[str, ...]:
        """The union of the candidates' next tools (at most ``recognition.tools`` beyond the
        leading candidate's), then, while several candidates are weighed, the kin of each
        read shown (reads of the same kind of thing, planfilter.live.hypotheses.kin_reads)
        whose inputs are held: the request rarely says which of them it means. A read and
        its kin count as one tool towards the bound."""
        shown = union(offers, self.recognition.tools)
        if len(self._beliefs) < 2 or self.method not in GOAL_DIRECTED_METHODS:
            return shown
        held = frozenset(self._facts)
        kin = [k for t in shown for k in kin_reads(self.registry).get(t, ())
               if k not in self._declined and self.registry.tool(k).pre <= held]
        pointed = [t for t in self._pointed_reads() if self.registry.tool(t).pre <= held]
        return tuple(dict.fromkeys((*shown, *kin, *pointed)))

    def _offered(self, belief: Belief, visible: Visible, again: tuple[str, ...]
                 ) -> tuple[str, ...]:
        """The candidate's next tools, then of ``again`` (:meth:`_again`), the reads to make
        again for another listed value (the users of each channel, the items of each order)
        until the goal is reached. While several candidates are weighed, only the reads that
        reached one of this candidate's steps already, or its current one (or a kin of such
        a read, made in its place)."""
        if not visible.tools or self.method not in GOAL_DIRECTED_METHODS:
            return visible.tools  # a baseline shows what it chose, nothing more
        visible = replace(visible, tools=self._after_listings(belief, visible.tools))
        if len(self._beliefs) > 1:
            kin = kin_of_variables(self.registry)
            steps = belief.candidate.steps[:belief.step + 1]
            again = tuple(t for t in again
                          if any(self.registry.tool(t).post & step
                                 or any(t in kin.get(v, ()) for v in step) for step in steps))
        return tuple(dict.fromkeys((*visible.tools, *again)))

    def _after_listings(self, belief: Belief, tools: tuple[str, ...]) -> tuple[str, ...]:
        """``tools`` less the reads that take names of a kind of thing a listing of the same
        step lists, until that listing is made: a step that asks for the hotels of a city
        and their ratings (several kinds named, in any order) shows the ratings once the
        hotels are listed, as a plan would if the contracts said the names come from the
        list. A name the request or the user gives needs no list."""
        step = belief.candidate.steps[min(belief.step, len(belief.candidate.steps) - 1)]
        listings = [(t, listed_kinds(t)) for t in self.registry.producers(step)]
        listings = [(t, kinds) for t, kinds in listings if kinds]
        if not listings:
            return tools
        given = {n: True for n, facts in self._facts.items() if any(f.given for f in facts)}
        out = []
        for name in tools:
            tool = self.registry.tool(name)
            wanted = written_kinds(tool, self.request, given)
            if any(wanted & kinds and lister.name != name and not lister.post <= set(self._facts)
                   for lister, kinds in listings):
                continue
            out.append(name)
        return tuple(out) or tools

    def _pointed_reads(self) -> tuple[str, ...]:
        """Reads a result points to: a web address or a file name that an untrusted call's
        answer states (an article's link in a channel message, the file an e-mail names)
        for a parameter a read takes as text the model writes, not read yet. The request
        says what to do with the article, the message says where it is; no candidate drawn
        from the request alone can know. Only outside content points: what it carries is
        tainted, so the guard's checks hold (under ``never`` a sensitive web address from it
        is refused); a result the contracts trust (a list of channel names) points nowhere,
        as an attacker may have named a channel after a web address."""
        out: list[str] = []
        pointers = tuple(dict.fromkeys(p for facts in self._facts.values() for f in facts
                                       for p in f.pointers))
        if not pointers:
            return ()
        for tool in self.registry:
            if not tool.reads or tool.name in self._declined:
                continue
            for param in sorted(tool.authored):
                made = {json_key(c.arguments.get(param)) for c in self._calls
                        if c.ok and c.tool == tool.name}
                if {json_key(v) for v in pointed_by(tool, param, pointers)} - made:
                    out.append(tool.name)
                    break
        return tuple(out)

    def _again(self, *, reads: bool) -> tuple[str, ...]:
        """A call per listed value: a read (or, with ``reads`` false, a write) made before
        whose input a result or the request listed several values of (a customer's orders,
        two pages; the users to add to a channel, the two people to write to: "message Dora
        and Eve"), or a read made for a link a result gave whose input the request states
        other web addresses or file names of, not all taken yet, stays offered for the
        others: the value a goal needs may be in any of the pages read, and a request that
        asks for a write to each of several things is not done after the first."""
        out: list[str] = []
        for call in self._calls:
            if not call.ok or call.tool in out or call.tool not in self.registry:
                continue
            tool = self.registry.tool(call.tool)
            if tool.reads != reads:
                continue
            for param, argument in call.arguments.items():
                variable = tool.variable_of(param)
                listed = [v for f in self._facts.get(variable, ()) if self._listed_by_others(f)
                          for v in accepted(f.value) if not isinstance(v, list | tuple | Mapping)]
                if len({json_key(v) for v in listed}) < 2:
                    # a value the model wrote (an authored channel name) that a result
                    # listed beside others
                    listed = list(next((found for facts in self._facts.values()
                                        for f in facts if self._listed_by_others(f)
                                        for found in [listed_with(f.value, argument)]
                                        if len(found) > 1), ()))
                if len({json_key(v) for v in listed}) < 2 and param in tool.authored:
                    # several values the request states for a parameter the model writes
                    # ("visit www.a.com and www.b.com")
                    stated = stated_for(tool, param, self.request)
                    listed = list(stated) if within(argument, stated) else []
                    if reads and not listed:
                        # a read the request points at ("visit www.a.com"), made first for
                        # a value a result gave (a link in a channel)
                        pointed = stated_for(tool, param, self.request, POINTERS)
                        listed = [argument, *pointed] if pointed else []
                    if len({json_key(v) for v in listed}) < 2:
                        # the names the request lists it with ("message Dora and Eve"), or
                        # a text the request points at ("the details are in Alice's inbox":
                        # "add her to the 'general' and 'random' channels")
                        listed = list(next(filter(None, (
                            named_with(text, argument)
                            for text in (self.request, *self._pointed_texts))), ()))
                if len({json_key(v) for v in listed}) < 2:
                    if self._picked_from_text(call, argument):
                        # some of the names a text listed (the French restaurants of a
                        # city's list): the text may list others the goal needs, and no
                        # field says which, so the read stays offered
                        out.append(call.tool)
                        break
                    continue
                read = {json_key(c.arguments.get(param)) for c in self._calls
                        if c.ok and c.tool == call.tool}
                if {json_key(v) for v in listed} - read:
                    out.append(call.tool)
                    break
        return tuple(out)

    def _writes_again(self) -> tuple[str, ...]:
        """The writes made for one of several listed values, offered for the others
        (:meth:`_again`), under a goal-directed method."""
        return self._again(reads=False) if self.method in GOAL_DIRECTED_METHODS else ()

    def _picked_from_text(self, call: Call, argument: Any) -> bool:
        """``argument`` is a list of names (one or more), each in the text an earlier call
        answered (a listing in prose): a pick among what the text lists."""
        if not isinstance(argument, list | tuple) or not argument or any(
                isinstance(v, list | tuple | Mapping) for v in argument):
            return False
        texts = [f.value for facts in self._facts.values() for f in facts
                 if f.call is not None and f.call < call.index
                 and self._listed_by_others(f) and isinstance(f.value, str)]
        return any(all(str(v).lower() in text.lower() for v in argument) for text in texts)

    @staticmethod
    def _listed_by_others(fact: Fact) -> bool:
        """A call's result or the user listed the value (not what the model wrote)."""
        return not fact.source.startswith("authored")

    def _attempts(self) -> tuple[Attempt, ...]:
        """The calls that ran or failed (a refused one never ran: no failure of its tool)."""
        return tuple(c.attempt for c in self._calls if not c.refused)

    def _exposed(self) -> bool:
        return any(f.untrusted and f.call is not None and not f.source.startswith("authored")
                   for facts in self._facts.values() for f in facts)

    def _producers(self, name: str) -> list[int]:
        """The call that produced each value of ``name`` (GIVEN for the user's); while
        several candidates are weighed, also each call of a kin of its producers (shown in
        their place: a search of the e-mails made for the received e-mails reaches the step
        that reads them)."""
        calls = [f.call or GIVEN for f in self._facts.get(name, ())]
        if len(self._beliefs) < 2 or self.method not in GOAL_DIRECTED_METHODS:
            return calls
        kin = kin_of_variables(self.registry).get(name, frozenset())
        if not kin:
            return calls
        return sorted({*calls, *(c.index for c in self._calls if c.ok and c.tool in kin)})

    def _counted(self, belief: Belief) -> Callable[[str], list[int]]:
        """:meth:`_producers` as the candidate counts them: a later part of the request
        counts only the calls made since it is weighed (and the user's values)."""
        if not belief.since:
            return self._producers
        return lambda name: [c for c in self._producers(name)
                             if c == GIVEN or c > belief.since]

    def _stale(self, belief: Belief) -> frozenset[str]:
        """The variables of the candidate's current step not produced since the step before
        it was reached (for a later part of the request, its first step's not produced
        since it is weighed)."""
        return stale(belief.step, belief.candidate.steps, belief.reached, self._counted(belief))

    def _planning_state(self, belief: Belief) -> dict[str, Any]:
        state = {name: facts[-1].value for name, facts in self._facts.items()}
        for name in self._stale(belief):
            state.pop(name, None)
        return state

    def _advance(self, *, ran: bool) -> None:
        """Mark every step of every candidate reached in order, as far as the state reaches,
        and weigh each by its plan length from here (one more observation if a call ran)."""
        given = frozenset(self._given())
        beliefs = []
        for belief in self._beliefs:
            reached = list(belief.reached)
            advance(belief.candidate.steps, reached, self._counted(belief), len(self._calls))
            moved = replace(belief, reached=tuple(reached))
            cost = remaining_cost(self.registry, self._planning_state(moved),
                                  belief.candidate.steps, moved.step, given)
            beliefs.append(observe(belief, reached=reached, cost=cost, ran=ran))
        self._beliefs = beliefs
        if self._parts and self._lead().done:
            self._weigh_parts(given)

    def _weigh_parts(self, given: frozenset[str]) -> None:
        """The leading candidate is reached: the request's later parts (the action each of
        its sentences asks for, planfilter.live.hypotheses.request_parts) whose answer is not
        held join the candidates, weighed from this call on: the calls that served the part
        before are on none of their plans, and do not count against them. The first weighs
        as much as the best candidate not reached (the lead's weight when none is left), each
        next one ``decay`` times the one before."""
        lead = self._lead()
        parts, self._parts = self._parts, ()
        weight = max((b.weight(self.recognition) for b in self._beliefs if not b.done),
                     default=lead.weight(self.recognition))
        for i, option in enumerate(parts):
            if option.variables <= set(self._facts):
                continue  # its answer is held already
            # a candidate for it already (the action alone) was weighed against the calls
            # made for the part before: it is weighed from here on instead
            self._beliefs = [b for b in self._beliefs if b.candidate.steps != option.goal_steps]
            candidate = Candidate(option.name, option.goal_steps,
                                  weight * self.recognition.decay ** i, "later part")
            belief = Belief(candidate, since=len(self._calls))
            cost = remaining_cost(self.registry, self._planning_state(belief),
                                  candidate.steps, 0, given)
            self._beliefs.append(replace(belief, cost=cost))

    def _after_delegating(self, call: Call, result: Any) -> None:
        """A call while the document the request delegates to is unread: its read (taken
        at its word, :meth:`_take_document`), a failed try of it (nothing changes), or
        another call, which sets the offer of the document's read aside (a read the
        request's own candidates make still counts when it comes)."""
        assert self._delegation is not None
        contract = self.registry.tool(call.tool) if call.tool in self.registry else None
        if contract is not None and contract.reads and contract.untrusted and \
                self._delegation.is_source(call.arguments):
            if call.ok:
                self._delegation = None
                self._take_document(result)
            return
        self._beliefs = [replace(b, dropped="the document was not read first")
                         if b.candidate.origin == "delegated" and not b.dropped else b
                         for b in self._beliefs]

    def _given(self) -> dict[str, Any]:
        """The variables the user, the request or the environment gave, each with its
        first such value."""
        return {n: next(f.value for f in facts if f.given) for n, facts in self._facts.items()
                if any(f.given for f in facts)}

    def _take_document(self, result: Any) -> None:
        """The document the request delegates to came back (planfilter.live.delegation):
        the candidates its text gives (ranked by retrieval, as a request is), but those whose
        answer is held already, lead the candidates not reached: the first a plan reaches
        weighs as much as the best of those (the lead's weight when none is left), the
        others by their priors. The calls made so far count for them (the document's read
        is their first step when they read it): the user asked for them before these calls.
        The task is not done until one of them is reached (:attr:`done`)."""
        text = document_text(result)
        if not text.strip():
            return
        context = self._given()
        given = frozenset(context)
        resolution = resolve_goal(self.registry, text, resolver="retrieval")
        found = [c for c in candidate_goals(self.registry, resolution, text, context,
                                            self.recognition)
                 if not c.goal <= set(self._facts)]
        if not found:
            return
        reachable = [c for c in found if remaining_cost(
            self.registry, self._planning_state(Belief(c)), c.steps, 0, given) is not None]
        if not reachable:
            return
        weight = max((b.weight(self.recognition) for b in self._beliefs if not b.done),
                     default=self._lead().weight(self.recognition))
        scale = weight / reachable[0].prior
        held = {c.steps for c in found}
        origin = self._document = f"document (call {len(self._calls)})"
        self._beliefs = [Belief(replace(c, prior=c.prior * scale, origin=origin))
                         for c in found] + [b for b in self._beliefs
                                            if b.candidate.steps not in held]
        self._advance(ran=False)

    def _lead(self) -> Belief:
        """The leading candidate (when none is reachable, the first one not set aside)."""
        with self._lock:
            if not self._beliefs:
                self._started()
            return leading(self._beliefs, self.recognition) or next(
                (b for b in self._beliefs if not b.dropped), self._beliefs[0])

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
