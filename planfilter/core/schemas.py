"""Tool arguments and results checked against the tool's JSON Schemas (``parameters`` and
``returns``), each problem naming the argument or the place in the result."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import jsonschema

from .contracts import Tool
from .frozen import thaw
from .text import has_digit
from .values import normal, token_key


@lru_cache(maxsize=2048)
def _validator(tool: Tool, field: str = "parameters") -> Any:
    """The compiled validator of one of the tool's schemas (tools hash by name and are frozen)."""
    schema = thaw(getattr(tool, field))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema)


def argument_errors(tool: Tool, arguments: Any) -> list[str]:
    """Every way ``arguments`` break the tool's schema, each naming the argument."""
    if not isinstance(arguments, Mapping):
        return [f"arguments must be a JSON object, got {type(arguments).__name__}"]
    problems = []
    for err in sorted(_validator(tool).iter_errors(dict(arguments)), key=lambda e: e.json_path):
        where = ".".join(str(p) for p in err.absolute_path)
        problems.append(f"argument '{where}': {err.message}" if where else err.message)
    return problems


#: A number written out in plain decimal, nothing around it ("19.5", "-3", not "1e3", "01").
_NUMERAL = re.compile(r"-?(0|[1-9]\d*)(\.\d+)?")


def coerce_numbers(tool: Tool, arguments: Mapping[str, Any]) -> dict[str, Any]:
    """``arguments`` with each numeral written as text (``"19.5"``) turned into the number it
    spells, where the tool's schema takes a number for that parameter and no text.

    Models often quote a number; a tool's own lax validation (pydantic's, which AgentDojo and
    most Python tool stacks use) takes ``"19.5"`` for a float, so refusing it would refuse a
    call the tool runs. Only a whole plain decimal numeral is taken (``"19.5 EUR"``, ``"1e3"``
    and ``"01"`` stay text and fail the schema as before); an ``integer`` parameter takes
    only a numeral without a fraction. Nothing else changes."""
    properties = tool.parameters.get("properties", {})
    coerced = dict(arguments)
    for name, value in arguments.items():
        if not isinstance(value, str) or not isinstance(properties.get(name), Mapping):
            continue
        types = _types(properties[name])
        text = value.strip()
        match = _NUMERAL.fullmatch(text)
        if match is None or "string" in types:
            continue
        if "integer" in types and match.group(2) is None:
            coerced[name] = int(text)
        elif "number" in types:
            coerced[name] = int(text) if match.group(2) is None else float(text)
    return coerced


def _types(schema: Mapping[str, Any]) -> frozenset[str]:
    """The JSON types a parameter's schema accepts (``type``, a list of them, or the branches
    of ``anyOf``/``oneOf``, as pydantic writes ``float | None``)."""
    declared = schema.get("type")
    found = {declared} if isinstance(declared, str) else set(declared or ())
    for key in ("anyOf", "oneOf"):
        for branch in schema.get(key) or ():
            if isinstance(branch, Mapping):
                found |= _types(branch)
    return frozenset(t for t in found if isinstance(t, str))


def result_errors(tool: Tool, result: Any) -> list[str]:
    """Every way a result breaks the tool's ``returns`` schema (none when it declares none)."""
    if tool.returns is None:
        return []
    problems = []
    for err in sorted(_validator(tool, "returns").iter_errors(result), key=lambda e: e.json_path):
        where = "/" + "/".join(str(p) for p in err.absolute_path)
        problems.append(f"result {where}: {err.message}" if err.absolute_path else
                        f"result: {err.message}")
    return problems


def value_errors(tool: Tool, parameter: str, value: Any) -> list[str]:
    """Every way ``value`` breaks the schema of the tool's ``parameter`` (none when the tool
    does not declare it)."""
    validator = _parameter_validator(tool, parameter)
    return [] if validator is None else [err.message for err in validator.iter_errors(value)]


def accepts_list(tool: Tool, parameter: str) -> bool:
    """The parameter's schema takes a list (an undeclared parameter takes anything)."""
    validator = _parameter_validator(tool, parameter)
    return validator is None or any(validator.is_valid(probe) for probe in ([], ["x"], [1]))


