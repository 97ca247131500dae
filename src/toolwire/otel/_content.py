"""The opt-in content attributes, in the shapes the GenAI conventions give them, with every string
passed through the run's redaction first: a secret never leaves the process, content on or off."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..messages import Message, Part, ReasoningPart, TextPart, ToolCall

Redact = Callable[[str], str]


def to_json(value: Any, redact: Redact) -> str:
    """`value` as JSON, each string in it redacted on its own (redacting the JSON text instead
    would miss a secret whose characters JSON escapes)."""
    return json.dumps(_scrub(value, redact), ensure_ascii=False, default=str)


def _scrub(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {redact(str(key)): _scrub(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(item, redact) for item in value]
    if value is None or isinstance(value, bool | int | float):
        return value
    return redact(str(value))


def call_arguments(call: ToolCall) -> Any:
    """What the model wrote: the parsed arguments, or the raw text when it did not parse."""
    return call.raw_arguments if call.error is not None else call.arguments


def system_instructions(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [_part(part) for m in messages if m.role == "system" for part in m.parts]


def input_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    return [_message(m) for m in messages if m.role != "system"]


def output_messages(message: Message, finish_reason: str | None) -> list[dict[str, Any]]:
    return [{**_message(message), "finish_reason": finish_reason}]


def _message(message: Message) -> dict[str, Any]:
    return {"role": message.role, "parts": [_part(part) for part in message.parts]}


def _part(part: Part) -> dict[str, Any]:
    if isinstance(part, TextPart):
        return {"type": "text", "content": part.text}
    if isinstance(part, ReasoningPart):
        return {"type": "reasoning", "content": part.text}
    if isinstance(part, ToolCall):
        return {
            "type": "tool_call",
            "id": part.id,
            "name": part.name,
            "arguments": call_arguments(part),
        }
    return {"type": "tool_call_response", "id": part.call_id, "response": part.content}
