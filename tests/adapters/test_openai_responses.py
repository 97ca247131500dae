"""`openai:` (Responses API): the exact requests, reasoning round trips, strict mode."""

from __future__ import annotations

from typing import Any

import pytest

from toolwire.errors import ProviderError, UsageError
from toolwire.messages import Message, ReasoningPart
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice
from toolwire.models.openai_responses import OpenAIResponsesModel

from .openai_wire import SSE, ResponsesDriver, responses_body, sse
from .script import Call, Say, ask, conversation, respond
from .tools import TOOLS, tag, weather
from .wire import Reply, WireServer

pytestmark = pytest.mark.anyio

WEATHER_STRICT = {
    "type": "object",
    "properties": {
        "city": {"description": "The city.", "type": "string"},
        "unit": {
            "description": 'celsius or fahrenheit. (default: "celsius")',
            "type": ["string", "null"],
        },
    },
    "required": ["city", "unit"],
    "additionalProperties": False,
}
ADD_STRICT = {
    "type": "object",
    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
    "required": ["a", "b"],
    "additionalProperties": False,
}
REASONING_ITEM = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [{"type": "summary_text", "text": "Two lookups."}],
    "encrypted_content": "gAAAA-old",
}


async def _body(server: WireServer, model_name: str, request: ModelRequest) -> Any:
    model = OpenAIResponsesModel(model_name, api_key="sk-test", base_url=f"{server.url}/v1")
    server.script(Reply(body=_text_reply(), content_type=SSE, stream=True))
    try:
        await respond(model, request)
    finally:
        await model.aclose()
    (recorded,) = server.requests
    assert recorded.path == "/v1/responses"
    assert recorded.headers["authorization"] == "Bearer sk-test"
    return recorded.json


def _text_reply() -> bytes:
    return responses_body(Say(text="Lima is cloudy."))


async def test_request_json(server: WireServer) -> None:
    reasoning = ReasoningPart(
        text="Two lookups.", provider_data={"openai_reasoning": [REASONING_ITEM]}
    )
    request = ModelRequest(
        messages=conversation(reasoning, call_data=({"id": "fc_1"}, None)),
        tools=TOOLS,
        tool_choice=NamedToolChoice("weather"),
        parallel_tool_calls=False,
        settings=ModelSettings(
            max_output_tokens=100, temperature=0.2, extra={"reasoning": {"effort": "low"}}
        ),
    )
    assert await _body(server, "gpt-5", request) == {
        "model": "gpt-5",
        "stream": True,
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "input": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Weather in Oslo, and 2 + 3?"},
            REASONING_ITEM,
            {"role": "assistant", "content": "Checking both."},
            {
                "type": "function_call",
                "call_id": "call_1",
                "name": "weather",
                "arguments": '{"city": "Oslo"}',
                "id": "fc_1",
            },
            {
                "type": "function_call",
                "call_id": "call_2",
                "name": "add",
                "arguments": '{"a": 2, "b": 3}',
            },
            {"type": "function_call_output", "call_id": "call_1", "output": "sunny"},
            {"type": "function_call_output", "call_id": "call_2", "output": "boom"},
            {"role": "user", "content": "And in Lima?"},
        ],
        "tools": [
            {
                "type": "function",
                "name": "weather",
                "description": weather.description,
                "parameters": WEATHER_STRICT,
                "strict": True,
            },
            {
                "type": "function",
                "name": "add",
                "description": "Add two integers.",
                "parameters": ADD_STRICT,
                "strict": True,
            },
        ],
        "tool_choice": {"type": "function", "name": "weather"},
        "parallel_tool_calls": False,
        "max_output_tokens": 100,
        "temperature": 0.2,
        "reasoning": {"effort": "low"},
    }


async def test_non_reasoning_models_get_no_reasoning_items(server: WireServer) -> None:
    reasoning = ReasoningPart(text="x", provider_data={"openai_reasoning": [REASONING_ITEM]})
    body = await _body(server, "gpt-4.1", ModelRequest(messages=conversation(reasoning)))
    assert "include" not in body
    assert all(item.get("type") != "reasoning" for item in body["input"])
    assert not {"tools", "tool_choice", "parallel_tool_calls"} & body.keys()


