"""Values a request states, matched to the parameters that can take them.

A user has only the request: "Forward the invoice email from billing@acme.example to
accounts@northwind.example", "Summarize the PDF at www.example.com/q3-deck.pdf", "Rename
the spreadsheet to 'Vendor comparison'". This module reads such values by rule, with no
model: it finds spans of a few kinds in the text (e-mail addresses, web addresses, IBANs,
file names, dates (ISO, in words with their year, or in figures whose order of day and
month shows, "23/11/1979", read as ISO) and 24-hour times,
telephone numbers, quoted text, numbers, "4,000" being one) and gives each to the parameters
whose schema and words fit it. A day of a month without its year ("16 to 19 June"), a date
in figures that may be either order ("11/03/1979"), a day in another language ("dia 8 e
dia 10 de julho", "le 14 mai") and a clock time in words ("1 pm": planfilter.live.dates
reads it; "18h30") give no value here, and their digits are no number; nor does anything
inside a passage quoted word for word (a notice's wording) or on a line an e-mail quotes:

- a span of a *specific* kind goes to a parameter whose name or description names that kind
  (an e-mail to ``email``/``recipient``; a web address to ``url``/``website``; an IBAN to
  ``iban``/``account``/``recipient``; a file name to ``path``/``file``; a date to ``date``/
  ``day``; a telephone number to ``phone``/``mobile``/``msisdn``, by the parameter's own
  name), the schema allowing it; never an address, a link, a date or a telephone number
  to an identifier's or a name's parameter (``email_id``, ``order_ref``, ``legal_name``,
  ``telephone_lot_ids``), nor a place to an identifier's;
- quoted text and numbers are too common to go anywhere on their kind alone: they go to a
  parameter one of whose words (stop words aside) stands within ``NEAR`` words of them in
  the request ("rename it to 'Vendor comparison'", "remind me 5 minutes before"), the schema
  allowing them (an integer parameter takes whole numbers only); a number by the words of
  the parameter's name or description (not of the values the description quotes: an
  example "CC-5100" gives no word "cc"), quoted text by its name alone (the e-mail with the
  subject 'Q3 budget' names no sender, whatever ``sender``'s description says of e-mails);
  a quoted name before a noun that names another parameter of the tool is that one's (the
  "Fixed Secure 24M" tariff is no ``fuels``);
- a number written as money ("£50", "65 GBP") goes only to a parameter named for money
  (never to ``account`` because the words before it are "from my account:"); a number or a
  code after a preposition ("landlord of 5 Roundhay Mews", "a service for YD70") to no
  text parameter named before it, nor a number before a street's name ("my work address
  (1 Park Row)": a house, no address id); a share ("refund 20% of the price") only to a
  parameter named for one (``discount_percent``), never to an ``amount``; by how much a
  value changes ("10 cm shorter", "raised by £15") only to a parameter named for a change
  (``amount_increase``); a number in another unit of the kind a parameter's name gives ("5
  GB" for ``quota_mb``, "6.5%" for ``rate_bp``) to none of them (the model converts it),
  nor an amount the request does not say is before tax to a parameter that takes one
  (``net_amount``, "NET of VAT"); a code after a word that
  says only that a code follows ("voucher code SUMMER10", "licence, number SR902214") only
  to a parameter whose name has the word before that;
- a time of day goes to no parameter named for a date alone (``date_from``), quoted words
  with spaces between them, or one plain word, to no identifier's (``seller_id``,
  ``booking_ref``), a number after "between" to no text parameter ("some time between 10
  and 11" is no ``tee_time_id``), a small number alone in brackets to none ("Zach (6)": an
  age); a British postcode is one value ("BS6 6LA"), of a postcode's parameter;
- a parameter whose name ends in a kind of value (``email``, ``phone``, ``city``,
  ``country``, ``street``) takes only spans of that kind, whatever its description says
  (``recipient_phone`` "of the recipient" takes no e-mail address); a number after another
  thing's "number" is that thing's ("her passport number is 561992031" is no
  ``party_size``); a place after "from" or "at" right after a person's name says whom
  they are with ("Tomás Herrera from Fernwood Dental", "Joanne Pike at Kirkbridge Citizens
  Advice"), no place;
- a parameter whose description lists its choices (``"minor"|"major"``, ``one of email,
  sms``) takes only those; a variable one of whose parameters gives only codes as examples
  (``IATA code, e.g. "DEN"``) takes no value written as words ("San Francisco": the model
  looks the code up);
- a code printed in groups of digits ("serial SN4K 881 0273") is one value, and so is a
  reference of a few capitals and groups of figures ("inv/2025/4389", "INV 2025 4431");
- a speaker's label that starts a line of a chat's log ("Customer: Three 100cm sections")
  says who speaks, not what kind of value follows;
- an amount grouped by spaces or dots beside its currency ("17 440 kr", "kr 3.400,-") is
  one number; a day by its figure and stop ("den 7.", "am 14.") none;
- where the request names a place the parameter's examples show ("a Konya kilim" for
  ``origin``, "e.g. ``Konya``, ``Uşak``"), or writes an address whole, a place a word leads
  to ("in Utrecht", "my old flat in Oakland") is no value of it; a file name that ends a
  quoted title ('rename it "Bail commercial – signé.pdf"') is none either.

A value is kept only when it validates against every parameter that carries the variable.
Several spans for one variable are several values of it (any of them is the user's).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from functools import lru_cache, partial
from typing import Any

from ..core.contracts import Registry, Tool
from ..core.schemas import QUOTED, accepts_list, description_of, examples, offered, value_errors
from ..core.text import (
    CHANGE_AFTER,
    CHANGE_BEFORE,
    GROUPED_AMOUNT,
    LIST_JOIN,
    MINOR_UNIT,
    NUMBER,
    PREPOSITIONS,
    UNIT_OF,
    VALUE_STOP_WORDS,
    amounts_written,
    fold,
    grouped_value,
    has_digit,
    name_parts,
    names_money,
    numbering,
    quoted_at,
    singular,
    written_as_money,
)
from ..core.text import words as split_words
from ..core.values import ELIDED, PHONE, code_groups, normal

#: The months of the Hijri calendar, as they are written in Latin letters and in Arabic.
HIJRI_MONTHS = (r"Muharram|Safar|Rabi[ʿ'`]?\s*(?:al[- ]?)?(?:Awwal|Thani|Akhir(?:ah)?)|"
                r"Jumad[ae]\s*(?:al[- ]?)?(?:Ula|Awwal|Akhir(?:ah)?|Thani(?:yah)?)|Rajab|"
                r"Sha[ʿ'`]?ban|Rama[dz]an|Shawwal|"
                r"Dhu(?:\s*al[- ]?|l[- ]?)(?:Qa[ʿ'`]?dah|Qi[ʿ'`]?dah|Hijjah)|محرم|صفر|"
                r"ربيع\s+(?:الأول|الآخر|الثاني)|جمادى\s+(?:الأولى|الآخرة|الثانية)|رجب|شعبان|"
                r"رمضان|شوال|ذو\s+القعدة|ذو\s+الحجة")
#: Words between a quoted text or a number and a word of the parameter, at most.
NEAR = 4


@dataclass(frozen=True)
class Span:
    kind: str
    value: Any
    start: int
    end: int


#: A postal address written on one line: "12 Ocean Drive, Apt 7, Miami, FL 33139, USA", "5530
#: SW Hewett Blvd, Portland 97221" (a street's quarter before its name, no state).
_ADDRESS = re.compile(
    r"\b(?P<address1>\d+(?: (?:[NSEW]|NE|NW|SE|SW)\.?)?(?: [A-Z][a-z]+)+ (?:Street|St|Road|"
    r"Rd|Drive|Dr|Lane|Ln|Way|Avenue|Ave|Court|Ct|Boulevard|Blvd|Place|Pl|Square|Sq|Terrace|"
    r"Parkway))"
    r"(?:, (?P<address2>(?:Apt|Apartment|Suite|Unit|Floor|Fl|Room)\.? ?\w+))?, "
    r"(?P<city>[A-Z][a-z]+(?: [A-Z][a-z]+)*),? (?:(?P<state>[A-Z]{2}) )?"
    r"(?P<zip>\d{5}(?:-\d{4})?)(?:, (?P<country>[A-Z][A-Za-z]+(?: [A-Z][a-z]+)*))?")
#: A British address on one line: "Flat 3, 14 Elm Grove, Kingston upon Thames, KT2 6PX" (a
#: flat before the street, the town's small words, the postcode last).
_UK_ADDRESS = re.compile(
    r"\b(?:(?P<address2>(?:Flat|Apartment|Apt|Unit|Suite)\.? ?\w+),? )?"
    r"(?P<address1>\d+[A-Z]?(?: [A-Z][a-z]+)+ (?:Street|St|Road|Rd|Lane|Way|Avenue|Ave|"
    r"Close|Crescent|Drive|Gardens|Grove|Hill|Mews|Park|Place|Rise|Row|Square|Terrace|View|"
    r"Walk|Court)),? "
    r"(?P<city>[A-Z][a-z]+(?:[ -](?:upon|on|under|in|by|le|next|the|[A-Z][a-z]+))*),? "
    r"(?P<zip>[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})\b")
#: The parts of an address, and the parameter names each goes to.
ADDRESS_PARTS: Mapping[str, frozenset[str]] = {
    "address1": frozenset({"address1", "address_1", "address_line1", "address_line_1", "line1",
                           "street", "street_address"}),
    "address2": frozenset({"address2", "address_2", "address_line2", "address_line_2", "line2"}),
    "city": frozenset({"city", "town"}),
    "state": frozenset({"state", "province", "region"}),
    "zip": frozenset({"zip", "zip_code", "zipcode", "postal_code", "postcode"}),
    "country": frozenset({"country"}),
}

#: Capital and small letters, Latin with its accents ("Campanhã", "Wiśniewski": Latin-1
#: and Latin Extended-A, whose capitals and small letters alternate, so both take all).
_UPPER = "A-ZÀ-ÖØ-ÞĀ-ž"
_LOWER = "a-zß-öø-ÿĀ-ž"
#: A place's name: one to three capitalised words.
_PLACE = rf"[{_UPPER}][{_LOWER}]+(?:\s[{_UPPER}][{_LOWER}]+){{0,2}}"
#: Capitalised words that name a time, not a place ("in May", "on Monday").
_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August",
                "September", "October", "November", "December")
_MONTH_NUMBERS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
#: The months' names as a pattern's alternatives (here and in planfilter.live.dates).
MONTHS = "|".join(_MONTH_NAMES)
#: The months' names in other languages a request may be written in (Spanish, Portuguese,
#: French, Italian, German, Dutch, Polish, Danish, Norwegian, Swedish; a Polish day takes the
#: month's genitive; the names English shares, in small letters).
FOREIGN_MONTHS = "|".join((
    "enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre",
    "setiembre", "octubre", "noviembre", "diciembre",
    "janeiro", "fevereiro", "março", "marco", "maio", "junho", "julho", "setembro", "outubro",
    "novembro", "dezembro",
    "janvier", "février", "fevrier", "mars", "avril", "mai", "juin", "juillet", "août", "aout",
    "septembre", "octobre", "novembre", "décembre", "decembre",
    "gennaio", "febbraio", "aprile", "maggio", "giugno", "luglio", "settembre", "ottobre",
    "dicembre",
    "januar", "jänner", "februar", "märz", "maerz", "juni", "juli", "oktober", "dezember",
    "januari", "februari", "maart", "mei", "augustus",
    "marts", "maj", "augusti", "desember", "april", "august", "september", "november",
    "december",
    "stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca", "lipca", "sierpnia",
    "września", "wrzesnia", "października", "pazdziernika", "listopada", "grudnia"))
#: A clock time in words or on a 12-hour clock: ``4 PM``, ``4:30 p.m.``, ``11am``, ``10 in the
#: morning``, ``noon``, ``midnight`` (:func:`clock` reads it).
CLOCK = re.compile(r"\b(?:(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?\s*(?:([ap])\.?\s?m\b\.?|"
                   r"in\s+the\s+(morning|afternoon|evening))|(noon|midday|midnight))",
                   re.IGNORECASE)
#: The rest of a range of days ("16 to 19", "3-5").
_DAY_RANGE = (r"(?:\s*(?:-|–|to|until|till|through)\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?|"
              # or a list of days ("25 and 26 October", "3, 4 and 5 May")
              r"(?:\s*(?:,|and|&|or)\s*(?:the\s+)?\d{1,2}(?:st|nd|rd|th)?)+)?")
#: A person's name (two capitalised words) right before a place's lead: "Tomás Herrera from
#: Fernwood Dental", "Joanne Pike at Kirkbridge Citizens Advice" say whom the person is
#: with, not where the request goes.
_AFFILIATION = re.compile(rf"\b[{_UPPER}][{_LOWER}]+\s[{_UPPER}][{_LOWER}]+"
                          rf"(?:-[{_UPPER}][{_LOWER}]+)?\s+$")
#: A company's legal form after its name ("Bluebird Apps sp. z o.o.", "Acme Ltd"): the
#: capitalised words before it are a company, no place.
_COMPANY_FORM = re.compile(r",?\s+(?:sp\.\s?z\s?o\.\s?o\.|Ltd\.?|Limited|Inc\.?|LLC|LLP|GmbH|"
                           r"plc|PLC|S\.A\.|S\.p\.A\.|B\.V\.|BV|AG|Pty|Corp\.?|S\.r\.l\.|SRL|"
                           r"SARL|SAS|A/S|AB|Oy|Oyj|s\.r\.o\.|a\.s\.|Kft\.?|Zrt\.?|d\.o\.o\.|"
                           r"OÜ|Sdn\.?\s?Bhd)(?!\w)")
_NOT_PLACES = frozenset({*_MONTH_NAMES, "Monday", "Tuesday", "Wednesday", "Thursday",
                         "Friday", "Saturday", "Sunday",
                         # a home's unit ("moving to Flat 3"), no place
                         "Flat", "Apartment", "Apt", "Suite", "Unit", "Room", "Floor"})

#: A season or a holiday, the whole of what reads as a place ("at Easter", "in Spring"): a
#: time ("Spring Hill" may be a place).
_SEASONS = frozenset({"Spring", "Summer", "Autumn", "Fall", "Winter", "Easter", "Christmas",
                      "Xmas", "Halloween", "Thanksgiving", "Hanukkah", "Diwali", "Eid",
                      "Ramadan", "Passover", "Whitsun", "Midsummer"})

#: Nouns of a service's sites, which a place before them picks out ("your Edinburgh hotel").
_SITES = ("hotel", "office", "branch", "store", "shop", "depot", "clinic", "centre", "center",
          "venue", "warehouse", "site", "location")
#: Places after the word that leads to them: "in Lisbon", "from Lyon to Turin".
_PLACE_AFTER = re.compile(r"\b(?:in|into|to|from|at|visit|visiting|between)\s+(" + _PLACE
                          + r"(?:(?:,\s*|\s+and\s+|\s+or\s+)" + _PLACE + r")*)")
_SITE_PLACE = re.compile(r"\b(?:the|your|our|my|their)\s+(" + _PLACE + r")(?=\s+(?:"
                         + "|".join(_SITES) + r")s?\b)")

#: The text between quotation marks (an apostrophe inside a word, "I'm", "order's", opens
#: and closes none).
_QUOTED = re.compile(r"(?<![A-Za-z])'([^'\n]{1,200})'(?![A-Za-z])|\"([^\"\n]{1,200})\"|"
                     r"‘([^’\n]{1,200})’|“([^”\n]{1,200})”")
#: Four groups or more of capitals and digits, each with a digit, printed with spaces: a
#: long code when :func:`_one_code` says so.
_GROUPED_CODE = re.compile(r"(?<![\w+.,-])[A-Z0-9]{1,6}(?: [A-Z0-9]{1,6}){3,}(?![\w-]|[.,]\d)")
_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("address", _ADDRESS),
    ("address", _UK_ADDRESS),
    # its local part in ASCII: "email也改成hsu.mh@proton.me" holds ``hsu.mh@proton.me``
    ("email", re.compile(r"(?<![A-Za-z0-9.+_-])[A-Za-z0-9._%+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    # a web address's labels start with no capitalised word: "www.example.com.They sent"
    # ends the address at "com", a sentence's stop without its space
    ("url", re.compile(r"\b(?:https?://[^\s'\"<>]+|"
                       r"www\.[\w-]+(?:\.(?![A-Z][a-z])[\w-]+)+(?:/[^\s'\"<>]*)?)")),
    ("iban", re.compile(r"\b[A-Z]{2}\d{2}[A-Z0-9]{11,30}\b")),
    ("file", re.compile(r"(?<![\w@/.-])[\w][\w.-]*\.(?:txt|pdf|docx?|xlsx?|csv|md|json|yaml|"
                        r"yml|pptx?|png|jpe?g|html?|py|zip|log)\b", re.IGNORECASE)),
    ("date", re.compile(r"\b\d{4}-\d{2}-\d{2}\b")),
    # a date in words with its year ("May 15th, 2024", "the 15th of May 2024"), as ISO
    ("written date", re.compile(rf"\b(?:({MONTHS})\s+(\d{{1,2}})(?:st|nd|rd|th)?,?|"
                                rf"(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({MONTHS}),?)"
                                r"\s+(\d{4})\b")),
    # a date in figures ("23/11/1979", "30.08.1967", "2025/03/14"): as ISO where the order of
    # day and month shows (a part above 12, or the year first); else no value to read, and
    # its digits are no number
    ("numeric date", re.compile(r"\b(?:(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})|"
                                r"(\d{4})/(\d{1,2})/(\d{1,2}))\b")),
    # a day of a month without its year ("16 to 19 June", "on June 12"): no value to read
    # (which year is not said), and its digits are no number
    ("day", re.compile(rf"\b(?:\d{{1,2}}(?:st|nd|rd|th)?{_DAY_RANGE}\s+(?:of\s+)?(?:{MONTHS})|"
                       rf"(?:{MONTHS})\s+\d{{1,2}}(?:st|nd|rd|th)?{_DAY_RANGE})\b")),
    # and of a month of the Hijri calendar ("14 Ramadan 1446", "٥ شوال"): which day that is
    # the service's calendar says (a tool converts it); no value, and no number
    ("day", re.compile(rf"\b\d{{1,2}}\s+(?:{HIJRI_MONTHS})(?:\s+\d{{4}})?(?:\s*(?:AH|هـ))?",
                       re.IGNORECASE)),
    # and in another language ("dia 8 e dia 10 de julho", "le 14 mai", "14. Mai 2025", "12
    # marca"), its year too
    ("day", re.compile(rf"\b\d{{1,2}}\.?(?:\s*(?:-|–|,|e|y|et|und|en|i|a|al|au|bis|tot|do)"
                       rf"\s*(?:(?:dia|día|le|el|il|den|am)\s+)?\d{{1,2}}\.?)*"
                       rf"\s+(?:(?:de|del|di|du)\s+)?(?:{FOREIGN_MONTHS})"
                       rf"(?:\s+(?:de\s+)?\d{{4}})?(?!\w)", re.IGNORECASE)),
    # and a day by its figure and stop alone, as Danish, Norwegian, Swedish and German write
    # one ("allerede den 7., så", "am 14.")
    ("day", re.compile(r"\b(?:den|am)\s+\d{1,2}\.(?!\d)", re.IGNORECASE)),
    ("time", re.compile(r"\b(?:[01]?\d|2[0-3]):[0-5]\d\b")),
    # a clock time in words ("4 PM", "10 in the morning"): planfilter.live.dates reads it;
    # its digits are no number
    ("clock", CLOCK),
    # and as French and Portuguese write it ("18h30", "às 9h")
    ("clock", re.compile(r"\b(?:[01]?\d|2[0-3])h(?:[0-5]\d)?\b")),
    # an apostrophe inside a word ("I'm", "order's") opens and closes no quote
    ("quoted", _QUOTED),
    ("person", re.compile(r"(?:\b(?:I'm|I am|[Mm]y name is|[Tt]his is)\s+)"
                          r"([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)\s+([A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?)")),
    # a place after the word that leads to it: "in Lisbon", "from Lyon to Turin", "visit
    # Buenos Aires and Cape Town", "between Reading and Paddington"
    ("place", _PLACE_AFTER),
    # a place that says which of a service's sites: "your Edinburgh hotel", "the Leeds branch"
    ("place", _SITE_PLACE),
    # a long code printed in groups ("9405 5112 0620 4471 2283 19", "1Z 8A9 47E 03 1184
    # 2207"), no telephone number (:func:`_one_code`)
    ("grouped code", _GROUPED_CODE),
    # figures punctuated as a national id number is, dots then a dash, perhaps a slash
    # ("123.456.789-09", "45.723.174/0001-10"): one code
    ("code", re.compile(r"(?<![\w.,/-])\d{1,4}(?:\.\d{3}){2}(?:/\d{4})?-\d{1,2}"
                        r"(?![\w/-]|[.,]\d)")),
    # a long line of figures in groups parted by dots and spaces, as a payment slip prints
    # it ("34191.09156 53000.151570 20823.140007 1 11080000259900"): one code when
    # :func:`_one_code` says so (more figures than a telephone number has)
    ("grouped code", re.compile(r"(?<![\w.,-])\d{3,}(?:[. ]\d+){3,}(?![\w-]|[.,]\d)")),
    # a long value written by its ends, as a wallet shows it ("0x3f4a…9a2c"): one value
    ("code", ELIDED),
    # three groups of capitals and figures printed with spaces, a code when
    # :func:`_three_groups` says so: a sort code ("20 45 77"), a payment's code as a
    # receipt prints it ("SLB 7K2 M9QD"), a serial ("SHS KE 001976")
    ("grouped code", re.compile(r"(?<![\w+.,-])(?<![A-Z0-9] )[A-Z0-9]{2,6}(?: [A-Z0-9]{1,6}){2}"
                                r"(?![\w-]|[.,]\d| [A-Z0-9])")),
    # a reference of a few capitals and groups of figures, parted by slashes or spaces
    # ("INV/2025/004417", "ZK/2025/01873", "INV 2025 4431"; not the start of a longer code
    # in groups, "PD 7741 2093 58GB")
    ("code", re.compile(r"(?<![\w/.-])[A-Za-z]{2,5}(?:/\d{2,8}){2,}(?![\w/-])"
                        r"|\b[A-Z]{2,5}(?: \d{2,8}){2,}(?![\w/-]|[.,]\d| \w*\d)")),
    ("phone", re.compile(rf"(?<![\w+.-])(?:{PHONE.pattern})(?![\w-]|\.\d)")),
    # a British postcode, its two halves one value ("BS6 6LA")
    ("postcode", re.compile(r"\b[A-Z]{1,2}\d[A-Z\d]?\s?\d[A-Z]{2}\b")),
    ("code", re.compile(r"(?<![\w@/.-])#?(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z#])"
                        r"[A-Za-z0-9][A-Za-z0-9_-]{2,100}\b|#\d{3,40}\b")),
    # groups of digits joined by hyphens, no date and no telephone number: a sort code
    # ("04-00-04"), a reference ("12-3456-78"), an ISBN ("978-5-04-116047-0")
    ("code", re.compile(r"(?<![\w./-])\d{2,6}(?:-\d{1,7}){2,}(?![\w/-]|\.\d)")),
    # an amount grouped by spaces or dots beside its currency ("17 440 kr", "kr 3.400,-"):
    # one number
    ("grouped amount", GROUPED_AMOUNT),
    # thousands separated by commas ("4,000") are one number
    ("number", NUMBER),
)
#: Further groups of digits a code is printed in, two or more ("SN4K 881 0273").
_GROUPS_AFTER = re.compile(r"(?: \d{3,4}){2,}(?![\w-]|[.,]\d)")
#: Words of a parameter that say it takes a person's first or last name.
_NAME_CUES: Mapping[str, frozenset[str]] = {
    "first_name": frozenset({"first", "given", "forename"}),
    "last_name": frozenset({"last", "family", "surname"}),
}
#: Words of a parameter's name that say it takes a time of day, not only a date.
_CLOCK_WORDS = frozenset({"time", "times", "hour", "hours", "datetime", "clock"})
#: Kinds of value that point to one thing a read fetches: a web address, a file name.
LINKS = frozenset({"url", "file"})
#: Spans that are never an identifier of something (an e-mail's id is not its sender).
_NOT_AN_ID = frozenset({"email", "url", "iban", "date", "time", "phone"})
#: Last words of parameters that identify a thing: no address, link, date or place is one.
_IDENTIFIERS = frozenset({"id", "ids", "ref", "reference"})
#: ... and of those that name one: no address, link or date is one.
_NAMES_OR_IDS = _IDENTIFIERS | {"name"}
#: Words of a parameter that say it takes a value of a specific kind.
_CUES: Mapping[str, frozenset[str]] = {
    "email": frozenset({"email", "emails", "mail", "recipient", "recipients", "cc", "bcc"}),
    "url": frozenset({"url", "urls", "link", "website", "webpage", "site", "page", "domain"}),
    "iban": frozenset({"iban", "account", "recipient", "receiver", "payee", "beneficiary"}),
    "file": frozenset({"path", "file", "filename", "files", "document", "attachment"}),
    "date": frozenset({"date", "day", "dates", "days"}),
    "time": frozenset({"time", "hour", "start", "end"}),
    "place": frozenset({"city", "cities", "town", "place", "destination", "country"}),
    "phone": frozenset({"phone", "phones", "mobile", "msisdn", "cell", "telephone", "tel"}),
}


#: Words before a value the request replaces ("until 5pm instead of 4pm", "rather than the
#: 12th", "it's 18 not 14", "18 players, not 14"): what the user leaves, no value of the
#: call.
_REPLACED = re.compile(r"(?:\b(?:instead\s+of|rather\s+than)\s+(?:the\s+|an?\s+)?"
                       r"|\d(?:\s+[a-z]+)?,?\s+not\s+)$", re.IGNORECASE)


def replaced(text: str, start: int) -> bool:
    """The value at ``start`` of ``text`` is one the request replaces (:data:`_REPLACED`)."""
    return bool(_REPLACED.search(text, max(0, start - 40), start))


@lru_cache(maxsize=512)
def spans(text: str) -> tuple[Span, ...]:
    """The spans of ``text``, each character in one span at most (the specific kinds first:
    the digits of a date are no number, the name inside quotes is the quoted text's), less
    the values the request replaces (:func:`replaced`)."""
    return tuple(s for s in _spans(text) if not replaced(text, s.start))


def _spans(text: str) -> tuple[Span, ...]:
    taken: list[tuple[int, int]] = []
    found: list[Span] = []
    listed = numbering(text)  # "1. ... 2. ...": the request's layout, no value
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            start, end = match.span()
            if any(start < e and s < end for s, e in taken):
                continue
            value: Any = match.group(0).rstrip(".,;:!?)")
            read_as = kind  # what this match is read as (the pattern's kind stays for the next)
            if kind == "quoted":
                value = next(g for g in match.groups() if g is not None).strip()
                if not value:
                    continue
            elif kind == "address":  # each part a span of its own
                for role, part in match.groupdict().items():
                    if part is not None:
                        found.append(Span(f"address:{role}", part, *match.span(role)))
                taken.append((start, end))
                continue
            elif kind == "place":  # each place named a span of its own
                taken.append(match.span(1))
                if _AFFILIATION.search(text, 0, start) \
                        and match.group(0).startswith(("from", "at")) \
                        or _COMPANY_FORM.match(text, match.end()):
                    continue  # "Tomás Herrera from Fernwood Dental", "Joanne Pike at
                    # Kirkbridge Citizens Advice", "Sarah from Bluebird Apps sp. z o.o.":
                    # who they work for
                base = match.start(1)
                for place in re.finditer(_PLACE, match.group(1)):
                    if place.group(0).split()[0] in _NOT_PLACES or place.group(0) in _SEASONS:
                        continue
                    found.append(Span("place", place.group(0), base + place.start(),
                                      base + place.end()))
                continue
            elif kind == "person":  # a first and a last name, each a span of its own
                for part, role in ((1, "first_name"), (2, "last_name")):
                    taken.append(match.span(part))
                    found.append(Span(role, match.group(part), *match.span(part)))
                continue
            elif kind == "written date":
                month = _MONTH_NUMBERS[match.group(1) or match.group(4)]
                day = int(match.group(2) or match.group(3))
                if not 1 <= day <= 31:
                    continue
                taken.append((start, end))
                found.append(Span("date", f"{match.group(5)}-{month:02d}-{day:02d}", start,
                                  end))
                continue
            elif kind == "grouped code":
                if not _one_code(value):
                    continue
                read_as = "code"
            elif kind == "numeric date":
                taken.append((start, end))
                if iso := _numeric_date(match):
                    found.append(Span("date", iso, start, end))
                continue
            elif kind == "day":
                taken.append((start, end))
                continue
            elif kind == "clock":
                taken.append((start, end))
                continue
            elif kind == "code" and (groups := _GROUPS_AFTER.match(text, end)) and not any(
                    end < e and s < groups.end() for s, e in taken):
                end = groups.end()  # "serial SN4K 881 0273": one code, as printed
                value = text[start:end]
            elif kind == "file" and any(
                    q.start() < start and end <= q.end() and re.search(r"\s", q.group(0))
                    for q in _QUOTED.finditer(text)):
                taken.append((start, end))
                continue  # "rename it "Bail commercial – signé.pdf"": the end of a title
                # given whole, for the model to pass on; no file of the request's own
            elif kind == "grouped amount":
                if not written_as_money(text, start, end):
                    continue
                read_as, value = "number", grouped_value(match.group(0))
            elif kind == "number":
                if (start, end) in listed:
                    continue
                value = value.replace(",", "")
                value = float(value) if "." in value else int(value)
            taken.append((start, end))
            found.append(Span(read_as, value, start, end))
    return tuple(sorted(found, key=lambda s: s.start))


def _one_code(text: str) -> bool:
    """Groups printed with spaces are one code when each has a digit, one has three digits
    or more, and they hold letters or more digits than a telephone number has (fifteen):
    a parcel's tracking number, a card's number; not seats ("12A 12B 12C 12D") nor a
    telephone number ("020 7946 0958"). Three groups are one code by :func:`_three_groups`.
    """
    groups = text.split()
    if len(groups) == 3:
        return _three_groups(groups)
    digits = sum(c.isdigit() for c in text)
    return all(any(c.isdigit() for c in g) for g in groups) and \
        any(re.search(r"\d{3}", g) for g in groups) and \
        (digits > 15 or any(c.isalpha() for c in text))


def _three_groups(groups: Sequence[str]) -> bool:
    """Three groups printed with spaces are one code when each is two figures (a sort code,
    "20 45 77"), or together they hold nine characters or more, letters, and three figures
    or figures in two groups ("SLB 7K2 M9QD", "SKQ 8RT 2MZA", "SHS KE 001976", a container
    "MSKU 752104 8"), or letters, figures and as many letters again (a number plate, "EF
    789 GH"); not a flight and its airport ("BA 249 LHR")."""
    if all(len(g) == 2 and g.isdigit() for g in groups):
        return True
    first, middle, last = groups
    if first.isalpha() and last.isalpha() and len(first) == len(last) \
            and middle.isdigit() and len(middle) >= 3:
        return True
    text = "".join(groups)
    figured = sum(any(c.isdigit() for c in g) for g in groups)
    return len(text) >= 9 and sum(c.isalpha() for c in text) >= 2 \
        and (sum(c.isdigit() for c in text) >= 3 or figured >= 2) \
        and not (groups[1].isdigit() and groups[2].isalpha())


def _numeric_date(match: re.Match[str]) -> str | None:
    """A date in figures as ISO, when it has its four-digit year and the order of its day and
    month shows: the year first (``2025/03/14``), or one of the two above 12 (``23/11/1979``
    is the 23rd of November; ``11/03/1979`` may be either, and gives None)."""
    if match.group(5):
        year, month, day = int(match.group(5)), int(match.group(6)), int(match.group(7))
    else:
        first, second, year_text = int(match.group(1)), int(match.group(3)), match.group(4)
        if len(year_text) != 4 or (first > 12) == (second > 12):
            return None
        year = int(year_text)
        day, month = (first, second) if first > 12 else (second, first)
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return None


def clock(match: re.Match[str]) -> str:
    """A :data:`CLOCK` match as ``HH:MM`` (24-hour)."""
    hour, minute, half, part, word = match.groups()
    if word:
        return "00:00" if word.lower() == "midnight" else "12:00"
    later = (half or "").lower() == "p" or (part or "").lower() in ("afternoon", "evening")
    return f"{int(hour) % 12 + 12 * later:02d}:{int(minute or 0):02d}"


def normalise_name(name: str) -> str:
    return "_".join(w.lower() for w in re.findall(r"[A-Za-z]+|\d+", name)) \
        .replace("address_1", "address1").replace("address_2", "address2")


def cue_words(text: str) -> frozenset[str]:
    """The words of ``text`` that can tie a value to a parameter: those that start with a
    letter, less :data:`~planfilter.core.text.VALUE_STOP_WORDS`, each also without a final
    ``s`` (the plain singular: ``emails`` gives ``emails`` and ``email``)."""
    found = split_words(text, numbers=False, stop=VALUE_STOP_WORDS)
    return frozenset(found) | frozenset(singular(w, english=False) for w in found)


def parameter_words(tool: Tool, parameter: str) -> frozenset[str]:
    """The words of a parameter: its name, the variable it carries, its description, less
    the values its description quotes (an example ``"CC-5100"`` gives no word ``cc``)."""
    schema = tool.parameters.get("properties", {}).get(parameter) or {}
    description = schema.get("description", "") if isinstance(schema, Mapping) else ""
    description = _QUOTED_VALUE.sub(" ", description) if isinstance(description, str) else ""
    return cue_words(f"{parameter} {tool.variable_of(parameter)} {description}")


#: A value a description quotes (:data:`~planfilter.core.schemas.QUOTED`).
_QUOTED_VALUE = re.compile(QUOTED)


@lru_cache(maxsize=4096)
def name_words(tool: Tool, parameter: str) -> frozenset[str]:
    """The words of a parameter's own name and of the variable it carries (descriptions say
    too much)."""
    return cue_words(f"{parameter} {tool.variable_of(parameter)}")


def _types(tool: Tool, parameter: str) -> frozenset[str]:
    schema = tool.parameters.get("properties", {}).get(parameter) or {}
    found: set[str] = set()
    for part in [schema, *schema.get("anyOf", ()), *schema.get("oneOf", ())] \
            if isinstance(schema, Mapping) else ():
        kind = part.get("type") if isinstance(part, Mapping) else None
        found |= set(kind) if isinstance(kind, list) else {kind} if kind else set()
        items = part.get("items") if isinstance(part, Mapping) else None
        if isinstance(items, Mapping) and items.get("type") == "string":
            found.add("string")
    return frozenset(found) or frozenset({"string"})


#: Who speaks a turn of a chat's or a call's log, at the start of its line ("Customer: ",
#: "Agent: ").
_SPEAKER = re.compile(rf"[ \t]*[{_UPPER}][{_LOWER}]+(?:[ \t][{_UPPER}][{_LOWER}]+)?:[ \t]+")


def said_before(text: str, start: int) -> str:
    """The text before ``start``, from after the speaker's label that starts its line when
    words stand between the two ("Customer: Three 100cm sections": "Customer" says who
    speaks, not what "100cm" is); all of it otherwise ("Order: W1234")."""
    line = text.rfind("\n", 0, start) + 1
    label = _SPEAKER.match(text, line)
    if label is not None and label.end() < start and split_words(text[label.end():start]):
        return text[label.end():start]
    return text[:start]


def _near(text: str, span: Span, cue: frozenset[str]) -> bool:
    before = split_words(said_before(text, span.start), numbers=False)[-NEAR:]
    after = split_words(text[span.end:], numbers=False)[:NEAR]
    return bool(cue_words(" ".join(before + after)) & cue)


#: A description's form for a time of day or a duration: ``HH:MM``, ``hh:mm``, ``H:MM:SS``.
_CLOCK_FORM = re.compile(r"\bH{1,2}:MM(?::SS)?\b", re.IGNORECASE)
#: Spans that are a time: what a parameter written ``HH:MM`` takes.
_TIMES = frozenset({"time", "clock", "quoted"})
#: A capitalised word right before a number: the number is a year of a name ("Tour 2025").
_NAMED_YEAR = re.compile(r"\b[A-Z][a-z]+\s+$")
#: Words of a parameter that takes a year.
_YEAR_WORDS = frozenset({"year", "years", "season", "edition", "vintage"})


def _clock_form(tool: Tool, parameter: str) -> bool:
    """``parameter`` takes a time of day, by its schema's ``format`` (``time``) or a form its
    description shows (``local time HH:MM``)."""
    schema = tool.parameters.get("properties", {}).get(parameter)
    return isinstance(schema, Mapping) and (schema.get("format") == "time"
                                            or bool(_CLOCK_FORM.search(description_of(schema))))


#: The whole numbers a parameter named for a part of a date or a time takes (its name's
#: last word): no month is 14, no hour 1446.
_RANGES: Mapping[str, tuple[int, int]] = {"month": (1, 12), "day": (1, 31), "hour": (0, 23),
                                          "minute": (0, 59), "weekday": (0, 7)}


def _out_of_range(parameter: str, span: Span) -> bool:
    """``span`` is a whole number outside what ``parameter``, named for a part of a date or
    a time (:data:`_RANGES`), takes ("14 Ramadan 1446": neither 14 nor 1446 a month)."""
    last = name_parts(parameter)[-1:]
    bounds = _RANGES.get(last[0]) if last else None
    value = span.value
    return bounds is not None and isinstance(value, int) and not isinstance(value, bool) \
        and not bounds[0] <= value <= bounds[1]


def fits(tool: Tool, parameter: str, span: Span, text: str) -> bool:
    """``span`` of ``text`` may be a value of the tool's ``parameter`` (see the module
    docstring)."""
    if not _offered(tool, parameter, span.value) or not _of_named_kind(parameter, span) \
            or _unlike_examples(tool, parameter, span) or _out_of_range(parameter, span):
        return False
    # "a Konya kilim ... send it to my address in Utrecht" for ``origin`` ("e.g. ``Konya``,
    # ``Uşak``"): the request names a place the examples show, so the place a word leads
    # to is another's
    if span.kind == "place" and (named := _example_named(tool, parameter, text)) \
            and fold(str(span.value)) not in named:
        return False
    # a time written ``H:MM:SS`` takes a time alone: no e-mail address, whatever its
    # description says of whose it is ("predicted finish for the recipient"); no hour alone
    # ("after 12": noon or midnight, the model's to write out)
    if _clock_form(tool, parameter) and span.kind not in _TIMES:
        return False
    cue = parameter_words(tool, parameter)
    types = _types(tool, parameter)
    if span.kind == "number":
        if isinstance(span.value, float) and "number" not in types:
            return False
        # "Maya (9) and Zach (6), plus our spaniel": an aside on a name (an age), no value
        if _ASIDE_NUMBER.match(text, max(0, span.start - 1)):
            return False
        # "the Autumn Tour 2025 tee": a year in a name, no count nor amount
        if _NAMED_YEAR.search(text, 0, span.start) and 1900 <= span.value < 2100 \
                and not name_words(tool, parameter) & _YEAR_WORDS:
            return False
        # "£50 a month": no day; "from my current account: £450": no account
        if _money(text, span) and not (names_money(parameter)
                                       or names_money(tool.variable_of(parameter))):
            return False
        # "refund 20% of the price": a share, no amount
        if _SHARE_AFTER.match(text, span.end) and not name_words(tool, parameter) & SHARES:
            return False
        # "refund 1 of them": how many, no amount; "the hold on 5521877": a number of many
        # figures with no currency is something's number, no amount of money; nor is any
        # number without one where the request writes its amounts with theirs ("Account
        # 4002 3318 ... still £64.20 showing", "I'm 78 ... the £150 discount")
        if (names_money(parameter) or names_money(tool.variable_of(parameter))) and (
                _COUNT_AFTER.match(text, span.end)
                or isinstance(span.value, int) and span.value >= _LARGEST_BARE_AMOUNT
                and not _money(text, span)
                or not _money(text, span) and amounts_written(text)):
            return False
        # "my Visa ending 0093": a card's last figures, for a parameter named for them alone
        if _ENDING_BEFORE.search(text, 0, span.start) \
                and not name_words(tool, parameter) & _ENDING_WORDS:
            return False
        # "£2,000" for ``amount_cents``: the model converts it to the minor unit
        if _money(text, span) and _minor_units(tool, parameter):
            return False
        # "we were charged £54", "£600 including VAT" for ``net_amount`` ("net of VAT"):
        # the model takes the tax off; "£45 + VAT" is an amount said net
        if _money(text, span) and _net_of_tax(tool, parameter) \
                and not _SAID_NET.match(text, span.end):
            return False
        # "5 GB" for ``quota_mb``, "6.5%" for ``rate_bp``: the model converts it; "512 GB"
        # is no price ("50 pounds" may be one)
        if _other_unit(text, span, parameter) or _unit(text, span) not in (None, _POUNDS) \
                and (names_money(parameter) or names_money(tool.variable_of(parameter))):
            return False
        # "10 cm shorter", "raised by £15": by how much a value changes, not the value
        if (CHANGE_AFTER.match(text, span.end) or CHANGE_BEFORE.search(text[:span.start])) \
                and not name_words(tool, parameter) & CHANGES:
            return False
        # "her passport number is 561992031": a passport's, no ``party_size``
        if _other_kind(text, span, name_words(tool, parameter)):
            return False
        if types & {"number", "integer"}:
            return _near(text, span, cue)
        # digits right after the words of a text parameter's name ("zip code 43215"): the
        # text, not the number; never a name ("a venue for 3 days" names no venue)
        if re.split(r"[^a-z]+", parameter.lower())[-1] in {"name", "names"}:
            return False
        before = split_words(said_before(text, span.start), numbers=False)[-2:]
        # "landlord of 5 Roundhay Mews": a house; "some time between 10 and 11": an hour
        if before and before[-1] in PREPOSITIONS | _RANGE_LEADS:
            return False
        if _HOUSE.match(text, span.end):  # "my work address (1 Park Row)": a house number
            return False
        return "string" in types and bool(cue_words(" ".join(before)) & cue_words(parameter))
    if span.kind == "postcode":
        return normalise_name(parameter) in ADDRESS_PARTS["zip"] and "string" in types
    if span.kind.startswith("address:"):
        return normalise_name(parameter) in ADDRESS_PARTS[span.kind.partition(":")[2]] \
            and "string" in types
    if "string" not in types:
        return False
    # an identifier's parameter (email_id, order_ref) or a name's takes no address, link or
    # date, whatever its description says ("the recipient's legal name", "the reference on
    # the confirmation e-mail")
    head = singular(re.split(r"[^a-z]+", parameter.lower())[-1], english=False)
    if span.kind in _NOT_AN_ID and head in _NAMES_OR_IDS:
        return False
    # nor is a place an identifier's ("Leg id of the replacement flight (same origin and
    # destination)" takes no "Boston")
    # nor, where the request writes an address whole, is a place a word leads to the
    # address's ("my old flat in Oakland ... ship it to 2150 Shattuck Ave, Apt 5B,
    # Berkeley, CA 94704" for ``address``): the written one says it
    if span.kind == "place" and re.split(r"[^a-z]+", parameter.lower())[-1] == "address" \
            and (_ADDRESS.search(text) or _UK_ADDRESS.search(text)):
        return False
    if span.kind == "place" and head in _IDENTIFIERS:
        return False
    # a time of day is no date ("docked around 8:20" for ``date_from``: "first start date")
    if span.kind == "time" and name_words(tool, parameter) & _CUES["date"] \
            and not name_words(tool, parameter) & _CLOCK_WORDS:
        return False
    if span.kind in _NAME_CUES:
        said = set(split_words(f"{parameter} {tool.variable_of(parameter)}", digits=False))
        return "name" in said and bool(said & _NAME_CUES[span.kind])
    if span.kind == "code":  # an id right after the word its name has ("order #W1")
        named = name_words(tool, parameter)
        before = split_words(said_before(text, span.start), numbers=False)[-2:]
        if before and before[-1] in PREPOSITIONS:  # "a service for YD70": the van's
            return False
        return bool(cue_words(" ".join(before)) & named) and not _other_kind(text, span, named)
    if span.kind == "phone":  # by the parameter's own name ("if no phone number is given")
        return bool(name_words(tool, parameter) & _CUES["phone"])
    if span.kind == "quoted":  # by the parameter's own name: descriptions say too much;
        # words and spaces are no identifier ('emboss "For Nana, 2024"' for ``seller_id``)
        last = split_words(parameter, digits=False)[-1:]
        # nor is a plain word (it says "Fitzgerlad" and should be "Fitzgerald")
        if last and singular(last[0], english=False) in GENERIC_HEADS and (
                re.search(r"\s", str(span.value)) or _PLAIN_WORD.fullmatch(str(span.value))):
            return False
        return _near(text, span, name_words(tool, parameter)) \
            and not _anothers(tool, parameter, _head_noun(text, span))
    return bool(cue & _CUES.get(span.kind, frozenset()))


#: A value written as words are, one or a few ("Miami", "San Francisco", "Winston-Salem").
_AS_WORDS = re.compile(rf"[{_UPPER}]?[{_LOWER}]+(?:[\s-][{_UPPER}]?[{_LOWER}]+)*")
#: A word and a space in a value: written in words, however many numbers it holds.
_WORDED = re.compile(r"[A-Za-z]{2,}\s|\s[A-Za-z]{2,}")
#: A code as examples write one: capitals, digits and joining marks, no lower-case letter.
_CODE_FORM = re.compile(r"[A-Z0-9][A-Z0-9_./#-]*")
#: A code typed in lower case, as a description shows it may be: letters and figures in
#: one run, a figure among them (``ab123cd`` beside ``AB-123-CD``).
_LOWER_CODE = re.compile(r"(?=[a-z0-9_./#-]*\d)[a-z0-9][a-z0-9_./#-]*")


def _unlike_examples(tool: Tool, parameter: str, span: Span) -> bool:
    """``span`` is written as words where the parameter takes codes (:func:`_coded`), is a
    number alone where it takes words around a number (:func:`_worded`) or codes with
    letters, or is a time where no example holds one (:func:`_untimed`)."""
    return _as_words(span.value) and _coded(tool, parameter) \
        or _bare_number(span.value) and (_worded(tool, parameter)
                                         or _coded(tool, parameter, lettered=True)) \
        or span.kind == "time" and _untimed(tool, parameter)


def _example_named(tool: Tool, parameter: str, text: str) -> frozenset[str]:
    """The examples of the parameter's description, words alone (``Konya``, ``Uşak``), that
    ``text`` names as words (case and accents aside) where no word leads to a place ("a
    Konya kilim"; not "to Boston", which the places a word leads to say)."""
    folded, led = _folded_and_led(text)
    return frozenset(fold(e) for e in examples(tool.parameters.get("properties", {})
                                              .get(parameter))
                     if _AS_WORDS.fullmatch(e) and fold(e) not in led
                     and re.search(rf"(?<!\w){re.escape(fold(e))}(?!\w)", folded))


@lru_cache(maxsize=256)
def _folded_and_led(text: str) -> tuple[str, frozenset[str]]:
    """``text`` folded, and the places in it a word leads to (:data:`_PLACE_AFTER`), folded."""
    led = frozenset(fold(place.group(0)) for m in _PLACE_AFTER.finditer(text)
                    for place in re.finditer(_PLACE, m.group(1)))
    return fold(text), led


#: A time of day as examples write one: ``09:30``, ``9am``, ``T12:00``.
_TIME_FORM = re.compile(r"\d{1,2}(?::\d{2}|\s?[ap]\.?m\b)", re.IGNORECASE)


def _untimed(tool: Tool, parameter: str) -> bool:
    """The parameter's description gives examples and none holds a time of day: a rule of
    recurrence ``e.g. "FREQ=WEEKLY;BYDAY=MO;BYHOUR=12"`` takes no "8:30" of the request
    (the model writes the time into it)."""
    shown = examples(tool.parameters.get("properties", {}).get(parameter))
    return bool(shown) and not any(_TIME_FORM.search(e) for e in shown)


def _worded(tool: Tool, parameter: str) -> bool:
    """Every example the parameter's description gives is words around a number: ``The seats
    to book, e.g. ["Row F, seat 12"]`` takes no 12 alone ("row E, seats 7 and 8": the model
    writes each seat out as the examples do)."""
    shown = examples(tool.parameters.get("properties", {}).get(parameter))
    return bool(shown) and all(_WORDED.search(e) and has_digit(e) for e in shown)


def _coded(tool: Tool, parameter: str, *, lettered: bool = False) -> bool:
    """Every example the parameter's description gives is a code: ``IATA code of the
    arrival airport, e.g. "DEN"`` takes no "San Francisco" (the model looks the code up, or
    the user says it). With ``lettered``, a code with a letter in it: ``Term id, e.g.
    "2025-T2"`` takes no 3 of "Term 3" (the model writes the code the number stands for)."""
    shown = examples(tool.parameters.get("properties", {}).get(parameter))
    return bool(shown) and all((_CODE_FORM.fullmatch(e) or _LOWER_CODE.fullmatch(e)) and (
        not lettered or any(c.isalpha() for c in e)) for e in shown)


def _bare_number(value: Any) -> bool:
    """A number, or text of digits alone (``"12"``)."""
    return isinstance(value, int | float) and not isinstance(value, bool) \
        or isinstance(value, str) and value.strip().isdigit()


def _as_words(value: Any) -> bool:
    return isinstance(value, str) and bool(_AS_WORDS.fullmatch(value))


#: A small number alone in brackets: what the words before it are (an age, a count).
_ASIDE_NUMBER = re.compile(r"\(\d{1,3}\)")
#: Words before a number that make it one end of a range ("between 10 and 11").
_RANGE_LEADS = frozenset({"between"})
#: A word as words are written, capitalised or not: no identifier ("Fitzgerlad", "premium").
_PLAIN_WORD = re.compile(rf"[{_UPPER}]?[{_LOWER}]+")
#: The last word of a parameter's name that names the kind of value it takes, and the kinds
#: of span that are such a value: ``recipient_phone`` takes a telephone number, whatever its
#: description says of the recipient; ``licence_country`` no licence's number.
_HEAD_KINDS: Mapping[str, frozenset[str]] = {
    "email": frozenset({"email", "quoted"}),
    "phone": frozenset({"phone", "number", "quoted"}),
    "mobile": frozenset({"phone", "number", "quoted"}),
    "telephone": frozenset({"phone", "number", "quoted"}),
    "city": frozenset({"place", "address:city", "quoted"}),
    "town": frozenset({"place", "address:city", "quoted"}),
    "country": frozenset({"place", "address:country", "quoted"}),
    # a plate's or an address's state is a place's name or code, no number ("plate 713 KPJ")
    "state": frozenset({"place", "address:state", "quoted"}),
    "street": frozenset({"address:address1", "quoted"}),
    # a holder is a person: ``account_holder`` takes a name, no account's number
    "holder": frozenset({"first_name", "last_name", "quoted"}),
    # a currency is a code, no e-mail address nor a place ("CAD 4,350.00 from my wallet")
    "currency": frozenset({"code", "quoted"}),
    # an address's line or postcode (``recipient_line1``, ``recipient_postcode``) takes a
    # part of an address, no e-mail address of the one who writes
    "line": frozenset({"address:address1", "address:address2", "quoted"}),
    "postcode": frozenset({"postcode", "address:zip", "number", "code", "quoted"}),
    "zip": frozenset({"postcode", "address:zip", "number", "code", "quoted"}),
    "zipcode": frozenset({"postcode", "address:zip", "number", "code", "quoted"}),
}


def _of_named_kind(parameter: str, span: Span) -> bool:
    """``span`` is of a kind the last word of ``parameter``'s name allows
    (:data:`_HEAD_KINDS`), or that word names no kind."""
    kinds = _named_kinds(parameter)
    return kinds is None or span.kind in kinds


@lru_cache(maxsize=4096)
def _named_kinds(parameter: str) -> frozenset[str] | None:
    """The kinds of span the last word of ``parameter``'s name allows; None for any."""
    last = split_words(parameter, digits=False)[-1:]
    return _HEAD_KINDS.get(last[0]) if last else None


#: What follows a house's number: a capitalised word of a street's name, no month or day
#: ("1 Park Row", not "3 June" nor "2 Monday mornings").
_HOUSE = re.compile(rf"[ \t]+(?!(?:{'|'.join(_NOT_PLACES)})\b)[{_UPPER}][{_LOWER}]+")
#: A number written as a share: ``20%``, ``20 per cent``, ``20 percent``.
_SHARE_AFTER = re.compile(r"\s?(?:%|per\s?cent\b)", re.IGNORECASE)
#: Words of a parameter that takes a share.
SHARES = frozenset({"percent", "percentage", "pct", "rate", "share", "discount", "proportion",
                    "ratio"})

#: What comes before a card's or an account's last figures: "ending 0093", "ends in 4417",
#: "last four digits 2231"; and the words of a parameter that takes them (``card_last4``).
_ENDING_BEFORE = re.compile(r"\b(?:ending|ends|ending\s+in|ends\s+in|ends\s+with|last\s+(?:four|4)"
                            r"(?:\s+digits)?(?:\s+(?:are|of))?|last\s+digits)[:\s]*$",
                            re.IGNORECASE)
_ENDING_WORDS = frozenset({"last", "last4", "ending", "ends", "digits", "suffix", "tail",
                           "masked", "mask", "pan"})
#: What follows a count of things already named: "1 of them", "2 of those".
_COUNT_AFTER = re.compile(r"\s+of\s+(?:them|those|these|the|my|our)\b", re.IGNORECASE)
#: From this many on, a whole number written with no currency is no amount of money.
_LARGEST_BARE_AMOUNT = 100_000

#: The words of a parameter that takes a change (``increase_by``).
CHANGES = frozenset({"by", "change", "delta", "increase", "decrease", "difference", "extra",
                     "more", "less", "reduction", "adjustment", "additional", "offset"})
_UNIT_AFTER = re.compile(r"\s?([A-Za-z]+)\b")
#: A unit whose words also name money ("50 pounds").
_POUNDS = UNIT_OF["pounds"]


def _unit(text: str, span: Span) -> tuple[str, str] | None:
    """The unit the number of ``span`` is given in, as (its kind, its one name): ``5 GB``
    gives ("data", "gb"), ``6.5%`` ("share", "pct"); None when no unit follows it."""
    if _SHARE_AFTER.match(text, span.end):
        return UNIT_OF["%"]
    after = _UNIT_AFTER.match(text, span.end)
    return UNIT_OF.get(after.group(1).lower()) if after else None


def _other_unit(text: str, span: Span, parameter: str) -> bool:
    """The number of ``span`` is given in a unit (``5 GB``) and ``parameter``'s name names
    another unit of that kind (``quota_mb``): the value the call takes is worked out."""
    said = _unit(text, span)
    if said is None:
        return False
    named = [UNIT_OF[w] for w in split_words(parameter, digits=False) if w in UNIT_OF]
    return any(kind == said[0] and unit != said[1] for kind, unit in named)




def _minor_units(tool: Tool, parameter: str) -> bool:
    """``parameter`` takes money in a minor unit, by its name or the variable's
    (``amount_cents``, ``price_minor``) or its description ("Amount in pence")."""
    schema = tool.parameters.get("properties", {}).get(parameter)
    return any(MINOR_UNIT.search(said) for said in (parameter, tool.variable_of(parameter),
                                                    description_of(schema)))


#: Words that say an amount is before tax: ``net_amount``, "in pounds NET of VAT",
#: "excluding VAT", "ex. tax".
_NET = re.compile(r"(?:^|_|\b)net(?:$|_|\b)|\bex(?:cl(?:uding|\.)?|\.)?\s*(?:vat|tax|gst)\b"
                  r"|\bbefore\s+(?:vat|tax|gst)\b", re.IGNORECASE)
#: After an amount, words that say it is before tax: "£45 + VAT", "£45 ex VAT", "£45 net".
_SAID_NET = re.compile(r"\s*(?:(?:\+|plus|ex(?:cl(?:uding|\.)?|\.)?|excluding|before)\s*"
                       r"(?:vat|tax|gst)\b|net\b)", re.IGNORECASE)


def _net_of_tax(tool: Tool, parameter: str) -> bool:
    """``parameter`` takes an amount before tax, by its name or the variable's
    (``net_amount``) or its description ("in pounds, NET of VAT")."""
    schema = tool.parameters.get("properties", {}).get(parameter)
    return any(_NET.search(said) for said in (parameter, tool.variable_of(parameter),
                                              description_of(schema)))


def _money(text: str, span: Span) -> bool:
    """The number of ``span`` is written as money
    (:func:`~planfilter.core.text.written_as_money`)."""
    return written_as_money(text, span.start, span.end)


#: Words before a quoted name that make it a modifier of the noun after it ("the "EV Night
#: Drive" tariff").
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their",
                          "this", "that"})


