"""Rules that read the shape of a tool's output schema: one record, a list, generic keys.

- **a record** (an object with a bare identifier key, ``id`` or ``id_``: the result *is* one
  entity). A create tool yields the effect ``<entity>_created`` (the whole result) and the
  new entity's identifier (``create_calendar_event`` -> ``calendar_event_created`` and
  ``event_id`` at ``/id_`` when other tools require ``event_id``): a read that returns ids
  never satisfies a goal of creating one. Any other tool yields its fields that other tools
  require (each at its key), and, when none is, ``<entity>_details`` (a read) or the effect
  ``<tool>_done`` (an action), so that a goal can name it.
- **a list**: the singular entity other tools take, from each item (``get_channels`` returns
  channel names -> ``channel`` at ``/*``; ``search_emails`` returns emails -> ``email_id`` at
  ``/*/id_``; scalars the description says are ids of a thing, "the ids of the customer's
  orders", -> ``order_id`` at ``/*``), the item fields other tools require (``/*/email``),
  and the list itself under the name the tool's name gives it (``channels``), which a read
  goal names.
- **a map** (an object of ``additionalProperties`` only): of scalars, the identifiers its
  description names on the values' side ("a mapping from each product's name to its product
  id" -> ``product_id`` at ``/*``); of records, the identifier of the entity the tool's name
  names (or the description says it is keyed by) from its keys (``/~``), and the records'
  fields other tools require (``/*/price``); and the map itself, as a list is. A map that
  holds nothing other tools take is left to the rules that read the tool's name.
- **generic keys** (``result``, ``status``, ``message``, ``success``...) of an object result are
  qualified with the tool's name (``<tool>_status``): otherwise every tool that answers
  ``{"status": ...}`` would produce one variable, and any of them would satisfy the others'
  goals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..core.frozen import freeze
from ..core.schemas import schema_kind
from .names import (
    entity_words,
    ids_side,
    local_name,
    names_collection,
    normalise,
    singular,
    tokens,
)
from .risk import action_of
from .rules import (
    CREATE_VERBS,
    ID_KEYS,
    Context,
    Drafted,
    _identifier_for,
    _runs,
    requires_of,
    verb_and_object,
)
from .spec import ToolSpec

#: Actions that read (the rest act, and their result is a receipt).
READING = frozenset({"read", "search", "list", "summarize", "extract", None})
#: Last words of a read's name that name no entity (``get_order_details`` reads an order).
DETAIL_WORDS = frozenset({"details", "detail", "info", "information"})
#: Fields an action's result has at least to be the record it acted on.
RECORD_MIN_FIELDS = 3
#: Keys that identify the record they are in.
RECORD_ID_KEYS = frozenset({"id", "uuid"})


def pointer(*tokens_: str) -> str:
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens_)


def deref(schema: Any, root: Mapping[str, Any]) -> Mapping[str, Any]:
    """A local ``$ref`` (``#/$defs/X``) resolved against the output schema's root."""
    seen = 0
    while isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str) and seen < 10:
        ref = schema["$ref"]
        if not ref.startswith("#/"):
            break
        node: Any = root
        for part in ref[2:].split("/"):
            node = node.get(part) if isinstance(node, Mapping) else None
        if not isinstance(node, Mapping):
            break
        schema, seen = node, seen + 1
    return schema if isinstance(schema, Mapping) else {}