@lru_cache(maxsize=8192)
def _parameter_validator(tool: Tool, parameter: str) -> Any:
    """The compiled validator of one parameter's schema (None when it is not declared)."""
    schema = tool.parameters.get("properties", {}).get(parameter)
    if not isinstance(schema, Mapping):
        return None
    plain = thaw(schema)
    # A property may refer to definitions of the whole schema (pydantic writes enums as
    # {"$ref": "#/$defs/SharingPermission"}): they come along, so the reference resolves.
    for key in ("$defs", "definitions"):
        if key in tool.parameters and key not in plain:
            plain[key] = thaw(tool.parameters[key])
    return jsonschema.validators.validator_for(plain)(plain)


def schema_kind(schema: Mapping[str, Any]) -> str | None:
    """A schema's type, the non-null one of an ``anyOf`` (``str | None`` -> "string")."""
    kind = schema.get("type")
    if isinstance(kind, str):
        return kind
    for option in schema.get("anyOf") or ():
        if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
            return str(option.get("type"))
    return None


def argument_leaves(tool: Tool, parameter: str, value: Any
                    ) -> list[tuple[Any, Mapping[str, Any]]]:
    """Every scalar inside one argument (the argument itself when it is one; each item of a
    list, each field of an object, at any depth), in document order, with the part of the
    parameter's schema that types it (``{}`` where the schema says nothing). Local
    ``$ref``\\ s are followed; of an ``anyOf`` or ``oneOf``, the branch of the value's kind
    is taken. An object's keys are the schema's field names, not values: they are left out."""
    return [(node, part) for node, part, _ in argument_fields(tool, parameter, value)]


#: Codes joined by commas in one text: ``"HT-00440-C,HT-00441-C"``, ``"A12, B7"`` (each
#: part one word with a digit), and no number written with commas (``"479,000.50"``,
#: ``"12,5"``: :data:`_COMMA_NUMBER`).
_JOINED_CODES = re.compile(r"[^\s,]*\d[^\s,]*(?:\s*,\s*[^\s,]*\d[^\s,]*)+")
_COMMA_NUMBER = re.compile(r"[-+]?[£$€]?\d{1,3}(?:,\d{3})+(?:\.\d+)?|[-+]?\d+,\d+")


def argument_fields(tool: Tool, parameter: str, value: Any
                    ) -> list[tuple[Any, Mapping[str, Any], str | None]]:
    """:func:`argument_leaves`, each with the name of the object field it is the value of
    (None for the argument itself and for an item of a list). A text of codes joined by
    commas (``"HT-00440-C,HT-00441-C"``, a list as some tools take one) gives each code."""
    root = tool.parameters
    schema = root.get("properties", {}).get(parameter)
    out: list[tuple[Any, Mapping[str, Any], str | None]] = []
    stack: list[tuple[Any, Any, str | None]] = [(value, schema, None)]
    while stack:  # an explicit stack: a deep argument cannot exhaust the call stack
        node, part, field = stack.pop()
        part = _branch(root, _resolved(root, part), node)
        if isinstance(node, Mapping):
            fields = part.get("properties")
            fields = fields if isinstance(fields, Mapping) else {}
            rest = part.get("additionalProperties")
            stack.extend((item, fields.get(key, rest), str(key))
                         for key, item in reversed(list(node.items())))
        elif isinstance(node, list | tuple):
            stack.extend((item, part.get("items"), None) for item in reversed(node))
        elif isinstance(node, str) and _JOINED_CODES.fullmatch(node.strip()) \
                and not _COMMA_NUMBER.fullmatch(node.strip()):
            out += [(code.strip(), part, field) for code in node.split(",")]
        else:
            out.append((node, part, field))
    return out


