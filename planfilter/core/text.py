"""Words of English text, read one way everywhere: split, singular, stop words, word lists.

:func:`words` splits text into lowercase words; :func:`singular` makes a plural noun
singular; :data:`STOP_WORDS` are words that tell nothing about a tool. The lists of
prepositions and verbs say what a word of a tool's name does there (``files_by_filename``
is about files; ``search_`` looks things up). Nothing here knows a tool, a suite or a task.

Where two readers differ on purpose (the simulated model's wider stop list; the plain
``-s`` singular of the simulated model, of the live layer's kinds of thing and of a
request's cue words; the contract rules' letters-only words; the words of a request that
start with a letter, beside its values), the difference is an option or a named list here,
not a second copy, so that each reader keeps its own reading.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Iterable, Mapping
from functools import lru_cache

_WORD = re.compile(r"[a-z0-9]+")
_LETTERS = re.compile(r"[a-z]+")
_NAMED = re.compile(r"[a-z][a-z0-9]*")

#: Words that carry no signal in a request or a tool's description (retrieval drops them).
STOP_WORDS = frozenset(
    "a an and are as at be by for from has have i in is it its me my of on or our that the "
    "their this to was we with you your".split()
)
#: :data:`STOP_WORDS` and the words of a question ("which", "when"), the filler "given" and
#: "one", and the ``s`` an apostrophe leaves: the simulated model's list.
QUESTION_STOP_WORDS = STOP_WORDS | frozenset(
    "given one s what when which who whose will".split())

#: Words too common to tie a value in a request to a parameter's words: the small words,
#: the words every schema has (``id``, ``name``, ``value``, ``list``) and pronouns.
VALUE_STOP_WORDS = frozenset(
    "a an and are as at be by for from get given id ids in into is it its list me my name "
    "names new of on one or that the their them this to user users value values what which "
    "with your".split()
)

#: Words that end the object of a tool's name (``files_by_filename`` is about files).
PREPOSITIONS = frozenset({"by", "for", "in", "of", "from", "to", "with", "on", "at", "into"})

#: What joins the items of a list written in a sentence: a comma (perhaps with "and" or
#: "or"), "and", "or" ("Priya and Marco", "PHOTOBOOK20 and AUTUMN15", "Maria, Kenji or Hannah").
LIST_JOIN = r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+"


#: Characters as the plain ones they stand for: the full-width forms of ASCII (U+FF01 to
#: U+FF5E) and the ideographic space, as a Japanese, Chinese or Korean keyboard types them
#: (``０８０－５５１２`` is ``080-5512``); the figures of every script (Unicode's decimal
#: digits: Arabic-Indic ``٤٥٨٢١٧``, Devanagari ``४५८``, Thai ``๐๘๑`` are ``458217``,
#: ``458``, ``081``) and the Arabic thousands and decimal signs; the numero sign, as ``#``
#: (``№4522963``); the dashes and minus a pasted text puts in an id (``INV–2025–00417``);
#: spaces that do not break; and, as nothing, the spaces of no width a copied text hides
#: inside a value (``sam@\u200bexample.com``).
_NARROW: dict[int, str | None] = {
    0x3000: " ", **{c: chr(c - 0xFEE0) for c in range(0xFF01, 0xFF5F)},
    **{c: str(unicodedata.decimal(chr(c))) for c in range(0x80, 0x1FC00)
       if unicodedata.category(chr(c)) == "Nd"},
    0x066B: ".", 0x066C: ",", 0x2116: "#",
    **{c: "-" for c in (0x2010, 0x2011, 0x2012, 0x2013, 0x2014, 0x2015, 0x2212)},
    **{c: " " for c in (0x00A0, 0x2007, 0x202F)},
    **{c: None for c in (0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF)}}


#: A character reference of HTML or XML (``&nbsp;``, ``&pound;``, ``&#39;``, ``&#x27;``).
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});")


def narrow(text: str) -> str:
    """``text`` with the characters :data:`_NARROW` lists as the plain ones they stand for,
    and with the characters an e-mail's or a page's markup writes as references
    (``07700&nbsp;900456``, ``&pound;5,104.00``): the same value, however it was typed,
    pasted or sent."""
    if "&" in text and _ENTITY.search(text):
        text = html.unescape(text)
    return text if text.isascii() else text.translate(_NARROW)


#: A character of a script written without spaces between words: Thai, Lao, Khmer and
#: Burmese letters, kana, Chinese characters, Hangul (whose particles join the word before them).
SPACELESS = ("[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"
             "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
#: Where such a script meets Latin letters or figures: ``予約番号KYT-250371の`` holds the
#: code ``KYT-250371`` as a word.
_SCRIPT_EDGE = re.compile(rf"(?<={SPACELESS})(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?={SPACELESS})")


def apart(text: str) -> str:
    """``text`` with a space where a script without spaces meets Latin letters or figures
    (:data:`_SCRIPT_EDGE`): what stands there as a word, a code or a number, does."""
    return text if text.isascii() else _SCRIPT_EDGE.sub(" ", text)


@lru_cache(maxsize=8192)
def fold(text: str) -> str:
    """``text`` as two spellings of one value are compared: case-folded and without accents
    (``Gérard`` is ``gerard``, ``Comté`` is ``comte``), as people type a name they read, and
    typed or pasted as the plain characters they stand for (:func:`narrow`)."""
    if text.isascii():
        return text.casefold()
    out: list[str] = []
    for c in unicodedata.normalize("NFD", narrow(text).casefold()):  # canonical: "¸" stays "¸"
        if unicodedata.combining(c) and out and not out[-1].isspace():
            continue  # an accent on a letter; one standing alone is a character of its own
        out.append(c)
    return "".join(out)


#: A line of quoted text, as an e-mail quotes the message it answers ("> On 3 March, the
#: Parts Team wrote: ..."): what someone else said before, not what the writer asks now.
_QUOTED_LINE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)
#: A passage given word for word between quotation marks, of eighty characters or more
#: ('The wording is: "BRENNAN Thomas (Tom). Passed away ... on 11th November 2024 ..."'):
#: text for the service to print, whose dates and numbers are no values of the request.
_QUOTED_PASSAGE = re.compile(r"[\"“]([^\"“”\n]{80,})[\"”]")


@lru_cache(maxsize=256)
def _quoted_lines(text: str) -> tuple[tuple[int, int], ...]:
    return tuple(m.span() for m in _QUOTED_LINE.finditer(text)) \
        + tuple(m.span(1) for m in _QUOTED_PASSAGE.finditer(text))


def quoted_at(text: str, at: int) -> bool:
    """Offset ``at`` of ``text`` is on a quoted line (:data:`_QUOTED_LINE`) or inside a
    passage quoted word for word (:data:`_QUOTED_PASSAGE`)."""
    return any(start <= at < end for start, end in _quoted_lines(text))


def has_digit(text: str) -> bool:
    """``text`` holds a digit."""
    return any(c.isdigit() for c in text)


#: Courtesy titles: how a person is addressed, never which person (lower case, no stop).
COURTESY_TITLES = frozenset({"mr", "mrs", "ms", "miss", "mx", "dr", "prof", "master", "sir",
                             "madam", "lady", "lord", "rev", "sr", "sra", "srta",
                             "mme", "mlle", "herr", "frau"})

#: Units of measure by kind: each unit's one name and the ways it is written ("gb",
#: "gigabytes").
UNIT_NAMES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "data": {"kb": ("kb", "kilobytes"), "mb": ("mb", "megabytes"), "gb": ("gb", "gigabytes"),
             "tb": ("tb", "terabytes")},
    "length": {"mm": ("mm", "millimetres", "millimeters"),
               "cm": ("cm", "centimetres", "centimeters"), "m": ("metres", "meters"),
               "km": ("km", "kilometres", "kilometers"), "mile": ("miles", "mile"),
               "inch": ("inches", "inch"), "ft": ("ft", "feet", "foot")},
    "mass": {"g": ("grams",), "kg": ("kg", "kilograms", "kilos"), "lb": ("lb", "lbs", "pounds")},
    "time": {"s": ("seconds", "secs", "sec"), "min": ("minutes", "mins", "min"),
             "h": ("hours", "hrs", "hr", "hour"), "day": ("days", "day"),
             "week": ("weeks", "week"), "month": ("months", "month"), "year": ("years", "year")},
    "share": {"bp": ("bp", "bps", "basis points"), "pct": ("percent", "per cent", "pct", "%")},
}
#: Each unit of :data:`UNIT_NAMES` in the first of its kind's units (a millimetre, a second,
#: a gram, a basis point), where a unit has a fixed size.
UNIT_SIZES: Mapping[str, float] = {
    "mm": 1, "cm": 10, "m": 1000, "km": 1_000_000, "mile": 1_609_344, "inch": 25.4,
    "ft": 304.8, "s": 1, "min": 60, "h": 3600, "day": 86400, "week": 604800, "g": 1,
    "kg": 1000, "lb": 453.59237, "bp": 1, "pct": 100}
#: A way a unit is written -> (its kind, its one name): "feet" -> ("length", "ft").
UNIT_OF: Mapping[str, tuple[str, str]] = {
    way: (kind, unit) for kind, units in UNIT_NAMES.items()
    for unit, ways in units.items() for way in ways}
_SMALL_NUMBERS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                  "nine", "ten", "eleven", "twelve")
_AMOUNT = r"(\d+(?:\.\d+)?|" + "|".join(_SMALL_NUMBERS) + r"|a|an|half an?)"
_WAYS = "|".join(sorted((re.escape(w) for w in UNIT_OF), key=len, reverse=True))
#: A measure said with its unit ("6 foot 2", "72 inches", "1.8 metres", "two hours"), feet
#: perhaps followed by inches.
_SAID_MEASURE = re.compile(
    rf"(?<![\w.]){_AMOUNT}\s?({_WAYS})(?!\w)(?:\s?(\d+(?:\.\d+)?)(?:\s?(?:inches|inch|in)\b)?)?",
    re.IGNORECASE)


def _amount(said: str) -> float:
    said = said.lower()
    if said in ("a", "an"):
        return 1.0
    if said.startswith("half"):
        return 0.5
    return float(_SMALL_NUMBERS.index(said)) if said in _SMALL_NUMBERS else float(said)


@lru_cache(maxsize=256)
def measures_said(text: str) -> tuple[tuple[str, float], ...]:
    """Each measure ``text`` says with its unit, as (its kind, its size in the kind's first
    unit, :data:`UNIT_SIZES`): "6 foot 2" is a length of 1879.6 (mm), "two hours" a time of
    7200 (s). A number after feet is inches ("4 foot 6")."""
    found = []
    for m in _SAID_MEASURE.finditer(text):
        kind, unit = UNIT_OF[m.group(2).lower()]
        if unit not in UNIT_SIZES:
            continue
        size = _amount(m.group(1)) * UNIT_SIZES[unit]
        if m.group(3) and unit == "ft":
            size += float(m.group(3)) * UNIT_SIZES["inch"]
        found.append((kind, size))
    return tuple(found)


def unit_named(name: str) -> tuple[str, str] | None:
    """(kind, unit) of the unit a parameter's name ends with (``width_mm``, ``duration_min``,
    ``weight_kg``), or None."""
    last = re.split(r"[^a-z]+", name.lower().strip("_"))[-1:]
    return UNIT_OF.get(last[0]) if last and last[0] else None


#: A measure written with its unit, as a value: ``8in``, ``16 in``, ``128 GB``, ``2.5kg``,
#: ``500ml`` (the unit's ways of :data:`UNIT_NAMES`, and short ones no request reads after
#: a number: "in", "ml"). No unit of one letter: ``000G`` or ``12M`` is a code as often.
_MEASURE_UNITS = "|".join(sorted(
    {w for units in UNIT_NAMES.values() for ways in units.values() for w in ways
     if len(w) > 1} | {"in", "ml", "cl", "oz", "mph", "kw"}, key=len, reverse=True))
MEASURE = re.compile(rf"\d+(?:[.,]\d+)?\s?(?:{_MEASURE_UNITS})\.?", re.IGNORECASE)


#: Words of a parameter that takes money: a number written with a currency goes to one.
MONEY_WORDS = frozenset({"amount", "price", "total", "cost", "fee", "fees", "sum", "balance",
                         "payment", "pay", "budget", "limit", "charge", "deposit", "rent",
                         "salary", "value", "credit", "refund", "money", "paid", "spend",
                         "spent", "fare", "tip", "currency", "cents", "pence", "payout",
                         "payouts", "bid", "amt", "amnt"})
#: Words of a name that make it an identifier's, whatever else it says (``payment_id``,
#: ``fee_code``, ``deposit_ref``).
ID_WORDS = frozenset({"id", "ids", "ref", "reference", "number", "no", "code", "key", "uuid",
                      "handle", "account", "iban"})


#: After a number, words that make it a change ("10 cm shorter", "£15 more"); before it, "by"
#: ("raised by £15").
CHANGE_AFTER = re.compile(r"\s?(?:[A-Za-z]{1,5}\s+)?(?:more|less|shorter|longer|higher|lower|"
                          r"fewer|bigger|smaller|cheaper|dearer|extra)\b", re.IGNORECASE)
CHANGE_BEFORE = re.compile(r"\b(?:by\s+(?:[£$€]\s?)?|(?:leave|leaving|keep|keeping)\s+[£$€]\s?)$",
                           re.IGNORECASE)
#: A number as a request writes it, thousands separated by commas ("4,000") or not.
NUMBER = re.compile(r"(?<![\w.])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
                    r"(?![\w]|\.\d|,\d{3}\b)")


def changes_stated(text: str) -> tuple[float, ...]:
    """The numbers ``text`` gives as changes of a value: "up by £500", "£15 more", "10 cm
    shorter", or what is to stay of it: "refund it, but leave £20 on there"."""
    return tuple(float(m.group(0).replace(",", "")) for m in NUMBER.finditer(text)
                 if CHANGE_AFTER.match(text, m.end())
                 or CHANGE_BEFORE.search(text, 0, m.start()))


