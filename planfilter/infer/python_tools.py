"""Python tools in: callables, AgentDojo ``Function`` objects, or a module of them.

``python:package.module`` takes the module's ``TOOLS`` list when it has one, else every public
function (and ``Function`` object) defined in it; ``python:package.module:attr`` takes one
callable, one ``Function``, a list of them, or an object whose ``tools`` is such a list (an
AgentDojo ``TaskSuite``).

A plain function's parameters come from its signature and type hints, their descriptions
and the tool's description from its docstring (reST ``:param x:``, Google or numpy, read by
``docstring_parser``), and its output schema from the return annotation (pydantic's
``TypeAdapter(...).json_schema()``, in serialisation mode: results reach planfilter as
``model_dump``'d JSON). A parameter annotated with AgentDojo's ``Depends`` is the environment
the runtime injects, not an argument the model writes, and is left out. A ``Function``
already carries its parameters as a pydantic model; its return type is read the same way.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field, TypeAdapter, create_model
from pydantic.errors import PydanticUserError
from pydantic.fields import FieldInfo
from typing_extensions import is_typeddict

from ..core.frozen import freeze
from ..core.typehints import gathered_hint, portable
from .spec import SourceError, ToolSpec, map_subschema

PREFIX = "python:"


def is_python_source(raw: object) -> bool:
    return str(raw).startswith(PREFIX)


def tidy(schema: Any) -> Any:
    """A pydantic schema without its generated ``title``s (noise to a model and a reviewer);
    a property *named* ``title`` is kept."""
    if not isinstance(schema, Mapping):
        return schema
    return {key: map_subschema(key, value, tidy) for key, value in schema.items()
            if key != "title"}


def inline_refs(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A parameters schema with its local ``$ref``s replaced by the definitions they name and
    ``$defs`` dropped: each parameter's schema then stands alone, as a model reads it and as
    an argument is checked (``permission: {$ref: '#/$defs/SharingPermission'}`` becomes the
    enum itself). A recursive definition stays a reference."""
    defs = schema.get("$defs") or {}

    def walk(node: Any, seen: frozenset[str]) -> Any:
        if isinstance(node, list):
            return [walk(n, seen) for n in node]
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref[len("#/$defs/"):]
            if name in defs and name not in seen:
                rest = {k: v for k, v in node.items() if k != "$ref"}
                return walk({**defs[name], **rest}, seen | {name})
        return {k: walk(v, seen) for k, v in node.items()}

    out = walk({k: v for k, v in schema.items() if k != "$defs"}, frozenset())
    if "$ref" in str(out):  # a recursive definition: keep what it points at
        out["$defs"] = defs
    return out


def _is_depends(hint: Any) -> bool:
    """``Annotated[X, Depends(...)]``: AgentDojo's injected environment (read by shape, so
    that agentdojo need not be installed)."""
    if typing.get_origin(hint) is not typing.Annotated:
        return False
    return any(type(m).__name__ == "Depends" and hasattr(m, "env_dependency")
               for m in hint.__metadata__)


def annotated_text(hint: Any) -> str | None:
    """The text an ``Annotated`` hint describes its parameter with: a pydantic or MCP tool's
    ``Field(description=...)``, plain text (``Annotated[X, "what it is"]``, as many tool
    libraries take it) or PEP 727's ``Doc("what it is")``; None when it gives none (a
    docstring's word describes the parameter then)."""
    if typing.get_origin(hint) is not typing.Annotated:
        return None
    for extra in hint.__metadata__:
        if isinstance(extra, FieldInfo):
            said = extra.description
        else:
            said = extra if isinstance(extra, str) else getattr(extra, "documentation", None)
        if isinstance(said, str) and said.strip():
            return said
    return None


def _is_function_object(obj: Any) -> bool:
    """An AgentDojo ``Function`` (or anything of its shape)."""
    params = getattr(obj, "parameters", None)
    return (isinstance(obj, BaseModel) and isinstance(getattr(obj, "name", None), str)
            and isinstance(params, type) and issubclass(params, BaseModel))


def _docstring(text: str, where: str) -> Any:
    try:
        from docstring_parser import parse
    except ImportError:
        raise SourceError(f"{where}: reading Python tools needs the docstring_parser package "
                          "(pip install 'planfilter[python]')") from None
    return parse(text)


