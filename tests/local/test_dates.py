"""The dates a request's day words stand for, noted after it (no model needed)."""

from __future__ import annotations

import datetime

from hypothesis import given
from hypothesis import strategies as st

from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models.local._dates import relative_days, stated_today, with_dates

TODAY = Message.system("You are Sam's assistant. Today is Tuesday 2026-03-10; times are local.")


def noted(request: str) -> str:
    return with_dates([TODAY, Message.user(request)])[-1].text


def test_each_day_word_of_the_request_gets_its_date() -> None:
    assert noted("Do I have anything tomorrow?") == (
        "Do I have anything tomorrow?\n\n(tomorrow: Wednesday 2026-03-11)"
    )
    assert noted("cancel the dentist on thursday, and what was on last Friday?").endswith(
        "(thursday: Thursday 2026-03-12; last friday: Friday 2026-03-06)"
    )
    # "next Tuesday" on a Tuesday is a week away; a bare weekday is the next one from today.
    assert noted("next Tuesday and today").endswith(
        "(next tuesday: Tuesday 2026-03-17; today: Tuesday 2026-03-10)"
    )
    assert noted("the day after tomorrow").endswith("(the day after tomorrow: Thursday 2026-03-12)")


def test_the_days_a_request_names_by_their_relation_to_today_alone() -> None:
    today = stated_today([TODAY, Message.user("hi")])
    assert today == datetime.date(2026, 3, 10)
    assert relative_days("Anything tomorrow, or on Friday? And today?", today) == {
        "tomorrow": "2026-03-11",
        "today": "2026-03-10",
    }
    # A phrase of several words is left to the note.
    assert relative_days("the day after tomorrow", today) == {}
    assert stated_today([Message.system("You are helpful.")]) is None


def test_nothing_is_noted_without_a_day_word_a_stated_date_or_a_request() -> None:
    assert noted("Put it on Monday 16 March at 09:00") == "Put it on Monday 16 March at 09:00"
    assert noted("What is 15% of 80?") == "What is 15% of 80?"
    undated = [Message.system("You are helpful."), Message.user("Anything tomorrow?")]
    assert with_dates(undated) == tuple(undated)
    call = ToolCall(id="c1", name="list_events", arguments={"date": "2026-03-11"})
    answered = [
        TODAY,
        Message.user("Anything tomorrow?"),
        Message(role="assistant", parts=(call,)),
        Message(role="user", parts=(ToolResult(call_id="c1", name="list_events", content="[]"),)),
    ]
    # Once the request has results, the answer needs no note (a small model copies it).
    assert with_dates(answered) == tuple(answered)


@given(st.text(max_size=200))
def test_a_note_only_ever_follows_the_request_as_written(request: str) -> None:
    messages = [TODAY, Message.user(request)]
    dated = with_dates(messages)
    assert dated[:-1] == tuple(messages[:-1])
    assert dated[-1].text.startswith(request)
    rest = dated[-1].text[len(request) :]
    assert rest == "" or (rest.startswith("\n\n(") and rest.endswith(")"))


def test_a_stated_date_that_is_no_date_adds_nothing() -> None:
    impossible = [Message.system("Today is 2026-13-45."), Message.user("Anything tomorrow?")]
    assert with_dates(impossible) == tuple(impossible)