#: A currency's ISO 4217 code -> the words and signs that name it alone ("yen", "¥"; not
#: "dollars" nor "$", which name several).
CURRENCY_NAMES: Mapping[str, tuple[str, ...]] = {
    "EUR": ("euro", "euros", "€"), "GBP": ("sterling", "pound sterling", "pounds sterling",
                                           "british pound", "british pounds", "£"),
    "USD": ("us dollar", "us dollars", "american dollars"),
    "JPY": ("yen", "¥"), "CHF": ("swiss franc", "swiss francs"),
    "CAD": ("canadian dollar", "canadian dollars"),
    "AUD": ("australian dollar", "australian dollars"),
    "NZD": ("new zealand dollar", "new zealand dollars"),
    "HKD": ("hong kong dollar", "hong kong dollars"),
    "SGD": ("singapore dollar", "singapore dollars"), "CNY": ("yuan", "renminbi"),
    "INR": ("indian rupee", "indian rupees"), "SEK": ("swedish krona", "swedish kronor"),
    "NOK": ("norwegian krone", "norwegian kroner"), "DKK": ("danish krone", "danish kroner"),
    "PLN": ("zloty", "złoty", "zlotys"), "HUF": ("forint", "forints"),
    "CZK": ("czech koruna",), "THB": ("baht",), "ZAR": ("south african rand",),
    "MXN": ("mexican peso", "mexican pesos"), "TRY": ("turkish lira",),
    "KRW": ("korean won", "south korean won"), "AED": ("uae dirham", "uae dirhams",
                                                        "emirati dirham", "emirati dirhams"),
}


