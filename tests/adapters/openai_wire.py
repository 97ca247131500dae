"""OpenAI's wire formats: Responses and Chat Completions server-sent events."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from toolwire.models.openai_chat import OpenAIChatModel
from toolwire.models.openai_responses import OpenAIResponsesModel

from .script import Say, pieces
from .wire import Chunker, Reply, json_reply

SSE = "text/event-stream"


def sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


def openai_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
    body = {"error": {"message": message, "type": "invalid_request_error", "code": None}}
    return json_reply(body, status=status, headers=headers)


# --- Responses ----------------------------------------------------------------------------------


def responses_events(say: Say) -> Iterator[dict[str, Any]]:
    """The events of one Responses stream (without sequence numbers)."""
    response = {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "model": "gpt-test",
        "output": [],
        "status": "in_progress",
        "tools": [],
        "tool_choice": "auto",
        "parallel_tool_calls": True,
    }
    yield {"type": "response.created", "response": response}
    index = 0
    if say.reasoning:
        item = {"type": "reasoning", "id": "rs_1", "summary": []}
        yield {"type": "response.output_item.added", "output_index": index, "item": item}
        part = {"type": "summary_text", "text": ""}
        yield {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": index,
            "summary_index": 0,
            "part": part,
        }
        for piece in pieces(say.reasoning):
            yield {
                "type": "response.reasoning_summary_text.delta",
                "item_id": "rs_1",
                "output_index": index,
                "summary_index": 0,
                "delta": piece,
            }
        done = {
            **item,
            "summary": [{"type": "summary_text", "text": say.reasoning}],
            "encrypted_content": "gAAAA-encrypted-1",
        }
        yield {"type": "response.output_item.done", "output_index": index, "item": done}
        index += 1
    if say.text:
        item = {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress"}
        yield {
            "type": "response.output_item.added",
            "output_index": index,
            "item": {**item, "content": []},
        }
        for piece in pieces(say.text):
            yield {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": index,
                "content_index": 0,
                "delta": piece,
                "logprobs": [],
            }
        content = [{"type": "output_text", "text": say.text, "annotations": []}]
        done = {**item, "status": "completed", "content": content}
        yield {"type": "response.output_item.done", "output_index": index, "item": done}
        index += 1
    for n, call in enumerate(say.calls):
        item = {
            "type": "function_call",
            "id": f"fc_{n}",
            "call_id": call.id,
            "name": call.name,
            "arguments": "",
            "status": "in_progress",
        }
        yield {"type": "response.output_item.added", "output_index": index, "item": item}
        for piece in pieces(call.raw):
            yield {
                "type": "response.function_call_arguments.delta",
                "item_id": f"fc_{n}",
                "output_index": index,
                "delta": piece,
            }
        if not say.cut_off:
            done = {**item, "arguments": call.raw, "status": "completed"}
            yield {"type": "response.output_item.done", "output_index": index, "item": done}
        index += 1
    usage = {
        "input_tokens": say.input_tokens,
        "output_tokens": say.output_tokens,
        "total_tokens": say.input_tokens + say.output_tokens,
        "input_tokens_details": {"cached_tokens": 3},
        "output_tokens_details": {"reasoning_tokens": 0},
    }
    if say.cut_off:
        final = {
            **response,
            "status": "incomplete",
            "incomplete_details": {"reason": "max_output_tokens"},
            "usage": usage,
        }
        yield {"type": "response.incomplete", "response": final}
    else:
        yield {
            "type": "response.completed",
            "response": {**response, "status": "completed", "usage": usage},
        }


def responses_body(say: Say) -> bytes:
    return b"".join(
        sse({**event, "sequence_number": n}, event["type"])
        for n, event in enumerate(responses_events(say))
    )


class ResponsesDriver:
    prefix = "openai"
    streams_raw_arguments = True

    def model(self, url: str) -> OpenAIResponsesModel:
        return OpenAIResponsesModel("gpt-4.1", api_key="sk-test", base_url=f"{url}/v1")

    def spec(self, url: str) -> str:
        return f"openai:gpt-4.1@{url}/v1"

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply:
        return Reply(
            body=responses_body(say),
            content_type=SSE,
            stream=True,
            chunks=chunks,
            drop_after=drop_after,
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
        return openai_error(status, message, headers)

    def tool_names(self, body: Any) -> list[str]:
        return [tool["name"] for tool in body.get("tools", ())]

    def results(self, body: Any) -> list[tuple[str, str]]:
        return [
            (item["call_id"], item["output"])
            for item in body["input"]
            if item.get("type") == "function_call_output"
        ]


# --- Chat Completions ---------------------------------------------------------------------------


def chat_chunk(delta: Mapping[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": dict(delta), "finish_reason": finish}],
    }


def chat_chunks(say: Say) -> Iterator[dict[str, Any]]:
    yield chat_chunk({"role": "assistant", "content": ""})
    for piece in pieces(say.reasoning):
        yield chat_chunk({"reasoning_content": piece})
    for piece in pieces(say.text):
        yield chat_chunk({"content": piece})
    for index, call in enumerate(say.calls):
        head = {"index": index, "id": call.id, "type": "function"}
        yield chat_chunk(
            {"tool_calls": [{**head, "function": {"name": call.name, "arguments": ""}}]}
        )
        for piece in pieces(call.raw):
            yield chat_chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    finish = "length" if say.cut_off else ("tool_calls" if say.calls else "stop")
    yield chat_chunk({}, finish)
    usage = {
        "prompt_tokens": say.input_tokens,
        "completion_tokens": say.output_tokens,
        "total_tokens": say.input_tokens + say.output_tokens,
        "prompt_tokens_details": {"cached_tokens": 3},
    }
    yield {**chat_chunk({}), "choices": [], "usage": usage}


def chat_body(say: Say) -> bytes:
    return b"".join(sse(chunk) for chunk in chat_chunks(say)) + sse("[DONE]")


class ChatDriver:
    prefix = "openai-chat"
    streams_raw_arguments = True

    def model(self, url: str) -> OpenAIChatModel:
        return OpenAIChatModel("local-model", base_url=f"{url}/v1")

    def spec(self, url: str) -> str:
        return f"openai-chat:local-model@{url}/v1"

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply:
        return Reply(
            body=chat_body(say), content_type=SSE, stream=True, chunks=chunks, drop_after=drop_after
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
        return openai_error(status, message, headers)

    def tool_names(self, body: Any) -> list[str]:
        return [tool["function"]["name"] for tool in body.get("tools", ())]

    def results(self, body: Any) -> list[tuple[str, str]]:
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]
