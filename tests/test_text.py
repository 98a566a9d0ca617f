"""The text toolkit (planfilter.core.text) against its definitions: a word is a maximal run
of ASCII letters and digits (of letters only with ``digits=False``; from its first letter on
with ``numbers=False``), lowercased; stop words are dropped and nothing else is; the
singular forms are the documented ones."""

from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planfilter.core.text import (
    CHANGE_VERBS,
    CREATE_VERBS,
    LOOKUP_VERBS,
    PLAIN_READ_VERBS,
    PREPOSITIONS,
    QUESTION_STOP_WORDS,
    READ_VERBS,
    STOP_WORDS,
    VALUE_STOP_WORDS,
    singular,
    words,
)

texts = st.text(alphabet=string.ascii_letters + string.digits + " _-.,'éß\n", max_size=60)


def runs(text: str, keep: str) -> list[str]:
    """Maximal runs of the characters ``keep`` in ``text``, lowercased, by a character walk."""
    out, current = [], ""
    for char in text.lower():
        if char in keep:
            current += char
        elif current:
            out.append(current)
            current = ""
    return out + ([current] if current else [])


@given(texts)
def test_a_word_is_a_maximal_run_of_letters_and_digits(text):
    assert words(text) == runs(text, string.ascii_lowercase + string.digits)


@given(texts)
def test_without_digits_a_word_is_a_maximal_run_of_letters(text):
    assert words(text, digits=False) == runs(text, string.ascii_lowercase)


@given(texts)
def test_without_numbers_a_word_starts_at_the_first_letter_of_a_run(text):
    runs_from_a_letter = [r.lstrip(string.digits)
                          for r in runs(text, string.ascii_lowercase + string.digits)]
    assert words(text, numbers=False) == [r for r in runs_from_a_letter if r]
    assert words(text, digits=False, numbers=False) == words(text, digits=False)


@given(texts, st.frozensets(st.sampled_from(sorted(QUESTION_STOP_WORDS | VALUE_STOP_WORDS)),
                            max_size=8))
def test_stop_words_drop_exactly_themselves(text, stop):
    assert words(text, stop=stop) == [w for w in words(text) if w not in stop]
    assert words(text, stop=sorted(stop)) == words(text, stop=stop)
    assert words(text, numbers=False, stop=stop) == [w for w in words(text, numbers=False)
                                                     if w not in stop]


@pytest.mark.parametrize("plural, one", [
    ("emails", "email"), ("policies", "policy"), ("boxes", "box"), ("branches", "branch"),
    ("addresses", "address"), ("files", "file"), ("class", "class"), ("status", "status"),
    ("analysis", "analysis"), ("ids", "ids"), ("event", "event"),
])
def test_the_english_singular(plural, one):
    assert singular(plural) == one


@given(st.text(alphabet=string.ascii_lowercase, max_size=12))
def test_the_plain_singular_drops_only_a_final_s_of_a_long_word(word):
    plain = singular(word, english=False)
    if len(word) > 3 and word.endswith("s"):
        assert plain == word[:-1]
    else:
        assert plain == word


@given(st.text(alphabet=string.ascii_lowercase, max_size=12))
def test_a_singular_is_never_longer_and_is_stable_on_words_without_s(word):
    assert len(singular(word)) <= len(word)
    if not word.endswith("s"):
        assert singular(word) == word


def test_the_lists_nest_as_documented():
    assert STOP_WORDS < QUESTION_STOP_WORDS
    assert {"what", "which", "s"} <= QUESTION_STOP_WORDS - STOP_WORDS
    assert LOOKUP_VERBS - {"locate", "resolve", "browse", "match"} <= READ_VERBS
    assert {"get", "search", "read"} <= PLAIN_READ_VERBS < READ_VERBS
    assert {"id", "name", "value", "list"} <= VALUE_STOP_WORDS
    assert not {"email", "file", "date"} & (VALUE_STOP_WORDS | STOP_WORDS)
    assert {"update", "delete", "send"} <= CHANGE_VERBS and "read" not in CHANGE_VERBS
    assert "create" in CREATE_VERBS & CHANGE_VERBS
    assert {"by", "of", "into"} <= PREPOSITIONS
