"""The mocked environment: a tool call either returns the task's mocked output or fails.

Execution is deterministic (paper, section 5.3): the arguments are checked against the tool's
JSON Schema, then the mocked variables of the task-tool pair join the state, ``s' = s | E``.
A produced variable the mock leaves out is set to ``True``, so that the contract's effects
always hold after a successful call. A tool listed in the task's ``failures`` fails with its
message (after the arguments are checked), as a broken service would. The mocked output is
checked against the tool's ``returns`` schema.

The mocks answer as a service would: with ``strict`` (the default), an id the task's world
does not hold (a value for a parameter whose variable some tool produces, held under that
variable nowhere in the task's state or mocked outputs) gives an error result, ``no
<variable> <value>``: a failed call, not a refusal. ``strict=False`` is the paper artifact's
mocks, which take any value of the right type. Nothing here decides what may run: whether a
value was obtained, visibility and approval are :meth:`planfilter.live.Session.check`'s
decision, made before a call reaches the mocks. The bundled suites
(planfilter.suites.bundled) run their calls here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.contracts import Registry, Tool
from ..core.frozen import thaw
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


def execute(registry: Registry, task: Task, state: Mapping[str, Any], tool_name: str,
            arguments: Any, *, strict: bool = True) -> StepOutcome:
    """Run ``tool_name`` in the mocked world of ``task``; never raises for a bad call.

    ``strict``: an id the task's world does not hold gives an error result, as a real service
    answers an id it never issued (:func:`unknown_ids`); ``strict=False``: the paper
    artifact's mocks, which take any value of the right type."""
    before = dict(state)
    if tool_name not in registry:
        return StepOutcome(False, state=before, error=f"unknown tool {tool_name!r}")
    tool = registry.tool(tool_name)
    problems = argument_errors(tool, arguments)
    if problems:
        return StepOutcome(False, state=before,
                           error=f"invalid arguments for {tool_name}: " + "; ".join(problems))
    unknown = unknown_ids(registry, tool, arguments, task) if strict else []
    if unknown:
        return StepOutcome(False, state=before,
                           error=f"tool {tool_name} failed: " + "; ".join(unknown))
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
    return StepOutcome(True, produced=produced, state={**before, **produced, **established})


def unknown_ids(registry: Registry, tool: Tool, arguments: Mapping[str, Any],
                task: Task) -> list[str]:
    """``no <variable> <value>`` for each argument that carries an id the task's world does
    not hold: its parameter's variable is one some tool produces (the model does not write
    it), and its value (each item of a list) is no value the task's state or mocked outputs
    hold under that variable, at any depth: a service looks an id up among the ids of its
    own kind (an event id among events, not among messages). Compared as a service compares
    ids: as text, surrounding whitespace aside. Empty when every id is known."""
    world = (thaw(task.state), thaw(task.mocks))
    out = []
    for name in sorted(arguments):
        variable = tool.variable_of(name)
        if name in tool.authored or variable not in registry.produced:
            continue
        value = arguments[name]
        items = value if isinstance(value, list | tuple) else (value,)
        kind = {_text(v) for v in _under(world, variable)}
        missing = [v for v in items if not isinstance(v, Mapping) and _text(v) not in kind]
        if missing:
            out.append(f"no {tool.variable_of(name)} {', '.join(map(repr, missing))} "
                       f"(argument '{name}')")
    return out


def _under(value: Any, variable: str) -> Iterable[Any]:
    """Every scalar held under the key ``variable`` inside ``value``, at any depth."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key == variable:
                yield from _scalars(item)
            yield from _under(item, variable)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _under(item, variable)


def _scalars(value: Any) -> Iterable[Any]:
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _scalars(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _scalars(item)
    else:
        yield value


def _text(value: Any) -> str:
    return str(value).strip()
