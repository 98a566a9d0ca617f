"""Planner backends: a dict of name -> planner, and lazily created ``up:<engine>`` planners."""

from __future__ import annotations

from dataclasses import dataclass

from ..contracts import Registry
from ..errors import PlannerError
from .base import Deadline, Planner, PlannerTimeout, PlanResult, Status
from .call import PlanCall
from .native import NativePlanner
from .pyperplan_backend import PyperplanPlanner

PLANNERS: dict[str, Planner] = {
    "native": NativePlanner(),
    "pyperplan": PyperplanPlanner(),
}
FALLBACK_PLANNER = "native"
#: The default: pyperplan while its one-off grounding stays cheap, native above that size.
#: Measured by `planfilter bench`: grounding takes ~0.4 s at 1,000 tools, ~4 s at 4,000 and
#: 21-68 s at 10,000 (it grows faster than linearly), and a pyperplan call costs O(tools).
DEFAULT_PLANNER = "auto"
AUTO_PYPERPLAN_MAX_TOOLS = 1000

__all__ = [
    "DEFAULT_PLANNER", "FALLBACK_PLANNER", "PLANNERS", "Deadline", "PlanCall", "Planner",
    "PlannerTimeout", "PlanResult", "PlannerInfo", "Status", "get_planner", "list_planners",
    "resolve_auto",
]


def resolve_auto(registry: Registry) -> str:
    """The planner ``auto`` stands for on this registry."""
    return "pyperplan" if len(registry) <= AUTO_PYPERPLAN_MAX_TOOLS else "native"


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

    infos = [PlannerInfo("auto", True, f"default: pyperplan up to {AUTO_PYPERPLAN_MAX_TOOLS:,} "
                                       "tools, native above", frozenset({"strips"}))]
    for name, planner in PLANNERS.items():
        if name.startswith("up:"):
            continue
        reason = planner.unavailable_reason()
        detail = reason or ("fallback, cost-aware" if name == FALLBACK_PLANNER else
                            "breadth-first search, grounding reused per registry")
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
