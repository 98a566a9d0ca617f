"""Read registries and task suites from YAML or JSON files, or folders of them.

Every problem in a file is reported at once, each naming the file, the tool or task, the
field and the bad value, so that fixing a registry takes one round, not twenty.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from .contracts import EnvironmentSource, Goal, Registry, Tool
from .errors import ContractError
from .tasks import Suite, Task

SUFFIXES = (".yaml", ".yml", ".json")
#: libyaml's loader when PyYAML was built with it: ten times faster on the bundled suite.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
PathLike = str | Path


def expand(paths: PathLike | Iterable[PathLike], *, recursive: bool = True) -> list[Path]:
    """Files named by ``paths``: a file as is, a folder as its data files, sorted, and with
    ``recursive`` its subfolders' too."""
    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            walk = path.rglob("*") if recursive else path.iterdir()
            found = sorted(p for p in walk if p.suffix in SUFFIXES and p.is_file())
            if not found:
                raise ContractError(f"{path}: folder holds no .yaml, .yml or .json files")
            files.extend(found)
        elif path.is_file():
            files.append(path)
        else:
            raise ContractError(f"{path}: no such file or folder")
    return files


def read_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ContractError(f"{path}: cannot read file: {exc}") from None
    try:
        if path.suffix == ".json":
            return json.loads(text)
        return yaml.load(text, Loader=_LOADER)  # noqa: S506 - a safe loader
    except json.JSONDecodeError as exc:
        raise ContractError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise ContractError(f"{where}: invalid YAML: {problem}") from None


def _short(value: Any, limit: int = 80) -> str:
    if isinstance(value, (set, frozenset)):  # as the file would write it
        value = sorted(value, key=str)
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_SEQUENCE_TYPES = frozenset({"frozen_set_type", "set_type", "list_type", "tuple_type"})


def describe_errors(exc: ValidationError, where: str) -> list[str]:
    """One line per pydantic error: ``where field 'a.b': message (got value)``."""
    lines = []
    for err in exc.errors():
        field = ".".join(str(p) for p in err["loc"])
        whole = not err["loc"]  # an error of the whole item (fields that go together)
        msg = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = "unknown field"
        elif err["type"] in _SEQUENCE_TYPES:  # frozenset or tuple inside: a list in the file
            msg = "should be a list"
        got = "" if err["type"] == "missing" else f" (got {_short(err.get('input'))})"
        lines.append(f"{where}: {msg}{got}" if whole else f"{where} field '{field}': {msg}{got}")
    return lines


def _items(doc: Any, key: str, path: Path, allowed: set[str]) -> tuple[list[Any], list[str]]:
    """The list under ``key`` of a document, and problems with the document's top level."""
    if isinstance(doc, list):
        return doc, []
    if not isinstance(doc, Mapping):
        return [], [f"{path}: expected a mapping with a '{key}' list, got {type(doc).__name__}"]
    problems = [f"{path}: unknown top-level field '{k}'" for k in doc if k not in allowed]
    items = doc.get(key)
    if not isinstance(items, list):
        problems.append(f"{path}: field '{key}' must be a list (got {_short(items)})")
        return [], problems
    return items, problems


def _validate_each(
    model: type[BaseModel], items: list[Any], path: Path, kind: str, key: str,
    defaults: Mapping[str, Any] | None = None,
) -> tuple[list[Any], list[str]]:
    good, problems = [], []
    for i, raw in enumerate(items):
        label = raw.get(key) if isinstance(raw, Mapping) else None
        name = f"'{label}'" if isinstance(label, str) else f"#{i + 1}"
        where = f"{path}: {kind} {name}"
        if not isinstance(raw, Mapping):
            problems.append(f"{where}: expected a mapping, got {_short(raw)}")
            continue
        data = {**(defaults or {}), **raw}
        try:
            good.append(model.model_validate(data))
        except ValidationError as exc:
            problems.extend(describe_errors(exc, where))
    return good, problems


@dataclass(frozen=True)
class _Kind:
    """What distinguishes a registry file from a suite file."""

    model: type[BaseModel]
    list_key: str  # top-level list: "tools" or "tasks"
    label: str  # "tool" or "task"
    id_field: str  # "name" or "id"
    top_level: frozenset[str]
    inherited: tuple[str, ...] = ()  # top-level fields items inherit (a registry's domain)
    #: A second, optional top-level list and its model (a registry's ``goals``).
    side: tuple[str, type[BaseModel], str] | None = None
    #: An optional top-level mapping of name -> its model (a registry's ``environment``).
    mapping: tuple[str, type[BaseModel], str] | None = None


_TOOLS = _Kind(Tool, "tools", "tool", "name",
               frozenset({"domain", "tools", "description", "version", "goals", "environment"}),
               ("domain",), side=("goals", Goal, "goal"),
               mapping=("environment", EnvironmentSource, "environment"))
