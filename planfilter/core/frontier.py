"""The CMTF frontier: what the agent may see next.

``compute_frontier`` asks a planner for a minimal plan from the known variables to the goal
and returns its first tool. Tie-breaking does not depend on the planner: among minimal plans,
the one whose sequence of registry positions is lexicographically smallest, which is what
Algorithm 1 (breadth-first search expanding tools in registry order, skipping seen states)
returns. pyperplan and the native planner return that plan directly; any other backend's plan
is checked and then normalised to it. With ``ties="all"`` the frontier is every tool that
starts some minimal plan.

A backend that is missing, fails, or runs out of time is replaced by the native planner, and
the result records which planner answered and why the other did not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any, Literal

from .compile import Objective, tool_cost
from .contracts import Registry
from .errors import ContractError, PlannerError
from .planners import (
    DEFAULT_PLANNER,
    FALLBACK_PLANNER,
    Planner,
    PlanResult,
    Status,
    get_planner,
    resolve_auto,
)
from .planners.base import Deadline
from .planners.index import index_for, reduce_problem
from .planners.native import NativePlanner

Ties = Literal["first", "all"]
DEFAULT_TIMEOUT = 10.0


@dataclass(frozen=True)
class FrontierResult:
    frontier: tuple[str, ...]
    plan: tuple[str, ...]
    status: Status
    reason: str
    planner: str
    ties: Ties = "first"
    objective: Objective = "length"
    #: Planners that were asked first and did not answer, each "name: status: why".
    fallbacks: tuple[str, ...] = ()
    #: The plan as the answering planner returned it, before normalisation.
    planner_plan: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    elapsed_ms: float = 0.0

    @property
    def found(self) -> bool:
        return self.status == Status.SOLVED

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["status"] = self.status.value
        for key in ("frontier", "plan", "fallbacks", "planner_plan", "notes"):
            data[key] = list(data[key])
        return data


def executable(registry: Registry, known: Iterable[str]) -> tuple[str, ...]:
    """Every tool whose requirements hold in ``known`` (the state-aware filter)."""
    known_set = frozenset(known)
    return tuple(t.name for t in registry if t.pre <= known_set)


def plan_is_valid(registry: Registry, known: frozenset[str], goal: frozenset[str],
                  plan: Iterable[str]) -> str:
    """"" if ``plan`` is a causal path from ``known`` to ``goal``, else what is wrong with it."""
    state = set(known)
    for step, name in enumerate(plan, 1):
        try:  # one lookup per step: this runs on every plan a planner returns
            tool = registry.tool(name)
        except ContractError:
            return f"step {step}: unknown tool {name!r}"
        if not tool.pre <= state:
            return f"step {step}: {name} needs {sorted(tool.pre - state)}"
        state |= tool.post
    if not goal <= state:
        return f"plan ends without goal variable(s) {sorted(goal - state)}"
    return ""


@lru_cache(maxsize=65536)
def minimal_plan(registry: Registry, known: frozenset[str], goal: frozenset[str],
                 ) -> tuple[str, ...] | None:
    """The canonical minimal plan from ``known`` to ``goal`` (the native planner's: fewest
    steps, then the lexicographically smallest by registry position), or None when none
    exists. No timeout: callers ask about registries they hold, and want the answer."""
    index = index_for(registry)
    plan = NativePlanner.plan_indices(index, known, goal, "length", 0.0, Deadline(None))
    return None if plan is None else tuple(index.names[t] for t in plan)


def plan_length(registry: Registry, known: frozenset[str], goal: frozenset[str]) -> int | None:
    """The number of steps of a minimal plan from ``known`` to ``goal`` (0 when ``known``
    holds the goal), or None when no plan exists: the one definition of plan length."""
    plan = minimal_plan(registry, known, goal)
    return None if plan is None else len(plan)


def plan_cost(registry: Registry, plan: Iterable[str], objective: Objective,
              risk_lambda: float) -> Fraction:
    """What ``plan`` costs under ``objective``: its number of steps (``length``), or the sum
    of its tools' costs (``cost``, planfilter.core.compile.tool_cost)."""
    if objective == "length":
        return Fraction(len(tuple(plan)))
    return sum((tool_cost(registry.tool(n), risk_lambda) for n in plan), Fraction(0))


