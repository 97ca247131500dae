"""The last results before a follow-up, noted after it (no model needed)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models.local._recall import RECALLED_CHARACTERS, with_last_result


def answered(question: str, *results: str) -> list[Message]:
    calls = [
        ToolCall(id=f"c{n}", name="calculate", arguments={"expression": question})
        for n in range(len(results))
    ]
    return [
        Message.user(question),
        Message(role="assistant", parts=tuple(calls)),
        Message(
            role="tool",
            parts=tuple(
                ToolResult(call_id=call.id, name=call.name, content=result)
                for call, result in zip(calls, results, strict=True)
            ),
        ),
        Message.assistant(results[-1]),
    ]


def test_a_follow_up_is_noted_with_the_short_results_before_it() -> None:
    follow_up = with_last_result([*answered("12*12", "12 * 12 = 144"), Message.user("add 6")])
    assert follow_up[-1].text == "add 6\n\n(last result: 12 * 12 = 144)"
    two = [*answered("time and 15% of 80", "14:25 in UTC", "15% of 80 = 12"), Message.user("and")]
    assert with_last_result(two)[-1].text == "and\n\n(last results: 14:25 in UTC; 15% of 80 = 12)"


def test_long_results_no_request_or_no_results_are_left_as_they_are() -> None:
    listing = answered("orders", '[{"order_id": "ORD-1"},\n{"order_id": "ORD-2"}]')
    bulky = answered("notes", "x" * (RECALLED_CHARACTERS + 1))
    for conversation in (
        [*listing, Message.user("the first one")],
        [*bulky, Message.user("more")],
        answered("12*12", "12 * 12 = 144"),  # ends with an answer, not a request
        [Message.user("12*12")],
    ):
        assert with_last_result(conversation) == tuple(conversation)
    # Once the follow-up has results of its own, its note is gone.
    again = [*answered("12*12", "12 * 12 = 144"), *answered("add 6", "144 + 6 = 150")[:3]]
    assert with_last_result(again) == tuple(again)


@given(st.text(max_size=300), st.text(max_size=60))
def test_the_request_is_kept_whole_ahead_of_any_note(result: str, request: str) -> None:
    conversation = [*answered("q", result), Message.user(request)]
    noted = with_last_result(conversation)
    assert noted[:-1] == tuple(conversation[:-1])
    assert noted[-1].text.startswith(request)