#: A quoted value in a description: "...", '...', `...` or reStructuredText's ``...`` (not
#: an apostrophe's).
QUOTED = r"""(?:``[^`\n]{1,40}``|"[^"\n]{1,40}"|(?<!\w)'[^'\n]{1,40}'(?!\w)|`[^`\n]{1,40}`)"""
#: What joins two choices: a bar, a slash, a comma, "or", "and", each perhaps after a
#: gloss in brackets ("claims" (damage disputes), "billing" or "roadside").
_JOIN = r"""\s*(?:\([^()]{0,240}\)\s*)?(?:\||/|,\s*(?:or\s+|and\s+)?|\bor\b|\band\b)\s*"""
_CHOICES = re.compile(QUOTED + "(?:" + _JOIN + QUOTED + ")+")
#: Words that say examples follow; right before quoted values, they make them examples, not
#: the choices (:data:`_EXAMPLES`).
_EXAMPLE_WORDS = r"e\.\s?g\.|for example|for instance|such as|like"
_EXAMPLES = re.compile(rf"(?:{_EXAMPLE_WORDS})\s*[:,]?\s*$", re.IGNORECASE)


#: A choice written bare: one word of letters, digits, ``_`` and ``-`` (``bank_transfer``).
_BARE = r"[A-Za-z][\w-]*"
#: A bare choice perhaps glossed in brackets: ``wheelchair_space (the booking must hold
#: one)``.
_GLOSSED = rf"{_BARE}(?:\s*\([^()]{{0,240}}\))?"
#: A list of bare choices, each perhaps glossed, that is the whole of a sentence, or follows
#: "one of", "any of", "either" or a colon: ``plumbing, heating, damp or general.``, ``one
#: of bank_transfer, cheque``, ``need codes, any of: pensionable_age, mobility``, ``may
#: contain: wheelchair_space (...), hearing_loop, captions (...).``; the words lead in may
#: be parted by a line's end, as a docstring wraps them (``is one\nof MISSING_ITEM, ...``).
_BARE_CHOICES = re.compile(
    rf"(?:^|(?<=[.;:])\s+|\b(?i:one\s+of|any\s+of|either|one\s+or\s+more\s+of)\s*:?\s*|:\s*)"
    rf"({_GLOSSED}(?:\s*,\s*{_GLOSSED})+(?:\s*,?\s*(?:or|and)\s+{_BARE})?|"
    rf"{_BARE}\s+or\s+{_BARE})"
    r"\s*(?=[.;()]|$)")
#: A word quoted on its own in quotation marks (``"services"``, ``'hearing_loop'``, or a
#: quoted string as reStructuredText writes it, ````"reduce_term"````; not in backticks
#: alone, which mark code: a field, a function, ``null``): two or more of them in a
#: description, none an example, are its choices however the text joins them.
_QUOTED_WORD = re.compile(r"""(?<![\w`])"([A-Za-z][\w-]{0,39})"(?!`)|"""
                          r"""(?<![\w`])'([A-Za-z][\w-]{0,39})'(?![\w`])|"""
                          r"""``"([A-Za-z][\w-]{0,39})"``""")
#: Words of a programming language, no value of a service: ``"null"``, ``"None"``.
_LITERALS = frozenset({"null", "none", "nil", "true", "false", "undefined"})
#: Where the examples after "e.g." (:data:`_EXAMPLES`) end: a sentence's or a bracket's end.
_EXAMPLES_END = re.compile(r"[.;)\n](?:\s|$)|$")
#: The end of a list of bare words that is the start of "e.g." or "i.e.": no sentence's end.
_ABBREVIATION = re.compile(r"[ei]\.[eg]\.", re.IGNORECASE)
#: Bare choices joined by bars, wherever they stand: ``data | design | security``.
_BARE_BARS = re.compile(rf"(?<![\w|-]){_BARE}(?:[ \t]*\|[ \t]*{_BARE})+(?![\w|-])")
#: A bullet that starts with a quoted value and says what it is: ``* ``card`` - needs a
#: card on file``, ``- "express": next day``.
_BULLET = re.compile(rf"^[ \t]*[*•-][ \t]+({QUOTED})[ \t]*(?:[-–—:(]|$)", re.MULTILINE)


