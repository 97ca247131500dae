"""Prompted mode: the catalogue, the conversation as text, and a text-only model calling tools
through the loop."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolwire import Agent, Message, ScriptedModel, ToolCall, ToolResult, Turn, tool
from toolwire.events import (
    ModelEvent,
    ReasoningDelta,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    UsageReported,
)
from toolwire.messages import TextPart
from toolwire.models import (
    ModelProfile,
    ModelRequest,
    ModelSettings,
    NamedToolChoice,
    ScriptedCall,
)
from toolwire.textcalls import PromptedTools, render_catalogue
from toolwire.tools import ToolDefinition

RAN: list[str] = []


@tool(side_effect="read_only")
def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: The city's name, in English.
    """
    RAN.append(city)
    return f"Sunny in {city}"


WEATHER = get_weather.definition


def fence(name: str, arguments: Any) -> str:
    return f"```tool_call\n{json.dumps({'name': name, 'arguments': arguments})}\n```"


def stream(model: PromptedTools, request: ModelRequest) -> list[ModelEvent]:
    async def collect() -> list[ModelEvent]:
        return [event async for event in model.stream(request)]

    return anyio.run(collect)


def request(*messages: Message, **options: Any) -> ModelRequest:
    return ModelRequest(messages=messages or (Message.user("Weather in Paris?"),), **options)


@pytest.fixture(autouse=True)
def _fresh_runs() -> None:
    RAN.clear()


# --- the catalogue -----------------------------------------------------------------------------


def test_the_catalogue_holds_each_tool_and_the_convention() -> None:
    text = render_catalogue([WEATHER, "ping", {"name": "add", "parameters": {"type": "object"}}])
    assert "## get_weather\nGet the current weather for a city." in text
    assert json.dumps(WEATHER.parameters) in text  # with each parameter's description
    assert "## ping\nParameters (JSON Schema): " in text
    assert '```tool_call\n{"name": "TOOL_NAME", "arguments": {"PARAMETER": "VALUE"}}\n```' in text
    assert "```tool_result" in text
    assert "must call" not in text and "at most one" not in text


def test_the_catalogue_says_what_tool_choice_asks() -> None:
    assert "must call at least one tool" in render_catalogue(["a"], required=True)
    assert "must call the tool a." in render_catalogue(["a"], only="a")
    assert "at most one tool per reply" in render_catalogue(["a"], parallel=False)


# --- the wrapper, event by event ----------------------------------------------------------------


def test_a_fenced_call_streams_as_call_events() -> None:
    inner = ScriptedModel(
        [f"Let me check.\n{fence('get_weather', {'city': 'Paris'})}"], chunk_size=3
    )
    events = stream(PromptedTools(inner), request(tools=(WEATHER,)))
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    arguments = "".join(e.delta for e in events if isinstance(e, ToolCallArgumentsDelta))
    assert text == "Let me check."
    assert [(e.index, e.name, e.id) for e in started] == [(0, "get_weather", None)]
    assert json.loads(arguments) == {"city": "Paris"}
    assert sum(isinstance(e, ToolCallArgumentsDelta) for e in events) > 1  # streamed
    assert isinstance(events[-2], UsageReported)
    assert events[-1] == ResponseCompleted(finish_reason="tool_calls")


def test_the_inner_model_gets_the_catalogue_and_no_tools() -> None:
    inner = ScriptedModel(["Hi."])
    settings = ModelSettings(stop=("END",))
    stream(
        PromptedTools(inner),
        request(
            Message.system("Be brief."), Message.user("Hi"), tools=(WEATHER,), settings=settings
        ),
    )
    sent = inner.requests[0]
    assert sent.tools == ()
    assert sent.messages[0].role == "system"
    assert sent.messages[0].text.startswith("Be brief.\n\n# Tools")
    assert sent.settings.stop == ("END", "```tool_result")
    assert stream(PromptedTools(ScriptedModel(["Hi."])), request(tools=(WEATHER,)))[-1] == (
        ResponseCompleted(finish_reason="stop")
    )


