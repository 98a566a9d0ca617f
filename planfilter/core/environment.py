"""Values the system supplies: inputs no tool produces and the user does not type, because
the environment has them (the account, the current directory, a device's settings).

A registry names them in a top-level ``environment:`` mapping, variable -> one source::

    environment:
      account: {value: alice}                    # a literal
      home: {from_env: HOME}                     # an OS environment variable
      cwd: {tool: fs.current_directory}          # a read tool, called with no arguments
      region: {tool: cloud.whoami, pointer: /region}   # ... and where the value sits

They are known when a task starts and bound like the user's values (trusted, checked against
the input schemas of the tools that take them); a value the user gives, or one the request
states, outranks the environment's. Who runs tools (the gateway) calls a ``tool:`` source
before the task starts; :func:`supply` without a caller leaves such a source out, and a
:class:`~planfilter.live.Session` started without its value says which tool to call.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .contracts import Registry, Tool
from .errors import ContractError
from .results import MISSING, extract, parse_result, resolve_pointer


@dataclass(frozen=True)
class Supplied:
    """One value the environment supplied, and where from (``value``, ``env HOME``,
    ``tool fs.current_directory``)."""

    value: Any
    source: str


#: Runs a tool with no arguments and returns its result (raises on failure).
ToolRunner = Callable[[str], Any]


def supply(registry: Registry, *, environ: Mapping[str, str] | None = None,
           run: ToolRunner | None = None, skip: frozenset[str] = frozenset()
           ) -> dict[str, Supplied]:
    """The value of every source of ``registry.environment`` that can be read now: literals,
    OS environment variables, and, with ``run``, tools (at ``pointer``; without one, where the
    tool's contract reads the variable when it produces it, else the whole result); none for
    the variables in ``skip`` (the user gave them). An unset variable or a failing tool is an
    error naming the registry, the variable and the field."""
    env = os.environ if environ is None else environ
    where = registry.source or "<registry>"
    out: dict[str, Supplied] = {}
    problems = []
    for name, source in sorted(registry.environment.items()):
        if name in skip:
            continue
        at = f"{where}: environment '{name}'"
        if source.from_env is not None:
            if source.from_env not in env:
                problems.append(f"{at} field 'from_env': environment variable "
                                f"{source.from_env} is not set")
                continue
            out[name] = Supplied(env[source.from_env], source.kind)
        elif source.tool is not None:
            if run is None:
                continue
            try:
                result = run(source.tool)
            except Exception as exc:  # a tool's failure is the caller's to report, by name
                problems.append(f"{at} field 'tool': {source.tool} failed: {exc}")
                continue
            got = _read(registry.tool(source.tool), name, source.pointer, result)
            if got is MISSING:
                problems.append(f"{at} field 'pointer': the result of {source.tool} holds "
                                f"nothing at {source.pointer or name!r}")
                continue
            out[name] = Supplied(got, source.kind)
        else:
            out[name] = Supplied(source.value, source.kind)
    if problems:
        raise ContractError(problems)
    return out


def tool_sources(registry: Registry) -> dict[str, str]:
    """Variable -> the tool that supplies it, for the sources only a tool call can read."""
    return {n: s.tool for n, s in sorted(registry.environment.items()) if s.tool is not None}


def _read(tool: Tool, name: str, pointer: str | None, result: Any) -> Any:
    if pointer is None and name in tool.produces:
        return extract(tool, result).values.get(name, MISSING)
    got = resolve_pointer(parse_result(result), pointer or "")
    return MISSING if got == [] and "*" in (pointer or "") else got
