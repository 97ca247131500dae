"""The default model in the real loop, with the built-in tools: what `toolwire run` does."""

from __future__ import annotations

import datetime
import re
from types import ModuleType

import pytest

from bench.requests.toolsets import assistant, devbox, shop
from toolwire import Agent, Limits, Message, RunResult, tool
from toolwire.builtin import TOOLS, clock_tool
from toolwire.events import CallCorrected, ToolResultReady, UsageReported
from toolwire.models.local import LocalModel
from toolwire.models.local import _model as local_model

# What the model writes after the clock's result depends on the time it says: the tests below
# hold at this moment, not at every moment (at 18:52 the model goes on from "Work out 15% of
# 80, then tell me the time in Tokyo." to convert 12 km to miles).
STOPPED = [
    clock_tool(lambda: datetime.datetime(2026, 3, 10, 3, 7, 12, tzinfo=datetime.UTC))
    if tool.name == "current_time"
    else tool
    for tool in TOOLS
]


def calls_made(model: LocalModel, *turns: str) -> list[tuple[str, dict[str, object]]]:
    """The calls the built-in tools ran for the last of `turns`, each asked after the others."""
    agent = Agent(model, STOPPED, limits=Limits(max_steps=4, timeout=300))
    history: tuple[Message, ...] = ()
    for turn in turns:
        result = agent.run_sync(turn, history=history)
        history = tuple(result.messages)
    return [(record.call.name, dict(record.call.arguments)) for record in result.calls]


def toolset_agent(model: LocalModel, toolset: ModuleType) -> Agent:
    """An agent with one of the suite's toolsets (`bench/requests/toolsets`), its data reset."""
    toolset.reset()
    return Agent(
        model,
        toolset.TOOLS,
        instructions=toolset.INSTRUCTIONS,
        limits=Limits(max_steps=4, timeout=300),
    )


def run_with_corrections(agent: Agent, prompt: str) -> tuple[RunResult, list[tuple[str, ...]]]:
    """The run of `prompt`, and the changes of each call the model wrote that was corrected."""
    corrections: list[tuple[str, ...]] = []

    def record(event: object) -> None:
        if isinstance(event, CallCorrected):
            corrections.append(event.changes)

    return agent.run_sync(prompt, on_event=record), corrections


def test_a_run_calls_a_builtin_tool_and_reuses_the_cache(qwen: LocalModel) -> None:
    usages = []
    results = []

    def record(event: object) -> None:
        if isinstance(event, UsageReported):
            usages.append(event.usage)
        elif isinstance(event, ToolResultReady):
            results.append(event)

    agent = Agent(qwen, TOOLS, tool_choice="required", limits=Limits(max_steps=3, timeout=300))
    result = agent.run_sync("What time is it in Tokyo?", on_event=record)
    first = result.calls[0].call
    assert (first.name, dict(first.arguments)) == ("current_time", {"timezone": "Asia/Tokyo"})
    assert "in Asia/Tokyo" in results[0].result.content and not results[0].result.is_error
    assert len(usages) >= 2
    # Step 2 re-sends the whole conversation; the KV cache serves all of step 1's prompt and
    # the call as the model wrote it (its marker is the template's own special token), up to
    # its last few tokens: there the re-rendered history ends the turn where the reply went on
    # (to a second call on trial, dropped), and its tokenizer merges the closing braces with
    # the newline the model wrote apart.
    step1, step2 = usages[0], usages[1]
    written = qwen.load().call_format.write(first.name, first.arguments, first=True)
    call_tokens = len(qwen.engine.tokenize(written))
    assert step1.output_tokens >= call_tokens
    assert step2.cached_input_tokens >= step1.input_tokens + call_tokens - 4


