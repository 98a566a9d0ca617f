"""Upstream tools against contracts: which have one, which contracts match nothing, and where
a contract's parameters disagree with the server's ``inputSchema``.

Also builds the registry the gateway's sessions plan over: the contracts that name an
upstream tool, each given the server's ``inputSchema`` (the server is the truth about what
it accepts) and its ``outputSchema`` as ``returns`` when the contract declares none, and
raised to risk ``high`` when the server marks the tool ``destructiveHint``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core.contracts import Registry, Tool
from ..core.errors import ContractError
from ..core.frozen import freeze, thaw

Uncontracted = Literal["hide", "expose"]
UNCONTRACTED: tuple[str, ...] = ("hide", "expose")


@dataclass(frozen=True)
class UpstreamTool:
    """One tool an upstream server lists, named ``server.tool`` in the gateway."""

    server: str
    name: str
    description: str = ""
    input_schema: Mapping[str, Any] = field(default_factory=dict)
    output_schema: Mapping[str, Any] | None = None
    destructive: bool = False

    @property
    def qualified(self) -> str:
        return f"{self.server}.{self.name}"

    def schema(self) -> dict[str, Any]:
        """The tool as an MCP tools/list entry shows it (name qualified)."""
        out: dict[str, Any] = {"name": self.qualified, "description": self.description,
                               "inputSchema": thaw(self.input_schema)}
        return out


@dataclass(frozen=True)
class Coverage:
    contracted: tuple[str, ...]
    #: Upstream tools no contract names (hidden, or exposed outside the plan).
    uncontracted: tuple[str, ...]
    #: Contracts that name no upstream tool (left out of the registry).
    unmatched: tuple[str, ...]
    #: (tool, what disagrees) for contracts whose parameters differ from the inputSchema.
    mismatched: tuple[tuple[str, str], ...]
    #: Tools raised to risk high because the server marks them destructive.
    destructive: tuple[str, ...] = ()

    def lines(self, uncontracted: str = "hide") -> list[str]:
        """The start-up report, one line per fact."""
        out = [f"{len(self.contracted)} upstream tools have contracts: "
               + (", ".join(self.contracted) or "none")]
        if self.uncontracted:
            how = "exposed outside the plan" if uncontracted == "expose" else "hidden"
            out.append(f"{len(self.uncontracted)} without a contract ({how}): "
                       + ", ".join(self.uncontracted))
        if self.unmatched:
            out.append(f"{len(self.unmatched)} contracts match no upstream tool (ignored): "
                       + ", ".join(self.unmatched))
        for name, problem in self.mismatched:
            out.append(f"contract {name}: {problem}; the upstream inputSchema is used")
        if self.destructive:
            out.append("risk high (upstream destructiveHint): " + ", ".join(self.destructive))
        return out


def check_coverage(registry: Registry, tools: Iterable[UpstreamTool]) -> Coverage:
    upstream = {t.qualified: t for t in tools}
    contracted = tuple(n for n in upstream if n in registry)
    mismatched = []
    for name in contracted:
        problem = parameter_mismatch(registry.tool(name), upstream[name].input_schema)
        if problem:
            mismatched.append((name, problem))
    destructive = tuple(n for n in contracted
                        if upstream[n].destructive and registry.tool(n).risk != "high")
    return Coverage(
        contracted=contracted,
        uncontracted=tuple(n for n in upstream if n not in registry),
        unmatched=tuple(t.name for t in registry if t.name not in upstream),
        mismatched=tuple(mismatched),
        destructive=destructive,
    )


def parameter_mismatch(tool: Tool, input_schema: Mapping[str, Any]) -> str:
    """What differs between a contract's declared parameters and the upstream schema ('' when
    they agree or the contract declares none)."""
    if "parameters" not in tool.model_fields_set:
        return ""
    ours = tool.parameters.get("properties", {})
    theirs = input_schema.get("properties", {}) or {}
    problems = []
    missing = sorted(set(theirs) - set(ours))
    extra = sorted(set(ours) - set(theirs))
    if extra:
        problems.append(f"parameters {extra} are not in the upstream inputSchema")
    if missing:
        problems.append(f"upstream parameters {missing} are not declared")
    ours_req = sorted(tool.parameters.get("required", ()))
    theirs_req = sorted(input_schema.get("required", ()) or ())
    if ours_req != theirs_req:
        problems.append(f"required {ours_req} but upstream requires {theirs_req}")
    return "; ".join(problems)


def gateway_registry(registry: Registry, tools: Iterable[UpstreamTool]) -> Registry:
    """The contracts that name an upstream tool, completed from the upstream listing."""
    upstream = {t.qualified: t for t in tools}
    kept = []
    for tool in registry:
        found = upstream.get(tool.name)
        if found is None:
            continue
        update: dict[str, Any] = {"parameters": freeze(_object_schema(found.input_schema))}
        if tool.returns is None and found.output_schema is not None:
            update["returns"] = freeze(dict(found.output_schema))
        if found.destructive:
            update["risk"] = "high"
        try:  # checked again now that the parameters are known (authored, inputs, ...)
            kept.append(Tool.model_validate({**tool.model_dump(), **thaw(update)}))
        except ValueError as exc:
            raise ContractError(f"{registry.source or 'contracts'}: tool '{tool.name}': "
                                f"{_first_error(exc)}") from None
    return registry.with_tools(kept)


def _first_error(exc: ValueError) -> str:
    errors = getattr(exc, "errors", None)
    if callable(errors):
        return "; ".join(str(e.get("msg", "")).removeprefix("Value error, ") for e in errors())
    return str(exc)


def _object_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(thaw(schema))
    out.setdefault("type", "object")
    out.setdefault("properties", {})
    return out
