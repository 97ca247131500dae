"""The answer a follow-up leans on, noted after it (no model needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models.local._recall import RECALLED_CHARACTERS, with_last_answer


def answered(question: str, result: str, answer: str) -> list[Message]:
    call = ToolCall(id="c1", name="calculate", arguments={"expression": question})
    return [
        Message.user(question),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(ToolResult(call_id="c1", name=call.name, content=result),)),
        Message.assistant(answer),
    ]


TWELVE_SQUARED = answered("12*12", "12 * 12 = 144", "144")


def test_a_follow_up_is_noted_with_the_answer_before_it() -> None:
    follow_up = with_last_answer([*TWELVE_SQUARED, Message.user("add 6")])
    assert follow_up[-1].text == "add 6\n\n(last answer: 144)"
    two = [*answered("time and 15% of 80", "-", "12\nTuesday 14:25 in UTC\n"), Message.user("and")]
    assert with_last_answer(two)[-1].text == "and\n\n(last answer: 12; Tuesday 14:25 in UTC)"


def test_a_long_answer_one_without_results_or_no_request_adds_nothing() -> None:
    chatted = [Message.user("hi"), Message.assistant("Hello!"), Message.user("add 6")]
    long = answered("orders", "[...]", "x" * (RECALLED_CHARACTERS + 1))
    for conversation in (
        chatted,
        [*long, Message.user("the first one")],
        TWELVE_SQUARED,  # ends with an answer, not a request
        [Message.user("12*12")],
    ):
        assert with_last_answer(conversation) == tuple(conversation)
    # Once the follow-up has results of its own, its note is gone.
    again = [*TWELVE_SQUARED, *answered("add 6", "144 + 6 = 150", "150")[:3]]
    assert with_last_answer(again) == tuple(again)


@given(st.text(max_size=300), st.text(max_size=60))
def test_the_request_is_kept_whole_ahead_of_any_note(answer: str, request: str) -> None:
    conversation = [*answered("q", "r", answer), Message.user(request)]
    noted = with_last_answer(conversation)
    assert noted[:-1] == tuple(conversation[:-1])
    assert noted[-1].text.startswith(request)
