"""`openai-chat:` (Chat Completions): the exact requests, and the stream quirks of compatible
servers (llama.cpp, vLLM, Ollama): late names, reused indexes, whole calls in one chunk."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire.errors import ProviderError
from toolwire.events import ReasoningDelta
from toolwire.messages import Message, ToolCall
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice
from toolwire.models.openai_chat import OpenAIChatModel

from .openai_wire import SSE, chat_body, chat_chunk, sse
from .script import Say, ask, conversation, events_of, respond
from .tools import TOOLS, weather
from .wire import Reply, WireServer

pytestmark = pytest.mark.anyio


@pytest.fixture
async def model(server: WireServer) -> AsyncIterator[OpenAIChatModel]:
    built = OpenAIChatModel("qwen3", base_url=f"{server.url}/v1")
    yield built
    await built.aclose()


def _stream(*chunks: dict[str, Any], done: bool = True) -> Reply:
    body = b"".join(sse(c) for c in chunks) + (sse("[DONE]") if done else b"")
    return Reply(body=body, content_type=SSE, stream=True)


def _call(index: Any, *, id: str | None = None, name: str | None = None, args: str = "") -> Any:
    fragment: dict[str, Any] = {"function": {"arguments": args}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment |= {"id": id, "type": "function"}
    if name is not None:
        fragment["function"]["name"] = name
    return chat_chunk({"tool_calls": [fragment]})


async def test_request_json(server: WireServer, model: OpenAIChatModel) -> None:
    server.script(Reply(body=chat_body(Say(text="Cloudy.")), content_type=SSE, stream=True))
    request = ModelRequest(
        messages=conversation(),
        tools=TOOLS,
        tool_choice=NamedToolChoice("add"),
        parallel_tool_calls=False,
        settings=ModelSettings(
            max_output_tokens=64, temperature=0, seed=7, stop=("END",), extra={"top_k": 20}
        ),
    )
    await respond(model, request)
    (recorded,) = server.requests
    assert recorded.path == "/v1/chat/completions"
    assert recorded.json == {
        "model": "qwen3",
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Oslo, and 2 + 3?"},
            {
                "role": "assistant",
                "content": "Checking both.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": '{"city": "Oslo"}'},
                    },
                    {
                        "id": "call_2",
                        "type": "function",
                        "function": {"name": "add", "arguments": '{"a": 2, "b": 3}'},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
            {"role": "tool", "tool_call_id": "call_2", "content": "boom"},
            {"role": "user", "content": "And in Lima?"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "weather",
                    "description": weather.description,
                    "parameters": weather.parameters,
                },
            },
            {
                "type": "function",
                "function": {
                    "name": "add",
                    "description": "Add two integers.",
                    "parameters": TOOLS[1].parameters,
                },
            },
        ],
        "tool_choice": {"type": "function", "function": {"name": "add"}},
        "parallel_tool_calls": False,
        "max_tokens": 64,
        "temperature": 0,
        "seed": 7,
        "stop": ["END"],
        "top_k": 20,
    }


async def test_openai_itself_gets_strict_schemas_and_max_completion_tokens() -> None:
    model = OpenAIChatModel("gpt-4.1", api_key="sk-test")
    body = model.wire_request(ask(tools=TOOLS, settings=ModelSettings(max_output_tokens=5)))
    assert body["max_completion_tokens"] == 5
    assert "max_tokens" not in body
    assert all(tool["function"]["strict"] is True for tool in body["tools"])
    assert body["tools"][0]["function"]["parameters"]["required"] == ["city", "unit"]
    await model.aclose()


async def test_a_call_whose_name_comes_late(server: WireServer, model: OpenAIChatModel) -> None:
    server.script(
        _stream(
            _call(0, id="c1", args='{"ci'),
            _call(0, name="weather", args='ty": "Oslo"}'),
            chat_chunk({}, "tool_calls"),
        )
    )
    (call,) = (await respond(model, ask(tools=TOOLS))).message.tool_calls
    assert (call.id, call.name, dict(call.arguments)) == ("c1", "weather", {"city": "Oslo"})


async def test_index_reused_for_each_call(server: WireServer, model: OpenAIChatModel) -> None:
    server.script(
        _stream(
            _call(0, id="c1", name="weather", args='{"city": "Oslo"}'),
            _call(0, id="c2", name="weather", args='{"city": "Lima"}'),
            chat_chunk({}, "stop"),  # some servers say "stop" even after calls
        )
    )
    response = await respond(model, ask(tools=TOOLS))
    assert response.finish_reason == "tool_calls"
    assert [(c.id, dict(c.arguments)) for c in response.message.tool_calls] == [
        ("c1", {"city": "Oslo"}),
        ("c2", {"city": "Lima"}),
    ]


async def test_calls_without_index(server: WireServer, model: OpenAIChatModel) -> None:
    both = chat_chunk(
        {
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": "{}"}},
                {"id": "c2", "type": "function", "function": {"name": "weather", "arguments": ""}},
            ]
        }
    )
    server.script(_stream(both, chat_chunk({}, "tool_calls")))
    response = await respond(model, ask(tools=TOOLS))
    assert [(c.id, c.name) for c in response.message.tool_calls] == [
        ("c1", "add"),
        ("c2", "weather"),
    ]


async def test_reasoning_fields_of_local_servers(
    server: WireServer, model: OpenAIChatModel
) -> None:
    server.script(
        _stream(
            chat_chunk({"reasoning_content": "llama.cpp and vLLM say "}),
            chat_chunk({"reasoning": "and Ollama says"}),
            chat_chunk({"content": "Hi."}, "stop"),
        )
    )
    events = await events_of(model, ask())
    assert [e.text for e in events if isinstance(e, ReasoningDelta)] == [
        "llama.cpp and vLLM say ",
        "and Ollama says",
    ]


async def test_no_usage_chunk(server: WireServer, model: OpenAIChatModel) -> None:
    server.script(_stream(chat_chunk({"content": "Hi."}, "stop")))
    response = await respond(model, ask())
    assert (response.message.text, response.finish_reason, response.usage.requests) == (
        "Hi.",
        "stop",
        1,
    )


async def test_stream_without_a_finish_reason_is_dropped(
    server: WireServer, model: OpenAIChatModel
) -> None:
    server.script(_stream(chat_chunk({"content": "Hi"}), done=False))
    with pytest.raises(ProviderError, match="ended early") as caught:
        await respond(model, ask())
    assert caught.value.retryable


@pytest.mark.parametrize(
    ("kind", "retryable"), [("server_error", True), ("invalid_request_error", False)]
)
async def test_error_inside_the_stream(
    server: WireServer, model: OpenAIChatModel, kind: str, retryable: bool
) -> None:
    server.script(
        _stream(chat_chunk({"content": "Hi"}), {"error": {"message": "backend gone", "type": kind}})
    )
    with pytest.raises(ProviderError, match="backend gone") as caught:
        await respond(model, ask())
    assert caught.value.retryable is retryable


async def test_failed_arguments_go_back_verbatim(
    server: WireServer, model: OpenAIChatModel
) -> None:
    broken = ToolCall(id="c9", name="add", raw_arguments='{"a": 1,', error="not valid JSON")
    turn = Message(role="assistant", parts=(broken,))
    body = model.wire_request(ModelRequest(messages=(*conversation()[:2], turn)))
    assert body["messages"][-1]["tool_calls"][0]["function"]["arguments"] == '{"a": 1,'
