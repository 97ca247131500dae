"""The request's values that no call has used yet: the go-on check's evidence (no model needed)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterator
from datetime import date
from typing import cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models import ModelRequest
from toolwire.models.local._coverage import RequestValues, clauses
from toolwire.models.local._engine import Engine, GenerationRequest, GoOn
from toolwire.models.local._formats import HERMES, call_key
from toolwire.models.local._model import _request_values
from toolwire.models.local._reply import Plan, Reply, Steering
from toolwire.tools import ToolDefinition


def test_values_left_unused_count_down_as_calls_use_them() -> None:
    values = RequestValues.of("What is the GCD of (45, 60) and (81, 27)?")
    assert values.unused([]) == 4
    assert len(values) == 4  # every value the request writes, used or not
    assert values.unused([{"a": 45, "b": 60}]) == 2
    assert values.unused([{"a": 45, "b": 60}, {"a": 81.0, "b": 27}]) == 0


def test_what_counts_as_a_value_and_what_uses_it() -> None:
    request = (
        "Book 'Queens Hotel' via 'hotel.book' from 2022-03-10 for 500,000 at 2% interest, "
        "solving x^2 and v1 with flag True, 5cm wide"
    )
    values = RequestValues.of(request, ["hotel.book"])
    # The quoted tool name, the exponent and the `1` of `v1` are not values; the date's parts,
    # the separated thousands, the percentage and a number with its unit are.
    assert values.strings == {"queens hotel"}
    assert {written for written, _, _ in values.numbers} == {
        "2022", "03", "10", "500,000", "2", "5"
    }  # fmt: skip
    used = {
        "hotel": "The Queens Hotel",  # a string holding the quoted one uses it
        "from": "2022-03-10",  # numbers written inside a string are used by it
        "amount": 500000,
        "rate": 0.02,  # a percentage may be held as its fraction
        "width": 5,
    }
    assert values.unused([used]) == 0
    assert values.unused([{**used, "rate": True}]) == 1  # a boolean is not the number 1 or 2


def test_calls_are_read_back_as_the_grammar_writes_them() -> None:
    first = '<tool_call>\n{"name": "gcd", "arguments": {"a": 45, "b": 60}}\n</tool_call>'
    second = '\n<tool_call>\n{"name": "gcd", "arguments": {"a": 81, "b": 27}}\n</tool_call>'
    assert HERMES.written_calls(first + "\n") == [{"name": "gcd", "arguments": {"a": 45, "b": 60}}]
    assert len(HERMES.written_calls(first + second)) == 2
    assert len(HERMES.written_calls(first + second[:-3])) == 1  # the second is not whole yet


@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=1, max_size=8, unique=True))
def test_each_number_left_out_counts_once(numbers: list[int]) -> None:
    values = RequestValues.of("Add " + " and ".join(map(str, numbers)) + ", twice.")
    for kept in range(len(numbers) + 1):
        call = {f"n{i}": number for i, number in enumerate(numbers[:kept])}
        assert values.unused([call]) == len(numbers) - kept


def test_evidence_moves_the_go_on_check_by_log_odds() -> None:
    plain = GoOn("\n", (1,), threshold=0.01)
    assert plain.goes_on(0.01, "") and not plain.goes_on(0.009, "")
    lifted = GoOn("\n", (1,), threshold=0.01, evidence=lambda output: 4.0)
    odds = math.exp(math.log(0.01 / 0.99) - 4.0)
    assert lifted.goes_on(odds / (1 + odds) * 1.01, "")
    assert not lifted.goes_on(odds / (1 + odds) * 0.99, "")
    never = GoOn("\n", (1,), threshold=1.01, evidence=lambda output: 100.0)
    assert not never.goes_on(1.0, "")


def test_the_values_come_from_the_users_last_request_only() -> None:
    gcd = ToolDefinition(name="math.gcd", description="GCD", parameters={"type": "object"})
    asked = Message.user("Use 'math.gcd' on (45, 60) and (81, 27).")
    values = _request_values(ModelRequest(messages=(asked,), tools=(gcd,)))
    assert values is not None and not values.strings and len(values.numbers) == 4
    call = ToolCall(id="c1", name="math.gcd", arguments={"a": 45, "b": 60})
    answered = (
        asked,
        Message(role="assistant", parts=(call,)),
        Message(role="user", parts=(ToolResult(call_id="c1", name="math.gcd", content="15"),)),
    )
    # After tool results the model may call on what they say: the request's values are no guide.
    assert _request_values(ModelRequest(messages=answered, tools=(gcd,))) is None


def test_a_call_adds_a_value_the_request_lists_with_one_already_used() -> None:
    values = RequestValues.of(
        "The resistance of a 5m wire of copper and aluminum, and the weight on Mars of "
        "70 kg on Earth; the GCD of (45, 60) and (81, 27)."
    )
    copper = {"length": 5, "metal": "copper"}
    assert values.adds({"length": 5, "metal": "aluminum"}, [copper])
    assert values.adds({"a": 81, "b": 27}, [{"a": 45, "b": 60}])
    # Nothing new, a value the request does not give, or one it gives but does not list with
    # the values used ("Earth" beside "Mars"): no.
    assert not values.adds(copper, [copper])
    assert not values.adds({"length": 5, "metal": "silver"}, [copper])
    assert not values.adds({"planet": "Earth", "kg": 70}, [{"planet": "Mars", "kg": 70}])
    assert not values.adds({"a": 60, "b": 45}, [{"a": 45, "b": 60}])
    # A number is found as written, not inside another ("5" is not in "5.5"), and a negative
    # one holds its magnitude: a gain of 1000 after a loss of 1000 adds nothing.
    assert not RequestValues.of("5.5 and 6").adds({"x": 5}, [{"x": 6}])
    losses = RequestValues.of("a gain of $500, and a loss of $1000")
    assert not losses.adds({"gain": 1000}, [{"gain": 500}, {"gain": -1000}])


def test_a_call_extends_the_calls_before_with_values_the_request_writes() -> None:
    # BFCL parallel_multiple_18 and _90: the second call is to another tool.
    values = RequestValues.of(
        "Convert 10 dollars to Euros and make a 10 dollar deposit in my account number 987654."
    )
    conversion = {"amount": 10.0, "from_currency": "dollars", "to_currency": "Euros"}
    assert values.extends({"account_id": "987654", "amount": 10}, [conversion])
    # Only values used already, one the request does not write, or none at all: no.
    assert not values.extends({"amount": 10, "currency": "Euros"}, [conversion])
    assert not values.extends({"account_id": "987654", "bank": "Chase"}, [conversion])
    assert not values.extends({"verbose": True}, [conversion])
    assert not values.extends({}, [])


def test_words_belong_to_the_call_holding_the_value_written_nearest_them() -> None:
    # BFCL parallel_162: 52 stands in every question; "ratio" is asked of the third draw.
    request = (
        "What is the probability of drawing an Ace (4 outcomes) from the deck (52 outcomes)? "
        "Then of a heart (13 outcomes) from the deck (52 outcomes)? Finally of a red card (26 "
        "outcomes) from the deck (52 outcomes), this time as a ratio."
    )
    values = RequestValues.of(request)
    ratio = request.index("ratio")
    assert values.nearest_held(ratio, {"success": 26, "total": 52})
    assert not values.nearest_held(ratio, {"success": 4, "total": 52})
    # With nothing else to place it, a value written more than once does.
    assert values.nearest_held(ratio, {"total": 52})
    assert not values.nearest_held(ratio, {"suit": "hearts"})
    assert not values.nearest_held(ratio, {})


def test_a_call_on_trial_must_ask_for_what_the_request_gives_and_no_call_used() -> None:
    values = RequestValues.of(
        "The route from London to Edinburgh and to York, for a chess match at the York club"
    )
    steering = Steering(
        call_openers=(), call_threshold=None, answer_openers_banned=(), prose_only=(),
        another_call_threshold=0.001, calls_on_trial=True,
    )  # fmt: skip

    def reply(steering: Steering) -> Reply:
        request = GenerationRequest(tokens=[1], max_tokens=1)
        return Reply(cast(Engine, None), HERMES, Plan("forced"), request, None, steering,
                     request_values=values)  # fmt: skip

    trial = reply(steering)._new_value_trial()
    assert trial is not None
    before = HERMES.write("route", {"start": "London", "end": "Edinburgh"}, first=True)

    def attempt(name: str, arguments: dict[str, str]) -> str:
        return HERMES.write(name, arguments, first=True)

    assert trial(before + "\n", attempt("route", {"start": "London", "end": "York"}))
    assert not trial(before + "\n", attempt("route", {"start": "London", "end": "Leeds"}))
    # Another tool: every value as the request writes it.
    assert trial(before + "\n", attempt("chess_club", {"city": "York"}))
    assert not trial(before + "\n", attempt("chess_club", {"name": "Knights", "city": "York"}))
    assert not trial(before + "\n", attempt("chess_club", {"city": "London"}))
    # A call the reply dropped holds no part of the request.
    dropping = reply(steering)
    dropping.dropped.add(call_key("route", {"start": "London", "end": "Edinburgh"}))
    dropped_trial = dropping._new_value_trial()
    assert dropped_trial is not None
    assert dropped_trial(before + "\n", attempt("chess_club", {"city": "London"}))
    off = reply(dataclasses.replace(steering, calls_on_trial=False))
    assert off._new_value_trial() is None


def test_a_call_takes_up_a_piece_of_the_request_no_earlier_call_holds() -> None:
    request = RequestValues.of("What time is it in Tokyo, and what is 15% of 80?")
    time = {"timezone": "Asia/Tokyo"}
    assert request.takes_up(time, [])
    assert request.takes_up({"expression": "15 * 80 / 100"}, [time])
    assert request.takes_up({"rate": 0.15}, [time])
    # The same pieces again, or none of the request's.
    assert not request.takes_up({"timezone": "Tokyo"}, [time])
    assert not request.takes_up({"timezone": "UTC"}, [time])
    assert not request.takes_up({"expression": "12"}, [time, {"expression": "15 * 80 / 100"}])
    weight = RequestValues.of("I weigh 165 pounds. What is that in kilograms?")
    converted = {"value": 165, "from_unit": "pounds", "to_unit": "kilograms"}
    assert not weight.takes_up({"query": "165 pounds"}, [converted])


def test_a_date_takes_up_the_weekday_the_request_names() -> None:
    request = RequestValues.of("cancel the dentist on thursday")
    # 2026-03-12 is a Thursday; 2026-03-11 a Wednesday.
    assert request.takes_up({"date": "2026-03-12"}, [])
    assert request.takes_up({"start": "2026-03-12T09:00"}, [])
    assert not request.takes_up({"date": "2026-03-11"}, [])
    assert not request.takes_up({"date": "2026-03-12"}, [{"date": "2026-03-19"}])
    # No such day, or no date at all.
    assert not request.takes_up({"date": "2026-02-30"}, [])
    assert not RequestValues.of("what's on monday").takes_up({"date": "20260309"}, [])


def test_a_date_takes_up_the_day_the_request_names_by_its_relation_to_today() -> None:
    today = date(2026, 3, 10)
    request = RequestValues.of("and tomorrow?", today=today)
    assert request.takes_up({"date": "2026-03-11"}, [])
    assert not request.takes_up({"date": "2026-03-12"}, [])
    assert not request.takes_up({"date": "2026-03-11"}, [{"date": "2026-03-11"}])
    # Without today's date, "tomorrow" is no date.
    assert not RequestValues.of("and tomorrow?").takes_up({"date": "2026-03-11"}, [])
    yesterday = RequestValues.of("what did I do yesterday", today=today)
    assert yesterday.takes_up({"start": "2026-03-09T00:00"}, [])


@given(st.dates())
def test_any_date_takes_up_its_own_weekday_alone(day: date) -> None:
    weekday = day.strftime("%A").lower()
    for named in ("monday", "friday", "sunday"):
        request = RequestValues.of(f"anything on {named}?")
        assert request.takes_up({"date": day.isoformat()}, []) is (named == weekday)


def test_a_request_names_a_tool_by_a_word_of_its_name() -> None:
    request = RequestValues.of("What time is it in Mumbai? And search my notes for Lena")
    assert request.names("current_time")
    assert request.names("searchNote")
    assert not request.names("convert_units")
    assert not RequestValues.of("hi").names("calculate")


def test_a_call_extends_with_values_that_hold_pieces_of_the_request() -> None:
    values = RequestValues.of("What time is it in Tokyo, and what is 15% of 80?")
    time = {"timezone": "Asia/Tokyo"}
    assert values.extends({"expression": "15 * 80 / 100"}, [time])
    assert values.extends(time, [{"expression": "15 * 80 / 100"}])
    # A unit nobody wrote is no piece of the request.
    assert not values.extends({"value": 15, "from_unit": "km", "to_unit": "m"}, [time])
    # A word is written as often as the request writes it, inside a file's name too: "cache"
    # of the first file is no part the second restates.
    files = RequestValues.of("Read tests/test_cache.py and src/weatherly/cache.py")
    assert files.extends({"path": "src/weatherly/cache.py"}, [{"path": "tests/test_cache.py"}])
    once = RequestValues.of("Read tests/test_cache.py and src/weatherly/")
    assert not once.extends({"path": "src/weatherly/cache"}, [{"path": "tests/test_cache.py"}])


def test_a_call_adds_a_piece_the_request_lists_with_one_used() -> None:
    values = RequestValues.of("What time is it in Paris, Tokyo, New York and Sydney?")
    tokyo = {"timezone": "Asia/Tokyo"}
    assert values.adds({"timezone": "Europe/Paris"}, [tokyo])
    assert values.adds({"timezone": "America/New_York"}, [tokyo])
    assert not values.adds({"timezone": "Tokyo"}, [tokyo])
    assert not values.adds({"timezone": "Europe/London"}, [tokyo])


def test_a_query_copying_the_request_takes_up_only_its_telling_words() -> None:
    values = RequestValues.of("What time is it in Tokyo, and what is 15% of 80?")
    made = [{"timezone": "Asia/Tokyo"}, {"expression": "15 * 80 / 100"}]
    assert not values.extends({"query": "what is it?"}, made)
    assert values.extends({"query": "what time"}, made)
    copied = "What time is it in Tokyo, and what is 15% of 80?"
    assert not values.extends({"query": copied}, made)


def test_a_call_restating_a_piece_another_call_took_up_takes_up_no_part_of_its_own() -> None:
    values = RequestValues.of("Book 'Roadmap chat' at Lumen Labs with Sam Rivera")
    booked = [{"title": "Roadmap chat", "attendees": ["sam.rivera@example.com"]}]
    assert not values.extends({"query": "Roadmap chat, Lumen Labs"}, booked)
    assert values.extends({"query": "Lumen Labs"}, booked)


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        (
            "What's on my calendar tomorrow, and do I have any unread emails?",
            ["What's on my calendar tomorrow", "do I have any unread emails?"],
        ),
        (
            "What time is it in Tokyo and what is 15% of 80?",
            ["What time is it in Tokyo", "what is 15% of 80?"],
        ),
        (
            "Work out 15% of 80, then tell me the time in Tokyo.",
            ["Work out 15% of 80", "tell me the time in Tokyo."],
        ),
        (
            "Our team is in Dubai and São Paulo. What time is it there?",
            ["Our team is in Dubai and São Paulo.", "What time is it there?"],
        ),
        # "and" between values lists them, within one thing asked.
        (
            "convert 1 mile, 5 miles and 10 miles to kilometers",
            ["convert 1 mile, 5 miles and 10 miles to kilometers"],
        ),
    ],
)
def test_a_request_is_cut_where_it_goes_on_to_another_thing_asked(
    request_text: str, expected: list[str]
) -> None:
    assert clauses(request_text) == expected


def test_and_before_the_verb_a_tools_name_opens_with_goes_on_to_another_thing_asked() -> None:
    tools = ["git_log", "run_tests", "sendEmail", "list_files"]
    assert clauses("Show me Maya Lin's last 2 commits and run the cache tests", tools) == [
        "Show me Maya Lin's last 2 commits",
        "run the cache tests",
    ]
    assert clauses("Find Dana's email and send her the agenda", tools) == [
        "Find Dana's email",
        "send her the agenda",
    ]
    # Values listed, a verb no tool's name opens with, or no tools: one thing asked.
    for text in ("list the files in src and tests", "Show my commits and rerun the tests"):
        assert clauses(text, tools) == [text]
    assert clauses("Show me the log and run the tests") == ["Show me the log and run the tests"]


@given(st.lists(st.sampled_from(["what", "and", "then", "is", "run", ",", ".", "?", " ", "x1"])))
def test_cutting_a_request_loses_nothing_but_the_words_between_its_clauses(
    words: list[str],
) -> None:
    text = " ".join(words)
    kept = " ".join(clauses(text, ["run_tests"])).replace(",", " ").split()
    left = iter(text.replace(",", " ").split())
    # The clauses' words are the request's, in order; the words between them only join them.
    dropped = [skipped for word in kept for skipped in _until(left, word)]
    assert all(word in ("and", "then", "but", "also") for word in [*dropped, *left])


def _until(words: Iterator[str], wanted: str) -> list[str]:
    """The words taken from `words` before `wanted`, which is taken too (it must come)."""
    passed = []
    for word in words:
        if word == wanted:
            return passed
        passed.append(word)
    raise AssertionError(f"{wanted!r} is not in the request")


def test_an_empty_list_takes_up_nothing_of_the_request() -> None:
    values = RequestValues.of("and in London?")
    assert values.extends({"timezone": "Europe/London"}, [])
    assert not values.extends({"timezone": "Europe/London", "cities": []}, [])
    assert not values.extends({"timezone": "Europe/London", "where": {}}, [])
