"""A request that opens a conversation and refers to a thing nothing names (no model needed)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.builtin import calculate
from toolwire.messages import Message
from toolwire.models.local._grounding import Grounding
from toolwire.models.local._model import _question_opening, _what_is_missing
from toolwire.models.local._references import unreferenced


@pytest.mark.parametrize(
    ("request_", "reference"),
    [
        ("What's 15% of it?", "it"),
        ("double it", "it"),
        ("open that test", "that test"),
        ("Is this order shipped?", "this order"),
        ("what's in those files", "those files"),
        ("refund it, the grinder broke", "it"),
        ("cancel that one", "that one"),
    ],
)
def test_a_reference_nothing_before_it_names_is_found(request_: str, reference: str) -> None:
    assert unreferenced(request_) == reference


@pytest.mark.parametrize(
    "request_",
    [
        # "it" after "is" or an auxiliary stands for nothing.
        "what time is it in Tokyo?",
        "will it rain in Paris tomorrow?",
        # Named before it, in its clause or an earlier one.
        "Look up ORD-10490 and refund it",
        "Read my newest unread email and reply to the sender that I'll get back to them",
        "Translate 'good morning' and say it twice",
        "I weigh 165 pounds. Convert it to kilograms",
        # A demonstrative pointing forward to what follows a colon, or opening a clause.
        "Sort this list of names in ascending order: ['Sam', 'Alice']",
        "Create a new file with this content: 'hello world'",
        "Find restaurants near me within 10 miles that offer Chinese cuisine",
        "tell Tom that meetings moved",
        "What is that in kilograms?",
    ],
)
def test_no_reference_is_found_where_something_is_named_or_nothing_is_referred_to(
    request_: str,
) -> None:
    assert unreferenced(request_) is None


@given(st.text(max_size=80))
def test_any_text_is_read_and_a_reference_found_is_words_of_it(text: str) -> None:
    reference = unreferenced(text)
    assert reference is None or reference in text


def test_a_call_for_a_reference_nothing_names_is_missing_its_value_and_not_looked_up() -> None:
    tools = [calculate.definition]
    opening = Grounding.of(
        [Message.system("You are helpful."), Message.user("What's 15% of it?")], tools
    )
    assert opening.unreferenced == "it"
    assert opening.missing("calculate", {"expression": "15 / 100"}) == "expression"
    assert not opening.findable("calculate", "expression")
    # After an answer, "it" may be what that answer gave: the conversation is judged as ever.
    later = Grounding.of(
        [
            Message.user("What's 12 * 12?"),
            Message.assistant("12 * 12 = 144"),
            Message.user("What's 15% of it?"),
        ],
        tools,
    )
    assert later.unreferenced is None
    assert later.missing("calculate", {"expression": "144 * 15 / 100"}) is None


def test_the_question_for_a_reference_asks_what_it_is_or_which_thing_it_names() -> None:
    from toolwire.models import ModelRequest

    request = ModelRequest(messages=(Message.user("open that test"),))
    assert _question_opening("path", "that test") == "Which test"
    assert _what_is_missing(request, "run_tests", "path", "that test") == "which test"
    assert _question_opening("expression", "it") == 'What is "it"'
    assert _what_is_missing(request, "calculate", "expression", "it") == 'what "it" refers to'
