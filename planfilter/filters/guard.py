"""The visible set as a boundary, for an agent framework: :class:`ToolGuard`.

A framework asks the guard which tools to show (:meth:`ToolGuard.visible`), and hands it every
tool call the model makes (:meth:`ToolGuard.check_call` or :meth:`ToolGuard.call`). A call is
allowed only when the tool exists, was visible in that state, its arguments are a JSON object
that validates against the tool's schema, no argument carries an invented value
(planfilter.core.provenance: an argument named after a variable tools produce must hold a
value the state holds), and (for a high-risk tool) the approval policy approves it.
:meth:`ToolGuard.call` runs the framework's executor only for allowed calls; every decision,
allowed or refused, is recorded in :attr:`ToolGuard.log`.

The benchmark's agent loop (planfilter.bench.agent) applies the same rules to its own calls.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.provenance import Held, held_values, invented_arguments
from ..core.schemas import argument_errors
from ..core.tasks import Task
from .base import DEFAULT_OPTIONS, Attempt, FilterOptions, Visible
from .registry import get_filter
from .risk import ApprovalPolicy, ApprovalRequest, Approver, approve, check_policy, needs_approval

#: Why a call was refused (``Decision.kind``), in the order the checks run.
REFUSALS = ("unknown", "hidden", "arguments", "invented", "approval")


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str
    tool: str = ""
    #: The parsed arguments (None when they were not a JSON object).
    arguments: Mapping[str, Any] | None = None
    #: The approval decision, for high-risk tools.
    approval: str | None = None
    #: "allowed", or which check refused the call (one of REFUSALS).
    kind: str = "allowed"


@dataclass(frozen=True)
class GuardedCall:
    decision: Decision
    #: What the executor returned; None when the call was refused (it never ran).
    result: Any = None


@dataclass
class ToolGuard:
    """Filters tools for one goal and refuses calls outside the visible set."""

    registry: Registry
    goal: frozenset[str]
    method: str = "cmtf"
    policy: ApprovalPolicy = "always"
    approver: Approver | None = None
    query: str = ""
    options: FilterOptions = DEFAULT_OPTIONS
    #: Refuse arguments whose values were invented (see planfilter.core.provenance).
    provenance: bool = True
    log: list[Decision] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        self.goal = frozenset(self.goal)
        self._filter = get_filter(self.method)
        check_policy(self.policy)
        if self.policy == "ask" and self.approver is None:
            raise PlanfilterError("ToolGuard: policy 'ask' needs an approver callback "
                                  "(e.g. planfilter.filters.risk.on_path_approver(registry))")
        self._task = Task(id="guard", query=self.query or " ".join(sorted(self.goal)),
                          goal=self.goal)

    def visible(self, state: Mapping[str, Any], history: Iterable[Attempt] = ()) -> Visible:
        """The tools to show in ``state`` (``history``: earlier calls, for recovering filters)."""
        options = replace(self.options, history=tuple(history))
        return self._filter(self.registry, self._task, state, options)

    def check_call(self, state: Mapping[str, Any], name: str, arguments: Any,
                   history: Iterable[Attempt] = (), held: Held | None = None) -> Decision:
        """Whether the call may run; recorded in :attr:`log` either way.

        ``held``: every value the state holds per variable, for the provenance check (default:
        the values of ``state``)."""
        decision = self._decide(state, name, arguments, tuple(history),
                                held_values(state) if held is None else held)
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
                history: tuple[Attempt, ...], held: Held) -> Decision:
        if name not in self.registry:
            return Decision(False, f"{name!r} does not exist; refused", name, kind="unknown")
        shown = self.visible(state, history).tools
        if name not in shown:
            return Decision(False, f"{name!r} is not visible in this state; refused", name,
                            kind="hidden")
        parsed = parse_arguments(arguments)
        if isinstance(parsed, str):
            return Decision(False, f"arguments of {name}: {parsed}; refused", name,
                            kind="arguments")
        problems = argument_errors(self.registry.tool(name), parsed)
        if problems:
            return Decision(False, f"invalid arguments for {name}: " + "; ".join(problems),
                            name, parsed, kind="arguments")
        invented = invented_arguments(self.registry, parsed, held) if self.provenance else []
        if invented:
            return Decision(False, f"invented argument for {name}: " + "; ".join(invented)
                            + "; refused", name, parsed, kind="invented")
        if not needs_approval(self.registry, name):
            return Decision(True, "visible, arguments valid", name, parsed)
        request = ApprovalRequest(name, parsed, dict(state), self.goal)
        approval = approve(self.policy, request, self.approver)
        return Decision(approval.approved, f"visible, arguments valid, {approval}", name,
                        parsed, str(approval), kind="allowed" if approval.approved else "approval")


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