def _props(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    props = schema.get("properties")
    return props if isinstance(props, Mapping) else {}


def _record_id_key(schema: Mapping[str, Any], spec: ToolSpec | None = None) -> str | None:
    bare = next((k for k in _props(schema) if normalise(k) in RECORD_ID_KEYS), None)
    if bare is not None or spec is None or action_of(spec)[0] in READING:
        return bare  # a read's fields are what it returns; an action's, the record it acted on
    if len(_props(schema)) < RECORD_MIN_FIELDS:
        return None  # a few result keys are a receipt, not the record acted on
    named = {singular(w) for w in tokens(local_name(spec.name))}
    taken = {normalise(p) for p in spec.required}
    return next((k for k in _props(schema) if len(tokens(k)) == 2 and tokens(k)[1] == "id"
                 and tokens(k)[0] in named and normalise(k) in taken), None)


def _consumed_fields(spec: ToolSpec, ctx: Context, item: Mapping[str, Any], root: Mapping[str, Any],
                     prefix: tuple[str, ...]) -> dict[str, str]:
    """Scalar fields of ``item`` whose name is a variable other tools require."""
    wanted = ctx.consumed_by_others(spec.name) - requires_of(spec, ctx.vocabulary).variables
    found = {}
    for key, sub in _props(item).items():
        var = ctx.vocabulary.of_name(str(key))
        if var in wanted and schema_kind(deref(sub, root)) in ("string", "integer", "number"):
            found[var] = pointer(*prefix, str(key))
    return found


def is_record(spec: ToolSpec) -> bool:
    """Does the tool return one record: an object with a bare identifier key, or, for a tool
    that acts on an entity its name names and whose identifier it takes, that entity's
    record (``cancel_pending_order(order_id)`` returns the order, ``order_id`` and at least
    two more fields: the record it acted on)?"""
    root = spec.output_schema
    if not root:
        return False
    record = deref(root, root)
    return schema_kind(record) in ("object", None) and _record_id_key(record, spec) is not None


def _takes_an_id(spec: ToolSpec) -> bool:
    return any(tokens(p)[-1:] and tokens(p)[-1] in ID_KEYS for p in spec.required)


def record_produces(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A result that is one record (see the module docstring)."""
    if not is_record(spec):
        return None
    root = spec.output_schema or {}
    record = deref(root, root)
    id_key = _record_id_key(record, spec) or "id"
    verb, words = verb_and_object(spec)
    action, _ = action_of(spec)
    obj = entity_words(words)
    if len(obj) > 1 and obj[-1] in DETAIL_WORDS:  # get_order_details reads an order
        obj = obj[:-1]
    entity = "_".join([*obj[:-1], singular(obj[-1])]) if obj else normalise(local_name(spec.name))
    outputs: dict[str, str] = {}
    if verb in CREATE_VERBS and not _takes_an_id(spec):
        effect = f"{entity}_created"
        outputs[effect] = ""
        new_id = _identifier_for(spec, ctx, obj) or f"{entity}_id"
        outputs[new_id] = pointer(id_key)
        note = (f"rule: {verb} of {entity} yields the effect {effect} and the new {new_id} "
                f"(at /{id_key}), distinct from the ids a read returns")
        return Drafted(frozenset(outputs), note, freeze(outputs))
    if action not in READING:
        var = f"{spec.name}_done"
        return Drafted(frozenset({var}), f"rule: effect of {local_name(spec.name)} (its result "
                       "is the record it acted on)", freeze({var: ""}))
    outputs.update({v: p for v, p in _consumed_fields(spec, ctx, record, root, ()).items()
                    if v not in ctx.elsewhere.get(spec.name, frozenset())})
    deeper = {v: p for v, p in ctx.nested.get(spec.name, {}).items() if v not in outputs}
    outputs.update(deeper)
    details = f"{entity}_details"
    outputs[details] = ""
    said = (f"its fields other tools require ({', '.join(sorted(outputs)[:-1] or ())}) and "
            if len(outputs) > 1 else "")
    if deeper:
        said += ("values inside it: " + ", ".join(f"{v} at {p}" for v, p in sorted(
            deeper.items())) + ", and ")
    return Drafted(frozenset(outputs), f"rule: {verb} of one {entity} record yields {said}"
                   f"the record as {details}", freeze(outputs))


def list_produces_items(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A result that is a list (see the module docstring)."""
    root = spec.output_schema
    if not root:
        return None
    top = deref(root, root)
    if schema_kind(top) != "array":
        return None
    item = deref(top.get("items") or {}, root)
    _verb, words = verb_and_object(spec)
    obj = entity_words(words)
    own = requires_of(spec, ctx.vocabulary).variables
    wanted = ctx.consumed_by_others(spec.name) - own
    outputs: dict[str, str] = {}
    if schema_kind(item) in ("object", None) and _props(item):
        id_key = _record_id_key(item)
        props = {normalise(k): k for k in _props(item)}
        for run in _runs(obj):
            for key in ID_KEYS:
                var = f"{run}_{key}"
                if var not in wanted:
                    continue
                field = props.get(var) or props.get(key) or (id_key if key == "id" else None)
                if field is not None:
                    outputs[var] = pointer("*", field)
        outputs.update({v: p for v, p in _consumed_fields(spec, ctx, item, root, ("*",)).items()
                        if v not in outputs})
    elif schema_kind(item) in ("string", "integer", "number"):
        for run in _runs(obj):  # a list of names or ids: the entity itself, not its email
            for var in (run, f"{run}_id", f"{run}_name"):
                if var in wanted and var not in outputs:
                    outputs[var] = "/*"
            if outputs:
                break
        if not outputs:  # "Returns: the ids of the customer's orders"
            outputs.update({var: "/*" for var in sorted(wanted) if (ids := _ids_of(var))
                            and ids_side(spec.description, *ids) == "values"})
    listed = normalise("_".join(obj)) if obj else f"{normalise(local_name(spec.name))}_result"
    if listed in own or listed in outputs:
        listed = f"{listed}_list"
    outputs[listed] = ""
    items = sorted(v for v in outputs if v != listed)
    said = f"each item's {', '.join(items)} (other tools require them) and " if items else ""
    return Drafted(frozenset(outputs), f"schema: a list: {said}the list as {listed}",
                   freeze(outputs))


def _map_values(schema: Mapping[str, Any], root: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The schema of a map's values: an object with ``additionalProperties`` and no declared
    properties; None for anything else."""
    if schema_kind(schema) not in ("object", None) or _props(schema):
        return None
    extra = schema.get("additionalProperties")
    return deref(extra, root) if isinstance(extra, Mapping) and extra else None


def _ids_of(variable: str) -> tuple[str, str] | None:
    """(entity, id key) of an identifier variable (``product_ids`` -> ("product", "id"))."""
    parts = list(tokens(variable))
    if len(parts) < 2 or parts[-1] not in ID_KEYS:
        return None
    key = "id" if parts[-1] == "ids" else parts[-1]
    return "_".join(parts[:-1]), key


def map_produces_entries(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A result that is a map (see the module docstring)."""
    root = spec.output_schema
    if not root:
        return None
    values = _map_values(deref(root, root), root)
    if values is None:
        return None
    _verb, words = verb_and_object(spec)
    obj = entity_words(words)
    wanted = ctx.consumed_by_others(spec.name) - requires_of(spec, ctx.vocabulary).variables
    scalar = schema_kind(values) in ("string", "integer", "number")
    outputs: dict[str, str] = {}
    for var in sorted(wanted):
        ids = _ids_of(var)
        if ids is None:
            continue
        side = ids_side(spec.description, *ids)
        if side is None and not scalar and any(names_collection(r, ids[0]) for r in _runs(obj)):
            side = "keys"  # ``list_products() -> dict[str, Product]`` is keyed by product
        if side == "values" and scalar:
            outputs[var] = "/*"
        elif side == "keys":
            outputs[var] = "/~"
    if not scalar:
        outputs.update({v: p for v, p in _consumed_fields(spec, ctx, values, root, ("*",)).items()
                        if v not in outputs})
    if not outputs:
        return None  # a map of nothing other tools take: the rules of names apply
    listed = normalise("_".join(obj)) if obj else f"{normalise(local_name(spec.name))}_result"
    if listed in outputs or listed in requires_of(spec, ctx.vocabulary).variables:
        listed = f"{listed}_map"
    outputs[listed] = ""
    entries = sorted(v for v in outputs if v != listed)
    said = (f"{', '.join(f'{v} at {outputs[v]}' for v in entries)} (other tools require "
            "them) and " if entries else "")
    return Drafted(frozenset(outputs), f"schema: a map: {said}the map as {listed}",
                   freeze(outputs))
