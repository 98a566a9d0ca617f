"""Following a value down a result: the identifiers other tools require, at any depth.

A business API answers with records holding lists of records (an order with its items, a
customer with payment methods). A variable some tool requires that appears as a field
anywhere in a read's result schema, through ``$ref``/``$defs``, objects and lists, is an
output of that read at its JSON pointer (``product_id`` at ``/items/*/product_id``):

- **by name**: the field's key is the variable (``payment_method_id``);
- **a list of one field**: a list parameter takes a scalar field of list items
  (``item_ids`` <- ``/items/*/item_id``), and a scalar parameter takes the items of a list
  field named for it (``order_id`` <- ``/order_ids/*``);
- **a role**: a qualified variable (``new_item_ids``) takes the field its last words name
  (``item_id``) only from a read its description names ("as the product's details list
  them" -> ``get_product_details``): the same field read elsewhere plays another role.

When the descriptions of a variable's parameters name the entity of some of the reads that
hold it (``item_ids``: "as the order lists them"), only those reads produce it: distinct
roles come from different places. Below the top level only identifiers are followed
(``*_id``, ``*_ids``, emails...): an old address's city inside an order is not the new city
a user asks for.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.text import words as split_words
from .names import entity_words, local_name, normalise, singular, tokens
from .outputs import deref
from .rules import ID_KEYS, verb_and_object
from .spec import ToolSpec

#: Words of a read's name that say nothing about its entity (``get_order_details``: order).
GENERIC_OBJECT_WORDS = frozenset({"details", "detail", "info", "information", "data", "all",
                                  "list", "by", "record", "records"})
#: Deepest nesting followed (a recursive schema stops here).
MAX_DEPTH = 8


@dataclass(frozen=True)
class Field:
    """One scalar (or list-of-scalars) field of a result schema."""

    #: Pointer tokens to the field (``("items", "*", "product_id")``).
    path: tuple[str, ...]
    #: The field's schema type: "string", "integer", "number" or "array" (of scalars).
    kind: str

    @property
    def key(self) -> str:
        return next(t for t in reversed(self.path) if t != "*")

    @property
    def depth(self) -> int:
        return len([t for t in self.path if t != "*"])

    @property
    def pointer(self) -> str:
        return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in self.path)


SCALARS = ("string", "integer", "number")


def _deref(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """A local ``$ref`` resolved (planfilter.infer.outputs.deref), and ``X | None`` read as X."""
    schema = deref(schema, root)
    if isinstance(schema, Mapping) and "type" not in schema:  # ``X | None``: the X
        options = [_deref(o, root) for o in schema.get("anyOf") or ()
                   if isinstance(o, Mapping) and o.get("type") != "null"]
        if len(options) == 1:
            return options[0]
    return schema if isinstance(schema, Mapping) else {}


def _kind(schema: Mapping[str, Any]) -> str | None:
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return None


def fields(root: Mapping[str, Any] | None) -> tuple[Field, ...]:
    """Every scalar field, and every list of scalars, of a result schema, in schema order."""
    if not root:
        return ()
    return tuple(_walk(root, root, (), 0))


def _walk(schema: Any, root: Mapping[str, Any], path: tuple[str, ...], depth: int
          ) -> Iterator[Field]:
    if depth > MAX_DEPTH:
        return
    node = _deref(schema, root)
    kind = _kind(node)
    if kind == "object":
        props = node.get("properties")
        for key, sub in (props.items() if isinstance(props, Mapping) else ()):
            inner = _deref(sub, root)
            inner_kind = _kind(inner)
            if inner_kind in SCALARS:
                yield Field((*path, str(key)), str(inner_kind))
            elif inner_kind == "array" and _kind(_deref(inner.get("items") or {}, root)) \
                    in SCALARS:
                yield Field((*path, str(key)), "array")
            else:
                yield from _walk(inner, root, (*path, str(key)), depth + 1)
    elif kind == "array":
        yield from _walk(node.get("items") or {}, root, (*path, "*"), depth + 1)


def _singular_key(word: str) -> str:
    return "id" if word == "ids" else singular(word)


def one_of(name: str) -> str:
    """The scalar a list variable holds (``item_ids`` -> ``item_id``); itself when singular."""
    parts = list(tokens(name))
    if not parts:
        return name
    parts[-1] = _singular_key(parts[-1])
    return "_".join(parts)


def is_identifier(variable: str) -> bool:
    parts = tokens(variable)
    return bool(parts) and parts[-1] in ID_KEYS


def reads_entity(spec: ToolSpec) -> frozenset[str]:
    """The entity words of a read's name (``get_order_details`` -> {"order"})."""
    _verb, words = verb_and_object(spec)
    words = entity_words(tuple(words)) or tokens(local_name(spec.name))
    return frozenset(singular(w) for w in words if w not in GENERIC_OBJECT_WORDS)


