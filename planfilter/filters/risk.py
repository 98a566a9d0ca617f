"""Approval of risky tools, and the metric of risky tools shown off the causal path.

A tool of risk ``high`` needs approval before it runs, and so does a call whose sensitive
argument came from outside content (``tainted``, planfilter.core.provenance). The policy
(:data:`ApprovalPolicy`, the one type every layer takes) says how:

- ``untainted`` (:data:`DEFAULT_POLICY`, the safe default of the guard and the session): an
  unattended agent. Approved without asking, except a call with a tainted argument, which
  is refused: what the plan needs runs, but a value read in outside content and not given
  by the user never reaches a sensitive argument, nor chooses the item a high-risk call
  acts on, nor which of several items a search matched only in part a write acts on;
- ``always``: approved without asking. The paper's benchmark runs with it (its figures were
  measured so), and says so where it sets it (``planfilter run --approve-risky``);
- ``never``: refused, every time; the call is recorded and never executed;
- ``ask``: a callback decides. A deployed agent passes one that asks a person. The
  benchmark has no person, so it uses :func:`on_path_approver`, a deterministic stand-in
  that approves exactly when the tool is on the minimal causal path (the canonical plan of
  :func:`planfilter.core.frontier.compute_frontier`) from the current state to the goal: a
  reviewer who approves what the task needs and nothing else.

An approver that raises refuses: a broken reviewer must not let a risky call through.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from .base import DEFAULT_OPTIONS, FilterOptions, frontier_for

ApprovalPolicy = Literal["never", "ask", "untainted", "always"]
POLICIES: tuple[ApprovalPolicy, ...] = get_args(ApprovalPolicy)
#: The policy wherever none is given: it needs no person and lets no tainted value through.
DEFAULT_POLICY: ApprovalPolicy = "untainted"
#: The benchmark's policy unless told otherwise (``planfilter run --approve-risky``): the
#: paper's ``always``, so that its figures measure the filters, not the reviewer.
BENCHMARK_POLICY: ApprovalPolicy = "always"
RISKY = "high"


@dataclass(frozen=True)
class ApprovalRequest:
    """What an approver is asked about: a risky call, in the state it would run in, and why
    it needs approval (the tool's risk, a tainted argument)."""

    tool: str
    arguments: Mapping[str, Any]
    state: Mapping[str, Any]
    goal: frozenset[str]
    concerns: tuple[str, ...] = ()
    #: The concerns that are tainted arguments (a subset of ``concerns``).
    tainted: tuple[str, ...] = ()

    @property
    def why(self) -> str:
        return "; ".join(self.concerns) or f"{self.tool} has risk {RISKY}"


Approver = Callable[[ApprovalRequest], bool]


@dataclass(frozen=True)
class Approval:
    approved: bool
    reason: str

    def __str__(self) -> str:
        return ("approved" if self.approved else "refused") + f": {self.reason}"


def check_policy(policy: str) -> ApprovalPolicy:
    """``policy`` as an :data:`ApprovalPolicy`; another word is an error naming the choices."""
    if policy not in POLICIES:
        raise PlanfilterError(f"approval policy {policy!r}: choose from {', '.join(POLICIES)}")
    return policy  # type: ignore[return-value]


def needs_approval(registry: Registry, name: str) -> bool:
    return name in registry and registry.tool(name).risk == RISKY


def approve(policy: ApprovalPolicy, request: ApprovalRequest,
            approver: Approver | None) -> Approval:
    """The decision on one risky call under ``policy``."""
    check_policy(policy)
    if policy == "always":
        return Approval(True, "policy always")
    if policy == "never":
        return Approval(False, f"policy never: {request.why}")
    if policy == "untainted":
        if request.tainted:
            return Approval(False, "policy untainted: " + "; ".join(request.tainted))
        return Approval(True, "policy untainted")
    if approver is None:
        raise PlanfilterError("approval policy 'ask' needs an approver callback")
    try:
        ok = approver(request)
    except Exception as exc:  # a broken approver refuses; it never lets a call through
        return Approval(False, f"approver failed: {type(exc).__name__}: {exc}")
    return Approval(bool(ok), "approver " + ("approved" if ok else "refused") + f" {request.tool}")


def on_path_approver(registry: Registry,
                     options: FilterOptions = DEFAULT_OPTIONS) -> Approver:
    """The benchmark's stand-in reviewer: approve a tool on the minimal causal path only."""

    def on_path(request: ApprovalRequest) -> bool:
        return request.tool in canonical_plan(registry, request.state, request.goal, options)

    return on_path


def canonical_plan(registry: Registry, state: Mapping[str, Any], goal: frozenset[str],
                   options: FilterOptions = DEFAULT_OPTIONS) -> tuple[str, ...]:
    return frontier_for(registry, state, goal, options, ties="first").plan


def risky_off_path(registry: Registry, visible: Iterable[str], state: Mapping[str, Any],
                   goal: frozenset[str], options: FilterOptions = DEFAULT_OPTIONS,
                   ) -> tuple[str, ...]:
    """High-risk tools among ``visible`` that are not on the minimal causal path from ``state``."""
    risky = [n for n in visible if needs_approval(registry, n)]
    if not risky:  # the common case costs no planner call
        return ()
    plan = set(canonical_plan(registry, state, goal, options))
    return tuple(n for n in risky if n not in plan)
