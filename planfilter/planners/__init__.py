"""Planner backends: a dict of name -> planner, and lazily created ``up:<engine>`` planners."""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import PlannerError
from .base import Deadline, Planner, PlannerTimeout, PlanResult, Status
from .native import NativePlanner
from .pyperplan_backend import PyperplanPlanner

PLANNERS: dict[str, Planner] = {
    "native": NativePlanner(),
    "pyperplan": PyperplanPlanner(),
}
DEFAULT_PLANNER = "pyperplan"
FALLBACK_PLANNER = "native"

__all__ = [
    "DEFAULT_PLANNER", "FALLBACK_PLANNER", "PLANNERS", "Deadline", "Planner", "PlannerTimeout",
    "PlanResult", "PlannerInfo", "Status", "get_planner", "list_planners",
]


def get_planner(name: str) -> Planner:
    """The planner called ``name``: a key of PLANNERS or ``up:<engine>``."""
    if name in PLANNERS:
        return PLANNERS[name]
    if name.startswith("up:") and len(name) > 3:
        from .up_backend import UPPlanner

        planner = UPPlanner(name[3:])
        PLANNERS[name] = planner
        return planner
    raise PlannerError(
        f"unknown planner {name!r}; choose one of {', '.join(sorted(PLANNERS))} or up:<engine> "
        "(see `planfilter planners`)"
    )


@dataclass(frozen=True)
class PlannerInfo:
    name: str
    available: bool
    detail: str
    requirements: frozenset[str]


def list_planners() -> list[PlannerInfo]:
    """Every backend planfilter knows, available or not, and why."""
    from .up_backend import KNOWN_ENGINES, installed_engines

    infos = []
    for name, planner in PLANNERS.items():
        if name.startswith("up:"):
            continue
        reason = planner.unavailable_reason()
        detail = reason or ("default" if name == DEFAULT_PLANNER else "fallback, cost-aware")
        infos.append(PlannerInfo(name, reason is None, detail, planner.requirements))
    engines = installed_engines()
    names = sorted(set(KNOWN_ENGINES) | (set(engines) if isinstance(engines, tuple) else set()))
    for engine in names:
        if engine not in KNOWN_ENGINES and ('[' in engine or not _is_planner(engine)):
            continue
        planner = get_planner(f"up:{engine}")
        reason = planner.unavailable_reason()
        infos.append(PlannerInfo(planner.name, reason is None, reason or "unified-planning engine",
                                 planner.requirements))
    return infos


def _is_planner(engine: str) -> bool:
    try:
        from unified_planning.shortcuts import get_environment

        cls = get_environment().factory.engine(engine)
        return bool(cls.is_oneshot_planner())
    except Exception:
        return False
