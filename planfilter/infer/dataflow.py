"""Where argument values may come from: the data-flow fields of a contract, drafted.

- ``authored``: a free-text or date parameter (its name ends in ``body``, ``subject``, ``content``,
  ``message``, ``text``, ``title``, ``description``, ``query``, ``expression``, ``date``, ``time``,
  ``day``..., its description opens with what the model composes ("The expression to work out", "A
  search query"), or its schema says ``format: date``), a string, with no id-like name, that no
  other tool produces (a result that echoes the call's own argument is no source of it: a
  calculator's ``expression``): the model writes it, so it is never a precondition of the plan. So
  is a name of things that a read lists only as text (``hotel_names``, ``hotel`` or
  ``company_name``, when ``get_all_hotels_in_city`` or ``get_all_car_rental_companies_in_city``
  returns a string): nothing can point into text, so the model reads the name out of it and writes
  it. Also written by the model, when no tool returns them as a field: a quantity, where results
  list quantities (it works it out from them), a list of people (it assembles it), an address no
  result has a field for (a URL or an e-mail address read out of text) and a yes/no choice; and,
  even where a tool lists such names, a party named by its name (``recipient``, ``user``,
  ``channel``: prose names them as often as lists do).
- ``untrusted``: a tool that reads rather than acts and whose name or description's first
  sentence names outside content (messages, emails, files, web pages, reviews...), or whose
  MCP annotations say ``openWorldHint: true``.
- ``sensitive``: of a high-risk tool, the parameters that say where something goes or how
  much (recipients, IBANs, email addresses, URLs, user names, channels, amounts,
  passwords); of any tool, a list of people and an address the model writes.
- a required **fact**: a description that says the tool needs a login ("requires
  authentication", "must be logged in") makes it require ``logged_in``, which a login-like
  tool produces.

Every proposal is noted under ``inferred`` with the words it rests on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..core.schemas import schema_kind
from ..core.sentences import NOT_AN_ABBREVIATION
from ..core.text import CREATE_VERBS
from ..core.text import words as split_words
from .names import entity_words, local_name, singular, tokens
from .nested import fields
from .rules import ID_KEYS, LOOKUP_VERBS, READ_VERBS, verb_and_object
from .spec import ToolSpec

#: Last words of parameters the model writes.
AUTHORED_KEYS = frozenset({"content", "contents", "body", "subject", "message", "text", "date",
                           "time", "day", "description", "title", "query", "note", "notes",
                           "comment", "summary", "reason", "topic", "keyword", "keywords",
                           "prompt", "question", "answer", "caption", "instructions",
                           "expression", "formula", "equation", "thought", "statement",
                           "declaration", "explanation", "justification", "circumstances",
                           "complaint", "feedback", "details", "focus", "symptoms",
                           "preferences", "requirements", "concern", "concerns", "narrative",
                           # and as a hurried team shortens them
                           "subj", "msg", "desc", "descr", "txt", "expr", "narr"})
#: Last words of parameters that name what a call saves (``label``, ``nickname``: "Short
#: label for the address, e.g. Home or Office"): the model names it from the user's words
#: when the call saves a thing of another kind (:func:`_saves_another`); a label a call
#: adds to a thread is one of the labels there are.
NAMING_KEYS = frozenset({"label", "nickname"})
#: Why such a parameter is the model's, even where a read shows labels of other things.
SAVED_NAME = "the name it gives what it saves"


def _saves_another(spec: ToolSpec, word: str) -> bool:
    """The tool saves a new thing (its verb creates or adds) whose kind is not ``word``
    (``add_customer_address``, not ``add_label_to_thread`` nor ``create_label``)."""
    verb, _ = verb_and_object(spec)
    return verb in CREATE_VERBS and word not in tokens(local_name(spec.name))


#: Nouns a parameter's description opens with when the model composes its value ("The
#: arithmetic expression to work out", "A search query"), whatever the parameter is called.
COMPOSED_NOUNS = ("expression", "formula", "equation", "query", "message", "body", "text")
_COMPOSED = re.compile(r"^\s*(?:the|a|an)\s+(?:[a-z-]+\s+){0,2}?(" + "|".join(COMPOSED_NOUNS)
                       + r")(?=\s*(?:$|[.,;:(]|\s(?:to|that|which|for|with|of|in|on|from|"
                       r"about|such|e\.g\.)\b))", re.IGNORECASE)  # "the text file's name": a name
#: Words of a parameter whose value the caller makes up, unique to the call.
CALLER_MADE_WORDS = frozenset({"idempotency", "nonce"})
#: A description that says the caller makes the value up ("any unique string chosen by the
#: caller", "a client-generated key"), whatever the parameter is called.
CALLER_MADE = re.compile(r"\b(?:chosen|generated|made up|picked)\s+by\s+(?:the\s+)?"
                         r"(?:caller|client|agent|you)\b|\bclient[- ]generated\b|"
                         r"\bany unique (?:string|value|key|id)\b", re.IGNORECASE)
#: A description that says the value is written in words ("the condition, in plain words",
#: "in the customer's own words", "free text", "the student's account of what happened"),
#: whatever the parameter is called.
IN_WORDS = re.compile(r"\bin (?:plain|simple|your|their|the \w+'s) (?:own )?words\b|"
                      r"\bfree[- ](?:text|form)\b|\baccount of what happened\b",
                      re.IGNORECASE)
DATE_FORMATS = frozenset({"date", "date-time", "time"})
#: Words of a parameter's name that name a day or a time, and the words after one that make
#: it an end of a range (``date_from``, ``time_until``), a date as much as ``from_date`` is.
DATE_WORDS = frozenset({"date", "time", "day", "datetime"})
RANGE_ENDS = frozenset({"from", "to", "until", "since", "after", "before", "start", "end"})
#: Last words of parameters that hold a quantity: where results list quantities (a
#: transaction's amount, a hotel's price), the model works one out from them (a difference, a
#: share of a bill, a sum), so a listed value is one input to it, not its source; where no
#: result has such a field, the quantity can only come from the user, and stays required.
QUANTITY_KEYS = frozenset({"amount", "price", "total", "sum", "quantity", "fee", "cost"})
#: Last words of list parameters of people (their addresses): the model assembles such a list
#: from the request, contacts and what it read; a person added from outside content needs
#: the user's approval, so the list is sensitive whatever the tool's risk.
PEOPLE_LIST_KEYS = frozenset({"recipients", "participants", "attendees", "invitees", "guests",
                              "members", "cc", "bcc", "emails"})
#: Last words of result fields that hold free text: whoever wrote it (an event's organiser,
#: a payment's other party, a reviewer) may have written instructions into it.
FREE_TEXT_KEYS = frozenset({"description", "body", "content", "contents", "message", "text",
                            "subject", "note", "notes", "comment", "comments", "review",
                            "reviews", "summary", "bio"})
#: Last words of parameters that hold prose a call carries (a claim's description, a
#: visit's reason, a message's body): what a tool that changes something takes there, the
#: model writes, even where some result has a field so called.
PROSE_KEYS = FREE_TEXT_KEYS | {"reason", "statement", "declaration", "explanation",
                               "justification", "circumstances", "complaint", "feedback",
                               "details", "focus", "symptoms", "preferences", "requirements",
                               "narrative"}
#: Last words of parameters that hold an address (a web page's, a person's e-mail): when no
#: tool's result has a field of that kind, the model reads it out of text (a link in a
#: message, an address on a web page) or the request, so it writes it; since outside text may
#: have put it there, it is sensitive whatever the tool's risk (a request to a URL reaches
#: the outside, an address receives mail). An address some tool returns (a contact's e-mail)
#: stays required and keeps its provenance check.
TEXT_ADDRESS_KEYS = frozenset({"url", "uri", "link", "website"})
#: Last words of parameters that hold an e-mail address: as above, and only when some tool
#: declares its result (users type addresses as often as text carries them, so without a
#: result schema nothing says where they come from).
MAIL_ADDRESS_KEYS = frozenset({"email"})
#: Last words of parameters that name a party: a person, an account or a channel by its name
#: (not its id). Prose names them as often as lists do (the new colleague in a message, the
#: IBAN in a bill, the channel a page mentions), and a listing says which exist, not which one
#: the user means: the model writes them even where a tool lists them, and on a high-risk tool
#: they are sensitive, so a name outside content put there needs the user's approval.
PARTY_KEYS = frozenset({"recipient", "payee", "user", "username", "channel"})
#: Last words of parameters that name a thing (``hotel_names``, ``company_name``).
NAME_KEYS = frozenset({"name", "names"})
#: Words of names and descriptions that mean content written outside the user's control.
OUTSIDE_WORDS = frozenset({"message", "messages", "email", "emails", "mail", "mails", "inbox",
                           "file", "files", "document", "documents", "webpage", "webpages",
                           "page", "pages", "web", "url", "review", "reviews", "comment",
                           "comments", "post", "posts", "article", "articles", "news", "feed",
                           "chat", "tweet", "tweets", "attachment", "attachments"})
#: Of those, the words a description's first sentence must use (a field list such as "name,
#: email, phone" names no content).
OUTSIDE_PLURALS = frozenset({"messages", "emails", "webpage", "webpages", "reviews", "comments",
                             "posts", "articles", "news", "feed", "tweets", "attachments"})
#: Last words of parameter names that say where something goes, or how much.
SENSITIVE_WORDS = frozenset({"recipient", "recipients", "to", "cc", "bcc", "iban", "email",
                             "emails", "address", "url", "uri", "link", "user", "username",
                             "users", "amount", "price", "password", "passwd", "account",
                             "payee", "phone", "destination", "target", "webhook",
                             "channel"})
#: Actions that act on the world: their results are not outside content.
ACTING = frozenset({"send", "delete", "share", "purchase", "create", "update", "write"})


def _string_like(schema: Any) -> bool:
    """A string, or text of any type (no type declared)."""
    if not isinstance(schema, Mapping):
        return True
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind == "string"
    if isinstance(kind, list | tuple):
        return "string" in kind
    options = [o.get("type") for o in schema.get("anyOf") or () if isinstance(o, Mapping)]
    return all(o in ("string", "null") for o in options)


def returned_words(specs: Sequence[ToolSpec]) -> frozenset[str] | None:
    """The last word of every field any tool's result has, at any depth (a contact's
    ``email`` inside a list of contacts); None when no tool declares its result."""
    if not any(s.output_schema for s in specs):
        return None
    return frozenset(tokens(f.path[-1])[-1] for s in specs for f in fields(s.output_schema)
                     if tokens(f.path[-1]))


def authored_candidates(spec: ToolSpec, returned: frozenset[str] | None
                        ) -> dict[str, str]:
    """Parameter -> why the model writes it (before checking that no tool produces it).
    A quantity is worked out only where some result has a quantity field (``returned``).
    An address is read out of text only when no tool's result has a field of its kind
    (``returned``, :func:`returned_words`: where a contact list returns ``email``, addresses
    are data the system holds); an e-mail address, which users type as often as text
    carries one, also only when some tool declares its result (``returned`` not None).
    Text whose description says it is written in words (:data:`IN_WORDS`) is free text,
    whatever the parameter is called (a claim's ``condition``, "in plain words"); a key the
    caller makes up (``idempotency_key``, "any unique string chosen by the caller":
    :data:`CALLER_MADE`) is the model's, id or not."""
    found = {}
    for param, schema in spec.properties.items():
        parts = tokens(param)
        if parts and parts[-1] in QUANTITY_KEYS and returned is not None \
                and returned & QUANTITY_KEYS:
            found[param] = "a quantity (the model works it out)"
            continue
        if parts and parts[-1] in PEOPLE_LIST_KEYS and _string_list(schema):
            found[param] = "a list of people (the model assembles it)"
            continue
        if parts and parts[-1] in TEXT_ADDRESS_KEYS | MAIL_ADDRESS_KEYS \
                and parts[-1] not in (returned or ()) and _string_like(schema) \
                and (returned is not None or parts[-1] in TEXT_ADDRESS_KEYS):
            found[param] = "an address (read out of text)"
            continue
        if isinstance(schema, Mapping) and schema_kind(schema) == "boolean":  # or bool | None
            found[param] = "a yes/no choice (the model makes it from the request)"
            continue
        said = schema.get("description") if isinstance(schema, Mapping) else None
        if _string_like(schema) and (CALLER_MADE_WORDS & set(parts) or isinstance(said, str)
                                     and CALLER_MADE.search(said)):
            found[param] = "a key the caller makes up, unique to the call"
            continue
        if not parts or parts[-1] in ID_KEYS or not _string_like(schema):
            continue
        fmt = schema.get("format") if isinstance(schema, Mapping) else None
        if fmt in DATE_FORMATS:
            found[param] = f"format {fmt}"
        elif parts[-1] not in AUTHORED_KEYS and DATE_WORDS & set(parts[:-1]) \
                and parts[-1] in RANGE_ENDS:
            found[param] = "a date"  # date_from, day_to: one end of a range of days
        elif parts[-1] in AUTHORED_KEYS:
            found[param] = "free text" if parts[-1] not in ("date", "time", "day") else "a date"
        elif parts[-1] in NAMING_KEYS and _saves_another(spec, parts[-1]):
            found[param] = SAVED_NAME
        elif isinstance(said, str) and IN_WORDS.search(said):
            found[param] = "free text"
        elif isinstance(said, str) and (composed := _COMPOSED.match(said)):
            found[param] = f"text the model composes (described as {composed.group(1).lower()})"
    return found


def named_parties(spec: ToolSpec) -> dict[str, str]:
    """Parameter -> why the model writes it: it names a party (:data:`PARTY_KEYS`), whether or
    not some tool lists such names."""
    return {param: "a party named in text (a message, a bill, a page)"
            for param, schema in spec.properties.items()
            if tokens(param)[-1:] and tokens(param)[-1] in PARTY_KEYS and _string_like(schema)}


def _string_list(schema: Any) -> bool:
    """A list of strings, or an optional one (``list[str] | None``)."""
    if not isinstance(schema, Mapping):
        return False
    options = [o for o in schema.get("anyOf") or () if isinstance(o, Mapping)
               and o.get("type") != "null"]
    if len(options) == 1:
        schema = options[0]
    return schema.get("type") == "array" and isinstance(schema.get("items"), Mapping) and \
        _string_like(schema["items"])


def text_listings(specs: Sequence[ToolSpec]) -> dict[str, str]:
    """Entity -> the first read whose declared result is one string and whose name's object
    is plural: a text that lists such things (``get_all_hotels_in_city`` -> ``hotel``). A
    singular object (``get_iban``) is a text that is the value itself, which a held value
    can match whole, so it lists nothing."""
    found: dict[str, str] = {}
    for spec in specs:
        if not spec.output_schema or schema_kind(spec.output_schema) != "string":
            continue
        verb, words = verb_and_object(spec)
        nouns = entity_words(tuple(words))
        if verb in LOOKUP_VERBS | READ_VERBS and nouns and singular(nouns[-1]) != nouns[-1]:
            found.setdefault(singular(nouns[-1]), spec.name)
    return found


def listed_in_text(spec: ToolSpec, listings: Mapping[str, str]) -> dict[str, str]:
    """Parameter -> why the model writes it: it names a thing of an entity that another tool
    lists only as text (``hotel_names``, ``hotel``: see :func:`text_listings`)."""
    found = {}
    for param, schema in spec.properties.items():
        words = list(tokens(param))
        if words and words[-1] in NAME_KEYS:
            words.pop()
        if not words or words[-1] in ID_KEYS or not (_string_like(schema)
                                                      or _string_list(schema)):
            continue
        lister = listings.get(singular(words[-1]))
        if lister is not None and lister != spec.name:
            found[param] = f"a name read out of {lister}'s text"
    return found


def authored_note(params: Mapping[str, str]) -> str:
    kinds = sorted(set(params.values()))
    return f"rule: {' or '.join(kinds)} no tool produces ({', '.join(params)})"


#: A sentence ends at ".", "!" or "?" before a space ("i.e." ends none), or at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?])" + NOT_AN_ABBREVIATION + r"\s|\n")


def _first_sentence(text: str) -> str:
    return _SENTENCE_END.split(text.strip(), maxsplit=1)[0] if text else ""


def untrusted_of(spec: ToolSpec, action: str | None) -> str | None:
    """Why the tool's results carry outside content, or None."""
    if action in ACTING:
        return None
    if spec.annotations.get("openWorldHint") is True:
        return "schema: annotations.openWorldHint"
    _verb, words = verb_and_object(spec)  # what it reads: ``contacts`` of ..._by_email
    named = [w for w in entity_words(words or tokens(local_name(spec.name)))
             if w in OUTSIDE_WORDS]
    if named:
        return f"rule: reads outside content ({', '.join(named)} in its name)"
    said = [w for w in split_words(_first_sentence(spec.description), digits=False)
            if w in OUTSIDE_PLURALS]
    if said:
        return f"rule: reads outside content ({', '.join(dict.fromkeys(said))} in its description)"
    written = sorted({f.path[-1] for f in fields(spec.output_schema) if f.kind == "string"
                      and tokens(f.path[-1])[-1:] and tokens(f.path[-1])[-1] in FREE_TEXT_KEYS})
    if written:
        return f"rule: its results carry free text others may write ({', '.join(written)})"
    return None


def sensitive_of(spec: ToolSpec, risk: str, authored: frozenset[str] = frozenset()
                 ) -> dict[str, str]:
    """Parameter -> the word that makes it sensitive: on a high-risk tool, a parameter that
    says who or how much (``recipient_email``, not ``email_id``); on any tool, a list of
    people (:data:`PEOPLE_LIST_KEYS`) and an address the model writes (``authored``, of
    :data:`TEXT_ADDRESS_KEYS`)."""
    found = {}
    for param, schema in spec.properties.items():
        words = tokens(param)
        if not words:
            continue
        if risk == "high" and words[-1] in SENSITIVE_WORDS or \
                words[-1] in PEOPLE_LIST_KEYS and _string_list(schema) or \
                param in authored and words[-1] in TEXT_ADDRESS_KEYS | MAIL_ADDRESS_KEYS:
            found[param] = words[-1]
    return found
