"""How a session guards a call: its settings, the first refusals, and each step's guard."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..core.contracts import Registry, Steps
from ..core.errors import PlanfilterError
from ..filters import Decision, DecisionKind, FilterOptions, ToolGuard, get_filter
from ..filters.risk import ApprovalPolicy, ApprovalRequest, Approver, check_policy
from .recognition import Belief
from .records import MAX_VALUE_CHARS, check_size


def check_guarding(method: str, policy: ApprovalPolicy, approver: Approver | None) -> None:
    """Returns when ``method`` is a filter method and ``policy`` an approval policy (``ask``
    only with an ``approver``); else raises PlanfilterError naming the bad one, so that a
    session names it when made, not at first use."""
    get_filter(method)
    check_policy(policy)
    if policy == "ask" and approver is None:
        raise PlanfilterError("Session: policy 'ask' needs an approver callback that asks "
                              "the user (it returns True to approve)")


def refused_first(tool: str, arguments: Any, declined: Mapping[str, str], *,
                  reached: bool) -> Decision | None:
    """Returns the refusal of a call of a known ``tool`` before any guard is asked, or None:
    ``reached`` (the goal is reached, and nothing still shows ``tool``), the user declined
    ``tool`` (``declined``: tool -> why it is refused now), or an argument is over
    ``MAX_VALUE_CHARS`` characters."""
    if reached:
        return Decision(False, f"the goal is reached; {tool!r} refused", tool,
                        kind=DecisionKind.HIDDEN)
    if tool in declined:
        return Decision(False, declined[tool], tool, kind=DecisionKind.DECLINED)
    if isinstance(arguments, Mapping):
        for name, value in arguments.items():
            try:
                check_size(f"argument '{name}' of {tool}", value, MAX_VALUE_CHARS)
            except PlanfilterError as exc:
                return Decision(False, f"{exc}; refused", tool, kind=DecisionKind.ARGUMENTS)
    return None


def guard_key(belief: Belief) -> tuple[Steps, int]:
    """Returns the candidate's steps and the index of its current step (the last one once
    all are reached): candidates with the same key share one guard."""
    steps = belief.candidate.steps
    return steps, min(belief.step, len(steps) - 1)


@dataclass
class StepGuards:
    """The guards of one task's steps, each built once, on the settings of a session:
    ``method``, approval (``policy``, ``approver``), ``query`` (the request), ``options``
    and ``provenance`` as :class:`~planfilter.filters.ToolGuard` takes them. A "no" from
    ``approver`` sets :attr:`said_no` when ``remember`` is on."""

    registry: Registry
    method: str
    policy: ApprovalPolicy
    approver: Approver | None
    query: str
    options: FilterOptions
    provenance: bool
    remember: bool = True
    #: The approver said no since the session last cleared this (during the check under way).
    said_no: bool = False
    #: :func:`guard_key` -> the guard built for it.
    built: dict[tuple[Steps, int], ToolGuard] = field(default_factory=dict)

    def of(self, belief: Belief, several: bool) -> ToolGuard:
        """Returns the guard of a candidate's current step (its goal is that step's
        variables), built the first time a candidate of its :func:`guard_key` asks. With
        ``several`` candidates weighed, any first step of a minimal plan of one is
        consistent with it (the agent's order among equally short plans is not known), so
        the guard shows them all (``ties="all"``)."""
        key = guard_key(belief)
        if key not in self.built:
            steps, k = key
            options = replace(self.options, ties="all") if several else self.options
            self.built[key] = ToolGuard(self.registry, steps[k], method=self.method,
                                        policy=self.policy,
                                        approver=self._ask if self.approver else None,
                                        query=self.query, options=options,
                                        provenance=self.provenance)
        return self.built[key]

    def _ask(self, request: ApprovalRequest) -> bool:
        """The approver, asked about one call; its "no" is remembered (:attr:`said_no`)."""
        assert self.approver is not None
        approved = bool(self.approver(request))
        if not approved and self.remember:
            self.said_no = True
        return approved
