"""Tool declarations in, one shape out.

A SOURCE is a JSON or YAML file holding one of:

- an MCP config (``{"mcpServers": {name: {command, args, env, cwd} | {url, headers}}}``,
  read by planfilter.core.servers as ``planfilter serve`` reads it, ``${VAR}`` included):
  each server is started (or reached) with the official ``mcp`` client and asked for
  ``tools/list``; its tools are named ``<server>.<tool>``, as a gateway in front of several
  servers names them;
- a saved ``tools/list`` result (``{"tools": [{name, inputSchema, outputSchema?,
  annotations?}]}``, also nested under ``tools_list_result``);
- an OpenAI ``tools`` array (``[{"type": "function", "function": {name, description,
  parameters}}]``, or ``{"tools": [...]}``);
- a list of function docs (``[{name, description, parameters, response?}]``), also in the
  Gorilla / BFCL dialect that function-calling datasets publish (``"type": "dict"``,
  ``"float"``, ``"tuple"``, ``"any"``...; see :func:`json_schema_types`).

A source argument ``python:package.module[:attr]`` names Python tools instead of a file
(``python_tools.py``).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..core.errors import PlanfilterError
from ..core.frozen import freeze
from ..core.loading import read_document
from ..core.servers import ServerSpec, client_target, is_servers_document, parse_config
from .python_tools import is_python_source, read_python_source
from .spec import SourceError, ToolSpec, map_subschema

#: Type names of the Gorilla / BFCL function docs (Python's and Java's spellings among them)
#: -> JSON Schema; None: no type (``any``, or a name JSON Schema has no word for).
TYPE_NAMES: Mapping[str, str | None] = {
    **dict.fromkeys(("string", "str", "char", "character"), "string"),
    **dict.fromkeys(("integer", "int", "long", "short", "byte", "bigint"), "integer"),
    **dict.fromkeys(("number", "float", "double", "decimal"), "number"),
    **dict.fromkeys(("boolean", "bool"), "boolean"),
    **dict.fromkeys(("object", "dict", "dictionary", "map", "hashmap"), "object"),
    **dict.fromkeys(("array", "list", "tuple", "set", "arraylist"), "array"),
    "null": "null", "any": None,
}
def json_schema_types(schema: Any) -> Any:
    """A schema whose ``type`` words are normalised to JSON Schema's, at every depth: ``dict``
    -> object, ``float`` -> number, ``tuple`` -> array, ``any`` (and unknown names) -> no
    type. A standard JSON Schema comes back unchanged."""
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            kind = TYPE_NAMES.get(value.strip().lower())
            if kind is not None:
                out[key] = kind
        elif key == "type" and isinstance(value, list):
            kinds = [TYPE_NAMES.get(str(v).strip().lower()) for v in value]
            if None not in kinds:
                out[key] = list(dict.fromkeys(kinds))
        elif key != "type":
            out[key] = map_subschema(key, value, json_schema_types)
        else:
            out[key] = value
    return out


def _schema(value: Any, where: str, what: str) -> Mapping[str, Any]:
    if value is None:
        return freeze({"type": "object", "properties": {}})
    if not isinstance(value, Mapping):
        raise SourceError(f"{where}: field '{what}' must be a JSON Schema object "
                          f"(got {type(value).__name__})")
    schema = json_schema_types(value)
    if "type" not in schema and not set(schema) & {"anyOf", "oneOf", "allOf", "$ref",
                                                    "items", "enum", "const"}:
        schema["type"] = "object"
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return freeze(schema)


def spec_from_item(item: Any, where: str, prefix: str = "") -> ToolSpec:
    """One tool declaration in any of the supported shapes -> ToolSpec."""
    if not isinstance(item, Mapping):
        raise SourceError(f"{where}: expected a tool object, got {type(item).__name__}")
    if item.get("type") == "function" and isinstance(item.get("function"), Mapping):
        item = item["function"]
    name = item.get("name")
    if not isinstance(name, str) or not name:
        raise SourceError(f"{where}: a tool has no 'name'")
    here = f"{where}: tool '{name}'"
    if "inputSchema" in item or "input_schema" in item:
        params = item.get("inputSchema", item.get("input_schema"))
        output = item.get("outputSchema", item.get("output_schema"))
    else:
        params = item.get("parameters")
        output = item.get("response", item.get("returns"))
    out = None if output is None else _schema(output, here, "output schema")
    annotations = item.get("annotations") or {}
    if not isinstance(annotations, Mapping):
        raise SourceError(f"{here}: field 'annotations' must be an object")
    description = item.get("description") or ""
    return ToolSpec(name=f"{prefix}{name}", description=str(description),
                    input_schema=_schema(params, here, "parameters"), output_schema=out,
                    annotations=freeze(dict(annotations)), origin=where)


def specs_from_document(doc: Any, where: str) -> tuple[ToolSpec, ...]:
    """Tools of a parsed document that is not an MCP config."""
    if isinstance(doc, Mapping):
        if isinstance(doc.get("tools_list_result"), Mapping):
            doc = doc["tools_list_result"]
        if isinstance(doc.get("result"), Mapping):  # a raw JSON-RPC response
            doc = doc["result"]
        items = doc.get("tools")
        if not isinstance(items, list):
            raise SourceError(f"{where}: expected 'mcpServers', a 'tools' list, or a list of "
                              "tools at the top level")
    elif isinstance(doc, list):
        items = doc
    else:
        raise SourceError(f"{where}: expected a JSON object or list, got {type(doc).__name__}")
    return tuple(spec_from_item(item, f"{where}#{i + 1}") for i, item in enumerate(items))


def list_server_tools(server: ServerSpec, timeout: float = 30.0) -> list[dict[str, Any]]:
    """``tools/list`` of one server, as plain dicts in wire (camelCase) shape.

    A stdio server's stderr goes to a temporary file, not to ours (the library prints
    nothing); its last lines are quoted when the server fails.
    """
    try:
        import anyio
        from mcp import Client
    except ImportError as exc:
        raise PlanfilterError(f"server '{server.name}': reading an MCP config needs the mcp "
                              f"package (pip install 'planfilter[mcp]'): {exc}") from None

    with tempfile.TemporaryFile("w+", encoding="utf-8") as errlog:
        async def fetch() -> list[dict[str, Any]]:
            with anyio.fail_after(timeout):
                async with client_target(server, errlog=errlog) as target, \
                        Client(target, mode="legacy") as client:
                    result = await client.list_tools()
                    tools = list(result.tools)
                    cursor = getattr(result, "next_cursor", None)
                    while cursor:  # the servers seen so far answer in one page; be general
                        result = await client.list_tools(cursor=cursor)
                        tools += list(result.tools)
                        cursor = getattr(result, "next_cursor", None)
            return [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in tools]

        try:
            return anyio.run(fetch)
        except Exception as exc:  # a server that does not start or answer: say which, and why
            errlog.seek(0)
            tail = " | ".join(errlog.read().strip().splitlines()[-3:])
            said = f" (its stderr: {tail})" if tail else ""
            raise PlanfilterError(f"server '{server.name}': tools/list failed: "
                                  f"{type(exc).__name__}: {exc}{said}") from None


def read_source(path: Path, environ: Mapping[str, str] | None = None) -> tuple[ToolSpec, ...]:
    """The tools one file declares; an MCP config's servers are asked for theirs
    (``environ``: what ``${VAR}`` reads, default ``os.environ``)."""
    doc = read_document(path)
    if is_servers_document(doc):
        specs: list[ToolSpec] = []
        for server in parse_config(doc, str(path), os.environ if environ is None else environ):
            items = list_server_tools(server)
            where = f"{path}#{server.name}"
            specs += [spec_from_item(item, f"{where}#{i + 1}", prefix=f"{server.name}.")
                      for i, item in enumerate(items)]
        return tuple(specs)
    return specs_from_document(doc, str(path))


def read_sources(paths: Iterable[Path | str]) -> tuple[ToolSpec, ...]:
    """Every tool of every source (a file, or ``python:module[:attr]``), in order; two tools
    of one name are an error naming both."""
    specs: list[ToolSpec] = []
    seen: dict[str, str] = {}
    problems = []
    for raw in paths:
        found = read_python_source(str(raw)) if is_python_source(raw) else \
            read_source(Path(raw))
        for spec in found:
            if spec.name in seen:
                problems.append(f"{spec.origin}: tool '{spec.name}' has the same name as "
                                f"{seen[spec.name]}")
                continue
            seen[spec.name] = spec.origin
            specs.append(spec)
    if problems:
        raise SourceError(problems)
    return tuple(specs)


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)


def _camel_schema(schema: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    if not schema:
        return schema
    data = dict(schema)
    data["properties"] = {camel(k): v for k, v in (schema.get("properties") or {}).items()}
    if "required" in schema:
        data["required"] = [camel(r) for r in schema["required"]]
    return freeze(data)


def specs_of(tools: Sequence[Any], *, with_returns: bool = True,
             mixed_spelling: bool = False) -> tuple[ToolSpec, ...]:
    """ToolSpecs of registry tools with every contract field stripped (for evaluation).

    With ``mixed_spelling`` every other tool spells its properties in camelCase, as APIs
    written by different teams do, so that one meaning has two spellings.
    """
    out = []
    for i, t in enumerate(tools):
        params, returns = t.parameters, t.returns if with_returns else None
        if mixed_spelling and i % 2:
            params, returns = _camel_schema(params), _camel_schema(returns)
        out.append(ToolSpec(name=t.name, description=t.description, input_schema=params,
                            output_schema=returns, origin="<registry>"))
    return tuple(out)