def _anothers(tool: Tool, parameter: str, head: str | None) -> bool:
    """``head`` names another parameter of the tool and not this one: in "moving both fuels
    to the "Fixed Secure 24M" tariff" the name is the tariff's (``tariff_id``), not the
    fuels', however near the word "fuels" is."""
    return head is not None and head not in name_words(tool, parameter) and any(
        head in name_words(tool, p) for p in tool.parameters.get("properties", {})
        if p != parameter)


def _head_noun(text: str, span: Span) -> str | None:
    """The noun a quoted name stands before, when a determiner stands before it (the
    "Fixed Secure 24M" tariff); None otherwise."""
    before = re.findall(r"[A-Za-z]+", text[max(0, span.start - 12):span.start])
    after = re.match(r"[\"'’”]?\s*([A-Za-z]+)", text[span.end:span.end + 30])
    if not before or before[-1].lower() not in _DETERMINERS or after is None:
        return None
    word = after.group(1).lower()
    if word in VALUE_STOP_WORDS or word in PREPOSITIONS:
        return None
    return singular(word, english=False)


#: Words that say only that a code follows, not of what: "number", "code", "reference".
GENERIC_HEADS = frozenset({"number", "no", "num", "code", "id", "ref", "reference"})


def _other_kind(text: str, span: Span, named: frozenset[str]) -> bool:
    """The words before a code name another kind of thing than the parameter does: a
    generic head ("number", "code") right before it, and before that a word the
    parameter's name lacks ("voucher code SUMMER10" is no ``class_code``; "licence,
    number SR90" no ``policy_number``)."""
    before = split_words(said_before(text, span.start), numbers=False,
                          stop=VALUE_STOP_WORDS)[-2:]
    return len(before) == 2 and before[1] in GENERIC_HEADS and not cue_words(before[0]) & named


