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
before the task starts; without a caller such a source is not supplied.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .contracts import EnvironmentSource
from .errors import ContractError
from .results import MISSING, parse_result, resolve_pointer


@dataclass(frozen=True)
class Supplied:
    """One value the environment supplied, and where from (``value``, ``env HOME``,
    ``tool fs.current_directory``)."""

    value: Any
    source: str


#: Runs a tool with no arguments and returns its result (raises on failure).
ToolRunner = Callable[[str], Any]


def supply(environment: Mapping[str, EnvironmentSource], *, where: str = "<registry>",
           environ: Mapping[str, str] | None = None,
           run: ToolRunner | None = None) -> dict[str, Supplied]:
    """The value of every source that can be read now: literals, OS environment variables,
    and, with ``run``, tools. An unset variable or a failing tool is an error naming the
    registry, the variable and the field."""
    env = os.environ if environ is None else environ
    out: dict[str, Supplied] = {}
    problems = []
    for name, source in sorted(environment.items()):
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
                result = parse_result(run(source.tool))
            except Exception as exc:  # a tool's failure is the caller's to report, by name
                problems.append(f"{at} field 'tool': {source.tool} failed: {exc}")
                continue
            got = resolve_pointer(result, source.pointer or "")
            if got is MISSING or got == [] and "*" in (source.pointer or ""):
                problems.append(f"{at} field 'pointer': the result of {source.tool} holds "
                                f"nothing at {source.pointer!r}")
                continue
            out[name] = Supplied(got, source.kind)
        else:
            out[name] = Supplied(source.value, source.kind)
    if problems:
        raise ContractError(problems)
    return out
