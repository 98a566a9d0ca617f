"""``planfilter bench``: per-call frontier cost of each planner path, side by side in one run.

Each (planner, size) cell runs in its own process group, so peak memory is the cell's own and
a cell that overruns is killed whole (Fast Downward's ``downward`` binary included). Figures
are reported as medians and ratios from the same run, since the machine is shared and noisy.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from ..core.frontier import Ties
from .synthetic import Query, synthetic_registry

DEFAULT_SIZES = (100, 1000, 10000)
DEFAULT_PLANNERS = ("native", "pyperplan", "pyperplan-fresh", "up:fast-downward")
#: Paths that are planfilter's own (measured through compute_frontier, ties first and all).
OWN = ("native", "pyperplan", "auto")
#: Reference points: pyperplan from PDDL text every call, and unified-planning + Fast Downward.
BASELINE_PYPERPLAN = "pyperplan-fresh"
BASELINE_FD = "up:fast-downward"
#: Goal recognition's step: a session weighing this many candidate goals (the query's goal
#: and the next queries' goals) started and asked for its frontier, the union of theirs.
CANDIDATES = "candidates"
CANDIDATE_GOALS = 8


@dataclass(frozen=True)
class BenchRow:
    planner: str
    tools: int
    ties: str
    median_ms: float | None
    p95_ms: float | None
    prep_ms: float | None
    calls: int
    timeouts: int
    peak_mb: float | None
    status: str
    vs_pyperplan: float | None = None
    vs_fast_downward: float | None = None


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[k]


def _fresh_pyperplan(registry: Any, query: Query, timeout: float) -> None:
    """The baseline: render PDDL, parse, ground and search with pyperplan, every call."""
    from pyperplan import grounding
    from pyperplan.pddl.parser import Parser
    from pyperplan.search.breadth_first_search import breadth_first_search

    from ..core.compile import compile_problem

    problem = compile_problem(registry, query.known, query.goal)
    parser = Parser(None)
    parser.domInput = problem.domain.text
    domain = parser.parse_domain(read_from_file=False)
    parser.probInput = problem.text
    task = grounding.ground(parser.parse_problem(domain, read_from_file=False))
    breadth_first_search(task)


def _candidates_caller(registry: Any, queries: Sequence[Query]) -> Callable[..., Any]:
    """One step of goal recognition: start a session on ``CANDIDATE_GOALS`` candidates (every
    one planned from the state and weighed) and compute the union of their next steps."""
    from ..live.session import Session

    goals = [sorted(q.goal) for q in queries]

    def call(q: Query, ties: str) -> None:
        at = next(i for i, other in enumerate(queries) if other is q)
        chosen = [goals[(at + k) % len(goals)] for k in range(min(CANDIDATE_GOALS, len(goals)))]
        session = Session(registry, resolver="retrieval")
        session.start("bench", candidates=chosen,
                      known={v: f"value of {v}" for v in sorted(q.known)})
        if not session.visible().tools and not session.done:
            raise TimeoutError("no candidate reachable")

    return call


def _caller(planner: str, registry: Any, timeout: float,
            queries: Sequence[Query] = ()) -> tuple[Callable[..., Any], float]:
    """A function (query, ties) -> None for the path, and its one-off preparation in ms."""
    from ..core.frontier import compute_frontier

    start = time.perf_counter()
    if planner == CANDIDATES:
        from ..core.planners.index import index_for

        index_for(registry)
        return _candidates_caller(registry, queries), (time.perf_counter() - start) * 1000
    if planner == BASELINE_PYPERPLAN:
        return (lambda q, ties: _fresh_pyperplan(registry, q, timeout)), 0.0
    if planner in OWN:
        from ..core.planners import get_planner, resolve_auto
        from ..core.planners.index import index_for

        concrete = resolve_auto(registry) if planner == "auto" else planner
        index_for(registry)  # the fallback's indexes are part of every path's preparation
        if concrete == "pyperplan":
            get_planner("pyperplan").prepare(registry)  # type: ignore[attr-defined]
        prep = (time.perf_counter() - start) * 1000

        def call(q: Query, ties: Ties) -> None:
            result = compute_frontier(registry, q.known, q.goal, planner=planner,
                                      ties=ties, timeout=timeout, fallback=None)
            if not result.found:
                raise TimeoutError(result.reason)

        return call, prep
    from ..core.planners import get_planner

    backend = get_planner(planner)
    reason = backend.unavailable_reason()
    if reason:
        raise RuntimeError(reason)
    if planner.startswith("up:"):
        # The baseline is the engine as unified-planning runs it, in this process: planfilter's
        # own up: path adds a fresh interpreter per call (for a timeout that holds), which
        # would flatter every ratio. This cell is itself killed at its time limit.
        from ..core.compile import compile_domain, compile_problem_for
        from ..core.planners.up_worker import solve as solve_in_process

        domain = compile_domain(registry)

        def up_call(q: Query, ties: str) -> None:
            problem = compile_problem_for(domain, q.known, q.goal)
            answer = solve_in_process({"engine": planner[3:], "domain": domain.text,
                                       "problem": problem.text, "timeout": timeout})
            if answer["status"] != "solved":
                raise TimeoutError(answer["log"])

        return up_call, (time.perf_counter() - start) * 1000

    def solve(q: Query, ties: str) -> None:
        result = backend.solve(registry, q.known, q.goal, timeout=timeout)
        if result.status.value != "solved":
            raise TimeoutError(result.reason)

    return solve, 0.0


def run_cell(planner: str, size: int, *, seed: int, queries: int, repeat: int,
             timeout: float, budget: float) -> list[BenchRow]:
    """Measure one planner at one size, in this process."""
    registry, all_queries = synthetic_registry(size, seed)
    chosen = list(all_queries[:queries])
    call, prep = _caller(planner, registry, timeout, chosen)
    rows = []
    for ties in ("first", "all") if planner in OWN else ("all",) if planner == CANDIDATES \
            else ("first",):
        times: list[float] = []
        timeouts = 0
        started = time.perf_counter()
        for _ in range(repeat):
            for q in chosen:
                t0 = time.perf_counter()
                try:
                    call(q, ties)
                except TimeoutError:
                    timeouts += 1
                else:
                    times.append((time.perf_counter() - t0) * 1000)
                if time.perf_counter() - started > budget:
                    break
            if time.perf_counter() - started > budget:
                break
        peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                   resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
        rows.append(BenchRow(
            planner, size, ties,
            statistics.median(times) if times else None,
            _percentile(times, 0.95) if times else None,
            prep, len(times), timeouts, round(peak, 1),
            "ok" if times else "timeout",
        ))
    return rows


def _cell_in_subprocess(planner: str, size: int, *, seed: int, queries: int, repeat: int,
                        timeout: float, budget: float, cell_timeout: float) -> list[BenchRow]:
    spec = json.dumps({"planner": planner, "size": size, "seed": seed, "queries": queries,
                       "repeat": repeat, "timeout": timeout, "budget": budget})
    proc = subprocess.Popen([sys.executable, "-m", "planfilter.bench.timing", spec],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=cell_timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the whole group: planner binaries too
        proc.communicate()
        return [BenchRow(planner, size, "first", None, None, None, 0, 0, None,
                         f"killed after {cell_timeout:g} s")]
    if proc.returncode != 0:
        last = (err.strip().splitlines() or ["no output"])[-1]
        return [BenchRow(planner, size, "first", None, None, None, 0, 0, None,
                         f"failed: {last[:120]}")]
    return [BenchRow(**row) for row in json.loads(out)]


def with_ratios(rows: list[BenchRow]) -> list[BenchRow]:
    """Add each row's speed-up over the two baselines at the same size (same run)."""
    base: dict[tuple[str, int], float] = {}
    for row in rows:
        if row.planner in (BASELINE_PYPERPLAN, BASELINE_FD) and row.median_ms:
            base[(row.planner, row.tools)] = row.median_ms
    out = []
    for row in rows:
        ratios = {}
        for key, name in (("vs_pyperplan", BASELINE_PYPERPLAN), ("vs_fast_downward", BASELINE_FD)):
            ref = base.get((name, row.tools))
            ratios[key] = round(ref / row.median_ms, 1) if ref and row.median_ms else None
        out.append(BenchRow(**{**asdict(row), **ratios}))
    return out


