"""The visible set as a boundary, for an agent framework: :class:`ToolGuard`.

A framework asks the guard which tools to show (:meth:`ToolGuard.visible`), and hands it every
tool call the model makes (:meth:`ToolGuard.check_call` or :meth:`ToolGuard.call`). A call is
allowed only when the tool exists, was visible in that state, its arguments are a JSON object
that validates against the tool's schema (a number the model quoted, ``"19.5"``, is taken as
the number where the schema asks for one, as the tool's own lax validation would), its
values may flow where they go (planfilter.core.provenance, by value: no value seen nowhere,
no substitute for a value the user gave), and, for a high-risk tool, a sensitive argument that
came from outside content, or a write's argument seen only inside outside text
(``tainted``), the approval policy approves it. Every refusal names the value, where it was
seen or that it was seen nowhere, and the rule that decided. Given a plain state instead of
a session's flow, the state's values are the values seen (trusted), whatever they are called.
:meth:`ToolGuard.call` runs the framework's executor only for allowed calls; every decision,
allowed or refused, is recorded in :attr:`ToolGuard.log`.

A :class:`planfilter.live.Session` decides through this guard, and every loop of the benchmark
(planfilter.bench) decides through the session.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.provenance import Flow, Held, check_flow, held_values, is_taint
from ..core.schemas import argument_errors, coerce_numbers
from .base import DEFAULT_OPTIONS, Attempt, FilterOptions, Query, Visible
from .registry import get_filter
from .risk import (
    DEFAULT_POLICY,
    ApprovalPolicy,
    ApprovalRequest,
    Approver,
    approve,
    check_policy,
    needs_approval,
)


class DecisionKind(StrEnum):
    """What the guard decided on a call (``Decision.kind``): allowed, or the check that
    refused it, in the order the checks run. The values are the words traces and reports
    carry."""

    ALLOWED = "allowed"
    #: No such tool.
    UNKNOWN = "unknown"
    #: The tool is not visible now.
    HIDDEN = "hidden"
    #: The arguments are not a JSON object, are too long, or do not validate.
    ARGUMENTS = "arguments"
    #: An argument carries a value the run never saw.
    INVENTED = "invented"
    #: An argument replaces a value the user gave.
    SUBSTITUTED = "substituted"
    #: A sensitive argument carries outside content and the policy refuses it.
    TAINTED = "tainted"
    #: The approval policy refused a high-risk call.
    APPROVAL = "approval"
    #: The user declined the tool earlier in the session (planfilter.live.Session.decline).
    DECLINED = "declined"


#: Every refusal kind, in the order the checks run.
REFUSALS = tuple(k for k in DecisionKind if k is not DecisionKind.ALLOWED)


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    tool: str = ""
    #: The parsed arguments (None when they were not a JSON object).
    arguments: Mapping[str, Any] | None = None
    #: The approval decision, for high-risk tools.
    approval: str | None = None
    #: Allowed, or which check refused the call (a plain word is taken as its kind).
    kind: DecisionKind = DecisionKind.ALLOWED
    #: Why the call needed approval: the tool's risk, tainted arguments (empty: it did not).
    concerns: tuple[str, ...] = ()
    #: With provenance off: the data-flow kinds (FLOW_KINDS) the call's values break, found
    #: and reported but not enforced (the benchmark's ``--env lenient`` flags them).
    unchecked: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", DecisionKind(self.kind))

    @property
    def tainted(self) -> bool:
        return any(is_taint(c) for c in self.concerns)


@dataclass(frozen=True)
class GuardedCall:
    decision: Decision
    #: What the executor returned; None when the call was refused (it never ran).
    result: Any = None


@dataclass
class ToolGuard:
    """Filters tools for one goal and refuses calls outside the visible set.

    ``policy`` decides high-risk and tainted calls (planfilter.filters.risk; default
    :data:`~planfilter.filters.risk.DEFAULT_POLICY`, ``untainted``); ``ask`` needs an
    ``approver``. ``query``: the user's request, for the filters that read it (default: the
    goal's variable names)."""

    registry: Registry
    goal: frozenset[str]
    method: str = "cmtf"
    policy: ApprovalPolicy = DEFAULT_POLICY
    approver: Approver | None = None
    query: str = ""
    options: FilterOptions = DEFAULT_OPTIONS
    #: Refuse arguments whose values were invented (see planfilter.core.provenance).
    provenance: bool = True
    log: list[Decision] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        # one variable's name is that variable, not the set of its letters
        self.goal = frozenset({self.goal}) if isinstance(self.goal, str) else \
            frozenset(self.goal)
        self._filter = get_filter(self.method)
        check_policy(self.policy)
        if self.policy == "ask" and self.approver is None:
            raise PlanfilterError("ToolGuard: policy 'ask' needs an approver callback "
                                  "(e.g. planfilter.filters.risk.on_path_approver(registry))")
        self._query = Query(self.query or " ".join(sorted(self.goal)), self.goal)

    def visible(self, state: Mapping[str, Any], history: Iterable[Attempt] = ()) -> Visible:
        """The tools to show in ``state`` (``history``: earlier calls, for recovering filters)."""
        options = replace(self.options, history=tuple(history))
        return self._filter(self.registry, self._query, state, options)

    def check_call(self, state: Mapping[str, Any], name: str, arguments: Any,
                   history: Iterable[Attempt] = (), held: Held | None = None,
                   flow: Flow | None = None, shown: Iterable[str] | None = None) -> Decision:
        """Whether the call may run; recorded in :attr:`log` either way.

        ``flow``: what the data-flow checks know (a :class:`~planfilter.live.Session` passes
        the values the user gave and the untrusted content it holds); without it, ``held``
        (default: the values of ``state``) are the values the provenance check accepts.
        ``shown``: the tools the caller showed (a session weighing several candidate goals
        shows more than this guard's goal); default: this guard's visible set."""
        if flow is None:
            values = held_values(state) if held is None else held
            flow = Flow(held={k: tuple(v) for k, v in values.items()})
        decision = self._decide(state, name, arguments, tuple(history), flow,
                                None if shown is None else tuple(shown))
        with self._lock:
            self.log.append(decision)
        return decision

    def call(self, state: Mapping[str, Any], name: str, arguments: Any,
             executor: Callable[[str, Mapping[str, Any]], Any],
             history: Iterable[Attempt] = ()) -> GuardedCall:
        """Check the call and, only if it is allowed, run ``executor(name, arguments)``."""
        decision = self.check_call(state, name, arguments, history)
        if not decision.allowed:
            return GuardedCall(decision)
        assert decision.arguments is not None
        return GuardedCall(decision, executor(name, decision.arguments))

    @property
    def refused(self) -> tuple[Decision, ...]:
        with self._lock:
            return tuple(d for d in self.log if not d.allowed)

    def _decide(self, state: Mapping[str, Any], name: str, arguments: Any,
                history: tuple[Attempt, ...], flow: Flow,
                shown: tuple[str, ...] | None) -> Decision:
        if name not in self.registry:
            return Decision(False, f"{name!r} does not exist; refused", name,
                            kind=DecisionKind.UNKNOWN)
        if shown is None:
            shown = self.visible(state, history).tools
        if name not in shown:
            unmet = unmet_facts(self.registry, name, state)
            return Decision(False, f"{name!r} is not visible in this state{unmet}; refused",
                            name, kind=DecisionKind.HIDDEN)
        parsed = parse_arguments(arguments)
        if isinstance(parsed, str):
            return Decision(False, f"arguments of {name}: {parsed}; refused", name,
                            kind=DecisionKind.ARGUMENTS)
        tool = self.registry.tool(name)
        parsed = coerce_numbers(tool, parsed)
        invalid = argument_errors(tool, parsed)
        if invalid:
            return Decision(False, f"invalid arguments for {name}: " + "; ".join(invalid),
                            name, parsed, kind=DecisionKind.ARGUMENTS)
        problems = check_flow(self.registry, tool, parsed, flow)
        unchecked: tuple[str, ...] = ()
        if not self.provenance:  # reported on the decision, not enforced
            unchecked, problems = tuple(sorted({p.kind for p in problems})), []
        hard = [p for p in problems if p.kind != "tainted"]
        if hard:
            kind = DecisionKind(hard[0].kind)
            return Decision(False, f"{kind} argument for {name}: "
                            + "; ".join(p.message for p in hard) + "; refused",
                            name, parsed, kind=kind)
        concerns = [p.message for p in problems]
        if needs_approval(self.registry, name):
            concerns.insert(0, f"{name} is high-risk")
        if not concerns:
            return Decision(True, "visible, arguments valid", name, parsed, unchecked=unchecked)
        request = ApprovalRequest(name, parsed, dict(state), self.goal, tuple(concerns),
                                  tainted=tuple(p.message for p in problems))
        approval = approve(self.policy, request, self.approver)
        refused = DecisionKind.TAINTED if problems else DecisionKind.APPROVAL
        return Decision(approval.approved, f"visible, arguments valid, {approval}", name,
                        parsed, str(approval), kind=DecisionKind.ALLOWED if approval.approved
                        else refused,
                        concerns=tuple(concerns), unchecked=unchecked)


def unmet_facts(registry: Registry, name: str, state: Mapping[str, Any]) -> str:
    """`` (it needs logged_in, which login establishes)`` for a tool whose facts do not hold
    in ``state``; empty when they all hold."""
    unmet = sorted(registry.tool(name).needs - set(state))
    if not unmet:
        return ""
    said = []
    for fact in unmet:
        by = [t.name for t in registry if fact in t.establishes]
        said.append(f"{fact}, which {' or '.join(by)} establishes" if by else
                    f"{fact}, which no tool establishes")
    return f" (it needs {'; '.join(said)})"


def parse_arguments(arguments: Any) -> dict[str, Any] | str:
    """A JSON object (given as text or as a mapping) as a dict, or what is wrong with it."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError as exc:
            return f"not valid JSON: {exc}"
    if not isinstance(arguments, Mapping):
        return f"must be a JSON object, got {type(arguments).__name__}"
    return dict(arguments)
