from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.models.local._written import CallAsText, call_as_text, may_become_call_as_text

TOOLS = ("search_emails", "search_code", "git_log", "calculate")


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        # What the default model wrote as its answer where the gate kept the reply to text.
        (
            '>{"name": "search_emails", "arguments": {"query": "cancel", "limit": 10}}',
            "search_emails",
        ),
        ('name: calculate\narguments: expression: "17 * 23"', "calculate"),
        ("search_code", "search_code"),
        ("`git_log`", "git_log"),
        ("git_log()", "git_log"),
        (' {"name": "git_log"}.', "git_log"),
    ],
)
def test_a_reply_that_is_only_a_call_or_a_tool_name_is_read_as_one(text: str, tool: str) -> None:
    assert call_as_text(text, TOOLS) == tool


@pytest.mark.parametrize(
    "text",
    [
        "search_code found nothing for httpx.",
        "The function `search_code` does not fit the request.",
        '{"name": "send_email"}',  # not a tool offered
        '{"total": 3, "name": "Dana"}',
        '{"name": "search_code"}\nI searched the code for httpx.',
        '```json\n{"name": "search_code"}\n```\nI would search the code.',
        "Name: Dana Whitfield",
        "grep",
        "",
        "{not json",
    ],
)
def test_an_answer_that_says_more_or_names_no_tool_is_an_answer(text: str) -> None:
    assert call_as_text(text, TOOLS) is None


def test_the_start_of_a_reply_is_held_only_while_it_may_be_a_call() -> None:
    held = ["", ">", '{"na', "name: calc", "search", "git_log(", "`git"]
    released = ["The", "search_code found", "No unread emails", "names are", "gitlab"]
    assert all(may_become_call_as_text(text, TOOLS) for text in held)
    assert not any(may_become_call_as_text(text, TOOLS) for text in released)


@pytest.mark.parametrize(
    ("pieces", "passed", "called"),
    [
        (["search", "_code"], "", "search_code"),
        (["search", "_code", " found nothing."], "search_code found nothing.", None),
        (["The ", "answer is 4."], "The answer is 4.", None),
        (['{"name": "git_log', '"}'], "", "git_log"),
    ],
)
def test_held_text_is_passed_on_once_it_cannot_be_a_call(
    pieces: list[str], passed: str, called: str | None
) -> None:
    as_text = CallAsText(TOOLS)
    out = "".join(as_text.feed(piece) for piece in pieces)
    assert (out, as_text.called()) == (passed, called)


@given(st.lists(st.text(max_size=12), max_size=8))
def test_text_fed_is_all_passed_on_unless_it_is_only_a_call(pieces: list[str]) -> None:
    as_text = CallAsText(TOOLS)
    out = "".join(as_text.feed(piece) for piece in pieces)
    if as_text.called() is None:
        out += as_text.release()
        assert out == "".join(pieces)
    else:
        assert out == ""
        assert call_as_text("".join(pieces), TOOLS) == as_text.called()
