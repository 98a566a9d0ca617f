"""Where a sentence of a tool description or a request ends."""

from __future__ import annotations

#: A regular-expression piece to put right after the stop a pattern ends a sentence at: it
#: fails when that stop closes a one-letter abbreviation ("i.e.", "e.g."), which ends no
#: sentence ("Return the user's agenda for a day, i.e. all events ..." is one).
NOT_AN_ABBREVIATION = r"(?<![\s.(][A-Za-z]\.)"
