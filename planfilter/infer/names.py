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
