"""Check registries and task suites together and report every problem found."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from .contracts import Registry
from .errors import ContractError
from .frontier import minimal_plan, plan_is_valid
from .frozen import thaw
from .loading import PathLike, expand, load_registry, load_suite, read_document
from .planners.index import index_for, unreachable_reason
from .resources import data_dir, default_registry
from .schemas import result_errors
from .steps import GIVEN, advance, stale
from .tasks import Suite, Task


@dataclass(frozen=True)
class Problem:
    severity: Literal["error", "warning"]
    message: str

    def __str__(self) -> str:
        return f"{self.severity}: {self.message}"


@dataclass(frozen=True)
class Report:
    problems: tuple[Problem, ...]
    tools: int
    tasks: int
    files: int

    @property
    def ok(self) -> bool:
        return not any(p.severity == "error" for p in self.problems)


def classify(paths: Iterable[PathLike]) -> tuple[list[Path], list[Path], list[Problem]]:
    """Split files into registries (a ``tools`` list) and suites (a ``tasks`` list). In a
    folder, a registry below its top level is another suite's (``domains/agentdojo/``) and is
    checked when named, as ``load_registry`` loads a folder."""
    registries: list[Path] = []
    suites: list[Path] = []
    problems: list[Problem] = []
    files: list[tuple[Path, bool]] = []  # (file, found below a named folder's top level)
    try:
        for raw in paths:
            folder = Path(raw) if Path(raw).is_dir() else None
            files += [(f, folder is not None and f.parent != folder) for f in expand(raw)]
    except ContractError as exc:
        return [], [], [Problem("error", p) for p in exc.problems]
    for path, nested in files:
        try:
            doc = read_document(path)
        except ContractError as exc:
            problems.extend(Problem("error", p) for p in exc.problems)
            continue
        if isinstance(doc, dict) and "tools" in doc:
            if not nested:
                registries.append(path)
        elif isinstance(doc, dict) and "tasks" in doc:
            suites.append(path)
        else:
            problems.append(Problem("error", f"{path}: neither a registry (top-level 'tools') "
                                             "nor a task suite (top-level 'tasks')"))
    return registries, suites, problems


def check_registry(registry: Registry, where: str | None = None) -> list[Problem]:
    """What makes a registry unusable whatever the tasks: no tool at all."""
    if len(registry):
        return []
    return [Problem("error", f"{where or registry.source or '<registry>'}: holds no tool "
                             "(its 'tools' list is empty)")]


def check_inputs(registry: Registry, suite: Suite) -> None:
    """Raise with every error :func:`validate_paths` would report for this registry and
    suite (warnings are left to ``planfilter validate``)."""
    errors = [p.message for p in (*check_registry(registry), *check_suite(registry, suite))
              if p.severity == "error"]
    if errors:
        raise ContractError(errors)


def check_suite(registry: Registry, suite: Suite) -> list[Problem]:
    """Every problem of a suite against a registry: unknown tools, unreachable goals, bad gold."""
    problems: list[Problem] = []
    index = index_for(registry)
    where = suite.source or "<suite>"
    for task in suite:
        at = f"{where}: task '{task.id}'"
        for i, name in enumerate(task.gold):
            if name not in registry:
                problems.append(Problem("error", f"{at} field 'gold.{i}': unknown tool '{name}'"))
        for name, values in task.mocks.items():
            if name not in registry:
                problems.append(Problem("error", f"{at} field 'mocks.{name}': unknown tool "
                                                 f"'{name}'"))
                continue
            extra = sorted(set(values) - registry.tool(name).produces)
            if extra:
                problems.append(Problem("error", f"{at} field 'mocks.{name}': sets {extra}, "
                                                 f"which {name} does not produce"))
                continue
            tool = registry.tool(name)
            # What the mocked environment returns: every produced variable, the mock's values
            # over True; it must fit the tool's `returns` schema.
            returned = {**{v: True for v in tool.produces}, **thaw(values)}
            for broken in result_errors(tool, returned):
                problems.append(Problem("error", f"{at} field 'mocks.{name}': {broken} "
                                                 f"(the 'returns' schema of {name})"))
        for name in dict.fromkeys(task.gold):
            if name in registry and name not in task.mocks:
                problems.append(Problem("error", f"{at} field 'mocks': no mocked output for "
                                                 f"gold tool '{name}'"))
        problems.extend(_check_failures(registry, task, at))
        reason = unreachable_reason(index, task.known, task.goal)
        if reason:
            problems.append(Problem("error", f"{at} field 'goal': unreachable: {reason}"))
            continue
        if task.goal <= task.known:
            problems.append(Problem("warning", f"{at} field 'goal': already reached by the state"))
        if not task.gold or any(n not in registry for n in task.gold):
            continue
        invalid = plan_is_valid(registry, task.known, task.goal, task.gold)
        if invalid:
            problems.append(Problem("error", f"{at} field 'gold': not a causal path: {invalid}"))
            continue
        working = _working(registry, task)  # the gold route avoids the failing tools
        if len(task.goal_steps) > 1:
            problems.extend(_check_gold_steps(registry, working, task, at))
            continue
        best = minimal_plan(working, task.known, task.goal) or ()
        if len(best) < len(task.gold):
            problems.append(Problem(
                "warning",
                f"{at} field 'gold': {len(task.gold)} steps, but a minimal causal path has "
                f"{len(best)}: {' -> '.join(best)}",
            ))
    return problems


@dataclass(frozen=True)
class StepSegment:
    """The calls of a chain that reach one step of a goal in steps, and the state a planner
    sees before the first of them."""

    step: int
    calls: tuple[str, ...]
    planning_state: frozenset[str]


def step_segments(registry: Registry, known: Iterable[str], steps: Sequence[frozenset[str]],
                  chain: Iterable[str]) -> tuple[tuple[StepSegment, ...], tuple[str, ...]]:
    """Split ``chain`` at the calls that reach each step, counted as a live Session counts
    them (the rule of planfilter.core.steps). Returns the segments of the steps reached, in
    order, and the calls left after the last one (all of them when the chain reaches no step).

    The planning state of a segment is what ``Session.planning_state`` holds then: the state,
    without the step's variables that do not count yet."""
    produced: dict[str, list[int]] = {name: [GIVEN] for name in known}
    reached: list[int] = []
    calls = list(chain)

    def producers(name: str) -> list[int]:
        return produced.get(name, [])

    def planning(k: int) -> frozenset[str]:
        return frozenset(produced) - stale(k, steps, reached, producers)

    advance(steps, reached, producers, 0)
    segments: list[StepSegment] = []
    start, state = 0, planning(len(reached))
    for index, name in enumerate(calls, 1):
        k = len(reached)
        if k >= len(steps):
            break
        for variable in registry.tool(name).post:
            produced.setdefault(variable, []).append(index)
        advance(steps, reached, producers, index)
        if len(reached) > k:
            segments.append(StepSegment(k, tuple(calls[start:index]), state))
            segments.extend(StepSegment(j, (), planning(j)) for j in range(k + 1, len(reached)))
            start, state = index, planning(len(reached))
    return tuple(segments), tuple(calls[start:])


