"""The mocked environment: a tool call either returns the task's mocked output or fails.

Execution is deterministic (paper, section 5.3): the arguments are checked against the
tool's JSON Schema, then the mocked variables of the task-tool pair join the state,
``s' = s | E``. A produced variable the mock leaves out is set to ``True``, so that the
contract's effects always hold after a successful call. A tool listed in the task's
``failures`` fails with its message (after the arguments are checked), as a broken
service would. Refusing tools that were not shown
is the agent loop's job; this module only executes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import Registry
from ..core.frozen import thaw
from ..core.schemas import argument_errors
from ..core.tasks import Task


@dataclass(frozen=True)
class StepOutcome:
    ok: bool
    #: Variables the call set (empty on error).
    produced: Mapping[str, Any] = field(default_factory=dict)
    #: The state after the call (the state before it, unchanged, on error).
    state: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None


def execute(registry: Registry, task: Task, state: Mapping[str, Any], tool_name: str,
            arguments: Any) -> StepOutcome:
    """Run ``tool_name`` in the mocked world of ``task``; never raises for a bad call."""
    before = dict(state)
    if tool_name not in registry:
        return StepOutcome(False, state=before, error=f"unknown tool {tool_name!r}")
    tool = registry.tool(tool_name)
    problems = argument_errors(tool, arguments)
    if problems:
        return StepOutcome(False, state=before,
                           error=f"invalid arguments for {tool_name}: " + "; ".join(problems))
    failure = task.failures.get(tool_name)
    if failure is not None:
        return StepOutcome(False, state=before, error=f"tool {tool_name} failed: {failure}")
    mock = task.mocks.get(tool_name)
    if mock is None:
        return StepOutcome(False, state=before,
                           error=f"no mocked output for {tool_name} in task {task.id}")
    produced = {name: True for name in sorted(tool.produces)}
    produced.update(thaw(mock))
    return StepOutcome(True, produced=produced, state={**before, **produced})