def links_in(value: Any) -> tuple[tuple[str, str], ...]:
    """The web addresses and file names a value states (in its text, or in any string it
    holds), each as (kind, value), in order, once each."""
    return tuple(dict.fromkeys((s.kind, s.value) for text in strings_in(value)
                               for s in spans(text) if s.kind in LINKS))


def linked_by(tool: Tool, parameter: str, links: Iterable[tuple[str, str]]
              ) -> tuple[str, ...]:
    """The links (see :func:`links_in`) the tool's ``parameter`` takes: of a kind its
    words name ("url", "file"), valid for its schema."""
    kinds = {k for k in LINKS if fits(tool, parameter, Span(k, "", 0, 0), "")}
    return tuple(v for k, v in links if k in kinds and (
        not value_errors(tool, parameter, v) or (
            accepts_list(tool, parameter) and not value_errors(tool, parameter, [v]))))


def strings_in(value: Any) -> list[str]:
    """The strings a value holds (itself, or those in its mappings and lists), in order."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings_in(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in strings_in(v)]
    return []


def stated_for(tool: Tool, parameter: str, text: str,
               kinds: frozenset[str] | None = None) -> tuple[Any, ...]:
    """Every value ``text`` states that may be the tool's ``parameter``, in text order (of
    the span ``kinds`` given, else of any), but on a line it quotes (an e-mail's "> On 3
    March, we wrote: your order SP-203977 ...": an earlier message's values, not the ones
    the writer gives now)."""
    out: list[Any] = []
    for span in spans(text):
        if (kinds is not None and span.kind not in kinds) or quoted_at(text, span.start) \
                or not fits(tool, parameter, span, text):
            continue
        if span.kind == "number" and not _types(tool, parameter) & {"number", "integer"}:
            span = Span(span.kind, text[span.start:span.end], span.start, span.end)
        if span.value in out:
            continue
        if not value_errors(tool, parameter, span.value) or (
                accepts_list(tool, parameter) and not value_errors(tool, parameter, [span.value])):
            out.append(span.value)
    return tuple(out)


def _offered(tool: Tool, parameter: str, value: Any) -> bool:
    """``value`` is one of the choices the parameter's description lists, or it lists
    none (a date is no inspection's kind when the kinds are "mid_term" or "check_out")."""
    choices = offered(tool.parameters.get("properties", {}).get(parameter))
    return not choices or normal(value) in choices


#: Spans specific enough to be the user's value of a variable a tool also produces: an id
#: right after the word that names it ("order #W1000001"), a person's name ("I'm Mei
#: Kovacs"), an e-mail address. What the user says they are outranks what a lookup finds.
SPECIFIC = frozenset({"code", "postcode", "first_name", "last_name", "email", *(
    f"address:{part}" for part in ADDRESS_PARTS)})


def stated_values(registry: Registry, text: str) -> dict[str, Any]:
    """Values ``text`` states for the user's inputs: every variable a parameter carries that
    no tool produces and the model does not write (authored parameters aside), and, from the
    :data:`SPECIFIC` spans alone, the variables tools produce too. A variable with several
    values gets them as a list when every tool that takes it takes one value. A place before
    a site's noun ("your Edinburgh hotel", "your Didsbury branch") is a value only beside
    another the request gives the variable ("a concert at Murrayfield"): alone, it may name
    the site's city or its district, which no rule tells apart."""
    found: dict[str, Any] = {}
    carriers: dict[str, list[tuple[Tool, str]]] = {}
    for tool in registry:
        for parameter in tool.parameters.get("properties", {}):
            variable = tool.variable_of(parameter)
            if parameter in tool.authored:
                continue
            carriers.setdefault(variable, []).append((tool, parameter))
    stated: dict[str, list[Any]] = {}
    for variable, places in sorted(carriers.items()):
        values = stated.setdefault(variable, [])
        kinds = SPECIFIC if variable in registry.produced else None
        # one tool's examples say for all
        coded, worded, lettered = (any(test(t, p) for t, p in places) for test in (
            _coded, _worded, partial(_coded, lettered=True)))
        for tool, parameter in places:
            for value in stated_for(tool, parameter, text, kinds):
                if value not in values and not (coded and _as_words(value)) \
                        and not ((worded or lettered) and _bare_number(value)):
                    values.append(value)
    stated = _alike(_by_name(stated, carriers, text), carriers, text)
    sites = {m.group(1) for m in _SITE_PLACE.finditer(text)} - {
        place.group(0) for m in _PLACE_AFTER.finditer(text)
        for place in re.finditer(_PLACE, m.group(1))}  # "your Leeds branch, in Leeds"
    for variable, places in sorted(carriers.items()):
        values = stated[variable]
        if not values or all(v in sites for v in values):
            continue  # "your Didsbury branch" alone: a site's district, or its city
        if all(not accepts_list(t, p) for t, p in places):  # one value a call: any of them
            kept = [v for v in values if all(not value_errors(t, p, v) for t, p in places)]
            if kept:
                found[variable] = kept[0] if len(kept) == 1 else kept
        elif all(not value_errors(t, p, values) for t, p in places):
            found[variable] = values
    return found


def _shape(code: str) -> str:
    """How a code is written, whatever it says: each digit ``9``, each letter ``A``, the
    rest kept (``SP-204741`` and ``SP-204738`` are both ``AA-999999``)."""
    return re.sub(r"[A-Za-z]", "A", re.sub(r"\d", "9", code))


def _alike_codes(one: str, other: str) -> bool:
    """Two codes are written alike: the same :func:`_shape`, or the same shapes of their
    groups however they are parted and padded (:func:`~planfilter.core.values.code_groups`:
    "inv-2025-004417" and "INV 2025 4431")."""
    return _shape(one) == _shape(other) or len(code_groups(one)) > 1 and \
        [_shape(g) for g in code_groups(one)] == [_shape(g) for g in code_groups(other)]


def _alike(stated: Mapping[str, list[Any]], carriers: Mapping[str, list[tuple[Tool, str]]],
           text: str) -> dict[str, list[Any]]:
    """``stated``, where a code the request writes with no word before it that names its
    kind ("cancel the other one, SP-204738") joins the codes read for a variable that it
    is written as (:func:`_alike_codes`): the same kind of code, said a second time. Not on a
    quoted line, not a code read for another variable, and only where each tool that
    takes the variable takes it."""
    stated = {variable: list(values) for variable, values in stated.items()}
    held = {str(v) for values in stated.values() for v in values}
    for span in spans(text):
        if span.kind != "code" or span.value in held or quoted_at(text, span.start):
            continue
        for variable, values in stated.items():
            if any(isinstance(v, str) and _alike_codes(v, str(span.value)) for v in values) \
                    and all(not value_errors(t, p, span.value) or (
                        accepts_list(t, p) and not value_errors(t, p, [span.value]))
                        for t, p in carriers[variable]):
                values.append(span.value)
                held.add(str(span.value))
    return stated


def _by_name(stated: Mapping[str, list[Any]], carriers: Mapping[str, list[tuple[Tool, str]]],
             text: str) -> dict[str, list[Any]]:
    """``stated`` (variable -> the values read for it), where a number or a code read for
    several variables goes to those a parameter's own name names next to it, when some are
    so named and others only by their descriptions: "my card ending 4471" is
    ``card_last4``'s, not ``job_number``'s, described "the job number from the booking
    confirmation or engineer's card"."""
    stated = {variable: list(values) for variable, values in stated.items()}
    for span in spans(text):
        if span.kind not in ("number", "code"):
            continue
        said = (span.value, text[span.start:span.end])
        holders = [v for v, values in stated.items() if any(x in values for x in said)]
        if len(holders) < 2:
            continue
        named = [v for v in holders
                 if any(_near(text, span, name_words(t, p)) for t, p in carriers[v])]
        if named and len(named) < len(holders):
            for variable in set(holders) - set(named):
                stated[variable] = [x for x in stated[variable] if x not in said]
    return stated


#: A person's or a thing's name: one or two capitalised words.
_NAME = r"[A-Z][a-z]+(?:\s[A-Z][a-z]+)?"
#: Names listed together ("Priya and Marco", "Maria, Kenji or Hannah"), or quoted
#: ("the 'Legal' and 'Press' folders").
_NAMES = re.compile(rf"\b{_NAME}(?:(?:{LIST_JOIN}){_NAME})+\b"
                    rf"|(?<![A-Za-z])'[^'\n]+'(?:(?:{LIST_JOIN})'[^'\n]+')+")
#: What a request says in brackets after a name ("Kenji (kenji@globex.example)").
_ASIDE = re.compile(r"\s*\([^()\n]*\)")


def named_with(text: str, value: Any) -> tuple[str, ...]:
    """The names ``text`` lists together with ``value``, in order, ``value`` among them
    ("invite Kenji (kenji@globex.example) and Priya to the kickoff": Kenji and Priya; a
    sentence's first word left out: "Invite Maria and Hannah"; quoted: "the 'Legal' and
    'Press' folders"); () when the text lists it with no other name."""
    if not isinstance(value, str) or not value.strip():
        return ()
    plain = _ASIDE.sub("", text)
    for match in _NAMES.finditer(plain):
        names = re.split(LIST_JOIN, match.group(0))
        before = plain[:match.start()].rstrip()
        if match.group(0).startswith("'"):
            names = [n.strip("'") for n in names]
        elif " " in names[0] and (not before or before.endswith((".", "!", "?", ":"))):
            # a sentence's first word is no name ("Invite Maria and Hannah")
            names[0] = names[0].split(" ", 1)[1]
        found = tuple(dict.fromkeys(names))
        if value in found and len(found) > 1:
            return found
    return ()


def states_parameter(tool: Tool, parameter: str, text: str) -> bool:
    """``text`` states a value that may be the tool's ``parameter``."""
    return bool(stated_for(tool, parameter, text))
