"""The mocked environment: a tool call either returns the task's mocked output or fails.

Execution is deterministic (paper, section 5.3): the arguments are checked against the tool's
JSON Schema and (strict, the default) for invented values, then the mocked variables of the
task-tool pair join the state, ``s' = s | E``. A produced variable the mock leaves out is set
to ``True``, so that the contract's effects always hold after a successful call. A tool listed
in the task's ``failures`` fails with its message (after the arguments are checked), as a
broken service would. The mocked output is checked against the tool's ``returns`` schema.
Refusing tools that were not shown is the agent loop's job; this module only executes. The
bundled suites (planfilter.suites.bundled) run their calls here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import Registry
from ..core.frozen import thaw
from ..core.provenance import held_values, invented_arguments
from ..core.schemas import argument_errors, result_errors
from ..core.tasks import Task


@dataclass(frozen=True)
class StepOutcome:
    ok: bool
    #: Variables the call set (empty on error).
    produced: Mapping[str, Any] = field(default_factory=dict)
    #: The state after the call (the state before it, unchanged, on error).
    state: Mapping[str, Any] = field(default_factory=dict)
    error: str | None = None
    #: An argument's value was invented: the call was refused (strict) or taken anyway
    #: (lenient, which flags what strict would refuse).
    invented: bool = False


def execute(registry: Registry, task: Task, state: Mapping[str, Any], tool_name: str,
            arguments: Any, *, strict: bool = True) -> StepOutcome:
    """Run ``tool_name`` in the mocked world of ``task``; never raises for a bad call.

    ``strict``: refuse an argument whose value was invented, as a real service rejects an
    id it never issued (planfilter.core.provenance); ``strict=False`` is the paper
    artifact's environment, which takes any value of the right type but flags the call
    (``invented``), so one lenient run also tells what strict would have refused."""
    before = dict(state)
    if tool_name not in registry:
        return StepOutcome(False, state=before, error=f"unknown tool {tool_name!r}")
    tool = registry.tool(tool_name)
    problems = argument_errors(tool, arguments)
    if problems:
        return StepOutcome(False, state=before,
                           error=f"invalid arguments for {tool_name}: " + "; ".join(problems))
    invented = invented_arguments(registry, arguments, held_values(state))
    if invented and strict:
        return StepOutcome(False, state=before, invented=True,
                           error=f"invented argument for {tool_name}: " + "; ".join(invented))
    failure = task.failures.get(tool_name)
    if failure is not None:
        return StepOutcome(False, state=before, error=f"tool {tool_name} failed: {failure}")
    mock = task.mocks.get(tool_name)
    if mock is None:
        return StepOutcome(False, state=before,
                           error=f"no mocked output for {tool_name} in task {task.id}")
    produced = {name: True for name in sorted(tool.produces)}
    produced.update(thaw(mock))
    broken = result_errors(tool, produced)
    if broken:  # the suite's mock disagrees with the contract: a data error, named as such
        return StepOutcome(False, state=before,
                           error=f"mocked output of {tool_name} in task {task.id} breaks its "
                                 "returns schema: " + "; ".join(broken))
    established = dict.fromkeys(sorted(tool.establishes), True)
    return StepOutcome(True, produced=produced, state={**before, **produced, **established},
                       invented=bool(invented))
