"""Every value a session has seen, once, with where it came from: :class:`ValueStore`.

Provenance is decided by the value, not by what it is called (planfilter.core.provenance):
a value that entered the session anywhere was obtained, and a value that entered only as
outside content is the attacker's until the user approves. So every value that enters is
indexed here under one key, its :func:`normal` form, with its :class:`Source`:

- the user: each value given (``known``) or read out of the request, and the request's text
  (with what it spells in words, as written: :meth:`ValueStore.with_request`);
- a tool's result, call ``k`` at JSON Pointer ``p`` (trusted or not, as the tool's contract
  says): every leaf at any depth, every list item, every object key, and every text (for a
  value spelled out inside it);
- the environment: each value the system supplied;
- the model: each value it wrote for an authored parameter.

The store is append-only: adding returns a new store and never edits the old one, so a
decision taken on one store can be taken again on it. Lookups answer in the order the values
came in: the same calls give the same answers.

:func:`normal` is the one place where two spellings of a value meet. It is small on
purpose: whatever it folds together, an attacker can spell either way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import Enum
from functools import lru_cache
from typing import Any

from .spoken import spoken_addresses, written
from .text import SPACELESS, apart, fold, has_digit, narrow

#: Text shorter than this (after :func:`normal`) is never looked for inside other text: a
#: two-letter id would occur everywhere. Except a digit with a letter (a seat ``2A``, a
#: gate ``B7``): no word of prose is one.
MIN_MENTION_CHARS = 3
#: A number is looked for inside text only with this many digits or more: small numbers
#: occur in every date and count, and say nothing about where an id came from.
MIN_MENTION_DIGITS = 3

#: A code of digits (and letters) this long or longer is also found written in groups, as
#: people write a tracking number, an IBAN or a card number (``PD 7741 2093 58GB``), or
#: spelled out (:data:`_GAP`).
MIN_GROUPED_CHARS = 8
#: What may stand between two characters of such a code, its own dashes too: a space, a dash
#: or a comma, as people write a code in groups or spell it out (``SN4K 881 0273``,
#: ``L-U-M-N, 4-K-Q-8`` for ``LUMN-4KQ8``), or a dash and the line's end a pasted code
#: breaks at ("INV-2025-\n00452").
_GAP = r"(?:- ?| |, ?)?"
#: A plain decimal number, with or without thousands separators: ``42``, ``-0.5``,
#: ``1,200.00``. Not ``01`` or ``007`` (ids are often digits, and keep their zeros), not
#: ``1e3`` or ``nan``.
_NUMBER = re.compile(r"-?(0|[1-9]\d{0,2}(,\d{3})+|[1-9]\d*)(\.\d+)?")
#: A telephone number as people and services write it: ``+14155550134``, ``(415) 555-0134``,
#: ``415-555-0134``, ``+1 415 555 0134``, ``020 7946 0958``, ``98290 12345`` (two groups of
#: five, as India writes a mobile), ``(11) 98123-4567``, and a national number with its trunk
#: 0 in one run of ten or eleven figures (``09127782219``), and the figures in pairs after a
#: first group, as France, Georgia and others write them (``06 71 42 88 19``, ``+33 6 24 58
#: 91 07``, ``555 48 21 90``, ``0 599 12-34-56``). Not a date (``2025-06-12``), a card number
#: in fours, a postcode with its suffix, an account number with a dash or a sort code
#: (``20-45-77``: two pairs).
PHONE = re.compile(r"\+\d{8,15}|\+?(?:\d{1,3}[\s.-])?(?:\(\d{2,5}\)\s?|\d{2,6}[\s.-])"
                   r"\d{3,5}[\s.-]?\d{3,4}|(?:\+\d{1,3}[\s.-]?)?\d{5}[\s.-]\d{5}|0[1-9]\d{8,9}"
                   r"|(?:\+\d{1,3}[\s.-]?|0[\s.-])?\d{1,4}(?:[\s.-]\d{2}){3,4}")
#: What a telephone number's text starts with.
_PHONE_START = frozenset("+(0123456789")
#: Four numbers joined by dots: an IPv4 address (``192.168.100.200``), no telephone.
_DOTTED_QUAD = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
#: The digits a telephone number is known by: the last ten of its national number (without
#: its country code or a trunk ``0``), all of them when it has fewer.
PHONE_DIGITS = 10
#: The country calling codes of one and two figures (ITU-T E.164); every other is of three.
#: No code begins another, so a number's first figures say which it is.
_SHORT_COUNTRY_CODES = frozenset({
    "1", "7", "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44",
    "45", "46", "47", "48", "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61",
    "62", "63", "64", "65", "66", "81", "82", "84", "86", "90", "91", "92", "93", "94", "95",
    "98"})


def national_number(text: str) -> str:
    """The figures of a telephone number without its country code (after ``+``, or leading
    twelve figures or more, more than a national number has) or its trunk ``0``:
    ``+48 519 407 262`` and ``519 407 262`` are ``519407262``; ``+44 7712 345678`` and
    ``07712 345678`` are ``7712345678``; ``254722 908 113`` is ``722908113``."""
    digits = "".join(c for c in text if c.isdigit())
    if text.strip().startswith("+") or len(digits) > PHONE_DIGITS + 1 and digits[0] != "0":
        code = next((digits[:n] for n in (1, 2) if digits[:n] in _SHORT_COUNTRY_CODES),
                    digits[:3])
        digits = digits[len(code):]
    return digits[1:] if digits.startswith("0") else digits


@lru_cache(maxsize=4096)
def phone_key(text: str) -> str | None:
    """``tel:`` and the digits :data:`PHONE` text is known by (:data:`PHONE_DIGITS` of its
    :func:`national_number`);
    None for other text (an IPv4 address too). Asked of every text compared or stored, so
    text that cannot be one (not starting with a digit, ``+`` or ``(``, or not ending in a
    digit) is turned away before the pattern, and answers are kept per text."""
    stripped = narrow(text).strip()
    if not (stripped[:1] in _PHONE_START and stripped[-1:].isdigit()) \
            or not PHONE.fullmatch(stripped) or _DOTTED_QUAD.fullmatch(stripped):
        return None
    return "tel:" + national_number(stripped)[-PHONE_DIGITS:]


#: The fewest letters and figures of a code compared however it is grouped.
MIN_CODE_CHARS = 6
#: What parts the groups of a code as people copy it: dashes, slashes, dots, spaces.
_GROUP_MARKS = re.compile(r"[\s./_-]+")
#: Letters typed for the figures they look like (a key's "O" for its zero).
_LOOKALIKES = str.maketrans("OI", "01")


def code_groups(code: str) -> tuple[str, ...]:
    """A code's groups, upper-case, each letter O as a zero and I as a one, a group of
    figures without its leading zeros."""
    groups = (g.translate(_LOOKALIKES) for g in _GROUP_MARKS.split(fold(code).upper()) if g)
    return tuple(g.lstrip("0") or "0" if g.isdigit() else g for g in groups)


def code_key(code: Any) -> tuple[tuple[str, ...], str] | None:
    """How a code is compared however it is grouped and typed: its groups
    (:func:`code_groups`) and its letters and figures run together; None for what is no
    code (text with a figure and :data:`MIN_CODE_CHARS` letters or figures or more)."""
    if not isinstance(code, str) or not has_digit(code) \
            or len(re.sub(r"[\W_]", "", code)) < MIN_CODE_CHARS:
        return None
    return code_groups(code), _ungrouped(code)


def same_code(value: Any, other: Any) -> bool:
    """``value`` and ``other`` are one code however each is grouped and typed: the same
    figures and letters in the same order, whatever marks part them, case, an O typed for a
    zero or an I for a one, or zeros before a group of figures (``QX7T-9KLM-22PB-H4RW`` and
    "qx7t9klm22pbh4rw"; ``INV/2025/004431`` and "INV 2025 4431"; ``7H0P-W3KR`` and
    "7HOP-W3KR"). Only codes (:func:`code_key`)."""
    mine, theirs = code_key(value), code_key(other)
    return mine is not None and theirs is not None and (
        mine[0] == theirs[0] or mine[1] == theirs[1])


#: A long value written by its ends, its middle left out as a wallet or a screen shows it:
#: ``0x3f4a…9a2c``, ``bc1qxy2...x0wlh``.
ELIDED = re.compile(r"([A-Za-z0-9]{3,})(?:…|\.{3})([A-Za-z0-9]{3,})")


def elided_as(value: Any, written: Any) -> bool:
    """``value`` is the long value ``written`` shows by its ends (:data:`ELIDED`): it starts
    with the one and ends with the other (case aside), and is longer than both together
    (``0x3f4a51e0...9a2c`` of "0x3f4a…9a2c"). Ends of four characters tell apart what one
    person holds, not what another made to look alike: where the value came from is still
    asked of it."""
    found = ELIDED.fullmatch(written.strip()) if isinstance(written, str) else None
    if found is None or not isinstance(value, str):
        return False
    head, tail, whole = found.group(1).lower(), found.group(2).lower(), value.strip().lower()
    return len(whole) > len(head) + len(tail) and whole.startswith(head) \
        and whole.endswith(tail)


def _ungrouped(code: str) -> str:
    """A code's figures and letters run together, upper-case, O as a zero and I as a one."""
    return _GROUP_MARKS.sub("", fold(code).upper()).translate(_LOOKALIKES)


def normal(value: Any) -> str | None:
    """The key two spellings of one value share, or None for what is no single value (None,
    a boolean, a list, an object, an empty text, a number that is not finite).

    - text is case-folded, its accents dropped (``Gérard`` is ``gerard``, as people type a
      name they read: :func:`~planfilter.core.text.fold`), and whitespace is dropped
      wherever it is (no id differs from another by a space; a model copying a long text
      back drops or adds spaces);
    - an id's decoration, leading ``#`` signs, is dropped (``#W2378156`` is ``w2378156``);
    - a number is its plain decimal text, from a number or from text that spells one:
      ``42``, ``42.0`` and ``"42"`` are ``42``; ``"1,200.00"`` is ``1200``; ``"98.70"`` is
      ``98.7``; digits with a leading zero (``"007"``) stay text;
    - a telephone number is its digits, whatever its punctuation and country code
      (``+1 415 555 0134`` is ``(415) 555-0134``: :func:`phone_key`);
    - a boolean never meets a number or a text (``True`` is not ``1``).
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return None
        return _decimal_text(Decimal(repr(value)))
    if not isinstance(value, str):
        return None
    return _normal_text(value)


@lru_cache(maxsize=8192)
def _normal_text(value: str) -> str | None:
    """:func:`normal` of a text (kept per text: every comparison of two texts asks it)."""
    phone = phone_key(value)
    if phone is not None:
        return phone
    text = "".join(fold(value).split())
    stripped = text.lstrip("#")
    if stripped:
        text = stripped
    if _NUMBER.fullmatch(text):
        return _decimal_text(Decimal(text.replace(",", "")))
    return text or None


def _decimal_text(number: Decimal) -> str:
    try:
        text = format(number.normalize(), "f")
    except InvalidOperation:  # pragma: no cover - finite decimals always format
        return str(number)
    return "0" if text in ("-0", "0") else text


class SourceKind(Enum):
    """Where a value came from."""

    #: The user: a value given (``known``), read out of the request, or the request's text.
    USER = "user"
    #: A tool's result.
    RESULT = "result"
    #: The system (planfilter.core.environment).
    ENVIRONMENT = "environment"
    #: The model, as an authored argument.
    MODEL = "model"


@dataclass(frozen=True)
class Source:
    """One place a value was seen."""

    kind: SourceKind
    #: RESULT and MODEL: the call (1-based).
    call: int | None = None
    #: RESULT: the tool that answered; MODEL: the tool the model wrote for.
    tool: str = ""
    #: RESULT: the JSON Pointer of the value inside the result ("" for the whole result).
    path: str = ""
    #: USER, ENVIRONMENT and MODEL: the variable the value was given or written for
    #: (empty for the request's text).
    variable: str = ""
    #: False for outside content: an untrusted tool's result, or what the model wrote after
    #: untrusted content entered the session.
    trusted: bool = True
    #: "value" (the value itself), "key" (an object's key), or "text" (spelled out inside a
    #: longer text).
    part: str = "value"

    def describe(self) -> str:
        """Where, in words: ``call 2 (get_user)'s result at /orders/0 (trusted)``."""
        inside = {"key": "as a key ", "text": "inside the text "}.get(self.part, "")
        if self.kind is SourceKind.RESULT and self.call is None:  # a plain state's value
            what = f"the state's value of {self.variable}" if self.variable else \
                "outside content in the state"
            return f"{what}{'' if self.trusted else ' (untrusted)'}"
        if self.kind is SourceKind.RESULT:
            trust = "trusted" if self.trusted else "untrusted"
            return (f"call {self.call} ({self.tool})'s result {inside}at "
                    f"{self.path or '/'} ({trust})")
        if self.kind is SourceKind.USER:
            return "the request's text" if not self.variable else \
                f"the user's value of {self.variable}"
        if self.kind is SourceKind.ENVIRONMENT:
            return f"the environment's value of {self.variable}"
        trust = "" if self.trusted else ", after untrusted content"
        return f"what the model wrote for {self.variable} at call {self.call}{trust}"


@dataclass(frozen=True)
class ValueStore:
    """Every value seen, by :func:`normal` key, each with its sources in the order seen; and
    every text, to find a value spelled out inside one."""

    #: normal key -> its sources, in the order they came in.
    index: Mapping[str, tuple[Source, ...]] = field(default_factory=dict)
    #: (text, source): each text seen (case-folded, runs of whitespace made one space).
    texts: tuple[tuple[str, Source], ...] = ()

    def __len__(self) -> int:
        return len(self.index)

    # -- adding ------------------------------------------------------------------------------

    def with_value(self, value: Any, source: Source) -> ValueStore:
        """The store with ``value`` and everything inside it (list items, object keys and
        fields, at any depth) seen at ``source``; a text is kept for what it spells out."""
        return self._with(_entries(value, source))

    def with_result(self, call: int, tool: str, result: Any, *, trusted: bool) -> ValueStore:
        """The store with call ``call``'s result (a parsed JSON value, or text): each value
        inside it under its JSON Pointer."""
        return self.with_value(result, Source(SourceKind.RESULT, call, tool, trusted=trusted))

    def with_text(self, text: str, source: Source) -> ValueStore:
        """The store with ``text`` kept for what it spells out (the request), not as a value."""
        if not isinstance(text, str) or not text.strip():
            return self
        return ValueStore(self.index, (*self.texts, (_spaced(text), source)))

    def with_request(self, text: str) -> ValueStore:
        """The store with the user's request, the user's: its text, the same text as written
        where it spells values out in words (``four seven two nine`` as ``4729``:
        :func:`~planfilter.core.spoken.written`), each telephone number it writes (``07712
        345678`` is ``+447712345678``: :func:`phone_key`; in full-width figures too) and
        each e-mail address it says with "at" and "dot"
        (:func:`~planfilter.core.spoken.spoken_addresses`)."""
        user = Source(SourceKind.USER)
        store = self.with_text(text, user)
        if not isinstance(text, str):
            return store
        spelled = written(narrow(text))
        if spelled != text:
            store = store.with_text(spelled, user)
        found = [m.group() for m in PHONE.finditer(spelled) if phone_key(m.group())]
        for value in (*found, *spoken_addresses(text)):
            store = store.with_value(value, user)
        return store

    def _with(self, entries: Iterable[tuple[str | None, str | None, Source]]) -> ValueStore:
        # each key touched is copied once, as a list and a set (a value repeated in every
        # item of a long result, a status or a currency, gathers many sources)
        grown: dict[str, tuple[list[Source], set[Source]]] = {}
        texts = list(self.texts)
        for key, text, source in entries:
            if key is not None:
                sources = grown.get(key)
                if sources is None:
                    known = self.index.get(key, ())
                    sources = grown[key] = (list(known), set(known))
                if source not in sources[1]:
                    sources[0].append(source)
                    sources[1].add(source)
            if text is not None:
                texts.append((text, source))
        index = dict(self.index)
        index.update((key, tuple(listed)) for key, (listed, _) in grown.items())
        return ValueStore(index, tuple(texts))

    # -- looking up --------------------------------------------------------------------------

    def sources(self, value: Any) -> tuple[Source, ...]:
        """Where ``value`` itself was seen (as a value or a key), in order; empty when
        nowhere or when it is no single value (see :func:`store_key`: blank text is one)."""
        key = store_key(value)
        return () if key is None else tuple(self.index.get(key, ()))

    def mentions(self, value: Any) -> tuple[Source, ...]:
        """The texts that spell ``value`` out as whole words (case and runs of whitespace
        ignored; ``Maria`` in "send it to Maria", not ``Mar``), as ``text`` sources, in
        order. Text shorter than :data:`MIN_MENTION_CHARS` and numbers of fewer than
        :data:`MIN_MENTION_DIGITS` digits are never looked for: they occur in any text."""
        pattern = mention_pattern(value)
        if pattern is None:
            return ()
        return tuple(_as_text(source) for text, source in self.texts if pattern.search(text))

    def seen(self, value: Any) -> tuple[Source, ...]:
        """:meth:`sources`, then :meth:`mentions`: every place ``value`` was seen."""
        return (*self.sources(value), *self.mentions(value))

    def shows(self, fragment: str) -> bool:
        """``fragment`` (case ignored) occurs inside a value or a text that something other
        than the model showed (the user, a result, the environment): a code the model
        copied from anywhere it read, even as part of a longer value. Values are looked at
        by their :func:`normal` key, so the spaces inside one are not (``ab12cd`` is shown
        by a result holding ``AB12 CD``, as a model may copy it)."""
        needle = fold(fragment)
        return any(needle in text for text, source in self.texts
                   if source.kind is not SourceKind.MODEL) or any(
            needle in key for key, sources in self.index.items()
            if any(s.kind is not SourceKind.MODEL for s in sources))


def _as_text(source: Source) -> Source:
    return source if source.part == "text" else Source(
        source.kind, source.call, source.tool, source.path, source.variable, source.trusted,
        "text")


def mention_pattern(value: Any) -> re.Pattern[str] | None:
    """A pattern for ``value`` as whole words in a :func:`_spaced` text, or None when it is
    too short to say anything (see :meth:`ValueStore.mentions`)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        key = normal(value)
        if key is None or sum(c.isdigit() for c in key) < MIN_MENTION_DIGITS:
            return None
        # either measure of "200x300 cm" is a number of its own
        return re.compile(rf"(?:(?<![\w.,])|(?<=\d[x×])){_grouped(key)}"
                          rf"(?:(?![\w]|[.,]\d)|(?=[x×]\d))")
    if not isinstance(value, str):
        return None
    needle = _spaced(value).lstrip("#")
    if len(needle.replace(" ", "")) < MIN_MENTION_CHARS and not (
            len(needle) == 2 and any(c.isdigit() for c in needle)
            and any(c.isalpha() for c in needle)) \
            and not (len(needle) == 2 and re.fullmatch(f"{SPACELESS}+", needle)):
        return None  # (two characters of a script without spaces are a word: 上海)
    if needle.isdigit() and len(needle) < MIN_MENTION_DIGITS:
        return None
    # a word of a script written without spaces starts or ends wherever it stands (an
    # address inside "改到上海市徐汇区漕溪北路88号")
    before = "" if re.match(SPACELESS, needle) else r"(?<!\w)"
    after = "" if re.match(SPACELESS, needle[-1]) else r"(?!\w)"
    if len(needle) >= MIN_GROUPED_CHARS and " " not in needle \
            and any(c.isdigit() for c in needle):  # a code people write in groups
        return re.compile(before + _GAP.join(map(re.escape, needle.replace("-", "")))
                          + after)
    return re.compile(rf"{before}{re.escape(needle)}{after}")


def _grouped(number: str) -> str:
    """A pattern for the text of a number, its thousands perhaps separated by commas
    ("28,412" for ``28412``, "1,250.5" for ``1250.5``)."""
    match = re.fullmatch(r"(-?)(\d+)(\.\d+)?", number)
    if match is None:
        return re.escape(number)
    sign, whole, fraction = match.groups()
    groups = [whole[max(0, i - 3):i] for i in range(len(whole), 0, -3)][::-1]
    return re.escape(sign) + ",?".join(groups) + re.escape(fraction or "")


#: A character between words: a text holding one is kept for what it spells out.
_WORDS = re.compile(r"[^\w#]")


def _spaced(text: str) -> str:
    return " ".join(apart(fold(text)).split())


def pointer_token(key: Any) -> str:
    """An object key as one RFC 6901 reference token."""
    return str(key).replace("~", "~0").replace("/", "~1")


def token_key(token: str) -> str:
    """One RFC 6901 reference token as the object key it names (:func:`pointer_token`
    undone)."""
    return token.replace("~1", "/").replace("~0", "~")


def _entries(value: Any, source: Source) -> Iterable[tuple[str | None, str | None, Source]]:
    """(key, text, source) of every value inside ``value``, depth first in document order;
    an explicit stack, so that a deep result cannot exhaust the call stack."""
    stack: list[tuple[Any, str]] = [(value, source.path)]
    while stack:
        node, path = stack.pop()
        here = _at(source, path)
        if isinstance(node, Mapping):
            for key in node:
                yield normal(str(key)), None, _at(source, f"{path}/{pointer_token(key)}",
                                                  "key")
            stack.extend((item, f"{path}/{pointer_token(key)}")
                         for key, item in reversed(list(node.items())))
        elif isinstance(node, list | tuple):
            stack.extend((item, f"{path}/{i}") for i, item in reversed(list(enumerate(node))))
        elif isinstance(node, str):
            # a text of more than one word may spell values out; outside content is kept
            # whole, for a value hidden inside any of it
            text = _spaced(node)
            kept = not source.trusted or _WORDS.search(text.lstrip("#"))
            yield store_key(node), text if kept else None, here
        else:
            yield normal(node), None, here


#: The store's key of a blank text (empty, or whitespace only): no :func:`normal` key, yet a
#: value a result can hold and a call can pass on, obtained only where one was seen.
BLANK = ""


def store_key(value: Any) -> str | None:
    """The store's key of ``value``: its :func:`normal` key, or :data:`BLANK` for blank text."""
    key = normal(value)
    return BLANK if key is None and isinstance(value, str) else key


def _at(source: Source, path: str, part: str = "value") -> Source:
    if path == source.path and part == source.part:
        return source
    return Source(source.kind, source.call, source.tool, path, source.variable,
                  source.trusted, part)
