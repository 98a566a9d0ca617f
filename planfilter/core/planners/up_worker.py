"""Runs one unified-planning engine on PDDL text in a child process (``python -m``).

unified-planning's own timeout does not cover parsing and translation, and an engine's
binary can outlive its driver; so each call runs here, in a new process group that the
parent kills whole when its deadline passes. Reads JSON {engine, domain, problem, timeout}
on stdin and writes JSON {status, plan, log} on stdout.
"""

from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout


def solve(request: dict) -> dict:
    from unified_planning.engines import PlanGenerationResultStatus as S
    from unified_planning.io import PDDLReader
    from unified_planning.shortcuts import OneshotPlanner, get_environment

    env = get_environment()
    env.credits_stream = None
    env.error_used_name = False
    problem = PDDLReader().parse_problem_string(request["domain"], request["problem"])
    with redirect_stdout(io.StringIO()), OneshotPlanner(name=request["engine"]) as planner:
        result = planner.solve(problem, timeout=request.get("timeout"))
    status = {
        S.SOLVED_SATISFICING: "solved", S.SOLVED_OPTIMALLY: "solved",
        S.UNSOLVABLE_PROVEN: "unsolvable", S.UNSOLVABLE_INCOMPLETELY: "unsolvable",
        S.TIMEOUT: "timeout", S.UNSUPPORTED_PROBLEM: "unsupported",
    }.get(result.status, "error")
    plan = [a.action.name for a in result.plan.actions] if status == "solved" else []
    log = " ".join(m.message for m in result.log_messages or [])[:300]
    return {"status": status, "plan": plan, "log": f"{result.status.name}: {log}"}


def main() -> None:
    request = json.loads(sys.stdin.read())
    try:
        answer = solve(request)
    except Exception as exc:  # reported to the parent, which falls back
        answer = {"status": "error", "plan": [], "log": f"{type(exc).__name__}: {exc}"}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    main()
