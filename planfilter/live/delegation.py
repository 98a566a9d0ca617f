"""A request that hands what to do to a document it names.

"Read the file 'notes.txt' and do what it says", "do the actions listed in the e-mail from
'ann@example.com' with the subject 'To do'": what to do is in the document, and the request
alone ranks only the read of it. The user has said to take that document's word, so once the
read of it comes back, its text is ranked as a request is, and the candidates it gives lead
the session's (:meth:`planfilter.live.session.Session.record`). At the start the read of it
stands beside the request's best candidate, so it is in view at the first call; a first call
that is something else sets that offer aside (an address a read could visit stays in view no
longer than the user's own document needs).

A sentence *delegates* when it asks to carry out instructions, tasks, actions, steps or a
to-do list ("follow the instructions in 'steps.txt'", "do the tasks on the checklist at ...")
and states what names the document: a quoted text, a file name, a web address or an e-mail
address. "Perform the following tasks" delegates to nothing: the tasks follow in the request.
The document is the result of the first read of outside content (a contract marked
``untrusted``: a file, an e-mail, a web page) whose arguments hold one of those values (a
web address with or without its scheme, a file name alone or at the end of a path).

Only that document is taken at its word: an instruction in any other result is not followed
(that is what an injection asks for). What the document says widens the candidates and
nothing else: the guard's checks stay as they are, so a sensitive value the document gives
(an account to pay) is outside content, and the approval policy decides the call that
carries it (planfilter.filters.guard).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..core.contracts import Registry
from ..core.sentences import sentences
from .goals import GoalOption, goal_vocabulary
from .request_values import spans, states_parameter, strings_in

#: Asking to carry out what a document lists: a verb, then (within the sentence, 40
#: characters at most) what it lists. "The following tasks" are the request's own.
_DELEGATES = re.compile(
    r"\b(?:follow|do|complete|carry\s+out|perform|execute)\b(?:(?![.?!;]).){0,40}?"
    r"(?<!following )\b(?:instructions?|tasks?|actions?|steps|to-?dos?)\b", re.IGNORECASE)
#: A web address's scheme, which a request may leave out.
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://")
#: Kinds of value (planfilter.live.request_values) that name a document.
NAMING = frozenset({"quoted", "file", "url", "email"})
#: Characters of a document ranked, at most (a long result is ranked by its start).
MAX_DOCUMENT_CHARS = 4000


@dataclass(frozen=True)
class Delegation:
    """The sentence of a request that delegates to a document, and the values it states."""

    sentence: str
    values: frozenset[str]

    def is_source(self, arguments: Mapping[str, Any]) -> bool:
        """A call with these arguments reads the document: one of them is a stated value."""
        wanted = {_plain(v) for v in self.values}
        return any(given == value or given.endswith("/" + value)
                   for given in map(_plain, strings_in(arguments)) for value in wanted)


def delegation(request: str) -> Delegation | None:
    """The first sentence of ``request`` that delegates to a document it names (see the
    module docstring), None when none does."""
    for sentence in sentences(request):
        if not _DELEGATES.search(sentence):
            continue
        values = frozenset(str(s.value) for s in spans(sentence) if s.kind in NAMING)
        if values:
            return Delegation(sentence, values)
    return None


def document_reads(registry: Registry, found: Delegation) -> tuple[GoalOption, ...]:
    """The goals of the reads that can fetch the document: reads of outside content with a
    parameter the delegating sentence states a value for (the web page at the address it
    gives, the file it names), in the vocabulary's order."""
    out = []
    for option in goal_vocabulary(registry):
        tools = registry.producers(option.variables)
        if tools and all(t.reads and t.untrusted and any(
                states_parameter(t, p, found.sentence) for p in t.parameters.get(
                    "properties", {})) for t in tools):
            out.append(option)
    return tuple(out)


def _plain(value: str) -> str:
    """A value as the request and a call may each write it: no case, no web scheme, no
    trailing slash ("https://www.x.com/a/" is "www.x.com/a")."""
    return _SCHEME.sub("", value.strip().casefold()).rstrip("/")


def document_text(result: Any) -> str:
    """The text of a read's result, as a request is ranked: its strings in order (a file's
    content; an e-mail's sender, subject and body), ``MAX_DOCUMENT_CHARS`` at most."""
    return "\n".join(strings_in(result))[:MAX_DOCUMENT_CHARS]

