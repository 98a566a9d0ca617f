"""One tool as declared (``ToolSpec``), the shape every source is read into and inference
starts from; the error a source that cannot be read raises; and the walk over the schemas a
JSON Schema keyword holds, which reading a file and reading a Python function both need."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..core.errors import ContractError
from ..core.frozen import freeze


@dataclass(frozen=True)
class ToolSpec:
    """One tool as declared: what inference starts from. Schemas are deep-frozen."""

    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(
        default_factory=lambda: freeze({"type": "object", "properties": {}}))
    output_schema: Mapping[str, Any] | None = None
    annotations: Mapping[str, Any] = field(default_factory=lambda: freeze({}))
    #: Where it was read from (file, or file#server), for messages.
    origin: str = ""

    @property
    def properties(self) -> Mapping[str, Any]:
        props = self.input_schema.get("properties") or {}
        return props if isinstance(props, Mapping) else {}

    @property
    def required(self) -> tuple[str, ...]:
        req = self.input_schema.get("required") or ()
        return tuple(r for r in req if isinstance(r, str) and r in self.properties)

    @property
    def output_properties(self) -> Mapping[str, Any]:
        if not self.output_schema:
            return {}
        props = self.output_schema.get("properties") or {}
        return props if isinstance(props, Mapping) else {}


class SourceError(ContractError):
    """A source file is not in any of the shapes ``contracts infer`` reads."""


#: JSON Schema keywords whose value is one schema, a list of schemas, or a name -> schema map.
_ONE_SCHEMA = ("items", "additionalProperties", "not", "contains", "propertyNames", "if",
               "then", "else")
_SCHEMAS = ("anyOf", "oneOf", "allOf", "prefixItems")
_NAMED_SCHEMAS = ("properties", "$defs", "definitions", "patternProperties")


def map_subschema(key: str, value: Any, fn: Any) -> Any:
    """``value`` of schema keyword ``key`` with ``fn`` applied to each schema it holds (one,
    a list, or a name -> schema map); any other keyword's value as it is."""
    if key in _ONE_SCHEMA:
        return fn(value)
    if key in _SCHEMAS and isinstance(value, list):
        return [fn(v) for v in value]
    if key in _NAMED_SCHEMAS and isinstance(value, Mapping):
        return {k: fn(v) for k, v in value.items()}
    return value