def test_a_part_of_the_request_left_after_results_is_asked_of_the_request_alone(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the calculator's result the model, asked for another call, hands the calculator its
    # own result; the request names the time, which no call has asked: asked with the request
    # alone and the clock alone, the model writes the clock's call for Tokyo. Then a call
    # asking nothing new (a conversion nobody gave values for) is as good as an answer.
    prompt = "Work out 15% of 80, then tell me the time in Tokyo."
    percent = ("calculate", {"expression": "0.15 * 80"})
    assert calls_made(qwen, prompt) == [percent, ("current_time", {"timezone": "Asia/Tokyo"})]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_made(qwen, prompt) == [percent]


def test_a_part_no_tool_named_is_tried_with_the_tools_no_call_used(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The request names the time alone; after the clock's result, "15% of 80" is values no
    # call used. Asked with the tools left, the model reaches for the converter first ("15 km
    # in miles": no piece of the request), and, that tool left out, writes the percentage.
    def called() -> list[str]:
        made = calls_made(qwen, "What time is it in Tokyo, and what is 15% of 80?")
        return [name for name, _ in made]

    assert called() == ["current_time", "calculate"]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert called() == ["current_time"]


def test_a_short_follow_up_asks_the_tool_again_for_what_it_says(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the time in Tokyo, the model gives a call to "and in London?" too little
    # probability to open one, and answers with Tokyo's time; a call to the clock again, for
    # London, is what the request says.
    turns = ("What time is it in Tokyo?", "and in London?")
    assert calls_made(qwen, *turns) == [("current_time", {"timezone": "Europe/London"})]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_made(qwen, *turns) == []


def test_a_follow_up_is_shown_the_answer_it_leans_on_when_writing_its_call(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Reading "add 6" on its own, the model adds 6 to 6; shown the answer before it, to 144.
    turns = ("12*12", "add 6")
    assert calls_made(qwen, *turns) == [("calculate", {"expression": "144 + 6"})]
    monkeypatch.setattr(qwen, "recall_results", False)
    assert calls_made(qwen, *turns) == [("calculate", {"expression": "6 + 6"})]


def test_whether_a_follow_up_calls_is_read_without_the_answer_before_it(qwen: LocalModel) -> None:
    # Shown Sydney's time beside "what about auckland", the model gives it as the answer.
    turns = ("time in sydney", "what about auckland")
    assert [name for name, _ in calls_made(qwen, *turns)] == ["current_time"]


def test_a_required_value_the_request_does_not_give_is_asked_for(qwen: LocalModel) -> None:
    # "convert to kilograms" gives no amount: the model's call with one made up is not run,
    # the drop is reported, and the reply asks for the amount.
    agent = Agent(qwen, TOOLS, limits=Limits(max_steps=4, timeout=300))
    result, corrections = run_with_corrections(agent, "convert to kilograms")
    assert not result.calls
    assert isinstance(result.output, str) and result.output.rstrip().endswith("?")
    assert "amount" in result.output
    assert corrections == [("dropped: 'value' is required, and the request gives no value for it",)]


@tool(side_effect="read_only")
def get_order(order_id: str) -> str:
    """Look up one order.

    Args:
        order_id: the order's id, e.g. "ORD-10482"
    """
    return f"{order_id}: shipped"


def test_an_identifier_nobody_gave_is_asked_for_not_looked_up_with_the_request_words(
    qwen: LocalModel,
) -> None:
    # "where's my order?" names no order: the model's call with the documented example is not
    # run. A look-up of the notes for "order" would only say again what the request asks, so
    # none is kept, and the reply is a question back, which names the order to choose (left to
    # itself, the model asked "What is your order?").
    agent = Agent(qwen, [get_order, *STOPPED], limits=Limits(max_steps=4, timeout=300))
    result, corrections = run_with_corrections(agent, "where's my order?")
    assert not result.calls
    assert isinstance(result.output, str) and result.output.rstrip().endswith("?")
    assert result.output.startswith("Which order ")
    assert corrections[0] == (
        "dropped: 'order_id' is required, and the request gives no value for it",
    )


def test_an_order_nobody_named_is_asked_for_not_looked_up_among_the_products(
    qwen: LocalModel,
) -> None:
    # "Refund $15 to the customer" names no order: the refund with a made-up order is not run;
    # a look-up may only be a tool about orders (a product search for "refund $15" found
    # nothing of use), and none asks for more than the request says, so the reply asks which
    # order ("Which order do you want to refund?"), not for its id.
    agent = toolset_agent(qwen, shop)
    result, corrections = run_with_corrections(agent, "Refund $15 to the customer")
    assert not result.calls
    assert isinstance(result.output, str) and result.output.rstrip().endswith("?")
    assert result.output.startswith("Which order ")
    assert "id" not in re.findall(r"\w+", result.output.lower())
    assert corrections[0] == (
        "dropped: 'order_id' is required, and the request gives no value for it",
    )


def test_a_follow_up_acts_on_the_order_found_before(qwen: LocalModel) -> None:
    # Asked to change "its" address, the model answers from the last reply; the follow-up's
    # call on trial to the tool the request names, with the order the search found and the
    # address the request gives, is kept.
    agent = toolset_agent(qwen, shop)
    found = agent.run_sync("Find Maria Gonzalez's pending order")
    moved = agent.run_sync(
        "change its shipping address to 12 Lake Rd, Austin, TX 78702", history=found.messages
    )
    assert [(record.call.name, dict(record.call.arguments)) for record in moved.calls] == [
        (
            "update_shipping_address",
            {"order_id": "ORD-10522", "address": "12 Lake Rd, Austin, TX 78702"},
        )
    ]


def test_a_time_zone_copied_from_the_documentation_is_asked_in_the_requests_words(
    qwen: LocalModel,
) -> None:
    # For Mumbai the model passes the description's example "Asia/Tokyo": that call is not run,
    # and the call written again in the request's words ("Mumbai") is; the clock's answer
    # ("in Asia/Kolkata") is not handed back to it.
    agent = Agent(qwen, STOPPED, limits=Limits(max_steps=4, timeout=300))
    result, corrections = run_with_corrections(agent, "What time is it in Mumbai?")
    assert [dict(record.call.arguments) for record in result.calls] == [{"timezone": "Mumbai"}]
    assert "Asia/Kolkata" in result.calls[0].result.content
    assert corrections[0] == (
        "dropped: 'timezone' copies the tool's documentation or default, not a value the user gave",
    )


def test_a_default_passed_for_a_city_the_request_names_is_asked_in_the_requests_words(
    qwen: LocalModel,
) -> None:
    # The model cannot place Auckland and passes the clock's default, UTC: that call is not
    # run, and the one written again in the request's words is.
    agent = Agent(qwen, STOPPED, limits=Limits(max_steps=4, timeout=300))
    result, corrections = run_with_corrections(
        agent, "what day of the week is it in Auckland right now?"
    )
    assert [dict(record.call.arguments) for record in result.calls] == [{"timezone": "Auckland"}]
    assert corrections[0] == (
        "dropped: 'timezone' copies the tool's documentation or default, not a value the user gave",
    )
    assert "Pacific/Auckland" in result.calls[0].result.content


def test_a_short_question_naming_a_look_up_tool_gets_its_call(qwen: LocalModel) -> None:
    # The gate keeps the reply from a call (the model gives one 1%) and it would invent what
    # strict mode does; the notes' search, which the request names ("toolwire"), is tried and
    # kept, since it looks up the request's own words.
    assert calls_made(qwen, "what does strict mode do in toolwire") == [
        ("search_notes", {"query": "strict mode", "limit": 3})
    ]


def test_each_item_of_a_list_gets_its_call(qwen: LocalModel) -> None:
    # The model asks the time in São Paulo and would answer from it alone; Dubai, listed with
    # São Paulo, is asked on trial of the same tool.
    calls = calls_made(
        qwen, "Our team is split between Dubai and São Paulo. What time is it in each city now?"
    )
    assert sorted(str(arguments["timezone"]) for _, arguments in calls) == ["Dubai", "São Paulo"]


def test_a_question_about_a_file_it_names_reads_the_file(qwen: LocalModel) -> None:
    # The gate keeps the reply to text and the model makes up a version ("1.1"); the file the
    # request names is read on trial instead.
    agent = toolset_agent(qwen, devbox)
    result = agent.run_sync("what version does pyproject.toml say?")
    assert [(r.call.name, r.call.arguments["path"]) for r in result.calls] == [
        ("read_file", "pyproject.toml")
    ]
    assert isinstance(result.output, str) and "0.4.2" in result.output


def test_a_log_is_not_narrowed_to_a_path_nobody_named(qwen: LocalModel) -> None:
    # The model narrows the log to "tests", which finds none of Omar's commits, and then logs
    # "Omar Said" again with a file of his commit; the path is left out, and the second log
    # only asks the first one's results again.
    agent = toolset_agent(qwen, devbox)
    result, corrections = run_with_corrections(agent, "what did Omar Said commit?")
    assert [(r.call.name, r.call.arguments.get("author")) for r in result.calls] == [
        ("git_log", "Omar")
    ]
    assert "path" not in result.calls[0].call.arguments
    assert corrections[0] == (
        "path='tests' left out: the conversation never gave it, so the tool's default applies",
    )
    assert isinstance(result.output, str) and "kmh_to_mph" in result.output


def test_a_look_up_that_found_nothing_is_answered_so(qwen: LocalModel) -> None:
    # The log of a path written as the file's name alone finds nothing; shown the conversation,
    # the model listed commits it made up.
    agent = toolset_agent(qwen, devbox)
    result = agent.run_sync("Which commits touched cache.py?")
    assert [r.result.content for r in result.calls] == ["[]"]
    assert isinstance(result.output, str) and result.output.startswith("No commits")


def test_a_file_nobody_named_is_asked_for(qwen: LocalModel) -> None:
    # "read the file" names none: the model's call with a path it made up ("weatherly/
    # weather.txt") is not run, and the reply asks which file (left to itself, the model asked
    # "What file do you want to read?").
    agent = Agent(
        qwen,
        [devbox.read_file],
        instructions="You help a developer working in the git repository `weatherly`.",
        limits=Limits(max_steps=4, timeout=300),
    )
    result, corrections = run_with_corrections(agent, "read the file")
    assert not result.calls
    assert isinstance(result.output, str) and result.output.rstrip().endswith("?")
    assert result.output.startswith("Which file ")
    assert corrections[0] == ("dropped: 'path' is required, and the request gives no value for it",)


def test_a_thing_the_first_request_refers_to_and_nobody_named_is_asked_for(
    qwen: LocalModel,
) -> None:
    # Nothing comes before "open that test": the model ran the whole suite for it.
    result, corrections = run_with_corrections(toolset_agent(qwen, devbox), "open that test")
    assert not result.calls
    assert isinstance(result.output, str) and result.output.startswith("Which test")
    assert corrections[0] == (
        "dropped: the request refers to 'that test', which nothing before it names",
    )


def test_an_email_address_nobody_gave_is_not_written_to(qwen: LocalModel) -> None:
    # "Email Lena" gives no address: the model's send_email to one it made up
    # ("Lena@lumenlabs.com") is not run; a look-up is tried in its place.
    agent = toolset_agent(qwen, assistant)
    # (Asked for a day, "on Friday", the calendar is looked up first, and send_email is never
    # written.)
    prompt = "Email Lena and ask if she is free for lunch"
    result, corrections = run_with_corrections(agent, prompt)
    assert "send_email" not in [record.call.name for record in result.calls]
    assert corrections[0] == ("dropped: 'to' is required, and the request gives no value for it",)


def test_a_first_call_copying_the_documentation_gives_way_to_another_tool(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Asked "toolwire exit code 3?", the model calls the calculator with its documented example
    # ("3 * 23"), which is dropped; the tools left that change nothing are tried on trial, and
    # the notes searched for what the request says is kept.
    asked = "toolwire exit code 3?"
    assert calls_made(qwen, asked) == [
        ("search_notes", {"query": "toolwire exit code 3", "limit": 3})
    ]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_made(qwen, asked) == []


def test_a_look_up_copying_its_query_description_is_asked_again_held_to_the_requests_words(
    qwen: LocalModel,
) -> None:
    # Asked "How do I write a tool in toolwire?", the model calls the calculator with its
    # documented example, then, on trial, the notes with the query's description ("what to look
    # for, in a few words"); asked again with the query held to the request's words, it
    # searches the notes for what the request says, and answers from them.
    agent = Agent(qwen, STOPPED, limits=Limits(max_steps=4, timeout=300))
    result = agent.run_sync("How do I write a tool in toolwire?")
    assert [(r.call.name, dict(r.call.arguments)) for r in result.calls] == [
        ("search_notes", {"query": "write a tool", "limit": 3})  # the default, as written
    ]
    assert isinstance(result.output, str) and "@tool" in result.output


def test_a_first_call_copying_its_query_description_is_written_again_in_the_requests_words(
    qwen: LocalModel,
) -> None:
    # Asked "Which models does toolwire support?", the model picks the notes but writes the
    # query's description as the query; where the request says more than the tool's name, the
    # call is written again with the query held to the request's telling words ("Which" and
    # "does" say nothing of what to look for), instead of asking what to search for.
    agent = Agent(qwen, STOPPED, limits=Limits(max_steps=4, timeout=300))
    result, corrections = run_with_corrections(agent, "Which models does toolwire support?")
    assert [(r.call.name, dict(r.call.arguments)) for r in result.calls] == [
        ("search_notes", {"query": "models", "limit": 3})
    ]
    assert corrections[0] == (
        "dropped: 'query' copies the tool's documentation or default, not a value the user gave",
    )
    assert isinstance(result.output, str) and "qwen2.5-coder-1.5b" in result.output
