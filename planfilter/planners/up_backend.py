"""Any unified-planning engine (``up:<engine>``), fed the same PDDL text as every backend.

unified-planning is an optional extra and heavy to import, so it is imported only when an
``up:`` planner is used or listed. Its credits banner is silenced.
"""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from typing import Any

from ..compile import Objective, compile_domain, compile_problem_for
from ..contracts import Registry
from .base import Deadline, PlanResult, RegistryCache, Status
from .native import index_for, unreachable_reason

#: Engines worth listing even when absent, with the package that provides each.
KNOWN_ENGINES = {
    "fast-downward": "up-fast-downward",
    "fast-downward-opt": "up-fast-downward",
    "symk": "up-symk",
    "symk-opt": "up-symk",
    "enhsp": "up-enhsp",
    "pyperplan": "up-pyperplan",
    "lpg": "up-lpg",
    "tamer": "up-tamer",
}
#: Engines whose plans are minimal (optimal) under the objective they are given.
OPTIMAL_ENGINES = frozenset({"fast-downward-opt", "symk-opt", "pyperplan"})


def _environment() -> Any:
    from unified_planning.shortcuts import get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False
    return env


def installed_engines() -> tuple[str, ...] | str:
    """Names of the installed engines, or why unified-planning cannot be used."""
    try:
        env = _environment()
    except ImportError as exc:
        return f"unified-planning is not installed ({exc}); pip install 'planfilter[up]'"
    return tuple(env.factory.engines)


_DOMAINS: RegistryCache[Any] = RegistryCache(
    lambda registry, objective: compile_domain(registry, objective=objective)
)


class UPPlanner:
    def __init__(self, engine: str):
        self.engine = engine
        self.name = f"up:{engine}"
        self.requirements = frozenset({"strips", "action-costs"})

    @property
    def optimal(self) -> bool:
        return self.engine in OPTIMAL_ENGINES

    def unavailable_reason(self) -> str | None:
        engines = installed_engines()
        if isinstance(engines, str):
            return engines
        if self.engine not in engines:
            package = KNOWN_ENGINES.get(self.engine, f"the package providing {self.engine!r}")
            return f"engine {self.engine!r} is not installed (pip install {package})"
        return None

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
        deadline = Deadline(timeout)
        reason = self.unavailable_reason()
        if reason:
            return PlanResult(Status.ERROR, self.name, reason=reason)
        if not goal - known <= registry.variables:
            return PlanResult(Status.UNSOLVABLE, self.name,
                              reason=unreachable_reason(index_for(registry), known, goal))
        if objective == "cost" and risk_lambda:
            domain = compile_domain(registry, objective="cost", risk_lambda=risk_lambda)
        else:
            domain = _DOMAINS.get(registry, objective)
        problem = compile_problem_for(domain, known, goal)
        try:
            from unified_planning.engines import PlanGenerationResultStatus as S
            from unified_planning.io import PDDLReader
            from unified_planning.shortcuts import OneshotPlanner

            _environment()
            up_problem = PDDLReader().parse_problem_string(domain.text, problem.text)
            with redirect_stdout(io.StringIO()), OneshotPlanner(name=self.engine) as planner:
                result = planner.solve(up_problem, timeout=timeout)
        except Exception as exc:  # an engine can fail in any way; the fallback answers
            return PlanResult(Status.ERROR, self.name, reason=f"{type(exc).__name__}: {exc}",
                              elapsed_ms=deadline.elapsed_ms())
        elapsed = deadline.elapsed_ms()
        status = result.status
        if status in (S.SOLVED_SATISFICING, S.SOLVED_OPTIMALLY):
            plan = tuple(domain.actions.user(a.action.name) for a in result.plan.actions)
            return PlanResult(Status.SOLVED, self.name, plan, elapsed_ms=elapsed)
        if status in (S.UNSOLVABLE_PROVEN, S.UNSOLVABLE_INCOMPLETELY):
            return PlanResult(Status.UNSOLVABLE, self.name, elapsed_ms=elapsed,
                              reason=unreachable_reason(index_for(registry), known, goal))
        if status == S.TIMEOUT:
            return PlanResult(Status.TIMEOUT, self.name, reason=f"no answer within {timeout} s",
                              elapsed_ms=elapsed)
        if status == S.UNSUPPORTED_PROBLEM:
            return PlanResult(Status.UNSUPPORTED, self.name, elapsed_ms=elapsed,
                              reason=f"{self.engine} does not support this problem")
        log = " ".join(m.message for m in result.log_messages or [])[:300]
        return PlanResult(Status.ERROR, self.name, elapsed_ms=elapsed,
                          reason=f"{self.engine} ended with {status.name}: {log}")