@lru_cache(maxsize=4096)
def documented_choices(description: str) -> tuple[str, ...]:
    """The values a parameter's description lists as its choices, as written: two or more
    quoted values joined by bars, commas, slashes, "or" or "and" (``"minor"|"major"``,
    ``'email' or 'sms'``, ``"claims" (disputes), "billing" or "roadside"``, a value perhaps
    in reStructuredText's double backticks); bare words so joined, each perhaps glossed in
    brackets, that make up a whole sentence or follow "one of", "any of", "either" or a
    colon (``plumbing, heating, damp or general.``, ``may contain: wheelchair_space (...),
    hearing_loop``); bare words joined by bars anywhere (``captions | large_print``); two
    or more bullets that each start with a quoted value and say what it is (``*
    ``card`` - needs a card on file``); or two or more words quoted on their own in
    quotation marks, however the text joins them (``"services" for the workshop menu or
    "parts" for parts``; words in backticks are code, ``null`` no value).
    Values after "e.g.", "for example", "such as" or "like" are examples (an id the tool
    once took), not choices."""
    found: list[str] = []
    for run in _CHOICES.finditer(description):
        if _EXAMPLES.search(description[max(0, run.start() - 20):run.start()]):
            continue
        found += [_unquoted(q.group(0)) for q in re.finditer(QUOTED, run.group(0))
                  if not _KEY_AFTER.match(description, run.start() + q.end())]
    for run in _BARE_CHOICES.finditer(description):
        if _EXAMPLES.search(description[max(0, run.start(1) - 20):run.start(1)]) \
                or _ABBREVIATION.match(description, run.end(1) - 1):  # "codes, e.g. A1"
            continue
        listed = re.sub(r"\([^()]*\)", " ", run.group(1))  # the glosses said
        found += [w for w in re.findall(_BARE, listed) if w not in ("or", "and")]
    for run in _BARE_BARS.finditer(description):
        if not _EXAMPLES.search(description[max(0, run.start() - 20):run.start()]):
            found += re.findall(_BARE, run.group(0))
    if len(bullets := _BULLET.findall(description)) > 1:
        found += [_unquoted(b) for b in bullets]
    words = [w for w in _quoted_words(description)
             if not has_digit(w) and w.lower() not in _LITERALS]
    if len(set(words)) > 1:
        found += words
    return tuple(dict.fromkeys(found))


def _quoted_words(description: str) -> list[str]:
    """The words quoted on their own in ``description`` (:data:`_QUOTED_WORD`), less those
    that name a field (a colon after them) or stand among examples."""
    examples = _example_runs(description)
    return [next(g for g in q.groups() if g) for q in _QUOTED_WORD.finditer(description)
            if not _KEY_AFTER.match(description, q.end())
            and not any(a <= q.start() < b for a, b in examples)]


def _example_runs(description: str) -> list[tuple[int, int]]:
    """Where ``description`` gives examples: from "e.g." (:data:`_EXAMPLE_WORDS`) up to the
    end of its sentence or bracket."""
    runs: list[tuple[int, int]] = []
    for marker in re.finditer(rf"\b(?:{_EXAMPLE_WORDS})(?!\w)", description, re.IGNORECASE):
        end = _EXAMPLES_END.search(description, marker.end())
        runs.append((marker.start(), end.start() if end else len(description)))
    return runs


def without_examples(description: str) -> str:
    """``description`` with its examples (:func:`_example_runs`) left out: what it says of
    every value, not of one it shows."""
    kept, last = [], 0
    for start, end in _example_runs(description):
        kept.append(description[last:max(last, start)])
        last = max(last, end)
    return " ".join([*kept, description[last:]])


@lru_cache(maxsize=4096)
def examples_in(description: str) -> tuple[str, ...]:
    """The values ``description`` quotes as examples, unquoted: ``IATA code of the arrival
    airport, e.g. ``"DEN"``.`` gives ("DEN",)."""
    found = [_unquoted(q.group(0)) for start, end in _example_runs(description)
             for q in re.finditer(QUOTED, description[start:end])]
    return tuple(dict.fromkeys(found))


