"""Structured arguments, on a held-out tool set (``tests/fixtures/ferrydesk``: a ferry
operator's booking desk, drafted by ``contracts infer`` and left unedited): a booking takes
lists of records (its legs, its passengers, how it is paid), a fare class from a fixed set,
a count of bags and a yes/no, and the agent works the amounts out from the prices it read.
Replayed through ``Session.check`` over the desk's database, every correct call is allowed
and every made-up identifier inside a record is still refused."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import held_out_tools
from pydantic import validate_call

from planfilter.core.contracts import Registry
from planfilter.live import Session


@pytest.fixture(scope="module")
def held_out(tmp_path_factory) -> Any:
    yield from held_out_tools("ferrydesk", tmp_path_factory)


@pytest.fixture(scope="module")
def desk(held_out) -> Any:
    return held_out[0]


@pytest.fixture(scope="module")
def drafts(held_out) -> Registry:
    """The held-out tools' contracts as ``planfilter contracts infer`` drafts them, unedited."""
    return held_out[1]


def _answer(desk: Any, tool: str, arguments: dict[str, Any]) -> str:
    """The tool's result as a service would send it: JSON."""
    result = validate_call(getattr(desk, tool))(**arguments)
    if isinstance(result, list):
        return json.dumps([r.model_dump(mode="json") for r in result])
    return json.dumps(result.model_dump(mode="json") if hasattr(result, "model_dump")
                      else result)


REQUEST = ("I'm Ava (ava.lindqvist@example.org). Book the cheapest standard sailing from "
           "Portsmouth to Bilbao on June 17 for me and Jonas, three bags, no insurance; use my "
           "voucher first and the card for the rest. Then add a bag to QX7RTM, move LP2WZC's "
           "return to June 24, and cancel QX7RTM.")
TWO = [{"first_name": "Ava", "last_name": "Lindqvist", "birth_date": "1986-03-14"},
       {"first_name": "Jonas", "last_name": "Lindqvist", "birth_date": "1984-11-02"}]
#: Two fares of 70, one paid bag of 25: 165, 120 of it on the voucher.
SCRIPT: tuple[tuple[str, dict[str, Any]], ...] = (
    ("find_traveller", {"email": "ava.lindqvist@example.org"}),
    ("get_traveller", {"traveller_id": "ava_lindqvist_3391"}),
    ("find_sailings", {"origin": "Portsmouth", "destination": "Bilbao", "date": "2025-06-17"}),
    ("book_trip", {"traveller_id": "ava_lindqvist_3391", "fare_class": "standard",
                   "legs": [{"sailing": "PB305", "date": "2025-06-17"}], "passengers": TWO,
                   "bags": 3, "insured": False,
                   "payments": [{"method_id": "voucher_2201", "amount": 120.0},
                                {"method_id": "card_7712", "amount": 45.0}]}),
    ("get_booking", {"booking_ref": "QX7RTM"}),
    ("change_bags", {"booking_ref": "QX7RTM", "bags": 2, "paid_bags": 1,
                     "method_id": "card_7712"}),
    ("get_booking", {"booking_ref": "LP2WZC"}),
    ("change_sailings", {"booking_ref": "LP2WZC",
                         "legs": [{"sailing": "BP302", "date": "2025-06-24"}],
                         "method_id": "card_7712"}),
    ("cancel_booking", {"booking_ref": "QX7RTM", "reason": "change of plan"}),
)


def _replayed(drafts: Registry, desk: Any) -> tuple[Session, list[tuple[str, str]]]:
    session = Session(drafts, method="all", policy="always")
    session.start(REQUEST, goal=["book_trip_status", "change_bags_status",
                                 "change_sailings_status", "cancel_booking_status",
                                 "hand_over_done"],  # a step left: every tool still shown
                  known={"email": "ava.lindqvist@example.org"})
    decisions = []
    with desk.using(desk.load()):
        for tool, arguments in SCRIPT:
            decisions.append((tool, session.check(tool, arguments).kind))
            session.record(tool, arguments, _answer(desk, tool, arguments))
    return session, decisions


def test_the_records_a_booking_takes_are_checked_variables(drafts):
    """The drafts make the records preconditions a read yields (so the guard checks them),
    and nothing of the booking authored: what passes below passes by value."""
    book = drafts.tool("book_trip")
    assert {"legs", "passengers", "payments", "bags", "insured", "fare_class"} <= book.requires
    assert not book.authored
    assert "legs" in drafts.tool("get_booking").produces


def test_every_correct_call_is_allowed(drafts, desk):
    _, decisions = _replayed(drafts, desk)
    assert decisions == [(tool, "allowed") for tool, _ in SCRIPT]


@pytest.mark.parametrize("tool, arguments, culprit", [
    ("change_sailings", {"booking_ref": "LP2WZC", "method_id": "card_7712",
                         "legs": [{"sailing": "ZZ999", "date": "2025-06-24"}]}, "ZZ999"),
    ("book_trip", {"traveller_id": "ava_lindqvist_3391", "fare_class": "standard",
                   "legs": [{"sailing": "PB305", "date": "2025-06-17"}],
                   "passengers": [TWO[0], {"first_name": "Mallory", "last_name": "Stone",
                                           "birth_date": "1980-01-01"}],
                   "bags": 1, "insured": True,
                   "payments": [{"method_id": "card_7712", "amount": 70.0}]}, "Mallory"),
    ("book_trip", {"traveller_id": "ava_lindqvist_3391", "fare_class": "standard",
                   "legs": [{"sailing": "PB305", "date": "2025-06-17"}], "passengers": TWO,
                   "bags": 1, "insured": True,
                   "payments": [{"method_id": "card_0000", "amount": 70.0}]}, "card_0000"),
    ("change_bags", {"booking_ref": "QQ1234", "bags": 2, "paid_bags": 1,
                     "method_id": "card_7712"}, "QQ1234"),
])
def test_a_made_up_identifier_inside_a_record_is_refused(drafts, desk, tool, arguments,
                                                          culprit):
    session, _ = _replayed(drafts, desk)
    decision = session.check(tool, arguments)
    assert decision.kind == "invented", decision.reason
    assert culprit in decision.reason and "seen nowhere" in decision.reason