def compute_frontier(
    registry: Registry,
    known: Iterable[str],
    goal: Iterable[str],
    *,
    planner: str = DEFAULT_PLANNER,
    ties: Ties = "first",
    objective: Objective = "length",
    risk_lambda: float = 0.0,
    timeout: float | None = DEFAULT_TIMEOUT,
    fallback: str | None = FALLBACK_PLANNER,
) -> FrontierResult:
    """The frontier for one state and goal; see the module docstring for the semantics."""
    if planner == "auto":
        planner = resolve_auto(registry)
    if ties not in ("first", "all"):
        raise PlannerError(f"ties must be 'first' or 'all', not {ties!r}")
    if objective not in ("length", "cost"):
        raise PlannerError(f"objective must be 'length' or 'cost', not {objective!r}")
    start = time.perf_counter()
    known_set, goal_set = frozenset(known), frozenset(goal)
    if goal_set <= known_set:
        return FrontierResult((), (), Status.SOLVED, "goal already reached", planner,
                              ties=ties, objective=objective)

    chain = [planner] + ([fallback] if fallback and fallback != planner else [])
    failures: list[str] = []
    notes: list[str] = []
    for name in chain:
        backend = get_planner(name)
        result = _ask(backend, registry, known_set, goal_set, objective, risk_lambda, timeout)
        if result.status == Status.SOLVED:
            problem = plan_is_valid(registry, known_set, goal_set, result.plan)
            if problem:
                result = PlanResult(Status.ERROR, name, result.plan,
                                    reason=f"returned an invalid plan: {problem}")
        if not result.status.definitive:
            failures.append(f"{name}: {result.status.value}: {result.reason}")
            continue
        if result.status == Status.UNSOLVABLE:
            return FrontierResult((), (), Status.UNSOLVABLE, result.reason, name,
                                  fallbacks=tuple(failures), elapsed_ms=_ms(start),
                                  ties=ties, objective=objective)
        plan = result.plan
        if not result.canonical:
            plan = _normalise(registry, known_set, goal_set, result, objective, risk_lambda,
                              timeout, notes)
        if ties == "all":
            firsts = _first_actions(backend, registry, known_set, goal_set, plan, objective,
                                    risk_lambda, timeout, notes)
        else:
            firsts = plan[:1]
        return FrontierResult(firsts, plan, Status.SOLVED, "", name, fallbacks=tuple(failures),
                              planner_plan=result.plan, notes=tuple(notes),
                              elapsed_ms=_ms(start), ties=ties, objective=objective)
    status = Status.TIMEOUT if all(": timeout:" in f for f in failures) else Status.ERROR
    return FrontierResult((), (), status, "; ".join(failures), chain[-1],
                          fallbacks=tuple(failures), elapsed_ms=_ms(start), ties=ties,
                          objective=objective)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _ask(backend: Planner, registry: Registry, known: frozenset[str], goal: frozenset[str],
         objective: Objective, risk_lambda: float, timeout: float | None) -> PlanResult:
    name = str(getattr(backend, "name", type(backend).__name__))
    try:
        reason = backend.unavailable_reason()
    except Exception as exc:  # a plug-in that cannot even say whether it works does not
        reason = f"{type(exc).__name__}: {exc}"
    if reason:
        return PlanResult(Status.ERROR, name, reason=f"unavailable: {reason}")
    if objective == "cost" and "action-costs" not in backend.requirements:
        return PlanResult(Status.UNSUPPORTED, name,
                          reason="does not support action costs (objective=cost)")

    def solve() -> PlanResult:
        try:
            return backend.solve(registry, known, goal, objective=objective,
                                 risk_lambda=risk_lambda, timeout=timeout)
        except Exception as exc:  # a backend's bug must not cost the agent its step
            return PlanResult(Status.ERROR, name, reason=f"{type(exc).__name__}: {exc}")

    if timeout is None or type(backend).__module__.startswith(_COOPERATIVE):
        return solve()
    return _watchdog(solve, name, timeout)


