"""Name handling shared by the rules: normalised variable names, tokens, entity words.

Singular nouns and prepositions are planfilter.core.text's, re-exported here for the rules."""

from __future__ import annotations

import re

from ..core.text import PREPOSITIONS, singular

__all__ = ["PREPOSITIONS", "entity_words", "local_name", "normalise", "singular", "tokens"]

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SEPARATORS = re.compile(r"[^A-Za-z0-9]+")


def normalise(name: str) -> str:
    """``eventId``, ``event-id``, ``Event ID`` -> ``event_id`` (one spelling per meaning)."""
    spaced = _CAMEL.sub("_", name)
    return "_".join(t for t in _SEPARATORS.split(spaced.lower()) if t) or name


def tokens(name: str) -> tuple[str, ...]:
    return tuple(t for t in normalise(name).split("_") if t)


def local_name(tool_name: str) -> str:
    """A tool's name without a ``server.`` prefix."""
    return tool_name.rpartition(".")[2]


def entity_words(words: tuple[str, ...]) -> tuple[str, ...]:
    """The object words before a preposition (``files_by_filename`` -> ``files``)."""
    for i, word in enumerate(words):
        if word in PREPOSITIONS and i > 0:
            return words[:i]
    return words


#: Last words of a key that say it is a collection, not what of (``order_list``).
COLLECTION_WORDS = frozenset({"list", "set", "map", "index"})


def names_collection(key: str, entity: str) -> bool:
    """``key`` names a collection of ``entity`` (``orders``, ``recent_orders`` and
    ``order_list`` of ``order``; ``payment_methods`` of ``payment_method``)."""
    words = [w for w in tokens(key) if w not in COLLECTION_WORDS] or list(tokens(key))
    if not words:
        return False
    words[-1] = singular(words[-1])
    return any("_".join(words[start:]) == entity for start in range(len(words)))


#: Before an identifier's phrase, words that say a map is keyed by it.
_KEYED = re.compile(r"(?:keyed|indexed)\s+by\s+(?:the\s+|its\s+|their\s+)?$")
#: Between a map's keys and its values ("from names to ids", "name -> id").
_TO = re.compile(r"\bto\b|->|=>")


def ids_side(description: str, entity: str, id_key: str = "id") -> str | None:
    """Where ``description`` says a collection holds ``entity``'s identifiers: "values" ("the
    order ids", "the ids of the customer's orders", "from each product's name to its product
    id"), "keys" ("keyed by payment method id", "from order ids to their status"), or None
    when it names no such identifier."""
    if not description:
        return None
    *head, last = entity.split("_")
    ent = r"[\s_-]+".join([*map(re.escape, head), re.escape(last) + "s?"])
    keys = r"(?:ids?|identifiers?)" if id_key == "id" else re.escape(id_key) + "s?"
    text = description.lower()
    found = re.search(rf"\b{ent}(?:'s)?\s+{keys}\b", text) or re.search(
        rf"\b{keys}\s+of\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+|[a-z]+'s\s+)*"
        rf"(?:[a-z]+\s+){{0,2}}?{ent}\b(?!')", text)  # "of the orders' items": the items
    if found is None:
        return None
    before, after = text[:found.start()], text[found.end():]
    if _KEYED.search(before) or (_TO.search(after) and not _TO.search(before)):
        return "keys"
    return "values"
