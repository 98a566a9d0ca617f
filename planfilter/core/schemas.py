"""Tool arguments and results checked against the tool's JSON Schemas (``parameters`` and
``returns``), each problem naming the argument or the place in the result."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema

from .contracts import Tool
from .frozen import thaw


@lru_cache(maxsize=2048)
def _validator(tool: Tool, field: str = "parameters") -> Any:
    """The compiled validator of one of the tool's schemas (tools hash by name and are frozen)."""
    schema = thaw(getattr(tool, field))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def argument_errors(tool: Tool, arguments: Any) -> list[str]:
    """Every way ``arguments`` break the tool's schema, each naming the argument."""
    if not isinstance(arguments, Mapping):
        return [f"arguments must be a JSON object, got {type(arguments).__name__}"]
    problems = []
    for err in sorted(_validator(tool).iter_errors(dict(arguments)), key=lambda e: e.json_path):
        where = ".".join(str(p) for p in err.absolute_path)
        problems.append(f"argument '{where}': {err.message}" if where else err.message)
    return problems


def result_errors(tool: Tool, result: Any) -> list[str]:
    """Every way a result breaks the tool's ``returns`` schema (none when it declares none)."""
    if tool.returns is None:
        return []
    problems = []
    for err in sorted(_validator(tool, "returns").iter_errors(result), key=lambda e: e.json_path):
        where = "/" + "/".join(str(p) for p in err.absolute_path)
        problems.append(f"result {where}: {err.message}" if err.absolute_path else
                        f"result: {err.message}")
    return problems


def value_errors(tool: Tool, parameter: str, value: Any) -> list[str]:
    """Every way ``value`` breaks the schema of the tool's ``parameter`` (none when the tool
    does not declare it)."""
    schema = tool.parameters.get("properties", {}).get(parameter)
    if not isinstance(schema, Mapping):
        return []
    plain = thaw(schema)
    validator = jsonschema.validators.validator_for(plain)(plain)
    return [err.message for err in validator.iter_errors(value)]
