"""Bedrock's wire format: ConverseStream as AWS event-stream binary frames, Converse as JSON."""

from __future__ import annotations

import json
import struct
import zlib
from collections.abc import Iterator, Mapping
from typing import Any

from toolwire.models.bedrock import BedrockModel

from .script import Say, pieces
from .wire import Chunker, Reply, json_reply

EVENT_STREAM = "application/vnd.amazon.eventstream"
_ERROR_TYPES = {
    429: "ThrottlingException",
    500: "InternalServerException",
    503: "ServiceUnavailableException",
    400: "ValidationException",
}


def _header(name: str, value: str) -> bytes:
    raw_name, raw_value = name.encode(), value.encode()
    return (
        struct.pack(">B", len(raw_name))
        + raw_name
        + b"\x07"  # header value type 7: string
        + struct.pack(">H", len(raw_value))
        + raw_value
    )


def frame(name: str, payload: Mapping[str, Any], *, exception: bool = False) -> bytes:
    """One event-stream message: prelude (lengths + CRC), headers, JSON payload, message CRC."""
    headers = (
        _header(":exception-type" if exception else ":event-type", name)
        + _header(":content-type", "application/json")
        + _header(":message-type", "exception" if exception else "event")
    )
    body = json.dumps(payload).encode()
    prelude = struct.pack(">II", 12 + len(headers) + len(body) + 4, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def converse_events(say: Say) -> Iterator[tuple[str, dict[str, Any]]]:
    yield "messageStart", {"role": "assistant"}
    index = 0
    if say.reasoning:
        for piece in pieces(say.reasoning):
            delta = {"reasoningContent": {"text": piece}}
            yield "contentBlockDelta", {"contentBlockIndex": index, "delta": delta}
        delta = {"reasoningContent": {"signature": "sig-1"}}
        yield "contentBlockDelta", {"contentBlockIndex": index, "delta": delta}
        yield "contentBlockStop", {"contentBlockIndex": index}
        index += 1
    if say.text:
        for piece in pieces(say.text):
            yield "contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": piece}}
        yield "contentBlockStop", {"contentBlockIndex": index}
        index += 1
    for call in say.calls:
        start = {"toolUse": {"toolUseId": call.id, "name": call.name}}
        yield "contentBlockStart", {"contentBlockIndex": index, "start": start}
        for piece in pieces(call.raw):
            delta = {"toolUse": {"input": piece}}
            yield "contentBlockDelta", {"contentBlockIndex": index, "delta": delta}
        if not say.cut_off:
            yield "contentBlockStop", {"contentBlockIndex": index}
        index += 1
    stop = "max_tokens" if say.cut_off else ("tool_use" if say.calls else "end_turn")
    yield "messageStop", {"stopReason": stop}
    usage = {
        "inputTokens": say.input_tokens - 3,
        "outputTokens": say.output_tokens,
        "totalTokens": say.input_tokens + say.output_tokens - 3,
        "cacheReadInputTokens": 3,
    }
    yield "metadata", {"usage": usage, "metrics": {"latencyMs": 5}}


def converse_stream_body(say: Say) -> bytes:
    return b"".join(frame(name, payload) for name, payload in converse_events(say))


def converse_reply(say: Say) -> Reply:
    """The same response through (non-streaming) Converse."""
    content: list[dict[str, Any]] = []
    if say.reasoning:
        text = {"text": say.reasoning, "signature": "sig-1"}
        content.append({"reasoningContent": {"reasoningText": text}})
    if say.text:
        content.append({"text": say.text})
    for call in say.calls:
        use = {"toolUseId": call.id, "name": call.name, "input": call.parsed}
        content.append({"toolUse": use})
    body = {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if say.calls else "end_turn",
        "usage": {
            "inputTokens": say.input_tokens,
            "outputTokens": say.output_tokens,
            "totalTokens": say.input_tokens + say.output_tokens,
        },
        "metrics": {"latencyMs": 5},
    }
    return json_reply(body)


def bedrock_error(status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
    kind = _ERROR_TYPES.get(status, "ValidationException")
    return json_reply(
        {"message": message}, status=status, headers={"x-amzn-errortype": kind, **(headers or {})}
    )


class BedrockDriver:
    prefix = "bedrock"
    streams_raw_arguments = True

    def model(self, url: str) -> BedrockModel:
        return BedrockModel("anthropic.claude-test-v1:0", endpoint_url=url, region="us-east-1")

    def spec(self, url: str) -> str:
        return f"bedrock:anthropic.claude-test-v1:0@{url}"

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply:
        return Reply(
            body=converse_stream_body(say),
            content_type=EVENT_STREAM,
            stream=True,
            chunks=chunks,
            drop_after=drop_after,
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
        return bedrock_error(status, message, headers)

    def tool_names(self, body: Any) -> list[str]:
        return [tool["toolSpec"]["name"] for tool in body.get("toolConfig", {}).get("tools", ())]

    def results(self, body: Any) -> list[tuple[str, str]]:
        return [
            (block["toolResult"]["toolUseId"], block["toolResult"]["content"][0]["text"])
            for message in body["messages"]
            for block in message["content"]
            if "toolResult" in block
        ]
