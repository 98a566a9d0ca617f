"""The ``yaml`` kind: task suites written in YAML, whose tools are mocks (planfilter.suites.mocked).

A run ends at the goal; success is "every goal variable is known and not false". The gold
chain names tools only, so a replay fills each call's arguments from the state when it runs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..core.contracts import Registry
from ..core.errors import PlanfilterError
from ..core.loading import load_registry, load_suite
from ..core.resources import default_registry, default_suite
from ..core.tasks import Suite, Task
from .base import Case, Execution, GroundCall, SuiteOptions, Verdict
from .mocked import execute

#: The paper's step limit.
MAX_STEPS = 6


def goal_reached(task: Task, state: Mapping[str, Any]) -> bool:
    return task.goal <= frozenset(state)


def succeeded(task: Task, state: Mapping[str, Any]) -> bool:
    """Every goal variable is known and its value is not false."""
    return goal_reached(task, state) and not any(
        state[g] is False or (isinstance(state[g], str) and state[g].lower() == "false")
        for g in task.goal
    )


@dataclass(frozen=True)
class MockedEnvironment:
    registry: Registry
    task: Task
    strict: bool = True

    def execute(self, tool: str, arguments: Mapping[str, Any],
                state: Mapping[str, Any]) -> Execution:
        outcome = execute(self.registry, self.task, state, tool, arguments, strict=self.strict)
        if not outcome.ok:
            return Execution(False, error=outcome.error)
        produced = dict(outcome.produced)
        return Execution(True, produced, json.dumps(produced, ensure_ascii=False, default=str))

    def verdict(self, answer: str | None, state: Mapping[str, Any]) -> Verdict:
        return Verdict(succeeded(self.task, state))


@dataclass(frozen=True)
class YamlSuite:
    registry: Registry
    tasks: Suite
    strict: bool = True
    name: str = "yaml"
    kind: str = "yaml"
    answers: bool = False
    max_steps: int = MAX_STEPS
    attack: str | None = None
    #: A task's goal and state are the task's own (what the user gives), not an oracle's.
    oracle: bool = False

    def cases(self) -> tuple[Case, ...]:
        return tuple(Case(task.id, task) for task in self.tasks)

    def with_tasks(self, tasks: Suite) -> YamlSuite:
        return replace(self, tasks=tasks)

    def environment(self, case: Case, model: str = "") -> MockedEnvironment:
        return MockedEnvironment(self.registry, case.task, self.strict)

    def ground_truth(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return tuple(GroundCall(tool) for tool in case.task.gold)

    def attacker_calls(self, case: Case, environment: Any = None) -> tuple[GroundCall, ...]:
        return ()

    def final_answer(self, case: Case) -> str | None:
        return None

    def system_prompt(self) -> str | None:
        return None

    def tool_schemas(self, names: Sequence[str]) -> list[dict[str, Any]]:
        return [self.registry.tool(n).function_schema() for n in names]


def load_yaml_suite(argument: str, options: SuiteOptions) -> YamlSuite:
    """``yaml`` (the bundled suite, or ``options.tasks``) or ``yaml:PATH``."""
    if options.attack:
        raise PlanfilterError(f"--attack {options.attack}: the yaml suites have no injection "
                              "tasks (try --suite agentdojo:banking)")
    tasks: Sequence[Path] = options.tasks or ((Path(argument),) if argument else ())
    registry = load_registry(list(options.registry) or default_registry())
    return YamlSuite(registry, load_suite(list(tasks) or default_suite()), options.strict)
