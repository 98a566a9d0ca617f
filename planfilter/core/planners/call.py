"""One ``solve`` call of planfilter's own backends: the question, its deadline, and every result
it can return, worded alike whichever backend answers.

Each result names the planner and, once the call has started work, the time since its deadline
began; a timeout quotes the deadline and an unsolvable goal says why, so that a fallback chain
reports the same words whichever backend failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..compile import Objective
from ..contracts import Registry
from .base import Deadline, PlannerTimeout, PlanResult, Status
from .index import index_for, unreachable_reason


@dataclass(frozen=True)
class PlanCall:
    planner: str
    registry: Registry
    known: frozenset[str]
    goal: frozenset[str]
    objective: Objective
    risk_lambda: float
    deadline: Deadline

    @property
    def goal_is_mentioned(self) -> bool:
        """Every goal variable not yet known is one some tool mentions (else: unsolvable)."""
        return self.goal - self.known <= self.registry.variables

    def solved(self, plan: tuple[str, ...], *, canonical: bool = False) -> PlanResult:
        return PlanResult(Status.SOLVED, self.planner, plan, elapsed_ms=self.deadline.elapsed_ms(),
                          canonical=canonical)

    def unsolvable(self) -> PlanResult:
        reason = unreachable_reason(index_for(self.registry), self.known, self.goal)
        return PlanResult(Status.UNSOLVABLE, self.planner, reason=reason,
                          elapsed_ms=self.deadline.elapsed_ms())

    def timed_out(self) -> PlanResult:
        return self.failed(Status.TIMEOUT, f"no answer within {self.deadline.seconds} s")

    def failed(self, status: Status, reason: str) -> PlanResult:
        return PlanResult(status, self.planner, reason=reason,
                          elapsed_ms=self.deadline.elapsed_ms())

    def refused(self, status: Status, reason: str) -> PlanResult:
        """Declined before any work (unsupported objective, backend unavailable): no time."""
        return PlanResult(status, self.planner, reason=reason)

    def search(self, run: Callable[[], tuple[str, ...] | None], *,
               canonical: bool = False) -> PlanResult:
        """``run()`` searches against ``self.deadline`` and returns a plan, or None when there
        is none; a PlannerTimeout it raises becomes a TIMEOUT result."""
        try:
            plan = run()
        except PlannerTimeout:
            return self.timed_out()
        return self.unsolvable() if plan is None else self.solved(plan, canonical=canonical)


class Backend:
    """``Planner.solve`` written once for planfilter's own backends: it opens a PlanCall (the
    deadline starts here, so whatever a backend prepares counts against it) and hands it to
    ``answer``. A plug-in needs only the Planner Protocol, not this class."""

    name: str

    def solve(
        self,
        registry: Registry,
        known: frozenset[str],
        goal: frozenset[str],
        *,
        objective: Objective = "length",
        risk_lambda: float = 0.0,
        timeout: float | None = None,
    ) -> PlanResult:
        return self.answer(PlanCall(self.name, registry, known, goal, objective, risk_lambda,
                                    Deadline(timeout)))

    def answer(self, call: PlanCall) -> PlanResult:
        raise NotImplementedError(f"{type(self).__name__} answers no planning call")