def _check_gold_steps(registry: Registry, working: Registry, task: Task,
                      at: str) -> list[Problem]:
    """A gold chain of a goal in steps reaches every step in order, stops there, and is a
    minimal causal path step by step (each step planned from the state of its start, as the
    session plans it)."""
    steps = task.goal_steps
    segments, rest = step_segments(registry, task.known, steps, task.gold)
    if len(segments) < len(steps):
        missing = steps[len(segments)]
        return [Problem("error", f"{at} field 'gold': reaches {len(segments)} of the "
                                 f"{len(steps)} steps in order; step {len(segments) + 1} "
                                 f"{sorted(missing)} is not reached")]
    problems = []
    if rest:
        problems.append(Problem("error", f"{at} field 'gold': {' -> '.join(rest)} after the "
                                         "last step is reached (the session refuses them)"))
    for segment in segments:
        best = minimal_plan(working, segment.planning_state, steps[segment.step]) or ()
        if len(best) < len(segment.calls):
            problems.append(Problem(
                "warning",
                f"{at} field 'gold': step {segment.step + 1} {sorted(steps[segment.step])} "
                f"takes {len(segment.calls)} calls, but a minimal causal path has "
                f"{len(best)}: {' -> '.join(best)}",
            ))
    return problems


def validate_paths(paths: Iterable[PathLike]) -> Report:
    registry_files, suite_files, problems = classify(paths)
    registry: Registry | None = None
    if registry_files:
        try:
            registry = load_registry(registry_files)
        except ContractError as exc:
            problems.extend(Problem("error", p) for p in exc.problems)
        else:
            problems.extend(check_registry(registry, ", ".join(map(str, registry_files))))
    elif suite_files:
        registry = load_registry(default_registry())
        problems.append(Problem("warning", f"no registry given; suites checked against the "
                                           f"bundled registry {data_dir('domains')}"))
    tasks = 0
    first_seen: dict[str, Path] = {}
    for path in suite_files:
        try:
            suite = load_suite(path)
        except ContractError as exc:
            problems.extend(Problem("error", p) for p in exc.problems)
            continue
        tasks += len(suite)
        for task in suite:
            if task.id in first_seen:
                problems.append(Problem("error", f"{path}: task '{task.id}' field 'id': also "
                                                 f"defined in {first_seen[task.id]}"))
            first_seen.setdefault(task.id, path)
        if registry is not None:
            problems.extend(check_suite(registry, suite))
    return Report(tuple(problems), len(registry) if registry else 0, tasks,
                  len(registry_files) + len(suite_files))


def _check_failures(registry: Registry, task: Task, at: str) -> list[Problem]:
    """A failing tool must exist, stay off the gold chain, and leave the goal reachable."""
    if not task.failures:
        return []
    problems = []
    for name in task.failures:
        if name not in registry:
            problems.append(Problem("error", f"{at} field 'failures.{name}': unknown tool "
                                             f"'{name}'"))
        elif name in task.gold:
            problems.append(Problem("error", f"{at} field 'failures.{name}': the gold chain "
                                             f"calls '{name}', which fails"))
    working = _working(registry, task)
    reason = unreachable_reason(index_for(working), task.known, task.goal)
    if reason:
        problems.append(Problem("error", f"{at} field 'failures': no route to the goal avoids "
                                         f"the failing tools: {reason}"))
    return problems


def _working(registry: Registry, task: Task) -> Registry:
    """The registry without the task's failing tools."""
    if not task.failures:
        return registry
    return registry.subset(t.name for t in registry if t.name not in task.failures)
