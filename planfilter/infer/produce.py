"""The order in which the produce rules are tried: the first that applies drafts ``produces``.

The result's shape comes first (a record, a list, an object's keys), then what the tool's
name and the other tools' requirements say, and last the effect ``<tool>_done``. A variable
a rule names itself (not an output key) is the whole result (``outputs: {var: ''}``) when the
tool declares an output schema: an object result would otherwise hold no key of its name.
"""

from __future__ import annotations

from collections.abc import Callable

from ..core.frozen import freeze
from . import outputs, rules
from .rules import Context, Drafted
from .spec import ToolSpec

ProduceRule = Callable[[ToolSpec, Context], Drafted | None]
#: In order: the first that applies drafts ``produces``.
PRODUCE_RULES: tuple[tuple[str, ProduceRule], ...] = (
    ("record", outputs.record_produces),
    ("list-items", outputs.list_produces_items),
    ("map-entries", outputs.map_produces_entries),
    ("output-schema", rules.from_output_schema),
    ("returns-named", rules.returns_named),
    ("lookup-id", rules.lookup_produces_id),
    ("create-id", rules.create_produces_id),
    ("read-content", rules.read_produces_content),
    ("transform", rules.transform_produces_derived),
    ("query-named", rules.query_produces_named),
)
#: Rules whose variables are output keys (or carry their own pointers).
KEYED = frozenset({"record", "list-items", "map-entries", "output-schema", "returns-named"})


def produces_of(spec: ToolSpec, ctx: Context) -> tuple[Drafted, str]:
    """(drafted produces, name of the rule that drafted them)."""
    for name, rule in PRODUCE_RULES:
        drafted = rule(spec, ctx)
        if drafted is not None:
            return _whole_result(spec, drafted, name), name
    return _whole_result(spec, rules.effect_done(spec, ctx), "effect"), "effect"


def _whole_result(spec: ToolSpec, drafted: Drafted, rule: str) -> Drafted:
    if rule in KEYED or spec.output_schema is None:
        return drafted
    pointers = {**{v: "" for v in drafted.variables}, **drafted.outputs}
    return Drafted(drafted.variables, drafted.note, freeze(pointers))