def names_entity(description: str, entity: frozenset[str]) -> bool:
    """``description`` names one of ``entity``'s words (singular, plural or possessive)."""
    words = {singular(w) for w in split_words(description, digits=False)}
    return bool(words & entity)


def match(variable: str, field: Field, vocabulary_name: str) -> str | None:
    """The pointer at which ``field`` holds ``variable`` (by name or as a list of one
    field; see the module docstring), or None. ``vocabulary_name`` is the variable the
    field's key stands for."""
    key = normalise(field.key)
    listed = "*" in field.path
    if vocabulary_name == variable or key == variable:
        if field.kind == "array" and one_of(key) != key and variable == key:
            return field.pointer  # a list parameter takes the whole list
        return field.pointer
    if listed and field.kind in SCALARS and one_of(variable) == key and one_of(variable) \
            != variable:
        return field.pointer  # item_ids <- /items/*/item_id
    if field.kind == "array" and one_of(key) == variable and one_of(key) != key:
        return field.pointer + "/*"  # order_id <- /order_ids/*
    return None


def role_base(variable: str, field: Field) -> bool:
    """``variable`` is a qualified role of the field's value (``new_item_ids`` of
    ``item_id``): its last words are the field's key, or its list."""
    key = normalise(field.key)
    parts = tokens(variable)
    for start in range(1, len(parts)):
        tail = "_".join(parts[start:])
        if tail == key or (one_of(tail) == key and "*" in field.path):
            return True
    return False


@dataclass(frozen=True)
class Found:
    tool: str
    pointer: str
    #: How: "name" (the key is the variable), "list" (a list of one field, or the items of
    #: a list named for it) or "role" (a qualified variable of the field's value).
    how: str


@dataclass(frozen=True)
class Followed:
    #: tool -> {variable: pointer} of what its result holds for other tools
    outputs: Mapping[str, Mapping[str, str]]
    #: tool -> variables its result holds that the descriptions say come from another read
    elsewhere: Mapping[str, frozenset[str]]


def followed(specs: Sequence[ToolSpec], reads: frozenset[str],
             wanted: Mapping[str, frozenset[str]], of_name: Any,
             described: Mapping[str, tuple[str, ...]]) -> Followed:
    """The identifiers each read's result holds for other tools, with their pointers (see
    the module docstring), and those it holds that come from another read by the
    descriptions. ``reads``: the tools whose results are reads;
    ``wanted``: tool -> the variables other tools require of it; ``of_name``: a field key ->
    its vocabulary variable; ``described``: variable -> its parameters' descriptions."""
    found: dict[str, list[Found]] = {}
    entities = {s.name: reads_entity(s) for s in specs}
    for spec in specs:
        if spec.name not in reads:
            continue
        for field in fields(spec.output_schema):
            for variable in sorted(wanted.get(spec.name, frozenset())):
                if field.depth > 1 and not is_identifier(variable):
                    continue
                pointer = match(variable, field, of_name(field.key))
                how = "name" if variable in (normalise(field.key), of_name(field.key)) \
                    else "list"
                if pointer is None and role_base(variable, field):
                    pointer, how = field.pointer, "role"
                if pointer is None:
                    continue
                here = found.setdefault(variable, [])
                if not any(f.tool == spec.name for f in here):
                    here.append(Found(spec.name, pointer, how))
    out: dict[str, dict[str, str]] = {}
    elsewhere: dict[str, set[str]] = {}
    for variable, places in found.items():
        said = described.get(variable, ())
        # where the descriptions say a value comes from ("one of the user's payment
        # methods", "as the order lists them"), it comes from there; else a field named as
        # the variable is it, and one only like it (a list of one field) too, a role never
        named = [f for f in places if any(names_entity(d, entities[f.tool]) for d in said)]
        kept = named if named else [f for f in places if f.how != "role"]
        for f in places:
            if f in kept:
                out.setdefault(f.tool, {})[variable] = f.pointer
            else:
                elsewhere.setdefault(f.tool, set()).add(variable)
    return Followed(out, {k: frozenset(v) for k, v in elsewhere.items()})