@lru_cache(maxsize=256)
def currencies_named(text: str) -> frozenset[str]:
    """The ISO 4217 codes of the currencies ``text`` names in words or by a sign that names
    one alone (:data:`CURRENCY_NAMES`): ``JPY`` of "a yen wallet" or "¥80,000"."""
    folded = fold(text)
    return frozenset(code for code, names in CURRENCY_NAMES.items() if any(
        re.search(rf"(?<![^\W\d_]){re.escape(fold(n))}(?![^\W\d_])", folded) for n in names))


#: Words that say an amount is in a currency's minor unit: ``amount_cents``, "in pence",
#: "overpayment, pence, 10 digits".
MINOR_UNIT = re.compile(r"(?:^|_|\b)(?:cents?|pence|pennies|minor)(?:$|_|\b)", re.IGNORECASE)


#: Before a number, a currency's sign or code ("£48", "EUR 48", "₹1,250", "Rs 2000/-",
#: "KSh 1,500"); after it, a currency's code or name ("48 GBP", "42 pounds", "50 pence",
#: "1,250 baht", "350 rupees").
#: The codes of currencies (ISO 4217) people write beside an amount.
_CURRENCY_CODES = (r"EUR|USD|GBP|CHF|NOK|SEK|DKK|TRY|INR|PHP|KES|SAR|AED|IDR|GEL|JPY|CNY|RMB|"
                   r"PLN|CZK|HUF|RON|UAH|AZN|AMD|KZT|BRL|MXN|ZAR|NGN|EGP|MAD|QAR|ILS|THB|"
                   r"VND|MYR|SGD|HKD|TWD|NZD|AUD|CAD|KRW|RUB|PKR|BDT|LKR|ETB")
