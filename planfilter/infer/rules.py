"""The rules that draft ``requires`` and ``produces``; each one small, documented, tested alone.

Every rule takes a tool and the :class:`Context` of the whole tool set and returns a
:class:`Drafted` (the variables, the ``outputs`` pointers, and a note saying where they came
from) or ``None`` when it does not apply. ``produces`` is the first rule that applies, in the
order of ``produce.PRODUCE_RULES`` (with the rules of ``outputs`` that read a result's shape).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ..core.frozen import freeze
from ..core.text import CREATE_VERBS, LOOKUP_VERBS, READ_VERBS
from ..core.text import words as split_words
from .names import entity_words, local_name, normalise, singular, tokens
from .spec import ToolSpec
from .vocabulary import Vocabulary

#: Last words of variables that identify one thing (what a lookup hands to the next tool).
ID_KEYS = ("id", "ids", "key", "uuid", "email", "handle", "ref", "path", "url", "uri",
           "number", "sha", "slug", "code")
#: Output keys that say nothing about what they hold: qualified per tool (``<tool>_status``).
GENERIC_KEYS = frozenset({"result", "results", "status", "message", "success", "ok", "id",
                          "output", "response", "data", "value", "error", "msg", "detail"})
#: Last words of variables that hold a thing's content (what a read returns).
CONTENT_KEYS = ("content", "contents", "body", "text", "details", "data", "info")


@dataclass(frozen=True)
class Drafted:
    variables: frozenset[str]
    note: str
    outputs: Mapping[str, str] = field(default_factory=lambda: freeze({}))


@dataclass(frozen=True)
class Context:
    """What the rules may know about the whole tool set."""

    vocabulary: Vocabulary
    #: variable -> tools that require it
    consumers: Mapping[str, frozenset[str]]
    #: tool -> {variable: pointer} of the values other tools require that its result holds
    #: below its top level (planfilter.infer.nested)
    nested: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    #: tool -> variables its result holds that the descriptions say come from another read
    elsewhere: Mapping[str, frozenset[str]] = field(default_factory=dict)

    def consumed_by_others(self, tool: str) -> frozenset[str]:
        return frozenset(v for v, users in self.consumers.items() if users - {tool})


def requires_of(spec: ToolSpec, vocabulary: Vocabulary) -> Drafted:
    """The required input properties, each as its vocabulary variable."""
    variables = frozenset(vocabulary.variable(spec.name, p) for p in spec.required)
    listed = ", ".join(spec.required) if spec.required else "none"
    return Drafted(variables, f"schema: required input properties ({listed})")


def consumers_of(specs: Sequence[ToolSpec], vocabulary: Vocabulary,
                 authored: Mapping[str, frozenset[str]] | None = None
                 ) -> dict[str, frozenset[str]]:
    """Variable -> the tools that require it; a tool's ``authored`` variables (the model
    writes them) are not requirements another tool should be drafted to meet."""
    users: dict[str, set[str]] = defaultdict(set)
    for spec in specs:
        skip = (authored or {}).get(spec.name, frozenset())
        for var in requires_of(spec, vocabulary).variables - skip:
            users[var].add(spec.name)
    return {v: frozenset(t) for v, t in users.items()}


def verb_and_object(spec: ToolSpec) -> tuple[str | None, tuple[str, ...]]:
    """The action verb of a tool (from its name, else the description's first word) and the
    words of its name after the verb."""
    words = tokens(local_name(spec.name))
    known = LOOKUP_VERBS | CREATE_VERBS | READ_VERBS
    for i, word in enumerate(words):
        if word in known:
            return word, words[i + 1:]
    first = tokens(spec.description.split(" ", 1)[0]) if spec.description else ()
    if first and first[0] in known:
        return first[0], words
    first_word = first[0] if first else None
    return first_word, words


def _runs(words: Sequence[str]) -> list[str]:
    """The entity a name's object can stand for: its endings, singular, longest first
    (``recent_emails`` -> ``recent_email``, ``email``; ``user_activity`` is about an activity,
    not a user), up to a preposition (``contacts_by_name`` is about contacts)."""
    words = entity_words(tuple(words))
    runs = []
    for start in range(len(words)):
        run = [*words[start:]]
        run[-1] = singular(run[-1])
        runs.append("_".join(run))
    return runs


def _prefer_described(candidates: list[str], description: str) -> list[str]:
    """Candidates whose last word the description mentions come first, then ``*_id``."""
    text = description.lower()

    def rank(var: str) -> tuple[int, int]:
        key = tokens(var)[-1]
        return (0 if key in text else 1, 0 if key == "id" else 1)

    return sorted(candidates, key=rank)


def _identifier_for(spec: ToolSpec, ctx: Context, words: Sequence[str]) -> str | None:
    own = requires_of(spec, ctx.vocabulary).variables
    wanted = ctx.consumed_by_others(spec.name) - own
    found: list[str] = []
    for run in _runs(words):
        names = [run] if run.split("_")[-1] in ID_KEYS else []
        names += [f"{run}_{key}" for key in ID_KEYS]
        found += [n for n in names if n in wanted and n not in found]
        if found:
            break
    ranked = _prefer_described(found, spec.description)
    return ranked[0] if ranked else None


def qualified(spec: ToolSpec, key: str, variable: str) -> str:
    """A generic output key's variable qualified with the tool's name (``status`` of
    ``deploy`` -> ``deploy_status``): otherwise every tool answering ``{"status": ...}`` would
    produce one variable and satisfy the others' goals. Other keys keep their variable."""
    if normalise(key) in GENERIC_KEYS:
        return f"{normalise(local_name(spec.name))}_{normalise(key)}"
    return variable


def from_output_schema(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A tool with an output schema produces its top-level output properties (each as its
    vocabulary variable, generic keys qualified; ``outputs`` points at the key where the
    variable's name differs)."""
    props = spec.output_properties
    if not props:
        return None
    variables, outputs = set(), {}
    skipped = ctx.elsewhere.get(spec.name, frozenset())
    for prop in props:
        var = qualified(spec, prop, ctx.vocabulary.variable(spec.name, prop, "out"))
        if var in skipped and len(props) > 1:
            continue  # the descriptions say it comes from another read
        variables.add(var)
        if var != prop:
            outputs[var] = "/" + prop.replace("~", "~0").replace("/", "~1")
    deeper = {v: p for v, p in ctx.nested.get(spec.name, {}).items() if v not in variables}
    note = f"schema: output properties ({', '.join(props)})"
    if deeper:
        variables |= set(deeper)
        outputs.update(deeper)
        note += "; values inside them: " + ", ".join(f"{v} at {p}"
                                                     for v, p in sorted(deeper.items()))
    return Drafted(frozenset(variables), note, freeze(outputs))


#: "Returns: the user id", "returns the user's id", "-> str: The order id." (a type first).
_RETURNS = re.compile(r"\breturns?\b\s*:?\s*(?:\w+\s*:\s*)?(?:the|a|an|its)?\s*"
                      r"([a-z][a-z' -]{1,60}?)\s*(?:[.,;:(]|\bof\b|\bfor\b|\bwhich\b|"
                      r"\bthat\b|$)", re.IGNORECASE | re.MULTILINE)


def returns_named(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A plain result (a string or a number, or no output schema) that its documentation
    names ("Returns: the user id") produces the variable so named, when other tools require
    it: the documented result is that value, whole."""
    kind = (spec.output_schema or {}).get("type")
    if spec.output_schema is not None and kind not in ("string", "integer", "number"):
        return None
    wanted = ctx.consumed_by_others(spec.name) - requires_of(spec, ctx.vocabulary).variables
    for match in _RETURNS.finditer(spec.description):
        phrase = match.group(1).lower().replace("'s ", " ").replace("'s", "")
        words = split_words(phrase, digits=False, stop=("the", "a", "an"))
        for start in range(len(words)):  # "the customer user id" -> user_id too
            var = normalise("_".join(words[start:]))
            var = ctx.vocabulary.of_name(var)
            if var in wanted:
                return Drafted(frozenset({var}), f"doc: returns {match.group(1).strip()!r} -> "
                               f"{var}, which other tools require", freeze({var: ""}))
    return None


def lookup_produces_id(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A search/find/list/get tool over an entity produces the identifier of that entity that
    other tools require (``search_emails`` -> ``email_id``; ``search_contacts`` described as
    "returns their email address" -> ``contact_email``), unless it requires it itself."""
    verb, words = verb_and_object(spec)
    if verb not in LOOKUP_VERBS:
        return None
    found = _identifier_for(spec, ctx, words)
    if found is None:
        return None
    return Drafted(frozenset({found}), f"rule: {verb} over '{'_'.join(words)}' yields {found}, "
                                       "which other tools require")


def create_produces_id(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A create/add/new tool over an entity produces the new entity's identifier when other
    tools require it (``create_draft`` -> ``draft_id`` when ``send_draft`` needs it), unless
    it takes that entity itself."""
    verb, words = verb_and_object(spec)
    if verb not in CREATE_VERBS:
        return None
    own = requires_of(spec, ctx.vocabulary).variables
    if any(v == run or v.startswith(f"{run}_") for run in _runs(words) for v in own):
        return None  # ``add_user_to_channel`` takes the user: it makes no new one
    found = _identifier_for(spec, ctx, words)
    if found is None:
        return None
    return Drafted(frozenset({found}), f"rule: {verb} of '{'_'.join(words)}' yields the new "
                                       f"{found}, which other tools require")


def _id_entities(own: frozenset[str]) -> list[str]:
    """Entities whose identifier a tool takes (``email_id`` -> ``email``)."""
    found = []
    for var in sorted(own):
        parts = tokens(var)
        if len(parts) >= 2 and parts[-1] in ID_KEYS:
            found.append("_".join(parts[:-1]))
    return found


def _object(words: Sequence[str]) -> str:
    """The object a tool name names, as a variable; a plural stays plural (several things)."""
    return normalise("_".join(words))


def read_produces_content(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A read/get/fetch tool that takes an entity's identifier and whose name names just that
    entity produces the entity's content: the content variable other tools require
    (``read_email`` over ``email_id`` -> ``email_body``), else ``<entity>_content``."""
    verb, words = verb_and_object(spec)
    if verb not in READ_VERBS or not words:
        return None
    own = requires_of(spec, ctx.vocabulary).variables
    entity = "_".join([*words[:-1], singular(words[-1])])
    if entity not in _id_entities(own):
        return None
    wanted = ctx.consumed_by_others(spec.name) - own
    for key in CONTENT_KEYS:
        if f"{entity}_{key}" in wanted:
            var = f"{entity}_{key}"
            return Drafted(frozenset({var}), f"rule: {verb} of {entity} by its identifier yields "
                                             f"its content {var}, which other tools require")
    var = f"{entity}_content"
    return Drafted(frozenset({var}), f"rule: {verb} of {entity} by its identifier yields its "
                                     "content; no other tool requires it")


#: Verbs that turn a value into a new one, and the noun of what they yield.
DERIVED: Mapping[str, str] = {"summarize": "summary", "summarise": "summary",
                              "translate": "translation", "convert": "conversion",
                              "analyze": "analysis", "analyse": "analysis",
                              "calculate": "result", "compute": "result"}


def transform_produces_derived(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """A tool that turns a value into another (summarize, translate, convert...) produces
    ``<object>_<noun>``: ``summarize_email`` -> ``email_summary``."""
    verb, words = verb_and_object(spec)
    if verb is None or verb not in DERIVED or not words:
        return None
    var = f"{_object(words)}_{DERIVED[verb]}"
    return Drafted(frozenset({var}), f"rule: {verb} of {_object(words)} yields {var}")


def query_produces_named(spec: ToolSpec, ctx: Context) -> Drafted | None:
    """Any other side-effect-free tool (get, list, check, extract, export...) produces what its
    name names (``get_account_balance`` -> ``account_balance``; ``extract_deadline`` ->
    ``deadline``), or ``<tool>_result`` when its name names nothing after the verb."""
    verb, words = verb_and_object(spec)
    if verb not in READ_VERBS:
        return None
    own = requires_of(spec, ctx.vocabulary).variables
    if words:
        var = _object(words)
        if var in own:  # "get_status" of a tool that takes a status: not a new value
            var = f"{var}_result"
    else:
        var = f"{normalise(local_name(spec.name))}_result"
    return Drafted(frozenset({var}), f"rule: {verb} tool yields what its name names ({var})")


def effect_done(spec: ToolSpec, ctx: Context) -> Drafted:
    """A tool none of the other rules explains (it acts rather than returns something other
    tools need) produces the effect ``<tool>_done``, so that a goal can name the action."""
    var = f"{spec.name}_done"
    return Drafted(frozenset({var}), f"rule: effect of {local_name(spec.name)} "
                                     "(nothing else yields a variable other tools require)")
