from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.models.local._written import (
    CallAsText,
    FencedCall,
    call_as_text,
    fenced_call,
    may_become_call_as_text,
)

PARAMETERS = {
    "search_emails": ("query", "folder", "unread_only", "limit"),
    "search_code": ("text", "path", "file_pattern"),
    "git_log": ("limit", "author", "path"),
    "calculate": ("expression",),
    "current_time": ("timezone",),
}
TOOLS = tuple(PARAMETERS)


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


SYDNEY = (
    # What the 1.5B model wrote where its gate kept the reply to text.
    "To find out what time it is in Sydney, Australia, you can use the `current_time` function. "
    "Here's how you can call it:\n\n"
    '```json\n{\n  "name": "current_time",\n  "arguments": {\n    "timezone": '
    '"Australia/Sydney"\n  }\n}\n```'
)


@pytest.mark.parametrize(
    ("text", "tool"),
    [
        (SYDNEY, "current_time"),
        (
            'Two calls:\n```\n{"name": "git_log", "arguments": {}}\n```\n```json\n{"name": "calcu',
            "git_log",
        ),
        # Cut short by the token limit: the fence is left open.
        (
            'Like this:\n```json\n{"name": "search_code", "arguments": {"text": "TODO"}}\n',
            "search_code",
        ),
        # Only the arguments, of the one tool named before the fence that takes them all (what
        # the 1.5B model wrote, kept to text).
        (
            "You can use the `search_emails` function with the following parameters:\n"
            '```json\n{"query": "Q1 budget", "folder": "archive", "unread_only": false}\n```',
            "search_emails",
        ),
        ('Use the calculate function:\n```json\n{"expression": "2 ** 16"}\n```', "calculate"),
        (
            "Use `git_log` and then `search_code`:\n```json\n"
            '{"text": "DEFAULT_TTL", "path": "src"}\n```',
            "search_code",
        ),
    ],
)
def test_a_call_shown_in_a_fence_is_read(text: str, tool: str) -> None:
    assert fenced_call(text, PARAMETERS) == tool


@pytest.mark.parametrize(
    "text",
    [
        # Bare arguments of no tool named before the fence, of a tool named only after it, of
        # no one tool named (`path` is both's), or a parameter the tool named does not take.
        '```json\n{"query": "grinders", "max_price": 100.0}\n```',
        '```json\n{"query": "grinders"}\n```\nThat is for `search_emails`.',
        'With `git_log` or `search_code`:\n```json\n{"path": "src"}\n```',
        'With `search_emails`:\n```json\n{"query": "budget", "max_price": 100.0}\n```',
        "With `search_emails`:\n```json\n{}\n```",
        # A tool not offered, code that is not a call, a call outside a fence.
        '```json\n{"name": "send_email", "arguments": {}}\n```',
        "```python\nmy_list.reverse()\n```",
        '{"name": "git_log", "arguments": {}}',
        '```json\n{"name": "git_log", "arguments": {\n```',
        # Model text nested past what any call needs, or with a number no float holds.
        '```json\n{"name": "git_log", "arguments": ' + "[" * 10_000 + "\n```",
        '```json\n{"name": "git_log", "arguments": {"a": 1e999}}\n```',
    ],
)
def test_a_fence_without_a_whole_call_to_an_offered_tool_is_not_one(text: str) -> None:
    assert fenced_call(text, PARAMETERS) is None


def test_lines_are_passed_on_until_one_names_a_tool() -> None:
    fenced = FencedCall(PARAMETERS)
    pieces = ["The time ", "in Sydney.\nYou can use `current_", "time` too.\nMore."]
    out = [fenced.feed(piece) for piece in pieces]
    assert out == ["", "The time in Sydney.\n", ""]
    assert fenced.called() is None
    assert fenced.release() == "You can use `current_time` too.\nMore."


def test_a_reply_showing_a_call_is_held_from_the_line_naming_the_tool() -> None:
    fenced = FencedCall(PARAMETERS)
    text = "Sure.\n" + SYDNEY
    out = "".join(fenced.feed(text[i : i + 7]) for i in range(0, len(text), 7))
    assert (out, fenced.called()) == ("Sure.\n", "current_time")


def test_the_line_announcing_a_tool_is_held_with_it() -> None:
    fenced = FencedCall(PARAMETERS)
    text = "Done.\nI will follow these steps:\n\n1. Call `git_log`.\n"
    assert fenced.feed(text) == "Done.\n"
    assert fenced.about_the_tools() is False, "part of the reply was passed on"


def test_a_word_that_only_contains_a_tool_name_is_no_mention() -> None:
    fenced = FencedCall(PARAMETERS)
    assert fenced.feed("recalculated the git_logs\nThen") == "recalculated the git_logs\n"


def test_the_line_before_a_fence_is_held_with_it() -> None:
    fenced = FencedCall(PARAMETERS)
    text = 'Converted.\n\nUse the following call:\n\n```json\n{"name": "calculate"}\n```'
    assert fenced.feed(text) == "Converted.\n\n"
    assert (fenced.called(), fenced.release()) == ("calculate", text[12:])


@given(st.lists(st.text(alphabet="ab `\n{}calculate", max_size=12), max_size=8))
def test_text_fed_to_the_fence_reader_is_all_passed_on_once_released(pieces: list[str]) -> None:
    fenced = FencedCall(PARAMETERS)
    out = "".join(fenced.feed(piece) for piece in pieces)
    assert "".join(pieces).startswith(out)
    assert out + fenced.release() == "".join(pieces)
