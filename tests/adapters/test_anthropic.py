"""`anthropic:` (Messages API): the exact requests (results first, in one user message), thinking
blocks round-tripped with their signatures, tool_choice and parallel switches, stream errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire.errors import ProviderError, UsageError
from toolwire.messages import Message, ReasoningPart, ToolCall, ToolResult
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from toolwire.models.anthropic import AnthropicModel

from .anthropic_wire import AnthropicDriver, messages_body
from .openai_wire import SSE, sse
from .script import Call, Say, ask, conversation, respond
from .tools import TOOLS, weather
from .wire import Reply, WireServer

pytestmark = pytest.mark.anyio

THINKING = [
    {"type": "thinking", "thinking": "Two lookups.", "signature": "sig-old"},
    {"type": "redacted_thinking", "data": "opaque"},
]


@pytest.fixture
async def model(server: WireServer) -> AsyncIterator[AnthropicModel]:
    built = AnthropicModel("claude-test", api_key="sk-ant-test", base_url=server.url)
    yield built
    await built.aclose()


async def _body(server: WireServer, model: AnthropicModel, request: ModelRequest) -> Any:
    server.script(Reply(body=messages_body(Say(text="Cloudy.")), content_type=SSE, stream=True))
    await respond(model, request)
    recorded = server.requests[-1]
    assert recorded.path == "/v1/messages"
    assert recorded.headers["authorization"] == "Bearer sk-ant-test"
    assert "anthropic-version" in recorded.headers
    return recorded.json


async def test_request_json(server: WireServer, model: AnthropicModel) -> None:
    reasoning = ReasoningPart(text="Two lookups.", provider_data={"anthropic_thinking": THINKING})
    request = ModelRequest(
        messages=conversation(reasoning),
        tools=TOOLS,
        tool_choice=NamedToolChoice("add"),
        parallel_tool_calls=False,
        settings=ModelSettings(
            max_output_tokens=500, stop=("END",), extra={"metadata": {"user_id": "u-1"}}
        ),
    )
    assert await _body(server, model, request) == {
        "model": "claude-test",
        "max_tokens": 500,
        "stream": True,
        "system": "Be brief.",
        "messages": [
            {"role": "user", "content": [{"type": "text", "text": "Weather in Oslo, and 2 + 3?"}]},
            {
                "role": "assistant",
                "content": [
                    *THINKING,
                    {"type": "text", "text": "Checking both."},
                    {
                        "type": "tool_use",
                        "id": "call_1",
                        "name": "weather",
                        "input": {"city": "Oslo"},
                    },
                    {"type": "tool_use", "id": "call_2", "name": "add", "input": {"a": 2, "b": 3}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": "sunny"},
                    {
                        "type": "tool_result",
                        "tool_use_id": "call_2",
                        "content": "boom",
                        "is_error": True,
                    },
                    {"type": "text", "text": "And in Lima?"},
                ],
            },
        ],
        "tools": [
            {
                "name": "weather",
                "description": weather.description,
                "input_schema": weather.parameters,
            },
            {
                "name": "add",
                "description": "Add two integers.",
                "input_schema": TOOLS[1].parameters,
            },
        ],
        "tool_choice": {"type": "tool", "name": "add", "disable_parallel_tool_use": True},
        "stop_sequences": ["END"],
        "metadata": {"user_id": "u-1"},
    }


async def test_results_go_first_even_after_user_text(
    server: WireServer, model: AnthropicModel
) -> None:
    call = ToolCall(id="c.1/x", name="weather", arguments={"city": "Oslo"})
    messages = (
        Message.user("Weather?"),
        Message(role="assistant", parts=(call,)),
        Message.user("(the user typed while the tool ran)"),
        Message(role="tool", parts=(ToolResult(call_id="c.1/x", name="weather", content="sunny"),)),
    )
    body = await _body(server, model, ModelRequest(messages=messages, tools=TOOLS))
    use_id = body["messages"][1]["content"][0]["id"]
    assert use_id.startswith("c_1_x_")
    assert body["messages"][2] == {
        "role": "user",
        "content": [
            {"type": "tool_result", "tool_use_id": use_id, "content": "sunny"},
            {"type": "text", "text": "(the user typed while the tool ran)"},
        ],
    }


@pytest.mark.parametrize(
    ("choice", "parallel", "wire"),
    [
        ("auto", True, {"type": "auto"}),
        ("required", True, {"type": "any"}),
        ("required", False, {"type": "any", "disable_parallel_tool_use": True}),
        ("none", False, {"type": "none"}),
    ],
)
async def test_tool_choice(
    server: WireServer,
    model: AnthropicModel,
    choice: ToolChoice,
    parallel: bool,
    wire: dict[str, Any],
) -> None:
    request = ask(tools=TOOLS, tool_choice=choice, parallel_tool_calls=parallel)
    assert (await _body(server, model, request))["tool_choice"] == wire


async def test_thinking_round_trip(server: WireServer, model: AnthropicModel) -> None:
    say = Say(reasoning="Need weather.", calls=(Call("weather", {"city": "Oslo"}, id="toolu_1"),))
    server.script(AnthropicDriver().reply(say))
    response = await respond(model, ask(tools=TOOLS))
    reasoning = response.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    block = {"type": "thinking", "thinking": "Need weather.", "signature": "sig-1"}
    assert reasoning.provider_data == {"anthropic_thinking": [block]}
    history = (Message.user("Weather?"), response.message)
    sent = model.wire_request(ModelRequest(messages=history, tools=TOOLS))["messages"][1]
    assert sent["content"] == [
        block,
        {"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Oslo"}},
    ]


async def test_consecutive_thinking_blocks_all_come_back(
    server: WireServer, model: AnthropicModel
) -> None:
    events = [
        {"type": "message_start", "message": _message()},
        _start(0, {"type": "thinking", "thinking": "", "signature": ""}),
        _delta(0, {"type": "thinking_delta", "thinking": "A"}),
        _delta(0, {"type": "signature_delta", "signature": "s0"}),
        {"type": "content_block_stop", "index": 0},
        _start(1, {"type": "redacted_thinking", "data": "R"}),
        {"type": "content_block_stop", "index": 1},
        _start(2, {"type": "text", "text": ""}),
        _delta(2, {"type": "text_delta", "text": "Done."}),
        {"type": "content_block_stop", "index": 2},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn"},
            "usage": {"output_tokens": 4},
        },
        {"type": "message_stop"},
    ]
    body = b"".join(sse(e, e["type"]) for e in events)
    server.script(Reply(body=body, content_type=SSE, stream=True))
    response = await respond(model, ask())
    reasoning = response.message.parts[0]
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.provider_data == {
        "anthropic_thinking": [
            {"type": "thinking", "thinking": "A", "signature": "s0"},
            {"type": "redacted_thinking", "data": "R"},
        ]
    }
    assert response.message.text == "Done."


@pytest.mark.parametrize(
    ("kind", "retryable"), [("overloaded_error", True), ("invalid_request_error", False)]
)
async def test_error_event_in_the_stream(
    server: WireServer, model: AnthropicModel, kind: str, retryable: bool
) -> None:
    error = {"type": "error", "error": {"type": kind, "message": "not now"}}
    body = sse({"type": "message_start", "message": _message()}, "message_start") + sse(
        error, "error"
    )
    server.script(Reply(body=body, content_type=SSE, stream=True))
    with pytest.raises(ProviderError, match="not now") as caught:
        await respond(model, ask())
    assert caught.value.retryable is retryable


async def test_529_overloaded_is_retryable(server: WireServer, model: AnthropicModel) -> None:
    server.script(AnthropicDriver().error(529, "Overloaded"))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask())
    assert (caught.value.status, caught.value.retryable) == (529, True)


async def test_no_sampling_parameters(model: AnthropicModel) -> None:
    settings = ModelSettings(temperature=0.2, seed=3)
    with pytest.raises(UsageError, match="takes no temperature, seed"):
        model.wire_request(ask(settings=settings))


async def test_default_max_tokens(model: AnthropicModel) -> None:
    assert model.wire_request(ask())["max_tokens"] == 8192


def _message() -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 5, "output_tokens": 1},
    }


def _start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": delta}
