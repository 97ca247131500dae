"""`bedrock:` (Converse / ConverseStream through boto3): the exact requests, reasoning blocks
with signatures and redacted bytes, Converse for families that cannot stream tool use, exception
frames."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire.errors import ProviderError, UsageError
from toolwire.events import TextDelta
from toolwire.messages import Message, ReasoningPart, ToolCall, ToolResult
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice
from toolwire.models.bedrock import BedrockModel

from .bedrock_wire import EVENT_STREAM, BedrockDriver, converse_reply, converse_stream_body, frame
from .script import Call, Say, ask, conversation, respond
from .tools import TOOLS, weather
from .wire import Reply, WireServer

pytestmark = pytest.mark.anyio

REDACTED = base64.b64encode(b"\x00secret\xff").decode()
STORED = [
    {"reasoningText": {"text": "Two lookups.", "signature": "sig-old"}},
    {"redactedContent": REDACTED},
]


USE = {"toolUseId": "t1", "name": "weather"}


def _delta(index: int, delta: dict[str, Any]) -> bytes:
    return frame("contentBlockDelta", {"contentBlockIndex": index, "delta": delta})


@pytest.fixture
async def model(server: WireServer) -> AsyncIterator[BedrockModel]:
    built = BedrockModel("anthropic.claude-test-v1:0", endpoint_url=server.url)
    yield built
    await built.aclose()


def _stream(*frames: bytes) -> Reply:
    return Reply(body=b"".join(frames), content_type=EVENT_STREAM, stream=True)


async def _body(server: WireServer, model: BedrockModel, request: ModelRequest) -> Any:
    server.script(_stream(converse_stream_body(Say(text="Cloudy."))))
    await respond(model, request)
    recorded = server.requests[-1]
    assert recorded.path == "/model/anthropic.claude-test-v1%3A0/converse-stream"
    assert recorded.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIDTEST/")
    return recorded.json


async def test_request_json(server: WireServer, model: BedrockModel) -> None:
    reasoning = ReasoningPart(text="Two lookups.", provider_data={"bedrock_reasoning": STORED})
    request = ModelRequest(
        messages=conversation(reasoning),
        tools=TOOLS,
        tool_choice=NamedToolChoice("weather"),
        settings=ModelSettings(
            max_output_tokens=300,
            temperature=0.3,
            top_p=0.9,
            stop=("END",),
            extra={"top_k": 40},
        ),
    )
    assert await _body(server, model, request) == {
        "messages": [
            {"role": "user", "content": [{"text": "Weather in Oslo, and 2 + 3?"}]},
            {
                "role": "assistant",
                "content": [
                    {"reasoningContent": STORED[0]},
                    {"reasoningContent": STORED[1]},  # botocore sends the bytes as base64
                    {"text": "Checking both."},
                    {
                        "toolUse": {
                            "toolUseId": "call_1",
                            "name": "weather",
                            "input": {"city": "Oslo"},
                        }
                    },
                    {"toolUse": {"toolUseId": "call_2", "name": "add", "input": {"a": 2, "b": 3}}},
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "call_1",
                            "content": [{"text": "sunny"}],
                            "status": "success",
                        }
                    },
                    {
                        "toolResult": {
                            "toolUseId": "call_2",
                            "content": [{"text": "boom"}],
                            "status": "error",
                        }
                    },
                    {"text": "And in Lima?"},
                ],
            },
        ],
        "system": [{"text": "Be brief."}],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "weather",
                        "description": weather.description,
                        "inputSchema": {"json": weather.parameters},
                    }
                },
                {
                    "toolSpec": {
                        "name": "add",
                        "description": "Add two integers.",
                        "inputSchema": {"json": TOOLS[1].parameters},
                    }
                },
            ],
            "toolChoice": {"tool": {"name": "weather"}},
        },
        "inferenceConfig": {
            "maxTokens": 300,
            "temperature": 0.3,
            "topP": 0.9,
            "stopSequences": ["END"],
        },
        "additionalModelRequestFields": {"top_k": 40},
    }


async def test_reasoning_round_trip(server: WireServer, model: BedrockModel) -> None:
    server.script(
        _stream(
            frame("messageStart", {"role": "assistant"}),
            _delta(0, {"reasoningContent": {"text": "Hmm."}}),
            _delta(0, {"reasoningContent": {"signature": "s1"}}),
            frame("contentBlockStop", {"contentBlockIndex": 0}),
            _delta(1, {"reasoningContent": {"redactedContent": REDACTED}}),
            frame("contentBlockStop", {"contentBlockIndex": 1}),
            frame("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": USE}}),
            _delta(2, {"toolUse": {"input": '{"city": "Oslo"}'}}),
            frame("contentBlockStop", {"contentBlockIndex": 2}),
            frame("messageStop", {"stopReason": "tool_use"}),
        )
    )
    response = await respond(model, ask(tools=TOOLS))
    reasoning, call = response.message.parts
    assert isinstance(reasoning, ReasoningPart)
    assert isinstance(call, ToolCall)
    assert reasoning.text == "Hmm."
    assert reasoning.provider_data == {
        "bedrock_reasoning": [
            {"reasoningText": {"text": "Hmm.", "signature": "s1"}},
            {"redactedContent": REDACTED},
        ]
    }
    assert response.usage.requests == 1  # no metadata event: the loop counts the request
    history = (Message.user("Weather?"), response.message)
    sent = model.wire_request(ModelRequest(messages=history, tools=TOOLS))["messages"][1]
    assert sent["content"][:2] == [
        {"reasoningContent": {"reasoningText": {"text": "Hmm.", "signature": "s1"}}},
        {"reasoningContent": {"redactedContent": b"\x00secret\xff"}},
    ]


async def test_families_without_streaming_tool_use_use_converse(server: WireServer) -> None:
    model = BedrockModel("mistral.mistral-large-2407-v1:0", endpoint_url=server.url)
    say = Say(text="Let me see.", calls=(Call("weather", {"city": "Oslo"}, id="t9"),))
    server.script(converse_reply(say))
    response = await respond(model, ask(tools=TOOLS))
    assert server.requests[0].path == "/model/mistral.mistral-large-2407-v1%3A0/converse"
    assert response.message.text == "Let me see."
    (call,) = response.message.tool_calls
    assert (call.id, dict(call.arguments)) == ("t9", {"city": "Oslo"})
    assert (response.finish_reason, response.usage.input_tokens) == ("tool_calls", 11)
    server.script(_stream(converse_stream_body(Say(text="No tools, so it streams."))))
    await respond(model, ask())
    assert server.requests[1].path.endswith("/converse-stream")
    await model.aclose()


async def test_tool_choice_none(server: WireServer, model: BedrockModel) -> None:
    body = await _body(server, model, ask(tools=TOOLS, tool_choice="none"))
    assert "toolConfig" not in body
    history = conversation()
    body = await _body(
        server, model, ModelRequest(messages=history, tools=TOOLS, tool_choice="none")
    )
    assert "toolChoice" not in body["toolConfig"]
    assert len(body["toolConfig"]["tools"]) == 2


async def test_families_that_cannot_be_forced() -> None:
    model = BedrockModel("meta.llama3-3-70b-instruct-v1:0", region="us-east-1")
    with pytest.raises(UsageError, match="only 'auto'"):
        model.wire_request(ask(tools=TOOLS, tool_choice="required"))
    assert model.wire_request(ask(tools=TOOLS))["toolConfig"]["toolChoice"] == {"auto": {}}
    await model.aclose()


@pytest.mark.parametrize(
    ("kind", "retryable"),
    [
        ("throttlingException", True),
        ("modelStreamErrorException", True),
        ("serviceUnavailableException", True),
        ("validationException", False),
    ],
)
async def test_exception_frames(
    server: WireServer, model: BedrockModel, kind: str, retryable: bool
) -> None:
    server.script(
        _stream(
            frame("messageStart", {"role": "assistant"}),
            frame(kind, {"message": "stream broke"}, exception=True),
        )
    )
    with pytest.raises(ProviderError, match="stream broke") as caught:
        await respond(model, ask())
    assert caught.value.retryable is retryable


async def test_malformed_tool_use_is_retryable(server: WireServer, model: BedrockModel) -> None:
    server.script(_stream(frame("messageStop", {"stopReason": "malformed_tool_use"})))
    with pytest.raises(ProviderError, match="malformed_tool_use") as caught:
        await respond(model, ask(tools=TOOLS))
    assert caught.value.retryable


async def test_empty_results_are_not_blank(model: BedrockModel) -> None:
    call = ToolCall(id="t1", name="weather", arguments={"city": "x"})
    history = (
        Message.user("go"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(ToolResult(call_id="t1", name="weather", content=""),)),
    )
    body = model.wire_request(ModelRequest(messages=history, tools=TOOLS))
    result = body["messages"][2]["content"][0]["toolResult"]
    assert result["content"] == [{"text": "(empty result)"}]


async def test_no_seed(model: BedrockModel) -> None:
    with pytest.raises(UsageError, match="no seed"):
        model.wire_request(ask(settings=ModelSettings(seed=1)))


async def test_driver_reply_round_trip(server: WireServer, model: BedrockModel) -> None:
    server.script(BedrockDriver().reply(Say(text="ok", input_tokens=20, output_tokens=4)))
    response = await respond(model, ask())
    assert (response.usage.input_tokens, response.usage.cached_input_tokens) == (20, 3)


class _EventStream:
    """boto3's event stream as the adapter uses it: events to iterate, then `close`."""

    def __init__(self, *events: dict[str, Any]) -> None:
        self._events = events
        self.closed = False

    def __iter__(self) -> Any:
        return iter(self._events)

    def close(self) -> None:
        self.closed = True


class _Client:
    def __init__(self, stream: _EventStream) -> None:
        self._stream = stream

    def converse(self, **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("ConverseStream was expected")

    def converse_stream(self, **kwargs: Any) -> dict[str, Any]:
        return {"stream": self._stream}

    def close(self) -> None:
        pass


async def test_a_reader_that_stops_early_closes_the_event_stream() -> None:
    """The event stream holds the HTTP connection: it is closed as the reader stops, not later
    when the garbage collector finds it."""
    events = _EventStream(
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "Hel"}}},
        {"contentBlockDelta": {"contentBlockIndex": 0, "delta": {"text": "lo."}}},
    )
    model = BedrockModel("anthropic.claude-test-v1:0", client=_Client(events))
    stream = model.stream(ask())
    assert await anext(stream) == TextDelta(text="Hel")
    await stream.aclose()  # type: ignore[attr-defined]
    assert events.closed
