"""Any unified-planning engine (``up:<engine>``), fed the same PDDL text as every backend.

unified-planning is an optional extra and heavy to import, so it is imported only when an
``up:`` planner is used or listed. Its credits banner is silenced.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from typing import Any

from ..compile import compile_domain, compile_problem_for
from .base import PlanResult, RegistryCache, Status
from .call import Backend, PlanCall

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


#: The worker's whole life (start, import, parse, solve) counts against the call's timeout;
#: this small slack lets the engine report its own timeout before the group is killed.
WORKER_GRACE = 0.5


def run_worker(request: dict[str, Any], timeout: float | None) -> dict[str, Any]:
    """Solve in a child process group; past the deadline the whole group is killed, so no
    planner binary survives its call."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "planfilter.core.planners.up_worker"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
    )
    limit = None if timeout is None else timeout + WORKER_GRACE
    try:
        out, err = proc.communicate(json.dumps(request), timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return {"status": "timeout", "plan": [], "log": f"killed after {limit:g} s"}
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    try:
        return dict(json.loads(out))
    except json.JSONDecodeError:
        tail = (err.strip().splitlines() or ["no output"])[-1]
        return {"status": "error", "plan": [], "log": f"worker failed: {tail[:200]}"}


_DOMAINS: RegistryCache[Any] = RegistryCache(
    lambda registry, objective: compile_domain(registry, objective=objective)
)


class UPPlanner(Backend):
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

    def answer(self, call: PlanCall) -> PlanResult:
        reason = self.unavailable_reason()
        if reason:
            return call.refused(Status.ERROR, reason)
        if not call.goal_is_mentioned:
            return call.unsolvable()
        if call.objective == "cost" and call.risk_lambda:
            domain = compile_domain(call.registry, objective="cost", risk_lambda=call.risk_lambda)
        else:
            domain = _DOMAINS.get(call.registry, call.objective)
        problem = compile_problem_for(domain, call.known, call.goal)
        timeout = call.deadline.seconds
        request = {"engine": self.engine, "domain": domain.text, "problem": problem.text,
                   "timeout": timeout}
        answer = run_worker(request, timeout)
        status = answer["status"]
        if status == "solved":
            return call.solved(tuple(domain.actions.user(name) for name in answer["plan"]))
        if status == "unsolvable":
            return call.unsolvable()
        if status == "timeout":
            return call.timed_out()
        if status == "unsupported":
            return call.failed(Status.UNSUPPORTED, f"{self.engine} does not support this problem")
        return call.failed(Status.ERROR, f"{self.engine}: {answer.get('log', '')}")
