"""``contracts learn``: data-flow edges learned from recorded runs.

Where a value that first appeared in one tool's result reappears as an argument of a later
call in the same run, the later tool needs what the earlier one gives. From every such
reappearance this module proposes what the contracts lack:

- ``requires``: the consumer requires the variable its parameter carries;
- ``produces`` (and an ``outputs`` pointer to where the value was in the result): the
  producer gives that variable, when it did not already;
- ``inputs``: the parameter carries a variable the producer already gives under another
  name (``recipient`` holds what ``get_iban`` gives as ``iban``), when no tool gives the
  parameter's own variable.

Each proposal carries its evidence (how many calls showed it) and the ``file:line`` of an
example. Values are matched exactly (text without its whitespace; a number and its decimal
text are one value); trivial values (booleans, 0 and 1, text shorter than four characters,
``true``/``none``...) and values the user gave (a run's first state, the user's messages)
are ignored, and a value counts only from the first result it appeared in. A parameter
whose values came from variables of several kinds (a location from a hotel's address and
from a restaurant's) takes any of them: requiring all would be wrong, so nothing is proposed
for it; nor for a parameter the contract marks ``authored``.

Traces are ``planfilter run``'s ``traces.jsonl`` (``step`` lines), or OpenAI-style chat
logs: one message a line (JSON Lines), one conversation a line (``{"messages": [...]}``),
or a JSON array of messages; assistant messages carry ``tool_calls`` (``function.name``,
``function.arguments``) and ``tool`` messages the result of the call ``tool_call_id`` names.

:func:`merge` adds the proposals to a registry document: it never drops nor changes a
field, it only adds items, and notes what it added under the tool's ``inferred.learned``.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ..core.contracts import Registry, Tool
from ..core.errors import PlanfilterError
from ..core.results import extract, parse_result

#: Text shorter than this matches by accident too often to mean anything.
MIN_TEXT = 4
#: A record's field name; a mapping with other keys (``City Hub``) is keyed by data.
FIELD_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TRIVIAL_TEXT = frozenset({"true", "false", "none", "null", "nil", "yes", "no", "n/a"})


@dataclass(frozen=True)
class Event:
    """One call of a run, with its result when it succeeded."""

    where: str
    tool: str
    arguments: Mapping[str, Any]
    result: Any = None
    succeeded: bool = False
    #: Variable -> value the run extracted from the result (planfilter traces only).
    produced: Mapping[str, Any] | None = None


@dataclass
class Run:
    events: list[Event] = field(default_factory=list)
    #: Values the user gave (a run's first state, the user's messages' text).
    given: list[Any] = field(default_factory=list)
    given_text: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Reuse:
    """A value of ``producer``'s result (at ``pointer``) used as ``consumer``'s ``param``."""

    producer: str
    pointer: str
    held_by: frozenset[str]
    consumer: str
    param: str
    where: str


@dataclass(frozen=True)
class Proposal:
    tool: str
    #: requires, produces, outputs or inputs.
    field: str
    #: The variable (requires, produces), or the parameter (inputs) or variable (outputs).
    key: str
    #: The pointer (outputs) or variable (inputs); empty for requires and produces.
    value: str
    evidence: int
    example: str
    source: str

    def __str__(self) -> str:
        what = f"{self.key}: {self.value!r}" if self.field in ("outputs", "inputs") else self.key
        return (f"{self.tool}: {self.field} + {what} ({self.source}; {self.evidence} "
                f"call{'s' if self.evidence != 1 else ''}, e.g. {self.example})")


# --- values -------------------------------------------------------------------------------

def value_key(value: Any) -> tuple[str, Any] | None:
    """The key two values share when they are one value, or None for a trivial value."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        number = float(value)
        return None if number in (0.0, 1.0, -1.0) else ("n", number)
    if isinstance(value, str):
        text = re.sub(r"\s+", "", value)
        try:
            number = float(text)
        except ValueError:
            pass
        else:
            if re.fullmatch(r"-?\d+(\.\d+)?", text):
                return value_key(number)
        if len(text) < MIN_TEXT or text.lower() in TRIVIAL_TEXT:
            return None
        return ("s", text)
    return None


