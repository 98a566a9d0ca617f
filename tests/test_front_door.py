"""The README's headline request from the request alone: relative dates and clock times read
against today, the words that describe what it acts on, and the goal that takes every value
the request states (planfilter.live.dates, request_subjects, goals_by_value)."""

from __future__ import annotations

import json
import warnings
from datetime import date, timedelta

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from planfilter.cli import cli
from planfilter.core.errors import PlanfilterError
from planfilter.core.loading import load_registry
from planfilter.core.resources import default_registry
from planfilter.live import goals
from planfilter.live.dates import TODAY_ENV, spans, today_from
from planfilter.live.goals import resolve_with_retrieval
from planfilter.live.goals_by_value import explains, inputs_for, request_values
from planfilter.live.request_subjects import description
from planfilter.retrieval import embedders

HEADLINE = "Move tomorrow's dentist appointment to 4 PM"
TODAY = date(2026, 12, 1)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@pytest.fixture(scope="module")
def registry():
    return load_registry(default_registry())


@pytest.mark.parametrize("embedder", ["none", "hashing"])
def test_the_headline_request_resolves_from_its_words_alone(monkeypatch, embedder):
    """With words alone (the plain install) or any embedder: the goal, its three values, and
    search_events shown first."""
    monkeypatch.setenv("PLANFILTER_EMBEDDER", embedder)
    monkeypatch.delenv(TODAY_ENV, raising=False)
    result = CliRunner().invoke(cli, ["frontier", "--request", HEADLINE, "--today",
                                      TODAY.isoformat(), "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["goal"] == "event_updated"
    assert {k: [f["value"] for f in v] for k, v in data["values"].items()} == {
        "date": ["2026-12-02"], "event_description": ["dentist appointment"],
        "new_time": ["16:00"]}
    assert data["shown"] == ["search_events"]


def test_today_comes_from_the_environment(monkeypatch, registry):
    monkeypatch.setenv(TODAY_ENV, "2027-02-28")
    assert resolve_with_retrieval(registry, HEADLINE).known["date"] == "2027-03-01"
    monkeypatch.delenv(TODAY_ENV)
    assert today_from({}) == date.today()
    with pytest.raises(PlanfilterError, match=TODAY_ENV):
        today_from({TODAY_ENV: "tomorrow"})


@pytest.mark.parametrize(("args", "message"), [
    (["--request", HEADLINE, "--today", "2026-13-01"], "give today as YYYY-MM-DD"),
    (["--goal", "event_updated", "--today", "2026-12-01"], "--today needs --request"),
])
def test_a_bad_today_is_named(args, message):
    result = CliRunner().invoke(cli, ["frontier", *args])
    assert result.exit_code == 2 and message in result.output
    assert "Traceback" not in result.output


_OFFSETS = {"today": 0, "tomorrow": 1, "yesterday": -1, "the day after tomorrow": 2,
            "the day before yesterday": -2}


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)),
       st.sampled_from(sorted(_OFFSETS)))
def test_a_relative_day_is_today_moved_by_its_offset(today, word):
    found = spans(f"What is on {word}?", today)
    assert [(s.kind, s.value) for s in found] == [
        ("date", (today + timedelta(days=_OFFSETS[word])).isoformat())]


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)),
       st.sampled_from(WEEKDAYS), st.sampled_from(["", "on ", "next ", "this ", "last "]))
def test_a_weekday_is_the_nearest_such_day_after_today_or_before_it_with_last(today, day,
                                                                             lead):
    (found,) = spans(f"Book it {lead}{day}", today)
    read = date.fromisoformat(found.value)
    assert read.weekday() == WEEKDAYS.index(day)
    gap = (today - read).days if lead == "last " else (read - today).days
    assert 1 <= gap <= 7


@given(st.integers(1, 12), st.integers(0, 59), st.sampled_from(["am", "pm", "a.m.", "PM"]),
       st.sampled_from(["", " "]))
def test_a_twelve_hour_time_is_read_on_the_24_hour_clock(hour, minute, half, space):
    text = f"at {hour}:{minute:02d}{space}{half} please"
    (found,) = spans(text, TODAY)
    expected = hour % 12 + (12 if half.lower().startswith("p") else 0)
    assert (found.kind, found.value) == ("time", f"{expected:02d}:{minute:02d}")