#: planfilter's own backends check their deadline while searching (or run engines in a
#: subprocess they kill); any other backend gets a watchdog thread.
_COOPERATIVE = "planfilter.core.planners."


def _watchdog(solve: Callable[[], PlanResult], name: str, timeout: float) -> PlanResult:
    """``solve()`` in a daemon thread; a TIMEOUT result if it has not answered in time.

    Python cannot kill a thread: a backend that hangs keeps its thread until it returns, but
    the agent stops waiting for it after ``timeout`` plus a short grace period.
    """
    box: list[PlanResult] = []
    thread = threading.Thread(target=lambda: box.append(solve()), daemon=True,
                              name=f"planner-{name}")
    thread.start()
    thread.join(timeout + min(1.0, 0.25 * timeout))
    if box:
        return box[0]
    return PlanResult(Status.TIMEOUT, name, reason=f"no answer within {timeout:g} s")


def _native() -> NativePlanner:
    planner = get_planner("native")
    assert isinstance(planner, NativePlanner)
    return planner


def _normalise(registry: Registry, known: frozenset[str], goal: frozenset[str],
               result: PlanResult, objective: Objective, risk_lambda: float,
               timeout: float | None, notes: list[str]) -> tuple[str, ...]:
    """Replace a backend's plan by the canonical minimal plan, checking it is no worse."""
    canonical = _native().solve(registry, known, goal, objective=objective,
                                risk_lambda=risk_lambda, timeout=timeout)
    if canonical.status != Status.SOLVED:
        notes.append(f"could not normalise the plan ({canonical.status.value}); kept as returned")
        return result.plan
    mine = plan_cost(registry, result.plan, objective, risk_lambda)
    best = plan_cost(registry, canonical.plan, objective, risk_lambda)
    if mine > best:
        notes.append(f"{result.planner} returned a plan of {objective} {float(mine):g}; a minimal "
                     f"plan has {float(best):g}")
    elif mine < best:
        raise PlannerError(f"{result.planner} found a plan cheaper than the minimal one: "
                           f"{list(result.plan)} vs {list(canonical.plan)}")
    if canonical.plan != result.plan:
        notes.append(f"normalised to the canonical minimal plan (was {' -> '.join(result.plan)})")
    return canonical.plan


def _first_actions(backend: Planner, registry: Registry, known: frozenset[str],
                   goal: frozenset[str], plan: tuple[str, ...], objective: Objective,
                   risk_lambda: float, timeout: float | None,
                   notes: list[str]) -> tuple[str, ...]:
    """Every tool that starts a minimal plan, computed by the answering backend if it can."""
    own = getattr(backend, "first_actions", None)
    if own is not None:
        found = own(registry, known, goal, objective=objective, risk_lambda=risk_lambda,
                    timeout=timeout)
        return tuple(found or ())
    if not getattr(backend, "optimal", backend.name == "pyperplan"):
        notes.append(f"{backend.name} is not optimal; tied first tools computed by native")
        found = _native().first_actions(registry, known, goal, objective=objective,
                                        risk_lambda=risk_lambda, timeout=timeout)
        return tuple(found or ())
    # An optimal backend: t starts a minimal plan iff cost(t) + best(known | E_t) == best.
    # Only executable tools relevant to the goal can (every step of a minimal plan is needed),
    # so the backend is asked once per such candidate, not once per tool.
    best = plan_cost(registry, plan, objective, risk_lambda)
    index = index_for(registry)
    reduced = reduce_problem(index, known, goal)
    firsts = []
    for position in reduced.tools:
        if reduced.req[position]:
            continue
        tool = registry.tools[position]
        after = known | tool.post
        step = plan_cost(registry, (tool.name,), objective, risk_lambda)
        if goal <= after:
            rest = Fraction(0)
        else:
            sub = backend.solve(registry, after, goal, objective=objective,
                                risk_lambda=risk_lambda, timeout=timeout)
            if sub.status != Status.SOLVED:
                continue
            rest = plan_cost(registry, sub.plan, objective, risk_lambda)
        if step + rest == best:
            firsts.append(tool.name)
    return tuple(firsts)