def listed_parameters(doc: str, names: Iterable[str]) -> dict[str, str]:
    """Parameters a docstring describes in lines of their own with no section heading that
    ``docstring_parser`` knows (``subject: optional filter, one of data, design.``, also as
    ``- subject:``, ``subject (str):`` or ``* `subject` — ...``), each with its text: to
    the next such line, a blank line or a line less indented than the text goes on."""
    wanted = set(names)
    found: dict[str, str] = {}
    current: str | None = None
    indent = 0
    for line in doc.splitlines():
        head = _LISTED.match(line)
        if head and head.group("name") in wanted:
            current, indent = head.group("name"), len(head.group("lead"))
            found[current] = head.group("text").strip()
        elif current and line.strip() and len(line) - len(line.lstrip()) > indent:
            found[current] = f"{found[current]}\n{line.strip()}"
        else:
            current = None
    return {k: v for k, v in found.items() if v}


#: A line that describes a parameter: its name first (perhaps after a dash, in backticks,
#: with a type in brackets), then a colon or a dash and the text (``* `asset_tags` —
#: comma-separated asset tags``, as Markdown lists write it; ``relationship -- to the
#: child``).
_LISTED = re.compile(r"(?P<lead>\s*(?:[-*]\s+)?)`{0,2}(?P<name>[A-Za-z_]\w*)`{0,2}"
                     r"(?:\s*\([^()]*\))?(?:\s*:|\s+(?:--|[-–—]))\s+(?P<text>.*)")


def output_schema(return_type: Any, where: str) -> Mapping[str, Any] | None:
    """The JSON Schema of what a tool returns, or None when it says nothing (no annotation,
    ``None``, ``Any``) or pydantic cannot describe it."""
    if return_type in (None, type(None), inspect.Signature.empty, Any):
        return None
    try:
        schema = TypeAdapter(return_type).json_schema(mode="serialization")
    except (PydanticUserError, TypeError, ValueError):
        return None
    return freeze(tidy(schema)) if schema else None


def spec_from_function(func: Callable[..., Any], where: str) -> ToolSpec:
    """A plain function -> ToolSpec."""
    name = getattr(func, "__name__", None)
    if not isinstance(name, str):
        raise SourceError(f"{where}: {func!r} has no __name__")
    here = f"{where}: tool '{name}'"
    try:
        hints = {name: portable(hint) for name, hint
                 in typing.get_type_hints(func, include_extras=True).items()}
        signature = inspect.signature(func)
    except (NameError, TypeError, ValueError) as exc:
        raise SourceError(f"{here}: cannot read its signature: {exc}") from None
    text = inspect.getdoc(func) or ""
    doc = _docstring(text, here)
    described = {p.arg_name: p.description or "" for p in doc.params}
    loose = listed_parameters(text, signature.parameters)
    described.update({k: v for k, v in loose.items() if not described.get(k)})
    fields: dict[str, Any] = {}
    for param in signature.parameters.values():
        hint = hints.get(param.name, Any)
        if _is_depends(hint):
            continue
        said = annotated_text(hint) or described.get(param.name) or next(
            (described[k] for k in (f"*{param.name}", f"**{param.name}") if described.get(k)),
            None)  # the hint's own word first
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):  # what it gathers, by name
            empty = list if param.kind is param.VAR_POSITIONAL else dict
            fields[param.name] = (gathered_hint(param, hint),
                                  Field(default_factory=empty, description=said))
            continue
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hint, Field(default, description=said))
    try:
        model = create_model(f"{name}_arguments", **fields)
        params = model.model_json_schema()
    except (PydanticUserError, TypeError, ValueError) as exc:
        raise SourceError(f"{here}: cannot build a schema of its parameters: {exc}") from None
    params = described_fields(params, [hint for hint, _ in fields.values()], here)
    returns = doc.returns.description if doc.returns is not None else None
    description = "\n".join(p for p in (doc.short_description, doc.long_description,
                                        f"Returns: {returns}" if returns else None) if p)
    return ToolSpec(name=name, description=description,
                    input_schema=freeze(inline_refs(tidy(params))),
                    output_schema=output_schema(hints.get("return"), here), origin=where)


