"""Values a request spells in words (planfilter.core.spoken): a transcript's "four seven two
nine" is ``4729``, its "j dot harper at example dot com" an address; prose stays prose."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planfilter.core.spoken import DIGIT_WORDS, spoken_addresses, written
from planfilter.core.text import fold
from planfilter.core.values import ValueStore, normal

SAID = {digit: word for word, digit in DIGIT_WORDS.items() if word != "oh"}
#: Words of prose, digit words among them ("one of them", "two or three"), no single letter.
prose_words = st.sampled_from(["please", "move", "my", "booking", "to", "Friday", "the",
                               "cheaper", "one", "two", "or", "three", "of", "them", "at",
                               "oh", "and", "seventy", "five", "pounds", "thanks"])


@given(st.text(alphabet="0123456789", min_size=3, max_size=12),
       st.sampled_from([" ", ", ", "-"]))
def test_digits_said_one_by_one_are_written_as_one_number(digits, gap):
    said = gap.join(SAID[d] for d in digits)
    assert written(f"my booking is {said}, thanks") == f"my booking is {digits}, thanks"


@given(st.lists(prose_words, min_size=1, max_size=12))
def test_prose_with_no_run_of_three_characters_said_one_by_one_is_left_as_it_is(chosen):
    text = " ".join(chosen)
    if any(all(w in DIGIT_WORDS for w in chosen[i:i + 3]) for i in range(len(chosen) - 2)):
        return  # three digit words in a row are a number read out
    assert written(text) == text


@pytest.mark.parametrize("text, expected", [
    ("my number's oh seven seven double oh, nine double oh, one four six",
     "my number's 07700900146"),
    ("the code is G C seven Q two K nine nine one four, thanks",
     "the code is GC7Q2K9914, thanks"),
    ("it's Maeve O'Connor, O C O N N O R, two things", "it's Maeve O'Connor, , two things"),
    ("booking five five oh two, I'm in on Saturday", "booking 5502, I'm in on Saturday"),
    ("one or two of them, oh and plan A", "one or two of them, oh and plan A"),
    ("Flat 3, 14 Elm Grove", "Flat 3, 14 Elm Grove"),
])
def test_what_a_transcript_spells_is_written(text, expected):
    assert written(text) == expected


@pytest.mark.parametrize("text, address", [
    ("that's t reilly eight eight at outlook dot com", "treilly88@outlook.com"),
    ("it's now maeve dot oconnor at icloud dot com", "maeve.oconnor@icloud.com"),
    ("chantelle rhodes at hotmail dot co dot uk", "chantellerhodes@hotmail.co.uk"),
    ("my email is g kowalczyk, k o w a l c z y k, at gmail dot com", "gkowalczyk@gmail.com"),
])
def test_an_address_said_with_at_and_dot_is_read_each_way_it_may_start(text, address):
    assert address in spoken_addresses(text)


def test_no_address_is_read_where_none_is_said():
    assert spoken_addresses("meet me at the office, dot the i's") == ()
    assert spoken_addresses("write to j.harper@example.com") == ()


def test_the_store_holds_what_the_request_spells_as_the_users():
    store = ValueStore().with_request(
        "it's booking four seven two nine, and I'm on t reilly eight eight at outlook dot "
        "com; my old number is 07712 345678")
    for value in ("4729", "treilly88@outlook.com", "+447712345678"):
        assert store.seen(value) or store.mentions(value), value
    assert not (store.seen("4730") or store.mentions("4730"))


@pytest.mark.parametrize("name, typed", [("Gérard", "Gerard"), ("Zoë", "Zoe"),
                                         ("Comté", "comte"), ("Bérubé", "berube"),
                                         ("Lefèvre", "LEFEVRE"), ("Müller", "Muller")])
def test_a_name_with_accents_meets_the_name_typed_without(name, typed):
    assert normal(name) == normal(typed)
    assert fold(name) == fold(typed)
    assert normal("Müller") != normal("Mueller")  # a spelling of its own, not folded


@given(st.text(max_size=12))
def test_folding_is_idempotent_and_keeps_every_text_that_is_not_blank(text):
    """Folding twice is folding once, and text with a character that is not whitespace
    never folds to blank: an accent standing alone ("¸", "\\u0301") is a character of its
    own, not a mark to drop."""
    assert fold(fold(text)) == fold(text)
    assert bool(fold(text).strip()) == bool(text.strip())


@pytest.mark.parametrize("text, expected", [
    # a postcode's district said as a number after its letters, a letter said with a word
    ("postcode m twenty two r n today", "postcode m202rn today"),
    ("london s w eleven five e l thats it", "london sw115el thats it"),
    ("it's s w four oh l for lima q. same card", "it's sw40lq. same card"),
    ("l s six three h as in hotel q if it's under", "ls63hq if it's under"),
    # a code of letters with a figure or two ("s t u d ten", "r h y s p eight eight")
    ("my student code its s t u d ten", "my student code its stud10"),
    ("my emails r h y s p eight eight at hotmail", "my emails rhysp88 at hotmail"),
    # a number said as a quantity stays so
    ("twenty two fifty for the lot", "twenty two fifty for the lot"),
    ("the one for dinner", "the one for dinner"),
])
def test_codes_spelled_with_numbers_and_spelling_words_are_written(text, expected):
    assert written(text) == expected


def test_a_domain_heard_as_two_words_is_read_joined_and_alone():
    found = spoken_addresses("email is sam dot whitaker at proton mail dot com w h i t a k e r")
    assert "sam.whitaker@protonmail.com" in found and "sam.whitaker@mail.com" in found
    assert "rhysp88@hotmail.co.uk" in spoken_addresses(
        "my emails r h y s p eight eight at hotmail dot co dot uk")