def _leaves(result: Any) -> Iterator[tuple[str, Any]]:
    """(JSON Pointer, scalar) of every scalar in ``result``; ``*`` for a list item."""
    stack: list[tuple[str, Any]] = [("", result)]
    while stack:
        pointer, node = stack.pop()
        if isinstance(node, Mapping):
            for k, v in node.items():
                token = str(k).replace("~", "~0").replace("/", "~1")
                stack.append((f"{pointer}/{token}", v))
        elif isinstance(node, list | tuple):
            stack.extend((f"{pointer}/*", v) for v in node)
        else:
            yield pointer, node


def _scalars(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [v for v in value if not isinstance(v, Mapping | list | tuple)]
    if isinstance(value, Mapping):
        return []
    return [value]


def _structured(result: Any) -> Any:
    value = parse_result(result)
    if isinstance(value, str) and ("\n" in value or ": " in value):
        try:  # AgentDojo answers YAML text
            loaded = yaml.safe_load(value)
        except yaml.YAMLError:
            return value
        if isinstance(loaded, Mapping | list):
            return loaded
    return value


# --- reading traces -----------------------------------------------------------------------

def _json_items(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line, item) of a JSON array document, or of JSON Lines."""
    if text.lstrip().startswith("["):
        decoder = json.JSONDecoder()
        pos = text.index("[") + 1
        while True:
            while pos < len(text) and text[pos] in " \t\r\n,":
                pos += 1
            if pos >= len(text):
                raise PlanfilterError(f"{path}:{text.count(chr(10)) + 1}: the JSON array "
                                      "is not closed")
            if text[pos] == "]":
                return
            line = text.count("\n", 0, pos) + 1
            try:
                item, pos = decoder.raw_decode(text, pos)
            except json.JSONDecodeError as exc:
                raise PlanfilterError(f"{path}:{exc.lineno}: not JSON: {exc.msg}") from None
            yield line, item
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            yield number, json.loads(raw)
        except json.JSONDecodeError as exc:
            raise PlanfilterError(f"{path}:{number}: not a JSON line: {exc.msg}") from None


def read_runs(paths: Iterable[Path]) -> list[Run]:
    """The runs of trace files (planfilter traces or OpenAI message logs, told apart line
    by line); a malformed line is an error naming the file and line."""
    runs: dict[tuple[str, ...], Run] = {}
    for path in paths:
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise PlanfilterError(f"{path}: cannot read trace file: {exc}") from None
        chat: list[tuple[int, Any]] = []
        for number, item in _json_items(path, text):
            where = f"{path}:{number}"
            if not isinstance(item, Mapping):
                raise PlanfilterError(f"{where}: expected a JSON object, got "
                                      f"{type(item).__name__}")
            if "type" in item:
                if item.get("type") == "step":
                    _planfilter_step(runs, str(path), where, item)
            elif isinstance(item.get("messages"), list):
                _chat(runs, (str(path), str(number)), path,
                      [(number, m) for m in item["messages"]])
            elif "role" in item:
                chat.append((number, item))
            else:
                raise PlanfilterError(f"{where}: neither a planfilter trace line ('type') nor "
                                      "a chat message ('role') nor a conversation "
                                      "('messages')")
        if chat:
            _chat(runs, (str(path),), path, chat)
    return list(runs.values())


def _planfilter_step(runs: dict[tuple[str, ...], Run], path: str, where: str,
                     line: Mapping[str, Any]) -> None:
    key = (path, *(str(line.get(k, "")) for k in ("task", "method", "model", "seed",
                                                     "injection")))
    run = runs.get(key)
    if run is None:
        run = runs[key] = Run()
        state = line.get("state_before")
        if isinstance(state, Mapping):
            run.given.extend(state.values())
    name = line.get("chosen")
    if not isinstance(name, str) or not name:
        return
    arguments = line.get("arguments")
    if arguments is not None and not isinstance(arguments, Mapping):
        raise PlanfilterError(f"{where}: 'arguments' is not an object")
    ok = not line.get("error") and not line.get("tool_failed")
    produced = line.get("produced")
    run.events.append(Event(where, name, arguments or {}, line.get("result"), ok,
                            produced if isinstance(produced, Mapping) else None))


def _chat(runs: dict[tuple[str, ...], Run], key: tuple[str, ...], path: Path,
          messages: Sequence[tuple[int, Any]]) -> None:
    run = runs.setdefault(key, Run())
    calls: dict[str, str] = {}  # tool_call_id -> tool name
    for number, message in messages:
        where = f"{path}:{number}"
        if not isinstance(message, Mapping):
            raise PlanfilterError(f"{where}: a message is not a JSON object")
        role = message.get("role")
        if role in ("user", "system") and isinstance(message.get("content"), str):
            run.given_text.append(message["content"])
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function") if isinstance(call, Mapping) else None
                if not isinstance(function, Mapping) or not isinstance(
                        function.get("name"), str):
                    raise PlanfilterError(f"{where}: a tool call without function.name")
                raw = function.get("arguments") or {}
                if isinstance(raw, str):
                    try:
                        raw = json.loads(raw) if raw.strip() else {}
                    except json.JSONDecodeError as exc:
                        raise PlanfilterError(f"{where}: tool call '{function['name']}': "
                                              f"arguments are not JSON: {exc.msg}") from None
                if not isinstance(raw, Mapping):
                    raise PlanfilterError(f"{where}: tool call '{function['name']}': "
                                          "arguments are not an object")
                calls[str(call.get("id", ""))] = function["name"]
                run.events.append(Event(where, function["name"], raw))
        elif role == "tool":
            call_id = str(message.get("tool_call_id", ""))
            if call_id not in calls:
                raise PlanfilterError(f"{where}: tool message for unknown tool_call_id "
                                      f"{call_id!r}")
            content = message.get("content")
            if isinstance(content, list):  # content parts
                content = "".join(str(p.get("text", "")) for p in content
                                  if isinstance(p, Mapping))
            failed = isinstance(content, str) and content.lower().startswith("error")
            run.events.append(Event(where, calls[call_id], {}, content, not failed))


# --- learning ------------------------------------------------------------------------------

def reuses(registry: Registry, runs: Iterable[Run]) -> list[Reuse]:
    """Every argument value that first appeared in an earlier result of its run."""
    out = []
    for run in runs:
        given = {k for k in map(value_key, run.given) if k}
        for v in run.given:
            given.update(k for k in map(value_key, _scalars(v)) if k)
        text = "\n".join(run.given_text)
        seen: dict[tuple[str, Any], tuple[str, str, frozenset[str]]] = {}
        written: set[tuple[str, Any]] = set()
        for event in run.events:
            if event.tool not in registry:
                continue
            for param, value in sorted(event.arguments.items()):
                for item in _scalars(value):
                    key = value_key(item)
                    if key is None:
                        continue
                    if key in seen:
                        producer, pointer, held = seen[key]
                        if producer != event.tool:
                            out.append(Reuse(producer, pointer, held, event.tool, str(param),
                                             event.where))
                    else:
                        written.add(key)
            if not event.succeeded:
                continue
            tool = registry.tool(event.tool)
            result = _structured(event.result)
            held_values = _held(tool, result, event.produced)
            for pointer, item in _leaves(result):
                key = value_key(item)
                if key is None or key in seen or key in given or key in written:
                    continue
                if key[0] == "s" and key[1] in text.replace(" ", ""):
                    continue  # the user wrote it
                held = frozenset(v for v, keys in held_values.items() if key in keys)
                seen[key] = (event.tool, pointer, held)
    return out


def _held(tool: Tool, result: Any, produced: Mapping[str, Any] | None
          ) -> dict[str, set[tuple[str, Any]]]:
    """Produced variable -> the keys of the values it holds in this result: itself, the items
    of a list, or the values of a name -> value map, not values deep inside records."""
    if produced is None:
        try:
            produced = extract(tool, result).values
        except Exception:  # noqa: BLE001 - a result the contract cannot read holds nothing
            produced = {}
    out: dict[str, set[tuple[str, Any]]] = {}
    for variable, value in produced.items():  # the value itself, not one deep inside it
        items = _scalars(value)
        if isinstance(value, Mapping) and not all(
                FIELD_NAME.fullmatch(str(k)) for k in value):
            # keyed by data, not by field names: a name -> value map (hotel -> its address)
            items = [v for v in value.values() if not isinstance(v, Mapping | list | tuple)]
        keys = {value_key(item) for item in items}
        out[str(variable)] = {k for k in keys if k}
    return out


def propose(registry: Registry, found: Iterable[Reuse], min_evidence: int = 1
            ) -> list[Proposal]:
    """What the contracts lack for the reuses ``found`` (see the module docstring)."""
    produced_by = defaultdict(set)
    for tool in registry:
        for v in tool.produces:
            produced_by[v].add(tool.name)
    counts: dict[tuple[str, str, str, str], list[str]] = defaultdict(list)
    sources: dict[tuple[str, str, str, str], str] = {}

    def add(tool: str, field_: str, key: str, value: str, where: str, source: str) -> None:
        counts[(tool, field_, key, value)].append(where)
        sources.setdefault((tool, field_, key, value), source)

    carried: dict[tuple[str, str], set[str]] = defaultdict(set)
    for r in found:
        consumer = registry.tool(r.consumer)
        variable = consumer.variable_of(r.param)
        if variable not in r.held_by and r.held_by:
            variable = sorted(r.held_by)[0]
        carried[(r.consumer, r.param)].add(variable)
    for r in found:
        consumer = registry.tool(r.consumer)
        producer = registry.tool(r.producer)
        if r.param in consumer.authored or len(carried[(r.consumer, r.param)]) > 1:
            continue  # the model writes it, or it takes values of several kinds (any of)
        variable = consumer.variable_of(r.param)
        source = f"{r.producer}{r.pointer or ' (whole result)'} -> {r.consumer}.{r.param}"
        if variable in r.held_by:
            if variable not in consumer.requires:
                add(r.consumer, "requires", variable, "", r.where, source)
            continue
        if r.held_by and r.param not in consumer.inputs and not produced_by.get(variable):
            other = sorted(r.held_by)[0]
            add(r.consumer, "inputs", r.param, other, r.where, source)
            if other not in consumer.requires:
                add(r.consumer, "requires", other, "", r.where, source)
            continue
        if variable not in producer.produces:
            add(r.producer, "produces", variable, "", r.where, source)
            if variable not in producer.outputs:
                add(r.producer, "outputs", variable, r.pointer, r.where, source)
        if variable not in consumer.requires:
            add(r.consumer, "requires", variable, "", r.where, source)
    out = []
    for key, wheres in counts.items():
        if len(wheres) >= min_evidence:
            out.append(Proposal(*key, evidence=len(wheres), example=wheres[0],
                                source=sources[key]))
    # one pointer a variable, one variable a parameter: the one with the most evidence
    best: dict[tuple[str, str, str], Proposal] = {}
    for p in out:
        if p.field in ("outputs", "inputs"):
            k = (p.field, p.tool, p.key)
            if k not in best or p.evidence > best[k].evidence:
                best[k] = p
    out = [p for p in out
           if p.field not in ("outputs", "inputs") or best[(p.field, p.tool, p.key)] is p]
    return sorted(out, key=lambda p: (p.tool, p.field, p.key, p.value))


def learn(registry: Registry, paths: Iterable[Path], min_evidence: int = 1
          ) -> tuple[list[Proposal], int, int]:
    """(proposals, runs read, reuses found) of the trace files ``paths``."""
    runs = read_runs(paths)
    found = reuses(registry, runs)
    return propose(registry, found, min_evidence), len(runs), len(found)


# --- merging -------------------------------------------------------------------------------

def merge(document: Mapping[str, Any], proposals: Sequence[Proposal]) -> dict[str, Any]:
    """``document`` (a registry file's data) with the proposals added: items are only ever
    added (a list field gains a name, a mapping field a key it lacked), each tool's
    additions noted under ``inferred.learned``."""
    tools = document.get("tools")
    if not isinstance(tools, list):
        raise PlanfilterError("contracts learn needs a registry file (a 'tools' list)")
    by_tool: dict[str, list[Proposal]] = defaultdict(list)
    for p in proposals:
        by_tool[p.tool].append(p)
    out_tools = []
    for raw in tools:
        tool = dict(raw)
        notes = []
        for p in by_tool.get(str(tool.get("name")), ()):
            if p.field in ("requires", "produces"):
                items = list(tool.get(p.field) or [])
                if p.key in items:
                    continue
                tool[p.field] = sorted([*items, p.key])
            else:
                mapping = dict(tool.get(p.field) or {})
                if p.key in mapping:
                    continue
                mapping[p.key] = p.value
                tool[p.field] = mapping
            what = f"{p.key}: {p.value!r}" if p.field in ("outputs", "inputs") else p.key
            notes.append(f"{p.field} + {what} ({p.evidence} calls, e.g. {p.example})")
        if notes:
            inferred = dict(tool.get("inferred") or {})
            old = inferred.get("learned")
            inferred["learned"] = "; ".join([*([old] if old else []),
                                             "traces: " + "; ".join(notes)])
            tool["inferred"] = inferred
        out_tools.append(tool)
    return {**document, "tools": out_tools}
