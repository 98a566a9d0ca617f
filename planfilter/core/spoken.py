"""Values a request spells in words, as they are written: :func:`written` and
:func:`spoken_addresses`.

A request that reaches an agent through speech-to-text says its values the way people say
them on the telephone: a booking "four seven two nine", a number "oh seven seven double-oh
nine...", a code "G C seven Q two K", a name spelled "O C O N N O R" after it is said, an
address "j dot harper at example dot com". The value a tool takes is written: ``4729``,
``GC7Q2K``, ``j.harper@example.com``. This module writes what is spelled so that the value
store (planfilter.core.values) can find the user's values in either form. It only writes
what is spelled out character by character (or an address with its ``at`` and ``dot``): a
number said as a quantity ("seventy five pounds") is not a value of this kind and stays as
it is.
"""

from __future__ import annotations

import re
from functools import lru_cache

#: A digit as it is said, one word each ("oh" as on the telephone).
DIGIT_WORDS = {"zero": "0", "oh": "0", "nought": "0", "one": "1", "two": "2", "three": "3",
               "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9"}
#: A number said as one word, read as its figures right after a letter spelled out: a
#: postcode's district or a code's end ("s w eleven", "m twenty", "s t u d ten": ``SW11``,
#: ``M20``, ``STUD10``). Elsewhere it is a quantity ("twenty quid") and ends a spelling.
TENS_WORDS = {"ten": "10", "eleven": "11", "twelve": "12", "thirteen": "13",
              "fourteen": "14", "fifteen": "15", "sixteen": "16", "seventeen": "17",
              "eighteen": "18", "nineteen": "19", "twenty": "20", "thirty": "30",
              "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70", "eighty": "80",
              "ninety": "90"}
#: A letter said with a word that starts with it, as spellers do on the telephone ("l for
#: lima", "h as in hotel", "B like bravo"): the letter alone.
_LETTER_FOR_WORD = re.compile(r"\b([A-Za-z])\s+(?:as\s+in|for|like)\s+([A-Za-z]+)\b")
#: A word that says the next character is said more than once ("double-oh": ``00``).
REPEATS = {"double": 2, "triple": 3, "treble": 3}
#: A run of characters said one by one is written only from this many characters on, and
#: when digits are said, from this many digits: one digit word is a quantity ("one of
#: them"), two may be ("two or three"), three in a row are a number read out.
MIN_SPELLED = 3
#: Words that stand for a character inside a spoken e-mail address.
ADDRESS_WORDS = {"dot": ".", "underscore": "_", "dash": "-", "hyphen": "-"}
#: How many words before "at" may be the local part of a spoken address: "t reilly eight
#: eight at ..." is four. Each reading (the last word, the last two, ...) is kept: which words
#: are the address is not said.
MAX_LOCAL_WORDS = 4

_TOKEN = re.compile(r"[A-Za-z]+|\d+")
#: What may stand between two characters spelled one by one: spaces, a dash, a comma.
_GAP = re.compile(r"\s+|\s*-\s*|,\s*")
_ADDRESS = re.compile(r"\bat\s+((?:[a-z0-9-]+\s+)?(?:[a-z0-9-]+\s+dot\s+)+[a-z]{2,6})\b",
                      re.IGNORECASE)
_LOCAL_WORD = re.compile(r"[A-Za-z0-9_+'-]+")


def _character(token: str) -> str | None:
    """The character ``token`` says, or None: a digit word, a single figure or a single
    letter."""
    lowered = token.lower()
    if lowered in DIGIT_WORDS:
        return DIGIT_WORDS[lowered]
    if len(token) == 1:
        return token
    return None