CURRENCY_BEFORE = re.compile(r"[£$€¥₺₹₱₩₽₪฿₦₫₾₴₼₸]\s?$|\b(?:" + _CURRENCY_CODES
                             + r"|Php|KSh|Ksh|Rp|Rs\.?|kr\.?|R\$)\s?$")
CURRENCY_AFTER = re.compile(r"\s?(?:" + _CURRENCY_CODES + r"|TL|kr|kroner|kronor|zł|zl|Kč|Ft|lei|"
                            r"[₺₹₽₪฿₾₴₼₸円元]|ლარი|лари|ευρώ|ብር|birr|"
                            r"euros?|dollars?|pounds?|pence|cents?|rupees?|pesos?|riyals?|"
                            r"shillings?|baht|roubles?|rubles?|shekels?|rupiah|reais|"
                            r"dirhams?|lari|yen|yuan|zlotys?|forints?|hryvnias?)(?!\w)",
                            re.IGNORECASE)


def written_as_money(text: str, start: int, end: int) -> bool:
    """The number at ``text[start:end]`` is written as money: after a currency's sign or
    code, or before a currency (:data:`CURRENCY_BEFORE`, :data:`CURRENCY_AFTER`; "kr
    3.400,-", "17 440 kr", "1.250,00 TL")."""
    return bool(CURRENCY_BEFORE.search(text[max(0, start - 4):start])
                or CURRENCY_AFTER.match(text, end))


