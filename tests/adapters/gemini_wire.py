"""Gemini's wire format: `streamGenerateContent?alt=sse` server-sent events."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from typing import Any

from toolwire.models.gemini import GeminiModel

from .openai_wire import SSE
from .script import Say, pieces
from .wire import Chunker, Reply, json_reply

SIGNATURE = base64.b64encode(b"gemini-signature").decode()


def chunk(parts: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    candidate = {"content": {"role": "model", "parts": parts}, "index": 0}
    finish = extra.pop("finishReason", None)
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-test", **extra}


def gemini_chunks(say: Say) -> Iterator[dict[str, Any]]:
    for piece in pieces(say.reasoning):
        yield chunk([{"text": piece, "thought": True}])
    for piece in pieces(say.text):
        yield chunk([{"text": piece}])
    calls = [
        {
            "functionCall": {"name": c.name, "args": c.parsed, "id": c.id},
            **({"thoughtSignature": SIGNATURE} if n == 0 else {}),
        }
        for n, c in enumerate(say.calls)
    ]
    usage = {
        "promptTokenCount": say.input_tokens,
        "candidatesTokenCount": say.output_tokens - 2,
        "thoughtsTokenCount": 2,
        "cachedContentTokenCount": 3,
        "totalTokenCount": say.input_tokens + say.output_tokens,
    }
    finish = "MAX_TOKENS" if say.cut_off else "STOP"
    yield chunk(calls, finishReason=finish, usageMetadata=usage)


def gemini_body(say: Say) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\r\n\r\n" for c in gemini_chunks(say))


class GeminiDriver:
    prefix = "gemini"
    streams_raw_arguments = False

    def model(self, url: str) -> GeminiModel:
        return GeminiModel("gemini-test", api_key="gm-test", base_url=url)

    def spec(self, url: str) -> str:
        return f"gemini:gemini-test@{url}"

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply:
        return Reply(
            body=gemini_body(say),
            content_type=SSE,
            stream=True,
            chunks=chunks,
            drop_after=drop_after,
        )

    def error(self, status: int, message: str, headers: Mapping[str, str] | None = None) -> Reply:
        codes = {429: "RESOURCE_EXHAUSTED", 500: "INTERNAL", 400: "INVALID_ARGUMENT"}
        body = {
            "error": {"code": status, "message": message, "status": codes.get(status, "UNKNOWN")}
        }
        return json_reply(body, status=status, headers=headers)

    def tool_names(self, body: Any) -> list[str]:
        return [
            declaration["name"]
            for tool in body.get("tools", ())
            for declaration in tool["functionDeclarations"]
        ]

    def results(self, body: Any) -> list[tuple[str, str]]:
        found = []
        for content in body["contents"]:
            for part in content["parts"]:
                response = part.get("functionResponse")
                if response is not None:
                    value = response["response"]
                    found.append((response.get("id", ""), value.get("result", value.get("error"))))
        return found