def test_history_is_written_as_text() -> None:
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    broken = ToolCall(id="c2", name="get_weather", raw_arguments='{"city": "Pa', error="cut off")
    history = (
        Message.user("Weather in Paris?"),
        Message(role="assistant", parts=(TextPart(text="Checking."), call, broken)),
        Message(
            role="tool",
            parts=(
                ToolResult(call_id="c1", name="get_weather", content="Sunny ```x``` 21C"),
                ToolResult(call_id="c2", name="get_weather", content="not run", is_error=True),
            ),
        ),
        Message.user("And tomorrow?"),
    )
    inner = ScriptedModel(["Same."])
    stream(PromptedTools(inner), request(*history, tools=(WEATHER,)))
    sent = inner.requests[0].messages
    assert [m.role for m in sent] == ["system", "user", "assistant", "user"]
    assert sent[2].text == (
        "Checking.\n\n"
        + fence("get_weather", {"city": "Paris"})
        + '\n\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Pa}\n```'
    )
    assert sent[3].text == (
        '````tool_result\nget_weather({"city": "Paris"}) returned:\nSunny ```x``` 21C\n````\n\n'
        "```tool_result\nget_weather({}) failed:\nnot run\n```\n\nAnd tomorrow?"
    )


def test_tool_choice_none_sends_no_catalogue_and_reads_no_calls() -> None:
    reply = fence("get_weather", {"city": "Paris"})
    inner = ScriptedModel([reply])
    events = stream(PromptedTools(inner), request(tools=(WEATHER,), tool_choice="none"))
    assert "# Tools" not in "".join(m.text for m in inner.requests[0].messages)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == reply
    assert not any(isinstance(e, ToolCallStarted) for e in events)


def test_tool_choice_reaches_the_prompt() -> None:
    inner = ScriptedModel(["a", "b"])
    stream(
        PromptedTools(inner), request(tools=(WEATHER,), tool_choice=NamedToolChoice("get_weather"))
    )
    stream(
        PromptedTools(inner),
        request(tools=(WEATHER,), tool_choice="required", parallel_tool_calls=False),
    )
    assert "must call the tool get_weather." in inner.requests[0].messages[0].text
    assert "must call at least one tool" in inner.requests[1].messages[0].text
    assert "at most one tool per reply" in inner.requests[1].messages[0].text


def test_reasoning_becomes_reasoning_and_a_cut_off_reply_stays_cut_off() -> None:
    turn = Turn(
        text='<think>Paris, then.</think>```tool_call\n{"name": "get_weather", "argu',
        finish_reason="length",
    )
    events = stream(PromptedTools(ScriptedModel([turn])), request(tools=(WEATHER,)))
    assert "".join(e.text for e in events if isinstance(e, ReasoningDelta)) == "Paris, then."
    assert events[-1] == ResponseCompleted(finish_reason="length")


@pytest.mark.parametrize(
    "reply",
    [
        '<tool_call>{"city": "Paris"}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": [1]}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"} oops',
        "```tool_call\nget_weather('Paris', 'extra')\n```",
    ],
)
def test_an_invalid_call_reaches_the_loop_with_arguments_that_never_parse(reply: str) -> None:
    events = stream(PromptedTools(ScriptedModel([reply])), request(tools=(WEATHER,)))
    assert sum(isinstance(e, ToolCallStarted) for e in events) == 1
    raw = "".join(e.delta for e in events if isinstance(e, ToolCallArgumentsDelta))
    with pytest.raises(json.JSONDecodeError):
        json.loads(raw)
    assert events[-1] == ResponseCompleted(finish_reason="tool_calls")


def test_native_calls_of_the_inner_model_get_their_own_indexes() -> None:
    turn = Turn(
        text=fence("get_weather", {"city": "Rome"}),
        tool_calls=(ScriptedCall(name="get_weather", arguments={"city": "Oslo"}),),
    )
    events = stream(PromptedTools(ScriptedModel([turn])), request(tools=(WEATHER,)))
    started = [(e.index, e.name) for e in events if isinstance(e, ToolCallStarted)]
    assert started == [(0, "get_weather"), (1, "get_weather")]
    by_index: dict[int, str] = {}
    for event in events:
        if isinstance(event, ToolCallArgumentsDelta):
            by_index[event.index] = by_index.get(event.index, "") + event.delta
    assert {i: json.loads(raw) for i, raw in by_index.items()} == {
        0: {"city": "Rome"},
        1: {"city": "Oslo"},
    }