@pytest.mark.parametrize(
    ("choice", "wire"), [("auto", "auto"), ("required", "required"), ("none", "none")]
)
async def test_tool_choice(server: WireServer, choice: Any, wire: str) -> None:
    body = await _body(server, "gpt-4.1", ask(tools=TOOLS, tool_choice=choice))
    assert (body["tool_choice"], body["parallel_tool_calls"]) == (wire, True)


async def test_free_form_schemas_go_out_non_strict(server: WireServer) -> None:
    body = await _body(server, "gpt-4.1", ask(tools=(tag.definition,)))
    (sent,) = body["tools"]
    assert sent["strict"] is False
    assert sent["parameters"] == {
        "additionalProperties": False,
        "properties": {"labels": {"additionalProperties": {"type": "integer"}, "type": "object"}},
        "required": ["labels"],
        "type": "object",
    }


async def test_reasoning_comes_back_with_the_call(server: WireServer) -> None:
    model = OpenAIResponsesModel("o4-mini", api_key="k", base_url=f"{server.url}/v1")
    say = Say(
        reasoning="Need the weather.", calls=(Call("weather", {"city": "Oslo"}, id="call_9"),)
    )
    server.script(ResponsesDriver().reply(say))
    response = await respond(model, ask(tools=TOOLS))
    reasoning, _ = response.message.parts
    assert isinstance(reasoning, ReasoningPart)
    assert reasoning.text == "Need the weather."
    stored = {
        "type": "reasoning",
        "id": "rs_1",
        "summary": [{"type": "summary_text", "text": "Need the weather."}],
        "encrypted_content": "gAAAA-encrypted-1",
    }
    assert reasoning.provider_data == {"openai_reasoning": [stored]}
    history = (Message.user("Weather?"), response.message)
    body = model.wire_request(ModelRequest(messages=history, tools=TOOLS))
    assert body["input"][1:] == [
        stored,
        {
            "type": "function_call",
            "call_id": "call_9",
            "name": "weather",
            "arguments": '{"city": "Oslo"}',
            "id": "fc_0",
        },
    ]
    await model.aclose()


async def test_strict_nulls_become_omitted_arguments(server: WireServer) -> None:
    model = OpenAIResponsesModel("gpt-4.1", api_key="k", base_url=f"{server.url}/v1")
    say = Say(calls=(Call("weather", '{"city": "Oslo", "unit": null}'),))
    server.script(ResponsesDriver().reply(say))
    response = await respond(model, ask(tools=TOOLS))
    (call,) = response.message.tool_calls
    assert dict(call.arguments) == {"city": "Oslo"}
    assert weather.validate(call.arguments) == {"city": "Oslo", "unit": "celsius"}
    await model.aclose()


@pytest.mark.parametrize(
    ("settings", "message"),
    [(ModelSettings(stop=("END",)), "no stop sequences"), (ModelSettings(seed=1), "no seed")],
)
async def test_unsupported_settings_fail_before_sending(
    server: WireServer, settings: ModelSettings, message: str
) -> None:
    model = OpenAIResponsesModel("gpt-4.1", api_key="k", base_url=f"{server.url}/v1")
    with pytest.raises(UsageError, match=message):
        await respond(model, ask(settings=settings))
    assert server.requests == []
    await model.aclose()


@pytest.mark.parametrize(("code", "retryable"), [("server_error", True), ("invalid_prompt", False)])
async def test_failed_response(server: WireServer, code: str, retryable: bool) -> None:
    failed = {
        "type": "response.failed",
        "sequence_number": 1,
        "response": {
            "id": "resp_1",
            "object": "response",
            "created_at": 0,
            "model": "gpt-4.1",
            "output": [],
            "status": "failed",
            "tools": [],
            "tool_choice": "auto",
            "parallel_tool_calls": True,
            "error": {"code": code, "message": "it went wrong"},
        },
    }
    server.script(Reply(body=sse(failed, failed["type"]), content_type=SSE, stream=True))
    model = OpenAIResponsesModel("gpt-4.1", api_key="k", base_url=f"{server.url}/v1")
    with pytest.raises(ProviderError, match="it went wrong") as caught:
        await respond(model, ask())
    assert caught.value.retryable is retryable
    await model.aclose()
