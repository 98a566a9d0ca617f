"""A sentence of a request that says where the information is, not what to do.

"Invite the new hire to Monday's roadmap review. You will find her address in the email
from HR.": the second sentence names the read that informs the action (the email), and
nothing to do. Ranked with the rest of the request, its words ("email") draw the actions
named like them (send an email) above the one asked for (invite). So a sentence that
*points* is left out of the ranking of what to do (:func:`without_directions`) and kept for
what to read first (planfilter.live.candidates.directed_reads: the read it names leads the
reads paired with every action).

A sentence points when it tells the reader where they will find something: "you can find",
"you will see", "you'll get" (a modal after "you", then find, see, get, look up or read).
"Find the folder with the most files and move the draft there ..." is an order, not a
pointer: what to find there is what to act on.
"""

from __future__ import annotations

import re

from ..core.sentences import sentences

#: "you can find", "you'll see", "you should also look up": where something is to be found.
_POINTS = re.compile(
    r"\byou(?:\s+(?:can|could|will|should|may|might|would)|'ll)\s+(?:also\s+)?"
    r"(?:find|see|get|look\s+up|read)\b", re.IGNORECASE)


def direction_sentences(request: str) -> tuple[str, ...]:
    """The sentences of ``request`` that say where something is to be found, in order."""
    return tuple(s for s in sentences(request) if _POINTS.search(s))


def without_directions(request: str) -> str:
    """``request`` less its pointing sentences, the request itself when every sentence
    points (then they say what to do, too) or none does."""
    parts = sentences(request)
    kept = [s for s in parts if not _POINTS.search(s)]
    return " ".join(kept) if 0 < len(kept) < len(parts) else request