#: An amount as many languages group it, the thousands parted by a space or a dot, perhaps
#: a decimal comma or ",-" after ("17 440", "9.740", "1.250,00", "3.400,-"), or with a
#: decimal comma alone ("349,99 zł"): money only beside a currency (:func:`grouped_amounts`);
#: else the figures of a date, a count or a code.
GROUPED_AMOUNT = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:[ \u00a0\u202f.]\d{3})+(?:,\d{1,2}|,-)?"
                            r"|\d+,\d{2})(?!\w|[.,]\d)")


def grouped_value(text: str) -> float | int:
    """The amount a :data:`GROUPED_AMOUNT` match writes: ``17 440`` is 17440, ``1.250,50``
    1250.5."""
    whole, _, cents = text.partition(",")
    number = int(re.sub(r"\D", "", whole))
    return number + int(cents) / 10 ** len(cents) if cents.isdigit() else number


def grouped_amounts(text: str) -> Iterable[tuple[int, int, float | int]]:
    """(start, end, amount) of each amount ``text`` writes grouped by spaces or dots beside
    its currency (:data:`GROUPED_AMOUNT`, :func:`written_as_money`)."""
    for m in GROUPED_AMOUNT.finditer(text):
        if written_as_money(text, m.start(), m.end()):
            yield m.start(), m.end(), grouped_value(m.group(0))


@lru_cache(maxsize=256)
def amounts_written(text: str) -> tuple[float, ...]:
    """The amounts of money ``text`` writes with their currency (:func:`written_as_money`:
    "£48", "48 EUR", "42 pounds"; grouped by spaces or dots, "17 440 kr", "1.250,00 TL";
    a "€" after the number is not read)."""
    grouped = list(grouped_amounts(text))
    return tuple(float(m.group(0).replace(",", "")) for m in NUMBER.finditer(text)
                 if written_as_money(text, m.start(), m.end())
                 and not any(s <= m.start() < e for s, e, _ in grouped)) \
        + tuple(float(amount) for _, _, amount in grouped)


@lru_cache(maxsize=4096)
def names_money(name: str) -> bool:
    """``name`` (a parameter's or a field's) is of an amount of money: it has a word of
    :data:`MONEY_WORDS` and none of :data:`ID_WORDS` (``amount_minor``, ``price_cents``,
    ``refund``; not ``payment_id``)."""
    said = set(name_parts(name))
    return bool(said & MONEY_WORDS) and not said & ID_WORDS