def examples(schema: Any) -> tuple[str, ...]:
    """:func:`examples_in` of a parameter's (or a field's) schema description."""
    return examples_in(description_of(schema))


def description_of(schema: Any) -> str:
    """A parameter's (or a field's) schema description; "" when it has none."""
    said = schema.get("description") if isinstance(schema, Mapping) else None
    return said if isinstance(said, str) else ""


def _unquoted(quoted: str) -> str:
    """A quoted value without its quotes (two backticks each side in reStructuredText)."""
    inner = quoted[2:-2] if quoted.startswith("``") else quoted[1:-1]
    # reStructuredText's literal of a quoted string: ``"late"`` is the value late
    return inner[1:-1] if len(inner) > 1 and inner[0] == inner[-1] and inner[0] in "\"'" \
        else inner


#: A colon after a quoted value: it names a field (``"severity": ...``), no choice.
_KEY_AFTER = re.compile(r"\s*:")


def offered(schema: Any) -> frozenset[str | None]:
    """The choices a parameter's (or a field's) schema description lists
    (:func:`documented_choices`), as the value store keys them
    (:func:`~planfilter.core.values.normal`)."""
    return offered_in(description_of(schema))


@lru_cache(maxsize=4096)
def offered_in(description: str) -> frozenset[str | None]:
    """:func:`offered` of one description, a parameter's or a tool's own (kept per text:
    every argument checked asks it)."""
    return frozenset(normal(c) for c in documented_choices(description))


#: A quoted value set against another way to fill the parameter: ``"store_credit"`` (quote
#: + 10%) or the id of a card``, ``a payment method's id, or ``"store_credit"```.
_ALTERNATIVE = re.compile(rf"\bor\s+({QUOTED})|({QUOTED})(?:\s*\([^()]{{0,240}}\))?\s+or\b")


#: An example that is words joined by underscores, in lower case (``["missing_bow"]``,
#: ``"late_delivery"``): a term of the service's vocabulary, one as much as several; an id's
#: example has digits or capitals.
_SNAKE_EXAMPLE = re.compile(r"[a-z]{2,}(?:_[a-z]{2,})+")


#: Codes in capitals listed bare in brackets, three or more: ``Airport code (LHR, LGW, STN,
#: LTN, LCY)``.
_BRACKETED_CODES = re.compile(r"\(\s*([A-Z][A-Z0-9]{1,9}(?:\s*,\s*[A-Z][A-Z0-9]{1,9}){2,})\s*\)")


#: A quoted value and the case the service uses it for: ``(``OS`` for one-size items)``,
#: ``"N/A" for no preference`` (not "for example", nor "for instance").
_FOR_CASE = re.compile(rf"({QUOTED})\s+for\s+(?!example\b|instance\b)(?:an?\s+|the\s+)?"
                       r"[a-z][a-z-]+\b")


#: An example written in words alone: a lower-case letter, no digit, no mark of an address
#: or a code (``"Grandmother"``; not ``"HG"``, a code's letters).
_WORD_EXAMPLE = re.compile(r"(?=.*[a-z])[A-Za-z][A-Za-z' -]*")


#: A string of a JSON list written as an example: ``["missing_bow", "dent"]``.
_LIST_STRING = re.compile(r"""["']([^"'\n]*)["']""")


def _listed(example: str) -> list[str]:
    """The strings of an example written as a JSON list, else the example."""
    return _LIST_STRING.findall(example) if example.startswith("[") else [example]


