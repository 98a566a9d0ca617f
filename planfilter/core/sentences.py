"""Where a sentence of a tool description or a request ends."""

from __future__ import annotations

import re

#: A regular-expression piece to put right after the stop a pattern ends a sentence at: it
#: fails when that stop closes a one-letter abbreviation ("i.e.", "e.g."), which ends no
#: sentence ("Return the user's agenda for a day, i.e. all events ..." is one).
NOT_AN_ABBREVIATION = r"(?<![\s.(][A-Za-z]\.)"

#: A sentence of a request ends at a stop before a space ("i.e." ends none), at a stop after
#: a word's small letter right before a capitalised word ("... www.example.com.They
#: sent ...", "... the report.Note that ...": the space left out), or at a line's end.
_SENTENCE_END = re.compile(r"(?<=[.?!])" + NOT_AN_ABBREVIATION + r"\s+"
                           + r"|(?<=[a-z][.?!])" + NOT_AN_ABBREVIATION + r"(?=[A-Z][a-z])"
                           + r"|\s*\n+\s*")


def sentences(text: str) -> list[str]:
    """The sentences of a request, in order (see :data:`_SENTENCE_END`)."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]