#: Verbs of tools that look something up among many (they return what they found).
LOOKUP_VERBS = frozenset({"search", "find", "list", "lookup", "query", "locate", "resolve",
                          "get", "browse", "match"})
#: Verbs of tools that make a new thing (which then has an id).
CREATE_VERBS = frozenset({"create", "add", "new", "make", "generate", "insert", "upload",
                          "register", "open", "start", "run", "build", "draft", "backup"})
#: Verbs of tools that read or compute something and return it, changing nothing.
READ_VERBS = frozenset({"read", "get", "fetch", "open", "view", "show", "load", "cat",
                        "retrieve", "describe", "list", "search", "find", "lookup", "query",
                        "check", "count", "summarize", "summarise", "extract", "translate",
                        "convert", "export", "inspect", "diff", "log", "status", "compute",
                        "calculate", "analyze", "analyse", "parse", "preview", "download"})
#: The :data:`READ_VERBS` that say only that a tool looks, not at what: the other words of
#: a read's name name what it reads (``get_event_attendees`` reads attendees).
PLAIN_READ_VERBS = frozenset({"get", "search", "check", "read", "find", "fetch", "lookup"})
#: Verbs of requests that ask for a change, and of tool names that make one.
CHANGE_VERBS = frozenset(
    "update move reschedule change push edit modify rename send reply forward respond "
    "delete remove cancel create add draft write share".split()
)


#: Where the words of a camel-cased name meet (``outageDuration``, ``updateMask``).
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def name_parts(name: str) -> list[str]:
    """The words of a parameter's or a field's name, snake_case or camelCase, each starting
    with a letter (``outageDuration`` and ``outage_duration``: ``outage``, ``duration``)."""
    return words(_CAMEL.sub(" ", name), numbers=False)


def words(text: str, *, digits: bool = True, numbers: bool = True,
          stop: Iterable[str] = ()) -> list[str]:
    """The lowercase words of ``text`` in order, repeats kept, less those in ``stop``.

    A word is a run of letters and digits (``gpt4o`` is one word); with ``digits=False`` a
    run of letters only (``gpt4o`` is ``gpt``, ``o``); with ``numbers=False`` a letter and
    the letters and digits after it (``gpt4o`` is one word, ``2024`` none, ``1j1l`` is
    ``j1l``). Every other character, ``_`` and ``-`` included, separates words."""
    found = (_WORD if digits and numbers else _NAMED if digits else _LETTERS) \
        .findall(text.lower())
    if not stop:
        return found
    dropped = stop if isinstance(stop, frozenset) else frozenset(stop)
    return [w for w in found if w not in dropped]


def singular(word: str, *, english: bool = True) -> str:
    """A plain English singular, good enough for entity nouns (``emails`` -> ``email``,
    ``policies`` -> ``policy``, ``boxes`` -> ``box``; ``class``, ``status``, ``ids`` stay).

    With ``english=False`` only a final ``s`` of a word over three letters goes
    (``policies`` -> ``policie``, ``class`` -> ``clas``): the reading of the simulated
    model and of the live layer's kinds of thing."""
    if not english:
        return word[:-1] if len(word) > 3 and word.endswith("s") else word
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


#: The number of an item of a list a text makes ("1. ", "2) "): one or two digits where
#: an item begins (at the start, on a new line, or after a colon, a semicolon or the end of
#: a sentence), then "." or ")" and a space.
_NUMBERING = re.compile(r"(?:^|\n|[:;.!?] )[ \t]*(\d{1,2})[.)][ \t]+(?=\S)")


def numbering(text: str) -> frozenset[tuple[int, int]]:
    """Where ``text`` numbers the items of its own list ("Do these in order: 1. ... 2.
    ..."): the (start, end) of each such number. The numbering is the text's layout, not a
    value it gives."""
    return frozenset(m.span(1) for m in _NUMBERING.finditer(text))


def without_numbering(text: str) -> str:
    """``text`` with the numbers of its own list (:func:`numbering`) blanked out."""
    out = list(text)
    for start, end in numbering(text):
        out[start:end] = " " * (end - start)
    return "".join(out)
