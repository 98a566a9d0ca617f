"""The words of a short request that describe what it acts on, and the parameters they fit.

"Move tomorrow's dentist appointment to 4 PM" acts on "dentist appointment": what is left of
the request once its values ("tomorrow's", "4 PM"), the words before and with its first
verb ("Move"; "Can you please move") and the function words at either end are taken out.
:func:`description` gives that run of words as a ``description`` span, or None when the
request is longer than one short sentence, or no run of one to :data:`MAX_WORDS` words is
left, or several are. Such words fit a text parameter whose own name, or its variable's,
ends in a word that says it describes (:data:`DESCRIBING`: ``event_description``,
``query``, ``search_title``): :func:`describes`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from ..core.contracts import Tool
from .request_values import Span

#: The last word of a parameter's (or its variable's) name that says it takes words that
#: describe something.
DESCRIBING = frozenset({"description", "query", "keywords", "keyword", "title", "topic"})
#: Words a description holds at most.
MAX_WORDS = 6
#: Characters a request may have for its description to be read.
MAX_CHARS = 120
#: Words that frame a request or join its parts, never a description's first or last word.
FUNCTION_WORDS = frozenset("""a an the my our your his her their its this that these those
to for from on in at by with of and or about into onto please can could would will you me
i we us kindly just is are was were be do does did have has what when where which who how
many much""".split())
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")


def description(text: str, taken: Sequence[Span]) -> Span | None:
    """The run of words of ``text`` that describes what it acts on (see the module
    docstring); ``taken``: the spans of its values, which no description overlaps."""
    if len(text) > MAX_CHARS or re.search(r"[.!?;]\s+\S", text.strip()):
        return None
    tokens = [m for m in _WORD.finditer(text)
              if not any(s.start < m.end() and m.start() < s.end for s in taken)]
    lead = next((k for k, m in enumerate(tokens) if m.group(0).lower() not in FUNCTION_WORDS),
                None)
    if lead is None:
        return None
    runs: list[list[re.Match[str]]] = [[]]
    for prev, match in zip(tokens[lead:], tokens[lead + 1:], strict=False):
        gap = text[prev.end():match.start()]
        if gap.strip() or any(prev.end() <= s.start < match.start() for s in taken):
            runs.append([])  # a value or punctuation between them ends the run
        runs[-1].append(match)
    kept = [run for run in map(_trimmed, runs) if run]
    if len(kept) != 1 or len(kept[0]) > MAX_WORDS:
        return None
    run = kept[0]
    return Span("description", text[run[0].start():run[-1].end()], run[0].start(),
                run[-1].end())


def _trimmed(run: list[re.Match[str]]) -> list[re.Match[str]]:
    while run and run[0].group(0).lower() in FUNCTION_WORDS:
        run = run[1:]
    while run and run[-1].group(0).lower() in FUNCTION_WORDS:
        run = run[:-1]
    return run


def describes(tool: Tool, parameter: str) -> bool:
    """The parameter takes words that describe something: a string whose name, or its
    variable's, ends in a word of :data:`DESCRIBING`."""
    schema = tool.parameters.get("properties", {}).get(parameter) or {}
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return False
    return any(re.split(r"[^a-z]+", name.lower())[-1] in DESCRIBING
               for name in (parameter, tool.variable_of(parameter)))
