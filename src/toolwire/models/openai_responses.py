"""`openai:MODEL`: OpenAI models through the Responses API.

Requests are stateless (`store=False`): the whole history goes with each request, and for reasoning
models the encrypted reasoning items come back with it (`ReasoningPart.provider_data`), so a model
that reasoned before a call keeps its reasoning when it sees the result.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from ..errors import UsageError
from ..events import FinishReason, ModelEvent, ReasoningDelta, TextDelta
from ..messages import Message, ReasoningPart, TextPart, ToolCall, ToolResult, Usage
from ._adapter import Prepared, StreamTranslator, create_stream, settings_fields
from ._base import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._connect import parse_spec
from ._http_errors import is_transient_code, stream_error
from ._names import wire_name
from ._openai_client import OpenAIAdapter
from ._tools import ToolIndex, WireTool
from .profiles import openai_profile

__all__ = ["OpenAIResponsesModel", "openai_from_spec"]

PROVIDER = "openai"
REASONING_KEY = "openai_reasoning"
"""`ReasoningPart.provider_data[REASONING_KEY]`: the reasoning items, as the API wants them back."""

_FINISH: dict[str, FinishReason] = {
    "max_output_tokens": "length",
    "content_filter": "content_filter",
}


class OpenAIResponsesModel(OpenAIAdapter):
    """A model behind the Responses API. `client` (an `openai.AsyncOpenAI`, with `max_retries=0`:
    the loop retries) replaces `api_key`, `base_url` and `timeout`."""

    _provider = PROVIDER
    _default_profile = staticmethod(openai_profile)

    @staticmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        return {
            "type": "function",
            "name": tool.wire_name,
            "description": tool.description,
            "parameters": tool.schema,
            "strict": tool.strict,
        }

    def _prepare(self, request: ModelRequest) -> Prepared:
        tools = self._tools.translate(request.tools)
        body: dict[str, Any] = {
            "model": self.model,
            "input": _input_items(request.messages, send_reasoning=self.profile.reasoning),
            "store": False,
        }
        if self.profile.reasoning:
            body["include"] = ["reasoning.encrypted_content"]
        if tools.payload:
            body["tools"] = tools.payload
            body["tool_choice"] = _tool_choice(request.tool_choice)
            if self.profile.parallel_tool_calls:
                body["parallel_tool_calls"] = request.parallel_tool_calls
        body.update(_settings(request.settings))
        return Prepared(body, dict(request.settings.extra), _ResponseEvents(tools))

    def _send(self, prepared: Prepared) -> AsyncGenerator[Any, None]:
        return create_stream(self._client.responses.create, prepared)


def openai_from_spec(spec: str) -> OpenAIResponsesModel:
    """`openai:MODEL[@BASE_URL]`, as a model string."""
    parsed = parse_spec(PROVIDER, spec)
    return OpenAIResponsesModel(parsed.model, base_url=parsed.base_url)


def _tool_choice(choice: ToolChoice) -> str | dict[str, str]:
    if isinstance(choice, NamedToolChoice):
        return {"type": "function", "name": wire_name(choice.name)}
    return choice


def _settings(settings: ModelSettings) -> dict[str, Any]:
    if settings.stop:
        raise UsageError("the Responses API ('openai:') has no stop sequences: use 'openai-chat:'")
    if settings.seed is not None:
        raise UsageError("the Responses API ('openai:') takes no seed: use 'openai-chat:'")
    return settings_fields(
        settings,
        {"max_output_tokens": "max_output_tokens", "temperature": "temperature", "top_p": "top_p"},
    )


def _input_items(messages: Sequence[Message], *, send_reasoning: bool) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages:
        if message.role in ("system", "user"):
            if message.text:
                items.append({"role": message.role, "content": message.text})
            continue
        for part in message.parts:
            if isinstance(part, TextPart):
                if part.text:
                    items.append({"role": "assistant", "content": part.text})
            elif isinstance(part, ReasoningPart):
                if send_reasoning:
                    items.extend(_reasoning_items(part))
            elif isinstance(part, ToolCall):
                items.append(_call_item(part))
            elif isinstance(part, ToolResult):
                output = {"type": "function_call_output", "call_id": part.call_id}
                items.append({**output, "output": part.content})
    return items


def _reasoning_items(part: ReasoningPart) -> list[dict[str, Any]]:
    # Without `store`, the API can only use a reasoning item it can decrypt.
    stored = (part.provider_data or {}).get(REASONING_KEY) or ()
    return [dict(item) for item in stored if item.get("encrypted_content")]


def _call_item(call: ToolCall) -> dict[str, Any]:
    item: dict[str, Any] = {
        "type": "function_call",
        "call_id": call.id,
        "name": wire_name(call.name),
        "arguments": call.raw_arguments or json.dumps(dict(call.arguments)),
    }
    item_id = (call.provider_data or {}).get("id")
    if isinstance(item_id, str):
        item["id"] = item_id
    return item


class _ResponseEvents(StreamTranslator):
    """Responses stream events (SDK objects) to model events."""

    def __init__(self, tools: ToolIndex) -> None:
        super().__init__(tools)
        self._reasoning: list[dict[str, Any]] = []

    def feed(self, event: Any) -> list[ModelEvent]:
        kind = event.type
        if kind in ("response.output_text.delta", "response.refusal.delta"):
            return [TextDelta(text=event.delta)] if event.delta else []
        if kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            return [ReasoningDelta(text=event.delta)] if event.delta else []
        if kind == "response.reasoning_summary_part.added" and event.summary_index > 0:
            return [ReasoningDelta(text="\n\n")]
        if kind == "response.function_call_arguments.delta":
            return self._calls.arguments(event.output_index, event.delta)
        if kind == "response.output_item.added":
            return self._item_added(event.output_index, event.item)
        if kind == "response.output_item.done":
            return self._item_done(event.output_index, event.item)
        if kind in ("response.completed", "response.incomplete"):
            return self._response_done(event.response)
        if kind == "response.failed":
            error = event.response.error
            code = error.code if error is not None else None
            message = error.message if error is not None else "the response failed"
            raise stream_error(PROVIDER, f"{code}: {message}", retryable=is_transient_code(code))
        if kind == "error":
            raise stream_error(
                PROVIDER, f"{event.code}: {event.message}", retryable=is_transient_code(event.code)
            )
        return []

    def _item_added(self, index: int, item: Any) -> list[ModelEvent]:
        if item.type != "reasoning":
            self._reasoning = []
        if item.type != "function_call":
            return []
        data = {"id": item.id} if getattr(item, "id", None) else None
        return self._calls.start(index, item.name, item.call_id, data)

    def _item_done(self, index: int, item: Any) -> list[ModelEvent]:
        if item.type == "function_call":
            return self._calls.end(index, item.arguments)
        if item.type != "reasoning":
            return []
        stored: dict[str, Any] = {
            "type": "reasoning",
            "id": item.id,
            "summary": [{"type": "summary_text", "text": s.text} for s in item.summary or ()],
        }
        if getattr(item, "encrypted_content", None):
            stored["encrypted_content"] = item.encrypted_content
        # Consecutive reasoning items become one ReasoningPart, whose provider data the loop
        # merges key by key: carry them all, so the last merge holds every one.
        self._reasoning.append(stored)
        return [ReasoningDelta(text="", provider_data={REASONING_KEY: list(self._reasoning)})]

    def _response_done(self, response: Any) -> list[ModelEvent]:
        details = response.incomplete_details
        reason = details.reason if details is not None else None
        return self._completed(_FINISH.get(reason or ""), _usage(response.usage))


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    details = usage.input_tokens_details
    cached = (details.cached_tokens if details is not None else 0) or 0
    return Usage(
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cached_input_tokens=cached,
    )