def _runs(text: str) -> list[tuple[int, int, str]]:
    """Each run of characters spelled one by one in ``text``: (start, end, the characters),
    "double" and "triple" read before the character they repeat."""
    tokens = [t for t in _TOKEN.finditer(text)  # "it's", "I'm": a part of a word
              if text[t.start() - 1:t.start()] != "'" and text[t.end():t.end() + 1] != "'"]
    runs: list[tuple[int, int, str]] = []
    i = 0
    while i < len(tokens):
        start = i
        chars: list[str] = []
        while i < len(tokens):
            gap = text[tokens[i - 1].end():tokens[i].start()] if chars else ""
            if chars and not _GAP.fullmatch(gap):
                break
            word = tokens[i].group()
            times = REPEATS.get(word.lower())
            step = 1
            if times and i + 1 < len(tokens) and _GAP.fullmatch(
                    text[tokens[i].end():tokens[i + 1].start()]):
                char, step = _character(tokens[i + 1].group()), 2
            else:
                char, times = _character(word), 1
                if char is None and chars and chars[-1][-1].isalpha():
                    char = TENS_WORDS.get(word.lower())
            # a comma is a pause inside a number or a spelling, and ends one before the other
            if char is None or "," in gap and char.isdigit() != chars[-1][-1].isdigit():
                break
            chars.append(char * times)
            i += step
        if i == start:
            i += 1
            continue
        runs.append((tokens[start].start(), tokens[i - 1].end(), "".join(chars)))
    return runs


def _spelled(chars: str) -> bool:
    """``chars`` were read out one by one: enough of them, and digits among them enough
    digits, or two letters or more beside them (a single letter between words, "plan A",
    is not spelling; "r h y s p eight eight" is)."""
    digits = sum(c.isdigit() for c in chars)
    return len(chars) >= MIN_SPELLED and (digits == 0 or digits >= min(MIN_SPELLED,
                                                                         len(chars) - 1)
                                          or len(chars) - digits >= 2)


@lru_cache(maxsize=256)
def written(text: str) -> str:
    """``text`` with every run of characters it spells one by one written as one word
    ("booking four seven two nine" -> "booking 4729"; "oh seven seven double-oh nine" ->
    "077009"; "G C seven Q two K" -> "GC7Q2K"; "s w four oh l for lima q" -> "SW40LQ"),
    and a spelling that repeats the word before it dropped ("O'Connor, O C O N N O R" ->
    "O'Connor,"). The text itself when it spells nothing."""
    text = _LETTER_FOR_WORD.sub(
        lambda m: m.group(1) if m.group(2)[0].lower() == m.group(1).lower() else m.group(0),
        text)
    out: list[str] = []
    last = 0
    for start, end, chars in _runs(text):
        if not _spelled(chars):
            continue
        before = re.findall(r"[A-Za-z']+", text[last:start])
        previous = re.sub(r"[^a-z]", "", before[-1].lower()) if before else ""
        out.append(text[last:start])
        if not (chars.isalpha() and chars.lower() == previous):
            out.append(chars)
        last = end
    out.append(text[last:])
    return "".join(out)


@lru_cache(maxsize=256)
def spoken_addresses(text: str) -> tuple[str, ...]:
    """Each e-mail address ``text`` says with "at" and "dot" ("maeve dot oconnor at example
    dot com"), written: one for each count of words before "at" that may be its local part
    (:data:`MAX_LOCAL_WORDS`), digits said as words in figures; a domain's first name heard
    as two words ("at proton mail dot com") both joined and as its last word alone. Empty
    when it says none."""
    found: list[str] = []
    spelled = written(text)
    for match in _ADDRESS.finditer(spelled):
        first, *rest = re.split(r"\s+dot\s+", match.group(1).lower())
        heard = first.split()
        domains = [".".join(["".join(heard), *rest])] + (
            [".".join([heard[-1], *rest])] if len(heard) > 1 else [])
        words = _LOCAL_WORD.findall(spelled[:match.start()].rstrip(" ,")
                                    .rsplit("\n", 1)[-1].split(",")[-1])
        local = ""
        counted = 0
        for word in reversed(words):
            lowered = word.lower()
            if lowered in ADDRESS_WORDS:
                local = ADDRESS_WORDS[lowered] + local
                continue
            if counted == MAX_LOCAL_WORDS or "'" in word:  # "it's" is no address's
                break
            local = DIGIT_WORDS.get(lowered, lowered) + local
            counted += 1
            found += [f"{local}@{domain}" for domain in domains]
    return tuple(dict.fromkeys(found))