# --- through the loop ---------------------------------------------------------------------------


def test_a_text_only_model_calls_tools_through_the_loop() -> None:
    inner = ScriptedModel(
        [f"Let me check.\n{fence('get_weather', {'city': 'Paris'})}", "It is sunny in Paris."]
    )
    result = Agent(PromptedTools(inner), [get_weather], instructions="Be brief.").run_sync(
        "Weather in Paris?"
    )
    assert (result.stop_reason, result.output, RAN) == (
        "answer",
        "It is sunny in Paris.",
        ["Paris"],
    )
    assert [m.role for m in result.messages] == ["system", "user", "assistant", "tool", "assistant"]
    second = inner.requests[1].messages
    assert second[0].text.startswith("Be brief.\n\n# Tools")
    assert second[2].text == "Let me check.\n\n" + fence("get_weather", {"city": "Paris"})
    assert second[3].text == (
        '```tool_result\nget_weather({"city": "Paris"}) returned:\nSunny in Paris\n```'
    )


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ('<tool_call>{"name": "launch", "arguments": {}}</tool_call>', "Unknown tool 'launch'"),
        (
            '<tool_call>{"city": "Paris"}</tool_call>',
            "could not be read (a call with no tool name)",
        ),
        (
            Turn(
                text='```tool_call\n{"name": "get_weather", "arguments": {"city": "Pa',
                finish_reason="length",
            ),
            "cut off",
        ),
        (fence("get_weather", {"town": "Paris"}), "city"),
    ],
)
def test_bad_calls_get_error_results_and_never_run(reply: str | Turn, error: str) -> None:
    inner = ScriptedModel([reply, "Sorry."])
    result = Agent(PromptedTools(inner), [get_weather]).run_sync("Weather?")
    results = [p for m in result.messages for p in m.parts if isinstance(p, ToolResult)]
    assert RAN == []
    assert len(results) == 1 and results[0].is_error and error in results[0].content
    assert "tool_result" in inner.requests[1].messages[-1].text


def test_a_model_string_and_a_profile_are_accepted(tmp_path: Any) -> None:
    script = tmp_path / "turns.json"
    script.write_text(
        json.dumps([{"text": fence("get_weather", {"city": "Oslo"})}, {"text": "Ok."}])
    )
    result = Agent(PromptedTools(f"scripted:{script}"), [get_weather]).run_sync("Oslo?")
    assert (result.output, RAN) == ("Ok.", ["Oslo"])
    inner = ScriptedModel(["x"])
    inner.profile = ModelProfile(native_tools=False, text_tool_format="qwen3-thinking")  # type: ignore[attr-defined]
    assert PromptedTools(inner).profile.name == "qwen3-thinking"
    model = PromptedTools(ScriptedModel(["x"]), profile="deepseek-r1")
    assert model.profile.reasoning_open and model.name == "scripted"
    assert (
        PromptedTools(ScriptedModel(["x"], name="Qwen/Qwen3-Coder-30B")).profile.name
        == "qwen3-coder"
    )


def test_tools_from_definitions_dicts_and_names_mix() -> None:
    definition = ToolDefinition(name="b", description="B.", parameters={"type": "object"})
    text = render_catalogue(["a", definition, {"name": "c", "description": "C."}, get_weather])
    assert [line for line in text.splitlines() if line.startswith("## ")] == [
        "## a",
        "## b",
        "## c",
        "## get_weather",
    ]


def test_prompted_model_string_wraps_any_model(tmp_path: Path) -> None:
    from toolwire.models import get_model
    from toolwire.textcalls import PromptedTools

    script = tmp_path / "turns.json"
    script.write_text(json.dumps([{"text": "hello"}]))
    model = get_model(f"prompted:scripted:{script}")
    assert isinstance(model, PromptedTools)
    assert model.inner.name == f"scripted:{script}"
