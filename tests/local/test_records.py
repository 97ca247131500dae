"""The records results list, and the one a request names among them (no model needed)."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models.local._grounding import Grounding
from toolwire.models.local._records import records_named
from toolwire.tools import ToolDefinition

UNREAD = [
    {"id": "msg_301", "from": "Dana Whitfield <dana@northwind.io>", "subject": "Agenda"},
    {"id": "msg_302", "from": "Tom Okafor <tom@lumenlabs.com>", "subject": "Budget review moved?"},
    {"id": "msg_308", "from": "Dev Weekly <news@devweekly.io>", "subject": "Dev Weekly #212"},
    {"id": "msg_304", "from": "Jonas Berg <jonas@bergbikes.se>", "subject": "Invoice #4471"},
]
LISTED = json.dumps(UNREAD)
READ_EMAIL = ToolDefinition(
    name="read_email",
    description="The whole text of one email.",
    parameters={
        "type": "object",
        "properties": {"email_id": {"type": "string", "description": "the message's id"}},
        "required": ["email_id"],
    },
)


def named(words: str, passed: str, *results: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    found = records_named(results or (LISTED,), words.split(), {"email_id": passed}, ["email_id"])
    return ((), ()) if found is None else (found.identifiers, found.words)


def test_a_record_the_request_names_is_told_by_the_words_only_it_holds() -> None:
    assert named("open the one from Jonas", "msg_301") == (("msg_304",), ("jonas",))
    assert named("what did Tom say about the budget", "msg_301") == (
        ("msg_302",),
        ("tom", "budget"),
    )
    # The record passed holds what the request says: the call stands.
    assert named("open the one from Jonas", "msg_304") == ((), ())
    # The request names no record, or every one.
    assert named("open the newest one", "msg_301") == ((), ())
    assert named("open the first unread one", "msg_301") == ((), ())
    # A word every record holds tells none apart.
    both = json.dumps([{**record, "folder": "inbox"} for record in UNREAD])
    assert named("open the inbox one", "msg_301", both) == ((), ())


def test_the_records_holding_the_most_of_the_requests_words_are_named_in_the_lists_order() -> None:
    assert named("the weekly one or the Jonas one", "msg_301") == (
        ("msg_308", "msg_304"),
        ("weekly", "jonas"),
    )
    assert named("Jonas and his invoice", "msg_301") == (("msg_304",), ("jonas", "invoice"))
    assert named("the Dev Weekly or the Jonas one", "msg_301") == (
        ("msg_308",),
        ("dev", "weekly", "jonas"),
    )


def test_short_words_count_only_as_names() -> None:
    assert named("from tom", "msg_301") == ((), ())
    assert named("from Tom", "msg_301") == (("msg_302",), ("tom",))
    # Digits alone are no word that names a record: "212" of a newsletter's number.
    assert named("number 212", "msg_301") == ((), ())


def test_only_a_list_of_records_whose_field_tells_them_apart_holds_identifiers() -> None:
    # Not JSON, a list of values, one record: no list to pick from.
    for result in ["msg_301 Dana, msg_304 Jonas", '["msg_301", "msg_304"]', json.dumps(UNREAD[:1])]:
        assert named("open the one from Jonas", "msg_301", result) == ((), ())
    # Two records with the same id: the field tells nothing apart.
    twice = json.dumps([UNREAD[0], {**UNREAD[3], "id": "msg_301"}])
    assert named("open the one from Jonas", "msg_301", twice) == ((), ())
    # A list held by a field of the result is one too.
    wrapped = json.dumps({"count": 4, "messages": UNREAD})
    assert named("open the one from Jonas", "msg_301", wrapped) == (("msg_304",), ("jonas",))
    # A value no record holds is no record passed.
    assert named("open the one from Jonas", "msg_999") == ((), ())


@given(
    st.lists(
        st.dictionaries(st.sampled_from(["id", "from", "n"]), st.text(max_size=8) | st.integers()),
        max_size=5,
    ),
    st.text(max_size=40),
    st.text(max_size=8),
)
def test_any_results_name_only_other_records_of_the_list(
    listing: list[dict[str, Any]], request: str, passed: str
) -> None:
    for results in ([json.dumps(listing)], [request]):
        found = records_named(results, request.split(), {"id": passed}, ["id"])
        if found is not None:
            ids = [record.get("id") for record in listing]
            assert passed in ids and passed not in found.identifiers
            assert found.identifiers and set(found.identifiers) <= set(map(str, ids))


def test_a_call_is_held_to_the_records_named_less_the_words_of_its_tools_name() -> None:
    conversation = [
        Message.user("any unread emails?"),
        Message(role="assistant", parts=(ToolCall(id="c1", name="search_emails", arguments={}),)),
        Message(
            role="tool", parts=(ToolResult(call_id="c1", name="search_emails", content=LISTED),)
        ),
        Message.assistant("Four unread emails."),
        Message.user("read the email from Jonas"),
    ]
    grounding = Grounding.of(conversation, [READ_EMAIL])
    held = grounding.held_to_records_named(READ_EMAIL, {"email_id": "msg_301"})
    assert held is not None
    tool, found = held
    assert found.words == ("jonas",)
    schema = tool.parameters["properties"]["email_id"]
    assert schema["description"] == "the message's id"
    assert re.fullmatch(schema["pattern"], "msg_304")
    assert not re.fullmatch(schema["pattern"], "msg_301")
    assert grounding.held_to_records_named(READ_EMAIL, {"email_id": "msg_304"}) is None
    # Only identifiers are held: a query that happens to be a record's field is the model's.
    search = ToolDefinition(
        name="search",
        description="Search.",
        parameters={"type": "object", "properties": {"query": {"type": "string"}}},
    )
    assert grounding.held_to_records_named(search, {"query": "msg_301"}) is None
    # "email" is what `read_email` does, not which email: no record is named by it.
    subject = json.dumps([{**UNREAD[0], "subject": "Your email"}, *UNREAD[1:]])
    emailed = [
        *conversation[:2],
        Message(
            role="tool", parts=(ToolResult(call_id="c1", name="search_emails", content=subject),)
        ),
        Message.user("read the email"),
    ]
    assert (
        Grounding.of(emailed, [READ_EMAIL]).held_to_records_named(
            READ_EMAIL, {"email_id": "msg_302"}
        )
        is None
    )