@pytest.mark.parametrize("text", [
    "I still have tonight (10 June) and tomorrow night", "booked for Friday 14 March, then "
    "tomorrow", "tomorrow, the 12th", "on Monday, March 3"])
def test_a_relative_day_the_user_dates_gives_no_day_of_ours(text):
    """When the user dates a relative day themselves, their today is not this machine's:
    no relative day of the request is read (the day they wrote has no year)."""
    assert [s for s in spans(text, TODAY) if s.kind == "date"] == []
    assert [s.kind for s in spans("tomorrow at 10, with 3 guests", TODAY)] == ["date"]
    assert [s.kind for s in spans("next Friday, 3 guests", TODAY)] == ["date"]


def test_noon_midnight_and_a_bare_hour():
    assert [s.value for s in spans("from noon to midnight, or 4 PM", TODAY)] == [
        "12:00", "00:00", "16:00"]
    assert spans("I have 4 apples and 2 pears", TODAY) == ()
    assert [s.value for s in spans("after 10 in the morning or 3 in the afternoon",
                                   TODAY)] == ["10:00", "15:00"]


def test_the_description_is_what_is_left_of_a_short_request():
    values = request_values(HEADLINE, TODAY)
    assert values.described is not None and values.described.value == "dentist appointment"
    assert request_values("Can you please cancel my lunch with Ben on Friday?",
                          TODAY).described.value == "lunch with Ben"
    # two runs of words between values, or more than one sentence: no description
    assert description("Move the call on Monday to the review at 4 PM", request_values(
        "Move the call on Monday to the review at 4 PM", TODAY).spans) is None
    assert request_values("Move the call. Then tell Ben at 4 PM.", TODAY).described is None


def test_the_goal_that_takes_every_value_explains_the_request(registry):
    values = request_values(HEADLINE, TODAY)
    assert explains(registry, frozenset({"event_updated"}), values)
    # the new time would stay unused
    assert not explains(registry, frozenset({"created_event_id"}), values)
    # one day cannot be both the event's and the new one
    assert not explains(registry, frozenset({"event_rescheduled", "event_updated"}), values)
    assert inputs_for(registry, frozenset({"event_updated"}), values, {"date": "x"}).keys() \
        == {"new_time", "event_description"}


def test_one_value_alone_chooses_no_goal(registry):
    values = request_values("What is on my calendar tomorrow?", TODAY)
    assert not explains(registry, frozenset({"event_list"}), values)


def test_a_date_the_model_writes_is_never_read_from_the_request(tmp_path):
    path = tmp_path / "log.yaml"
    tool = {"name": "list_entries", "produces": ["entries"],
            "action": "read", "authored": ["date"], "description": "List the log's entries.",
            "parameters": {"type": "object", "properties": {"date": {
                "type": "string", "description": "Day, YYYY-MM-DD"}}, "required": ["date"]}}
    import yaml
    path.write_text(yaml.safe_dump({"domain": "log", "tools": [tool]}), encoding="utf-8")
    resolution = resolve_with_retrieval(load_registry(path), "List tomorrow's entries",
                                        today=TODAY)
    assert resolution.name == "entries" and "date" not in resolution.known


def test_words_alone_are_said_once_with_what_they_cost(monkeypatch, registry):
    def missing() -> embedders.Embedder:
        raise PlanfilterError("embedder 'minilm' needs the toolscope extra")

    monkeypatch.setitem(embedders.EMBEDDERS, "minilm", missing)
    monkeypatch.setenv("PLANFILTER_EMBEDDER", "minilm")
    monkeypatch.setattr(goals, "_warned", [])
    embedders._load.cache_clear()
    goals._index.cache_clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = resolve_with_retrieval(registry, HEADLINE, today=TODAY)
            resolve_with_retrieval(registry, "Summarize the email from Ben", today=TODAY)
    finally:
        embedders._load.cache_clear()
        goals._index.cache_clear()
    said = [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]
    assert len(said) == 1 and "toolscope" in said[0] and "/97" in said[0]
    assert goals.SPARSE_ONLY_COST in first.notes[0]
    assert first.name == "event_updated"