_TASKS = _Kind(Task, "tasks", "task", "id", frozenset({"tasks", "name", "description", "version"}))


@dataclass
class _Loaded:
    items: list[Any]
    side: list[Any]
    mapping: dict[str, Any]
    source: str


def _mapping_of(doc: Any, kind: _Kind, path: Path, found: dict[str, Any],
                origin: dict[str, Path]) -> list[str]:
    """Take the file's top-level mapping (a registry's ``environment``) into ``found``; a
    name two files give differently is a problem naming both."""
    if kind.mapping is None or not isinstance(doc, Mapping) or doc.get(kind.mapping[0]) is None:
        return []
    key, model, label = kind.mapping
    listed = doc[key]
    if not isinstance(listed, Mapping):
        return [f"{path}: field '{key}' must be a mapping of name -> source (got "
                f"{_short(listed)})"]
    problems = []
    for name, raw in listed.items():
        try:
            item = model.model_validate(raw)
        except ValidationError as exc:
            problems.extend(describe_errors(exc, f"{path}: {label} '{name}'"))
            continue
        if name in found and found[name] != item:
            problems.append(f"{path}: {label} '{name}': given differently in {origin[name]}")
            continue
        found[str(name)], origin[str(name)] = item, path
    return problems


def _load_items(paths: PathLike | Iterable[PathLike], kind: _Kind) -> _Loaded:
    """Every valid item (and side item) of every file, in order; or a ContractError listing
    every problem. A registry folder is its top-level files: its subfolders hold registries of
    their own (``domains/agentdojo/``), loaded when named; a suite folder is walked down."""
    files = expand(paths, recursive=kind is not _TOOLS)
    docs: list[tuple[Path, Any]] = []
    problems: list[str] = []
    for path in files:
        try:
            docs.append((path, read_document(path)))
        except ContractError as exc:
            problems.extend(exc.problems)
    return _load_documents(docs, kind, problems, ", ".join(str(f) for f in files))


def _load_documents(docs: Iterable[tuple[Path, Any]], kind: _Kind, problems: list[str],
                    source: str) -> _Loaded:
    """The items of documents already read (``path`` names each in messages)."""
    items: list[Any] = []
    side_items: list[Any] = []
    mapped: dict[str, Any] = {}
    mapped_origin: dict[str, Path] = {}
    origin: dict[str, Path] = {}
    for path, doc in docs:
        raw, top = _items(doc, kind.list_key, path, set(kind.top_level))
        problems.extend(top)
        defaults = {}
        if isinstance(doc, Mapping):
            defaults = {k: doc[k] for k in kind.inherited if doc.get(k) is not None}
        good, bad = _validate_each(kind.model, raw, path, kind.label, kind.id_field, defaults)
        problems.extend(bad)
        if kind.side is not None and isinstance(doc, Mapping) and doc.get(kind.side[0]) is not None:
            key, model, label = kind.side
            listed = doc[key]
            if not isinstance(listed, list):
                problems.append(f"{path}: field '{key}' must be a list (got {_short(listed)})")
            else:
                found, wrong = _validate_each(model, listed, path, label, "name")
                side_items.extend(found)
                problems.extend(wrong)
        problems.extend(_mapping_of(doc, kind, path, mapped, mapped_origin))
        for item in good:
            key = getattr(item, kind.id_field)
            if key in origin:
                problems.append(
                    f"{path}: {kind.label} '{key}' field '{kind.id_field}': duplicate of the "
                    f"{kind.label} of that {kind.id_field} in {origin[key]}"
                )
                continue
            origin[key] = path
            items.append(item)
    if problems:
        raise ContractError(problems)
    return _Loaded(items, side_items, mapped, source)


def load_registry(paths: PathLike | Iterable[PathLike]) -> Registry:
    """Load one registry from files or folders; tools keep file order, files sorted by path."""
    got = _load_items(paths, _TOOLS)
    return Registry(tools=tuple(got.items), source=got.source, goals=tuple(got.side),
                    environment=got.mapping)


def registry_of_document(doc: Any, where: str) -> Registry:
    """A registry from a document already read (a mapping with ``tools``, as a file holds),
    checked as a file is; ``where`` names it in messages."""
    got = _load_documents([(Path(where), doc)], _TOOLS, [], where)
    return Registry(tools=tuple(got.items), source=got.source, goals=tuple(got.side),
                    environment=got.mapping)


def load_suite(paths: PathLike | Iterable[PathLike]) -> Suite:
    """Load task suites from files or folders into one suite (ids must be unique across files)."""
    got = _load_items(paths, _TASKS)
    return Suite(tasks=tuple(got.items), source=got.source)