def run_bench(sizes: Iterable[int] = DEFAULT_SIZES,
              planners: Iterable[str] = DEFAULT_PLANNERS, *, seed: int = 0, queries: int = 20,
              repeat: int = 5, timeout: float = 10.0, budget: float = 20.0,
              cell_timeout: float = 150.0,
              progress: Callable[[str, int], None] | None = None) -> list[BenchRow]:
    rows: list[BenchRow] = []
    for size in sizes:
        for planner in planners:
            if progress:
                progress(planner, size)
            rows.extend(_cell_in_subprocess(planner, size, seed=seed, queries=queries,
                                            repeat=repeat, timeout=timeout, budget=budget,
                                            cell_timeout=cell_timeout))
    return with_ratios(rows)


def format_table(rows: list[BenchRow]) -> str:
    def num(value: float | None, digits: int = 3) -> str:
        return "—" if value is None else f"{value:.{digits}f}"

    def ratio(value: float | None) -> str:
        return "—" if value is None else f"{value:,.1f}x"

    header = ("| planner | tools | ties | median ms | p95 ms | prep ms | calls | timeouts "
              "| peak MB | vs pyperplan-fresh | vs up:fast-downward | status |")
    lines = [header, "|" + "---|" * 12]
    for r in rows:
        lines.append(
            f"| {r.planner} | {r.tools:,} | {r.ties} | {num(r.median_ms)} | {num(r.p95_ms)} "
            f"| {num(r.prep_ms, 1)} | {r.calls} | {r.timeouts} | {num(r.peak_mb, 0)} "
            f"| {ratio(r.vs_pyperplan)} | {ratio(r.vs_fast_downward)} | {r.status} |"
        )
    return "\n".join(lines)


def _main(spec_json: str) -> None:
    spec = json.loads(spec_json)
    rows = run_cell(spec["planner"], spec["size"], seed=spec["seed"], queries=spec["queries"],
                    repeat=spec["repeat"], timeout=spec["timeout"], budget=spec["budget"])
    sys.stdout.write(json.dumps([asdict(r) for r in rows]))


if __name__ == "__main__":
    _main(sys.argv[1])
