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
  them" -> ``get_product_details``): the same field read elsewhere plays another role;
- **a collection of a thing**: an identifier (``order_id``) is held by a collection of
  scalars named for its entity (``orders: ["#W0000001", ...]`` -> ``/orders/*``) or
  documented as holding such ids ("the ids of the customer's orders"), by the bare ``id``
  of the objects of a collection named for it (``/payment_methods/*/id``), and by the keys
  of an object named for it or documented as keyed by it (``payment_methods`` keyed by
  payment method id -> ``/payment_methods/~``). The values of a map (``additionalProperties``)
  are walked as a list's items are (``*`` reads both).

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
from .names import (
    entity_words,
    ids_side,
    local_name,
    names_collection,
    normalise,
    singular,
    tokens,
)
from .outputs import deref
from .rules import ID_KEYS, verb_and_object
from .spec import ToolSpec

#: Words of a read's name that say nothing about its entity (``get_order_details``: order).
GENERIC_OBJECT_WORDS = frozenset({"details", "detail", "info", "information", "data", "all",
                                  "list", "by", "record", "records"})
#: Deepest nesting followed (a recursive schema stops here).
MAX_DEPTH = 8


#: Pointer tokens that are not keys: every item (or value), and an object's keys.
EVERY, KEYS = "*", "~"


@dataclass(frozen=True)
class Field:
    """One scalar field of a result schema, a collection of scalars (a list, or a map's
    values), or the keys of a map."""

    #: Pointer tokens to the field (``("items", "*", "product_id")``, ``("variants", "~")``).
    path: tuple[str, ...]
    #: "string", "integer", "number", "array" (a collection of scalars) or "keys".
    kind: str
    #: What the schema says of the field (or of the collection whose keys it is).
    description: str = ""

    @property
    def key(self) -> str:
        """The last key on the path ("" for a collection at the top of the result)."""
        return next((t for t in reversed(self.path) if t not in (EVERY, KEYS)), "")

    @property
    def depth(self) -> int:
        return len([t for t in self.path if t not in (EVERY, KEYS)])

    @property
    def collection(self) -> str:
        """The key of the collection the field is an item (or the keys) of ("" if none)."""
        if self.kind == "keys":
            return self.key
        if len(self.path) >= 3 and self.path[-2] == EVERY:
            return self.path[-3] if self.path[-3] not in (EVERY, KEYS) else ""
        return ""

    @property
    def pointer(self) -> str:
        return "".join("/" + (t if t == KEYS else t.replace("~", "~0").replace("/", "~1"))
                       for t in self.path)


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
    if "properties" in schema or "additionalProperties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return None


def fields(root: Mapping[str, Any] | None) -> tuple[Field, ...]:
    """Every scalar field, and every list of scalars, of a result schema, in schema order."""
    if not root:
        return ()
    return tuple(_walk(root, root, (), 0))


def _walk(schema: Any, root: Mapping[str, Any], path: tuple[str, ...], depth: int,
          said: str = "") -> Iterator[Field]:
    if depth > MAX_DEPTH:
        return
    node = _deref(schema, root)
    kind = _kind(node)
    if kind == "object":
        props = node.get("properties")
        for key, sub in (props.items() if isinstance(props, Mapping) else ()):
            inner = _deref(sub, root)
            text = _described(sub) or _described(inner)
            inner_kind = _kind(inner)
            if inner_kind in SCALARS:
                yield Field((*path, str(key)), str(inner_kind), text)
            elif _of_scalars(inner, root):
                yield Field((*path, str(key)), "array", text)
            else:
                yield from _walk(inner, root, (*path, str(key)), depth + 1, text)
        values = _map_values(node, root)
        if values is not None and _kind(values) not in SCALARS:
            # a map of records: their fields as a list's items' are, then the map's keys
            # (a map of scalars is one field of its parent, as a list of scalars is)
            yield from _walk(values, root, (*path, EVERY), depth + 1)
            if path:
                yield Field((*path, KEYS), "keys", said)
    elif kind == "array":
        yield from _walk(node.get("items") or {}, root, (*path, EVERY), depth + 1)


def _described(schema: Any) -> str:
    text = schema.get("description") if isinstance(schema, Mapping) else None
    return text if isinstance(text, str) else ""


def _map_values(node: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The schema of a map's values (``additionalProperties`` of an object), or None."""
    extra = node.get("additionalProperties")
    if not isinstance(extra, Mapping) or not extra:
        return None
    return _deref(extra, root)


def _of_scalars(schema: Mapping[str, Any], root: Mapping[str, Any]) -> bool:
    """A list of scalars, or a map whose values are scalars (its values are the items)."""
    if _kind(schema) == "array":
        return _kind(_deref(schema.get("items") or {}, root)) in SCALARS
    if _kind(schema) == "object" and not schema.get("properties"):
        values = _map_values(schema, root)
        return values is not None and _kind(values) in SCALARS
    return False


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
    """The pointer at which ``field`` holds ``variable`` (by name, as a list of one field, or
    as a collection of its entity; see the module docstring), or None.
    ``vocabulary_name`` is the variable the field's key stands for."""
    if field.kind == "keys":
        return _collected(variable, field)
    key = normalise(field.key)
    listed = EVERY in field.path
    if vocabulary_name == variable or key == variable:
        if field.kind == "array" and one_of(key) != key and variable == key:
            return field.pointer  # a list parameter takes the whole list
        return field.pointer
    if listed and field.kind in SCALARS and one_of(variable) == key and one_of(variable) \
            != variable:
        return field.pointer  # item_ids <- /items/*/item_id
    if field.kind == "array" and one_of(key) == variable and one_of(key) != key:
        return field.pointer + "/*"  # order_id <- /order_ids/*
    return _collected(variable, field)


#: Keys a record's own identifier goes by inside a collection of such records.
BARE_ID_KEYS = frozenset({"id", "uuid"})
def _collected(variable: str, field: Field) -> str | None:
    """The pointer at which a collection holds identifiers of ``variable``'s entity: the
    items of a list (or values of a map) of scalars, the bare ``id`` of its records, or the
    keys of a map, where the collection is named for the entity (``orders`` for
    ``order_id``) or its description says so ("keyed by payment method id")."""
    if not is_identifier(variable):
        return None
    parts = tokens(one_of(variable))
    entity, id_key = "_".join(parts[:-1]), parts[-1]
    if not entity:
        return None
    if field.kind == "array" and (names_collection(field.key, entity)
                                  or ids_side(field.description, entity, id_key)):
        return field.pointer + "/" + EVERY
    if field.kind == "keys" and (names_collection(field.key, entity)
                                 or ids_side(field.description, entity, id_key) == "keys"):
        return field.pointer
    if field.kind in SCALARS and normalise(field.key) in BARE_ID_KEYS \
            and id_key in BARE_ID_KEYS and names_collection(field.collection, entity):
        return field.pointer
    return None


def role_pointer(variable: str, field: Field) -> str | None:
    """Where ``field`` holds ``variable`` as a qualified role of its value (``new_item_ids``
    of ``item_id``; ``new_order_ids`` of ``orders``): the variable's last words are the
    field's key, its list, or the id of what the collection holds; None when they are not."""
    key = normalise(field.key)
    parts = tokens(variable)
    for start in range(1, len(parts)):
        tail = "_".join(parts[start:])
        if field.kind != "keys" and (tail == key or (one_of(tail) == key
                                                     and EVERY in field.path)):
            return field.pointer
        collected = _collected(tail, field)
        if collected is not None:
            return collected
    return None


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
                if pointer is None:
                    pointer, how = role_pointer(variable, field), "role"
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
