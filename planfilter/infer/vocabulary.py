"""One variable per meaning across tools, every merge recorded with its evidence.

Each input and output property of every tool is an *occurrence*. Occurrences become
variables in three steps:

1. **names**: spellings that normalise to one name are one variable (``eventId``,
   ``event-id`` and ``event_id`` -> ``event_id``), unless their declared types disagree
   (a string ``target`` and an object ``target`` stay apart: the rarer one is qualified
   with its tool's name);
2. **descriptions**: a variable whose description says it *is* another one of the same kind
   folds into it: ``receiver_id`` described as "the id of the user" becomes ``user_id``
   when some tool uses ``user_id`` (the same last word, ``id``; compatible types; the
   variable used by fewer tools folds into the one used by more);
3. **embedder** (when one is given): as 2, when the description names an entity that no
   variable has (``"email of the payee"``) but whose embedding is close to the entity of one
   that does (``recipient_email``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ..core.text import words as split_words
from .names import normalise, singular, tokens
from .spec import ToolSpec

#: Words a description may use for the last word of a variable's name.
KEY_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    "id": ("id", "identifier", "ids"),
    "email": ("email", "e-mail", "address", "email address"),
}
EMBEDDER_THRESHOLD = 0.8


class Encoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


@dataclass(frozen=True)
class Occurrence:
    tool: str
    prop: str
    side: str  # "in" or "out"
    type: str | None
    description: str


@dataclass(frozen=True)
class Merge:
    """``names`` became ``variable`` because of ``evidence`` (kind: name, description,
    embedder, type-split)."""

    variable: str
    names: tuple[str, ...]
    kind: str
    evidence: str

    def __str__(self) -> str:
        return f"{', '.join(self.names)} -> {self.variable} ({self.kind}: {self.evidence})"


@dataclass(frozen=True)
class Vocabulary:
    #: (tool, property, side) -> variable
    mapping: Mapping[tuple[str, str, str], str]
    merges: tuple[Merge, ...]
    #: raw or normalised property name -> the variable most occurrences of it became
    by_name: Mapping[str, str]

    def variable(self, tool: str, prop: str, side: str = "in") -> str:
        return self.mapping[(tool, prop, side)]

    def of_name(self, name: str) -> str:
        """The variable a name (a task's state key, say) stands for; itself when unknown."""
        return self.by_name.get(name, self.by_name.get(normalise(name), name))

    def merges_for(self, variables: Iterable[str]) -> list[Merge]:
        wanted = set(variables)
        return [m for m in self.merges if m.variable in wanted]


def schema_type(schema: Any) -> str | None:
    if not isinstance(schema, Mapping):
        return None
    kind = schema.get("type")
    if isinstance(kind, str):
        return "number" if kind == "integer" else kind
    if "$ref" in schema or "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return None


def occurrences(specs: Iterable[ToolSpec]) -> list[Occurrence]:
    found = []
    for spec in specs:
        for side, props in (("in", spec.properties), ("out", spec.output_properties)):
            for prop, schema in props.items():
                desc = schema.get("description", "") if isinstance(schema, Mapping) else ""
                found.append(Occurrence(spec.name, str(prop), side, schema_type(schema),
                                        str(desc or "")))
    return found


def _compatible(a: set[str], b: set[str]) -> bool:
    return not a or not b or bool(a & b)


def _entity_pattern(words: Sequence[str]) -> str:
    """Regex for an entity phrase, singular or plural last word."""
    *head, last = words
    tail = rf"{re.escape(singular(last))}s?" if singular(last) == last else re.escape(last)
    return r"[\s_-]+".join([*map(re.escape, head), tail])


def _says_is(description: str, target: str) -> bool:
    """Does ``description`` say the value is ``target`` (``entity_key``)?"""
    text = description.lower()
    parts = tokens(target)
    if len(parts) < 2:
        return False
    *entity, key = parts
    keys = "|".join(map(re.escape, KEY_SYNONYMS.get(key, (key,))))
    ent = _entity_pattern(entity)
    det = r"(?:the\s+|a\s+|an\s+|this\s+|that\s+|its\s+)?"
    patterns = (
        rf"\b(?:{keys})\b(?:\s+\w+){{0,2}}\s+of\s+{det}{ent}\b",
        rf"\b{ent}'s\s+(?:\w+\s+){{0,2}}?(?:{keys})\b",
        rf"\b{det}{ent}\s+(?:{keys})\b",
        rf"(?<![\w.]){re.escape(target)}(?![\w])",
    )
    return any(re.search(p, text) for p in patterns)


def _names_itself(descriptions: Sequence[str], entity: Sequence[str]) -> bool:
    """Every description names the variable's own entity (each of its words, singular or
    plural): it says what it is itself."""
    if not descriptions or not entity:
        return False
    for text in descriptions:
        words = {singular(w) for w in split_words(text, digits=False)}
        if not all(singular(e) in words for e in entity):
            return False
    return True


def _named_entity(description: str, key: str) -> str | None:
    """The entity words of "<key> ... of the <entity>" in a description, if any."""
    keys = "|".join(map(re.escape, KEY_SYNONYMS.get(key, (key,))))
    match = re.search(rf"\b(?:{keys})\b(?:\s+\w+){{0,2}}\s+of\s+(?:the\s+|a\s+|an\s+)?"
                      r"([a-z]+(?:\s+[a-z]+)?)", description.lower())
    return match.group(1) if match else None


def build_vocabulary(specs: Sequence[ToolSpec], embedder: Encoder | None = None,
                     threshold: float = EMBEDDER_THRESHOLD) -> Vocabulary:
    """The variables of every occurrence in ``specs``, in the three steps above (the third
    only with an ``embedder``), each merge recorded."""
    occ = occurrences(specs)
    merges: list[Merge] = []
    var_of = _name_variables(occ, merges)
    uses = _uses(occ, var_of)
    by_key = _by_key(sorted(uses.users))
    alias, pending_embed = _description_aliases(specs, var_of, uses, by_key, merges,
                                                embedder is not None)
    if embedder is not None and pending_embed:
        _embed_aliases(pending_embed, by_key, uses, alias, merges, embedder, threshold)
    mapping = {k: _resolve(alias, v) for k, v in var_of.items()}
    return Vocabulary(mapping=mapping, merges=tuple(merges), by_name=_by_name(mapping))


def _name_variables(occ: Sequence[Occurrence], merges: list[Merge]
                    ) -> dict[tuple[str, str, str], str]:
    """Step 1: each occurrence's variable by its normalised name, split by type where
    declared types disagree; the merges go to ``merges``."""
    groups: dict[str, list[Occurrence]] = defaultdict(list)
    for o in occ:
        groups[normalise(o.prop)].append(o)
    var_of: dict[tuple[str, str, str], str] = {}
    for name, group in sorted(groups.items()):
        by_type: dict[str | None, list[Occurrence]] = defaultdict(list)
        for o in group:
            by_type[o.type].append(o)
        # The type most tools use keeps the name; on a tie, the one tools take as input
        # (what a user or an earlier tool must supply is the name people read).
        typed = sorted((t for t in by_type if t is not None),
                       key=lambda t: (-len({o.tool for o in by_type[t]}),
                                      -sum(o.side == "in" for o in by_type[t]), t))
        main = typed[0] if typed else None
        for o in group:
            if o.type is not None and o.type != main:
                var = f"{o.tool}.{name}"
                merges.append(Merge(var, (o.prop,), "type-split",
                                    f"'{o.prop}' of {o.tool} is {o.type}, the other '{name}' "
                                    f"are {main}"))
            else:
                var = name
            var_of[(o.tool, o.prop, o.side)] = var
        spellings = sorted({o.prop for o in group if var_of[(o.tool, o.prop, o.side)] == name})
        if spellings != [name] and len(spellings) > 0:
            merges.append(Merge(name, tuple(spellings), "name",
                                f"{' and '.join(spellings)} normalise to {name}"))
    return var_of


@dataclass(frozen=True)
class Uses:
    """Per variable of step 1: the tools that use it, its declared types, its descriptions
    (defaultdicts: a variable without any reads as empty)."""

    users: dict[str, set[str]]
    types: dict[str, set[str]]
    descriptions: dict[str, list[str]]


def _uses(occ: Sequence[Occurrence], var_of: Mapping[tuple[str, str, str], str]) -> Uses:
    users: dict[str, set[str]] = defaultdict(set)
    types: dict[str, set[str]] = defaultdict(set)
    descriptions: dict[str, list[str]] = defaultdict(list)
    for o in occ:
        var = var_of[(o.tool, o.prop, o.side)]
        users[var].add(o.tool)
        if o.type:
            types[var].add(o.type)
        if o.description:
            descriptions[var].append(o.description)
    return Uses(users, types, descriptions)


def _by_key(variables: Sequence[str]) -> dict[str, list[str]]:
    """The variables of two or more words (tools' own, ``tool.name``, aside) by their last
    word, in order."""
    by_key: dict[str, list[str]] = defaultdict(list)
    for var in variables:
        parts = tokens(var)
        if len(parts) >= 2 and "." not in var:
            by_key[parts[-1]].append(var)
    return by_key


def _description_aliases(specs: Sequence[ToolSpec], var_of: Mapping[tuple[str, str, str], str],
                         uses: Uses, by_key: Mapping[str, list[str]], merges: list[Merge],
                         embedding: bool) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    """Step 2: (variable -> the variable its description says it is, the variables whose
    description names an entity for step 3 as (variable, key, entity words), collected only
    when ``embedding``); the merges go to ``merges``."""
    alias: dict[str, str] = {}
    pending_embed: list[tuple[str, str, str]] = []  # (variable, key, entity words)
    # two parameters of one tool are two roles (``item_ids`` and ``new_item_ids``): never one
    together: dict[str, set[str]] = defaultdict(set)
    for spec in specs:
        taken = {var_of[(spec.name, p, "in")] for p in spec.properties}
        for var in taken:
            together[var] |= taken - {var}
    for var in sorted(uses.users):
        parts = tokens(var)
        if len(parts) < 2 or "." in var:
            continue
        key, own = parts[-1], "_".join(parts[:-1])
        if _names_itself(uses.descriptions[var], parts[:-1]):
            continue  # "the ids of the order's items" is about items, whatever else it names
        said = _said_alias(var, by_key[key], own, uses, together[var])
        if said is not None:
            other, hit = said
            alias[var] = other
            merges.append(Merge(other, (var,), "description", f"{var} is described as {hit!r}"))
        elif embedding:
            for d in uses.descriptions[var]:
                entity = _named_entity(d, key)
                if entity and normalise(entity) != own:
                    pending_embed.append((var, key, entity))
                    break
    return alias, pending_embed


def _said_alias(var: str, same_key: Sequence[str], own: str, uses: Uses,
                together: set[str]) -> tuple[str, str] | None:
    """The first variable of the same last word that ``var``'s description says it is, used
    by as many tools at least, of a compatible type and never a parameter beside it; with
    that description."""
    for other in same_key:
        if other == var or "_".join(tokens(other)[:-1]) == own or other in together:
            continue
        if not _compatible(uses.types[var], uses.types[other]):
            continue
        if len(uses.users[var]) > len(uses.users[other]):
            continue
        hit = next((d for d in uses.descriptions[var] if _says_is(d, other)), None)
        if hit is not None:
            return other, hit
    return None


def _resolve(alias: Mapping[str, str], var: str) -> str:
    """The variable ``var`` folds into at the end of its chain of aliases."""
    seen = set()
    while var in alias and var not in seen:
        seen.add(var)
        var = alias[var]
    return var


def _by_name(mapping: Mapping[tuple[str, str, str], str]) -> dict[str, str]:
    """Each raw and normalised property name -> the variable most of its occurrences became
    (on a tie, the first by name)."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for (_tool, prop, _side), var in mapping.items():
        counts[prop][var] += 1
        counts[normalise(prop)][var] += 1
    return {name: min(c, key=lambda v: (-c[v], v)) for name, c in counts.items()}


def _embed_aliases(pending: list[tuple[str, str, str]], by_key: Mapping[str, list[str]],
                   uses: Uses, alias: dict[str, str], merges: list[Merge], embedder: Encoder,
                   threshold: float) -> None:
    """Step 3: fold a variable into the one whose entity is nearest to what its description
    names, when the cosine similarity reaches ``threshold``."""
    for var, key, entity in pending:
        if var in alias:
            continue
        candidates = [o for o in by_key[key] if o != var and o not in alias
                      and _compatible(set(uses.types[var]), set(uses.types[o]))
                      and len(uses.users[var]) <= len(uses.users[o])]
        if not candidates:
            continue
        phrases = [" ".join(tokens(o)[:-1]) for o in candidates]
        vectors = np.asarray(embedder.encode([entity, *phrases]), dtype=float)
        norms = np.linalg.norm(vectors, axis=1)
        norms[norms == 0] = 1.0
        vectors = vectors / norms[:, None]
        scores = vectors[1:] @ vectors[0]
        best = int(np.argmax(scores))
        if scores[best] >= threshold:
            alias[var] = candidates[best]
            merges.append(Merge(candidates[best], (var,), "embedder",
                                f"its description names '{entity}', close to "
                                f"'{phrases[best]}' (cosine {scores[best]:.2f})"))
