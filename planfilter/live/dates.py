"""Relative dates and clock times a request says, read as ISO values against a given today.

``spans(text, today)`` finds, with no model:

- relative days: ``today``, ``tonight``, ``tomorrow``, ``yesterday``, ``the day after
  tomorrow``, ``the day before yesterday``, ``in N days`` / ``in N weeks``, and a weekday
  (``Friday``, ``on Friday``, ``this Friday``, ``next Friday``: the first such day after
  today; ``last Friday``: the last one before it), each a ``date`` span (``YYYY-MM-DD``);
- clock times in words or on a 12-hour clock: ``4 PM``, ``4:30 p.m.``, ``11am``, ``10 in the
  morning``, ``noon``, ``midnight``, each a ``time`` span (``HH:MM``, 24-hour).

A possessive ("tomorrow's") belongs to the day. When the user dates a relative day
themselves ("tonight (10 June)", "Friday 14 March", "tomorrow, the 12th"), no relative day
of the request gives a value: their today is not this machine's (a service's world keeps
its own date), and the day they wrote has no year. Nothing else is read: a date with its year
or in ISO form, and a 24-hour time, are the request reader's own spans
(planfilter.live.request_values).

Today is the caller's to give; :func:`today_from` reads it from ``PLANFILTER_TODAY``
(``YYYY-MM-DD``) and falls back to the system date.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from datetime import date, timedelta

from ..core.errors import PlanfilterError
from .request_values import CLOCK, MONTHS, Span, clock, replaced

#: The OS environment variable that sets today (``YYYY-MM-DD``) for reading relative dates.
TODAY_ENV = "PLANFILTER_TODAY"

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_OFFSETS = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1,
            "the day after tomorrow": 2, "the day before yesterday": -2}
_DAY = re.compile(
    r"\b(?:(the day after tomorrow|the day before yesterday|today|tonight|tomorrow|yesterday)"
    r"|in (\d{1,3}|a|one|two|three) (days?|weeks?)"
    r"|(?:(on|this|next|last) )?(" + "|".join(_WEEKDAYS) + r"))(?:'s|’s)?\b",
    re.IGNORECASE)
_SMALL = {"a": 1, "one": 1, "two": 2, "three": 3}
#: The day of the month said right after a relative day, perhaps a word or two between:
#: "tonight (10 June)", "Friday 14 March", "tomorrow, the 12th", "on Friday (March 14)",
#: "today's reading (12/03/2025)".
_STATED = re.compile(rf"\s*(?:[A-Za-z]+\s+){{0,2}}?(?:[(,]\s*)?"
                     rf"(?:the\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)"
                     rf"|\d{{1,2}}\s+(?:of\s+)?(?:{MONTHS})|(?:{MONTHS})\s+\d{{1,2}}"
                     rf"|\d{{1,2}}[/.]\d{{1,2}}(?:[/.]\d{{2,4}})?)\b",
                     re.IGNORECASE)


def today_from(environ: Mapping[str, str] | None = None) -> date:
    """Today: ``PLANFILTER_TODAY`` of ``environ`` (default ``os.environ``) when set, else the
    system date. A value that is not an ISO date is an error naming the variable."""
    text = (os.environ if environ is None else environ).get(TODAY_ENV, "").strip()
    if not text:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise PlanfilterError(f"{TODAY_ENV}={text!r}: give today as YYYY-MM-DD") from None


def _day(match: re.Match[str], today: date) -> date:
    named, count, unit, lead, weekday = match.groups()
    if named:
        return today + timedelta(days=_OFFSETS[" ".join(named.lower().split())])
    if count:
        n = _SMALL.get(count.lower()) or int(count)
        return today + timedelta(days=n * (7 if unit.lower().startswith("week") else 1))
    target = _WEEKDAYS.index(weekday.lower())
    if (lead or "").lower() == "last":
        return today - timedelta(days=(today.weekday() - target - 1) % 7 + 1)
    return today + timedelta(days=(target - today.weekday() - 1) % 7 + 1)


def spans(text: str, today: date) -> tuple[Span, ...]:
    """The relative dates (``date`` spans, ISO) and clock times (``time`` spans, ``HH:MM``)
    of ``text``, in text order."""
    days = list(_DAY.finditer(text))
    if any(_STATED.match(text, m.end()) for m in days):  # the user's today is not ours
        days = []
    found = [Span("date", _day(m, today).isoformat(), *m.span()) for m in days]
    found += [Span("time", clock(m), *m.span()) for m in CLOCK.finditer(text)]
    return tuple(sorted((s for s in found if not replaced(text, s.start)),
                        key=lambda s: s.start))
