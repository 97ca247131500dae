"""`gemini:` (google-genai): the exact requests (schema subset, function responses matched by id),
thought signatures round-tripped, modes, finish reasons, RetryInfo."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from toolwire.errors import ProviderError
from toolwire.messages import Message, TextPart, ToolCall
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from toolwire.models.gemini import GeminiModel
from toolwire.tools import ToolDefinition

from .gemini_wire import SIGNATURE, GeminiDriver, chunk, gemini_body
from .openai_wire import SSE
from .script import Call, Say, ask, conversation, respond
from .tools import TOOLS, tag, weather
from .wire import Reply, WireServer, json_reply

pytestmark = pytest.mark.anyio

OLD_SIGNATURE = base64.b64encode(b"old-signature").decode()


@pytest.fixture
async def model(server: WireServer) -> AsyncIterator[GeminiModel]:
    built = GeminiModel("gemini-test", api_key="gm-test", base_url=server.url)
    yield built
    await built.aclose()


def _sse(*chunks: dict[str, Any]) -> Reply:
    body = b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in chunks)
    return Reply(body=body, content_type=SSE, stream=True)


async def _body(server: WireServer, model: GeminiModel, request: ModelRequest) -> Any:
    server.script(Reply(body=gemini_body(Say(text="Cloudy.")), content_type=SSE, stream=True))
    await respond(model, request)
    recorded = server.requests[-1]
    assert recorded.path.endswith("/models/gemini-test:streamGenerateContent?alt=sse")
    assert recorded.headers["x-goog-api-key"] == "gm-test"
    return recorded.json


async def test_request_json(server: WireServer, model: GeminiModel) -> None:
    call_data = {"gemini_call_id": "call_1", "thought_signature": OLD_SIGNATURE}
    request = ModelRequest(
        messages=conversation(
            call_data=(call_data, None), answer_data={"gemini_text_signature": OLD_SIGNATURE}
        ),
        tools=(*TOOLS, tag.definition),
        tool_choice=NamedToolChoice("add"),
        settings=ModelSettings(
            max_output_tokens=50,
            temperature=0.1,
            seed=4,
            stop=("END",),
            extra={"thinking_config": {"include_thoughts": True}},
        ),
    )
    assert await _body(server, model, request) == {
        "contents": [
            {"role": "user", "parts": [{"text": "Weather in Oslo, and 2 + 3?"}]},
            {
                "role": "model",
                "parts": [
                    {"text": "Checking both.", "thoughtSignature": OLD_SIGNATURE},
                    {
                        "functionCall": {
                            "id": "call_1",
                            "name": "weather",
                            "args": {"city": "Oslo"},
                        },
                        "thoughtSignature": OLD_SIGNATURE,
                    },
                    {"functionCall": {"name": "add", "args": {"a": 2, "b": 3}}},
                ],
            },
            {
                "role": "user",
                "parts": [
                    {
                        "functionResponse": {
                            "id": "call_1",
                            "name": "weather",
                            "response": {"result": "sunny"},
                        }
                    },
                    {"functionResponse": {"name": "add", "response": {"error": "boom"}}},
                    {"text": "And in Lima?"},
                ],
            },
        ],
        "systemInstruction": {"role": "user", "parts": [{"text": "Be brief."}]},
        "tools": [
            {
                "functionDeclarations": [
                    {
                        "name": "weather",
                        "description": weather.description,
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {
                                "city": {"type": "STRING", "description": "The city."},
                                "unit": {
                                    "type": "STRING",
                                    "default": "celsius",
                                    "description": "celsius or fahrenheit.",
                                },
                            },
                            "required": ["city"],
                            "property_ordering": ["city", "unit"],
                        },
                    },
                    {
                        "name": "add",
                        "description": "Add two integers.",
                        "parameters": {
                            "type": "OBJECT",
                            "properties": {"a": {"type": "INTEGER"}, "b": {"type": "INTEGER"}},
                            "required": ["a", "b"],
                            "property_ordering": ["a", "b"],
                        },
                    },
                    {
                        "name": "tag",
                        "description": tag.description,
                        "parameters_json_schema": tag.parameters,
                    },
                ]
            }
        ],
        "toolConfig": {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["add"]}},
        "generationConfig": {
            "maxOutputTokens": 50,
            "temperature": 0.1,
            "seed": 4,
            "stopSequences": ["END"],
            "thinkingConfig": {"include_thoughts": True},  # passed through as given
        },
    }


@pytest.mark.parametrize(
    ("choice", "mode"), [("auto", "AUTO"), ("required", "ANY"), ("none", "NONE")]
)
async def test_modes(server: WireServer, model: GeminiModel, choice: ToolChoice, mode: str) -> None:
    body = await _body(server, model, ask(tools=TOOLS, tool_choice=choice))
    assert body["toolConfig"] == {"functionCallingConfig": {"mode": mode}}


async def test_signatures_round_trip(server: WireServer, model: GeminiModel) -> None:
    say = Say(
        reasoning="Thinking about Oslo.",
        calls=(
            Call("weather", {"city": "Oslo"}, id="fc-1"),
            Call("add", {"a": 1, "b": 2}, id="fc-2"),
        ),
    )
    server.script(GeminiDriver().reply(say))
    response = await respond(model, ask(tools=TOOLS))
    first, second = response.message.tool_calls
    assert first.provider_data == {"gemini_call_id": "fc-1", "thought_signature": SIGNATURE}
    assert second.provider_data == {"gemini_call_id": "fc-2"}
    history = (Message.user("Weather?"), response.message)
    sent = model.wire_request(ModelRequest(messages=history, tools=TOOLS))["contents"][1]
    assert sent == {
        "role": "model",
        "parts": [
            {
                "function_call": {"name": "weather", "args": {"city": "Oslo"}, "id": "fc-1"},
                "thought_signature": b"gemini-signature",
            },
            {"function_call": {"name": "add", "args": {"a": 1, "b": 2}, "id": "fc-2"}},
        ],
    }


async def test_text_signature_comes_back_on_the_answer(
    server: WireServer, model: GeminiModel
) -> None:
    server.script(
        _sse(
            chunk([{"text": "Hel"}]),
            chunk([{"text": "lo.", "thoughtSignature": SIGNATURE}], finishReason="STOP"),
        )
    )
    response = await respond(model, ask())
    assert response.message.provider_data == {"gemini_text_signature": SIGNATURE}
    history = (Message.user("Hi"), response.message, Message.user("Again"))
    sent = model.wire_request(ModelRequest(messages=history))["contents"][1]
    assert sent["parts"] == [{"text": "Hello.", "thought_signature": b"gemini-signature"}]


async def test_calls_without_ids_are_answered_by_name(
    server: WireServer, model: GeminiModel
) -> None:
    server.script(
        _sse(
            chunk(
                [{"functionCall": {"name": "add", "args": {"a": 1, "b": 1}}}], finishReason="STOP"
            )
        )
    )
    response = await respond(model, ask(tools=TOOLS))
    (call,) = response.message.tool_calls
    assert call.id.startswith("call_")  # assigned by the loop
    assert call.provider_data is None


async def test_malformed_function_call_is_retryable(server: WireServer, model: GeminiModel) -> None:
    server.script(_sse(chunk([], finishReason="MALFORMED_FUNCTION_CALL")))
    with pytest.raises(ProviderError, match="MALFORMED_FUNCTION_CALL") as caught:
        await respond(model, ask(tools=TOOLS))
    assert caught.value.retryable


async def test_blocked_prompt(server: WireServer, model: GeminiModel) -> None:
    server.script(
        _sse(
            {"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {"promptTokenCount": 4}}
        )
    )
    response = await respond(model, ask())
    assert (response.finish_reason, response.message.parts) == ("content_filter", ())


async def test_retry_info_in_a_429(server: WireServer, model: GeminiModel) -> None:
    body = {
        "error": {
            "code": 429,
            "message": "Quota exceeded",
            "status": "RESOURCE_EXHAUSTED",
            "details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "19s"}],
        }
    }
    server.script(json_reply(body, status=429))
    with pytest.raises(ProviderError, match="Quota exceeded") as caught:
        await respond(model, ask())
    assert (caught.value.retry_after, caught.value.retryable) == (19.0, True)


async def test_names_must_start_with_a_letter(model: GeminiModel) -> None:
    odd = ToolDefinition(name="3d-render", description="", parameters=weather.parameters)
    call = ToolCall(id="c", name="3d-render", arguments={"city": "x"})
    history = (Message.user("go"), Message(role="assistant", parts=(TextPart(text="ok"), call)))
    body = model.wire_request(ModelRequest(messages=history, tools=(odd,)))
    (declared,) = body["config"]["tools"][0]["function_declarations"]
    assert declared["name"].startswith("_3d-render_")
    assert body["contents"][1]["parts"][1]["function_call"]["name"] == declared["name"]