@lru_cache(maxsize=4096)
def named_in(description: str) -> frozenset[str | None]:
    """The values a description names as the service's own, as the value store keys them:
    its choices (:func:`documented_choices`); a value it quotes alone against another way
    to fill the parameter (``"store_credit"`` (quote + 10%) or the id of a card``), or
    quotes with the case it is for (````OS`` for one-size items``), or lists as codes in
    brackets (``Airport code (LHR, LGW, STN)``), no example (after
    "e.g.") nor a field's name; and examples written in words alone when it
    gives two or more (``e.g. "Grandmother", "Aunt", "Childminder"``: kinds of a thing, where
    an id's example, ``e.g. "HH-30217"``, stays one), or in words joined by underscores
    (``e.g. ``["missing_bow"]````), however few. Unlike the choices, one so named does
    not keep other values out."""
    examples = _example_runs(description)
    alone = [_unquoted(m.group(1) or m.group(2)) for m in _ALTERNATIVE.finditer(description)
             if not any(a <= m.start() < b for a, b in examples)
             and not _KEY_AFTER.match(description, m.end(1) if m.group(1) else m.end(2))]
    alone += [_unquoted(m.group(1)) for m in _FOR_CASE.finditer(description)
              if not any(a <= m.start() < b for a, b in examples)]
    alone += [code.strip() for m in _BRACKETED_CODES.finditer(description)
              if not any(a <= m.start() < b for a, b in examples)
              for code in m.group(1).split(",")]
    kinds = [e for e in examples_in(description) if _WORD_EXAMPLE.fullmatch(e)]
    if len(set(kinds)) > 1:
        alone += kinds
    alone += [e for example in examples_in(description) for e in _listed(example)
              if _SNAKE_EXAMPLE.fullmatch(e)]
    return offered_in(description) | frozenset(normal(v) for v in alone)


def named_by(schema: Any) -> frozenset[str | None]:
    """:func:`named_in` of a parameter's (or a field's) schema description."""
    return named_in(description_of(schema))


#: A value a description quotes and glosses in brackets: ``"EHU"`` (electric hook-up).
_GLOSSED_VALUE = re.compile(r"""[`'"]+([\w-]{1,40})[`'"]+\s*\(([^()\n]{3,60})\)""")


@lru_cache(maxsize=4096)
def glossed_in(description: str) -> tuple[tuple[str, str], ...]:
    """Each value a description quotes with what it means in brackets after it, as (value,
    meaning): ``e.g. "EHU" (electric hook-up), "DOG"`` gives ("EHU", "electric hook-up").
    An example of a code's form has no meaning beside it; one glossed so is a value the
    service has."""
    return tuple((m.group(1), m.group(2).strip()) for m in _GLOSSED_VALUE.finditer(description))


def glossed(schema: Any) -> tuple[tuple[str, str], ...]:
    """:func:`glossed_in` of a parameter's (or a field's) schema description."""
    return glossed_in(description_of(schema))


def _resolved(root: Mapping[str, Any], schema: Any) -> Mapping[str, Any]:
    """``schema`` with a local ``$ref`` (``#/$defs/Name``) followed, a few times at most;
    ``{}`` for what is no schema."""
    for _ in range(8):
        if not isinstance(schema, Mapping):
            return {}
        ref = schema.get("$ref")
        if not (isinstance(ref, str) and ref.startswith("#/")):
            return schema
        target: Any = root
        for token in ref[2:].split("/"):
            token = token_key(token)
            target = target.get(token) if isinstance(target, Mapping) else None
        schema = target
    return {}


def _branch(root: Mapping[str, Any], schema: Mapping[str, Any], value: Any
            ) -> Mapping[str, Any]:
    """The branch of an ``anyOf``/``oneOf`` that fits ``value``'s kind (an object, a list, or
    a scalar), or ``schema`` itself when it has no branches. A branch without a description
    of its own takes the one around it (``status: str | None`` whose description lists
    ``"active", "paused" or "cancelled"``)."""
    kind = "object" if isinstance(value, Mapping) else \
        "array" if isinstance(value, list | tuple) else None
    for key in ("anyOf", "oneOf"):
        branches = [_resolved(root, b) for b in schema.get(key) or ()]
        for branch in branches:
            types = _types(branch)
            if (kind in types) if kind else not types & {"object", "array", "null"}:
                if "description" in schema and "description" not in branch:
                    return {**branch, "description": schema["description"]}
                return branch
    return schema