def described_fields(schema: dict[str, Any], hints: Iterable[Any], where: str
                     ) -> dict[str, Any]:
    """``schema`` with each field of a record type a parameter takes (a ``TypedDict``, a
    dataclass, a pydantic model, at any depth of the hints) described as the class's
    docstring describes it (an ``Attributes`` section, ``:param:`` lines), where the schema
    does not already say: ``problem : str  One of "not_delivered", "damaged"`` gives the
    field ``problem`` its choices, as a parameter's docstring line does."""
    definitions = schema.get("$defs")
    if not isinstance(definitions, dict):
        return schema
    for cls in _record_types(hints):
        target = definitions.get(cls.__name__)
        properties = target.get("properties") if isinstance(target, dict) else None
        if not isinstance(properties, dict) or not inspect.getdoc(cls):
            continue
        doc = _docstring(inspect.getdoc(cls) or "", where)
        for item in doc.params:
            field = properties.get(item.arg_name)
            if isinstance(field, dict) and item.description and not field.get("description"):
                field["description"] = item.description
    return schema


def _record_types(hints: Iterable[Any]) -> list[type]:
    """The classes of records inside ``hints`` (``list[Stop]``, ``Stop | None``), each once."""
    found: list[type] = []
    todo = list(hints)
    while todo:
        hint = todo.pop()
        todo.extend(typing.get_args(hint))
        if isinstance(hint, type) and hint not in found and (
                is_typeddict(hint) or dataclasses.is_dataclass(hint)
                or issubclass(hint, BaseModel)):
            found.append(hint)
            try:
                todo.extend(typing.get_type_hints(hint).values())
            except (NameError, TypeError):  # a field's hint names what is not there: no more
                continue
    return found


def spec_from_function_object(obj: Any, where: str) -> ToolSpec:
    """An AgentDojo ``Function`` -> ToolSpec (its ``parameters`` model already leaves the
    ``Depends`` arguments out)."""
    here = f"{where}: tool '{obj.name}'"
    return ToolSpec(name=obj.name, description=str(obj.description or ""),
                    input_schema=freeze(inline_refs(tidy(obj.parameters.model_json_schema()))),
                    output_schema=output_schema(getattr(obj, "return_type", None), here),
                    origin=where)


def spec_of(obj: Any, where: str) -> ToolSpec:
    if _is_function_object(obj):
        return spec_from_function_object(obj, where)
    if inspect.isfunction(obj) or inspect.ismethod(obj) or inspect.isbuiltin(obj):
        return spec_from_function(obj, where)
    raise SourceError(f"{where}: {type(obj).__name__} {obj!r:.60} is neither a function nor "
                      "a Function")


def _module_tools(module: Any) -> list[Any]:
    """The module's ``TOOLS``, else its public functions and Functions, in source order."""
    listed = getattr(module, "TOOLS", None)
    if isinstance(listed, list | tuple):
        return list(listed)
    found = []
    for attr, value in vars(module).items():
        if attr.startswith("_"):
            continue
        if _is_function_object(value) or (inspect.isfunction(value)
                                          and value.__module__ == module.__name__):
            found.append(value)
    return found


def import_module(name: str, where: str) -> Any:
    try:
        return importlib.import_module(name)
    except Exception as exc:  # any failure of the user's module is theirs: name it
        hint = (" (an import cycle entered at this module: import the package's entry "
                "module first, with --import)" if "circular import" in str(exc) else "")
        raise SourceError(f"{where}: cannot import module '{name}': "
                          f"{type(exc).__name__}: {exc}{hint}") from None


def import_modules(names: Sequence[str]) -> None:
    """Import ``names`` in order, before Python sources are read: a package whose modules
    import each other in a cycle loads only from its entry module (AgentDojo's suites load
    from ``agentdojo.task_suite``, not from ``...banking.task_suite``)."""
    for name in names:
        import_module(name, f"--import {name}")


def read_python_source(raw: str) -> tuple[ToolSpec, ...]:
    """``python:package.module`` or ``python:package.module:attr`` -> ToolSpecs."""
    target = raw[len(PREFIX):]
    module_name, _, attr = target.partition(":")
    if not module_name:
        raise SourceError(f"{raw}: expected python:package.module or python:package.module:attr")
    module = import_module(module_name, raw)
    if not attr:
        items = _module_tools(module)
    else:
        obj: Any = module
        for part in attr.split("."):
            if not hasattr(obj, part):
                raise SourceError(f"{raw}: module '{module_name}' has no attribute '{attr}'")
            obj = getattr(obj, part)
        tools = getattr(obj, "tools", None)
        if isinstance(obj, list | tuple):
            items = list(obj)
        elif isinstance(tools, list | tuple) and not callable(obj):
            items = list(tools)
        else:
            items = [obj]
    if not items:
        raise SourceError(f"{raw}: no tools found (no TOOLS list, public function or Function)")
    return tuple(spec_of(item, f"{raw}#{i + 1}") for i, item in enumerate(items))
