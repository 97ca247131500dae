"""The lists a request writes, whose other items a call for one of them leaves (no model
needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.models.local._lists import listed_beside

CITIES = "Our team is split between Dubai and São Paulo. What time is it in each city right now?"
FILES = "Read tests/test_cache.py and src/weatherly/cache.py and tell me why the expiry test fails"
WORLD = "What time is it in Paris, Tokyo, New York and Sydney?"


@pytest.mark.parametrize(
    ("text", "value", "others"),
    [
        (CITIES, "São Paulo", ("Dubai",)),
        (CITIES, "dubai", ("São Paulo",)),  # as the request writes it, whatever the call's case
        ("Look up Priya's and Marco's email addresses", "Marco", ("Priya",)),
        (FILES, "tests/test_cache.py", ("src/weatherly/cache.py",)),
        (WORLD, "Tokyo", ("Paris", "New York", "Sydney")),
        (WORLD, "Sydney", ("Paris", "Tokyo", "New York")),
        ("What's 25 * 4 and 144 / 12?", "25 * 4", ("144 / 12",)),
        ("the average of 82, 91, 77 and 88 please", "91", ("82", "77", "88")),
        ("Check the status of ORD-10501 or ORD-10522", "ORD-10522", ("ORD-10501",)),
        ("search for cats and dogs", "cats", ("dogs",)),
        ("what time is it in tokyo and paris?", "tokyo", ("paris",)),
    ],
)
def test_the_other_items_of_a_list_holding_the_value(
    text: str, value: str, others: tuple[str, ...]
) -> None:
    assert listed_beside(text, value) == others


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("What time is it in Tokyo, and what is 15% of 80?", "Tokyo"),  # a clause, no item
        ("is chloe in my contacts, candidate's portfolio", "chloe"),  # no final "and"/"or"
        ("I'm in Paris and I need the time", "Paris"),
        ("run the lint and the tests", "lint"),
        ("Run the tests and show me the file with the failing test", "tests"),
        ("Is the AeroPress Go in stock, and how much is the Hario Buono kettle?", "AeroPress Go"),
        (FILES, "tell"),
        (CITIES, "Lisbon"),  # not written
        (CITIES, "."),
        (CITIES, ""),
    ],
)
def test_no_list_where_the_value_is_no_item_of_one(text: str, value: str) -> None:
    assert listed_beside(text, value) == ()


_PIECES = [
    "and",
    "or",
    ",",
    ", and",
    ".",
    "?",
    "Paris",
    "New",
    "York's",
    "x1",
    "/",
    "a/b.py",
    "the",
]


@given(
    st.one_of(st.text(max_size=60), st.lists(st.sampled_from(_PIECES), max_size=12).map(" ".join)),
    st.one_of(st.text(max_size=12), st.sampled_from(_PIECES)),
)
def test_items_listed_are_words_the_text_writes(text: str, value: str) -> None:
    for item in listed_beside(text, value):
        assert item.strip() and all(word in text for word in item.split())
