"""Which parts of a goal a request names, and the side effects it never asks for.

A goal of several parts (``summarize_email_then_send``: ``email_summary``, then
``email_sent``) drew requests that ask for one of its parts ("Summarize the email from
ben.carter@..."), and a small model chose it again when asked between the goal and its parts.
Resolved that way, the agent would send an e-mail nobody asked for. So before the model is
asked again, the request's words decide the plain case: when the request names exactly one
part, that part has no side effect, and every part it does not name is a side effect (its
producers write, send, update, share or delete), the goal is narrowed to the named part.
Everything else (every part named, none named, a read left out) is the model's to decide.

A part is named when the request holds a word that stands for it and for no other part of
the same goal: a word of the part's variable, of the names of the tools that produce it, or
their action (``email_summary``, ``summarize_email``, ``summarize``), compared by a crude
stem (``summarise``, ``summary`` and ``summarized`` are one word; ``sent`` and ``send`` are
two, and both stand for ``email_sent``). A word both parts share (``email``) names neither.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..core.contracts import Registry
from ..core.text import STOP_WORDS, words

#: Words too common in tool and variable names to name a part on their own (besides the
#: stop words, planfilter.core.text.STOP_WORDS).
GENERIC = frozenset({"get", "into", "list", "new", "set", "then"})
#: Endings taken off a word before comparing (one, the first that fits, longest first).
_ENDINGS = ("izing", "ising", "ized", "ised", "ize", "ise", "ing", "ied", "ies", "ers", "er",
            "ed", "es", "s", "y", "e")
#: Letters a stem keeps at least.
_STEM_CHARS = 3


class Part(Protocol):
    """A goal option: its name and the variables it stands for (``goals.GoalOption``)."""

    @property
    def name(self) -> str: ...

    @property
    def variables(self) -> frozenset[str]: ...


def stem(word: str) -> str:
    """``word`` lowercased, without one inflectional ending (a doubled last letter before
    ``-ed``/``-ing`` made single: ``cancelled`` -> ``cancel``)."""
    word = word.lower()
    for ending in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= _STEM_CHARS:
            word = word[: -len(ending)]
            if ending in ("ed", "ing") and len(word) > _STEM_CHARS and word[-1] == word[-2]:
                word = word[:-1]
            break
    return word


def stems(text: str) -> frozenset[str]:
    """The stems of the words of ``text`` (``_`` splits words), less the stop words and the
    generic words."""
    return frozenset(stem(w) for w in words(text, stop=STOP_WORDS) if len(w) >= _STEM_CHARS
                     and w not in GENERIC)


def text_of(registry: Registry, part: Part) -> str:
    """What may name ``part``: its name, its producers' names and their actions."""
    producers = registry.producers(part.variables)
    return " ".join([part.name, *(t.name for t in producers), *(t.action or "" for t in producers)])


def words_of(registry: Registry, part: Part) -> frozenset[str]:
    """The stems that stand for ``part`` (of ``text_of``)."""
    return stems(text_of(registry, part))


def named(registry: Registry, request: str, parts: Sequence[Part]) -> tuple[bool, ...]:
    """For each part, whether ``request`` holds a word that stands for it and for no other."""
    said = stems(request)
    words = [words_of(registry, p) for p in parts]
    return tuple(bool((mine - frozenset().union(*(w for j, w in enumerate(words) if j != i)))
                      & said) for i, mine in enumerate(words))


def side_effect(registry: Registry, part: Part) -> bool:
    """Every tool that produces the part writes, sends, updates, shares or deletes."""
    producers = registry.producers(part.variables)
    return bool(producers) and all(t.side_effecting for t in producers)


def only_part_asked(registry: Registry, request: str, whole: Part,
                    parts: Sequence[Part]) -> Part | None:
    """The part ``whole`` narrows to when ``request`` names that part alone, it has no side
    effect and every part left out has one; None otherwise (also when the parts do not make
    up the whole)."""
    if frozenset().union(*(p.variables for p in parts)) != whole.variables:
        return None
    said = named(registry, request, parts)
    kept = [p for p, n in zip(parts, said, strict=True) if n]
    left = [p for p, n in zip(parts, said, strict=True) if not n]
    if len(kept) != 1 or side_effect(registry, kept[0]):
        return None
    return kept[0] if all(side_effect(registry, p) for p in left) else None
