"""Anthropic's wire format: Messages server-sent events."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toolwire.models.anthropic import AnthropicModel

from .openai_wire import SSE, sse
from .script import Say, pieces
from .wire import Chunker, Reply, json_reply


def message_events(say: Say) -> Iterator[dict[str, Any]]:
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {
            "input_tokens": say.input_tokens - 3,
            "output_tokens": 1,
            "cache_read_input_tokens": 3,
            "cache_creation_input_tokens": 0,
        },
    }
    yield {"type": "message_start", "message": message}
    yield {"type": "ping"}
    index = 0
    if say.reasoning:
        block = {"type": "thinking", "thinking": "", "signature": ""}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in pieces(say.reasoning):
            delta = {"type": "thinking_delta", "thinking": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        delta = {"type": "signature_delta", "signature": "sig-1"}
        yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    if say.text:
        block = {"type": "text", "text": ""}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in pieces(say.text):
            delta = {"type": "text_delta", "text": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        yield {"type": "content_block_stop", "index": index}
        index += 1
    for call in say.calls:
        block = {"type": "tool_use", "id": call.id, "name": call.name, "input": {}}
        yield {"type": "content_block_start", "index": index, "content_block": block}
        for piece in pieces(call.raw):
            delta = {"type": "input_json_delta", "partial_json": piece}
            yield {"type": "content_block_delta", "index": index, "delta": delta}
        if not say.cut_off:
            yield {"type": "content_block_stop", "index": index}
        index += 1
    stop = "max_tokens" if say.cut_off else ("tool_use" if say.calls else "end_turn")
    yield {
        "type": "message_delta",
        "delta": {"stop_reason": stop, "stop_sequence": None},
        "usage": {"output_tokens": say.output_tokens},
    }
    yield {"type": "message_stop"}


def messages_body(say: Say) -> bytes:
    return b"".join(sse(event, event["type"]) for event in message_events(say))


class AnthropicDriver:
    prefix = "anthropic"
    streams_raw_arguments = True

    def model(self, url: str) -> AnthropicModel:
        return AnthropicModel("claude-test", api_key="sk-ant-test", base_url=url)

    def spec(self, url: str) -> str:
        return f"anthropic:claude-test@{url}"

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply:
        return Reply(
            body=messages_body(say),
            content_type=SSE,
            stream=True,
            chunks=chunks,
            drop_after=drop_after,
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
        kind = "rate_limit_error" if status == 429 else "api_error"
        body = {"type": "error", "error": {"type": kind, "message": message}}
        return json_reply(body, status=status, headers=headers)

    def tool_names(self, body: Any) -> list[str]:
        return [tool["name"] for tool in body.get("tools", ())]

    def results(self, body: Any) -> list[tuple[str, str]]:
        return [
            (block["tool_use_id"], block["content"])
            for message in body["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
            if block["type"] == "tool_result"
        ]
