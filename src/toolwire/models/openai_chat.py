"""`openai-chat:MODEL`: Chat Completions, from OpenAI or any server that speaks it.

llama.cpp's server, vLLM, Ollama and LM Studio all serve `/v1/chat/completions`: point the adapter
at one with `openai-chat:MODEL@http://HOST:PORT/v1` (or `OPENAI_BASE_URL`). Such servers get the
compatible profile: plain JSON Schema, no strict mode, `max_tokens`. Their reasoning text
(`reasoning_content` or `reasoning` in the deltas) streams as reasoning; it is not sent back.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Hashable, Sequence
from typing import Any

from ..events import FinishReason, ModelEvent, ReasoningDelta, TextDelta
from ..messages import Message, TextPart, Usage
from ._adapter import Prepared, SettingName, StreamTranslator, create_stream, settings_fields
from ._base import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._connect import parse_spec
from ._names import wire_name
from ._openai_client import OpenAIAdapter
from ._tools import ToolIndex, WireTool
from .profiles import OpenAIProfile, openai_compatible_profile, openai_profile

__all__ = ["OpenAIChatModel", "openai_chat_from_spec"]

PROVIDER = "openai-chat"
_FINISH: dict[str, FinishReason] = {"length": "length", "content_filter": "content_filter"}


class OpenAIChatModel(OpenAIAdapter):
    """A model behind a Chat Completions endpoint. `client` (an `openai.AsyncOpenAI`, with
    `max_retries=0`) replaces `api_key`, `base_url` and `timeout`. The profile defaults to OpenAI's
    for api.openai.com and to the compatible one for any other server."""

    _provider = PROVIDER

    def _default_profile(self, model: str) -> OpenAIProfile:
        """OpenAI's profile for api.openai.com, the compatible one for any other server."""
        is_openai = self._client.base_url.host == "api.openai.com"
        return openai_profile(model) if is_openai else openai_compatible_profile(model)

    @staticmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        function: dict[str, Any] = {
            "name": tool.wire_name,
            "description": tool.description,
            "parameters": tool.schema,
        }
        if tool.strict:
            function["strict"] = True
        return {"type": "function", "function": function}

    def _prepare(self, request: ModelRequest) -> Prepared:
        tools = self._tools.translate(request.tools)
        body: dict[str, Any] = {"model": self.model, "messages": _messages(request.messages)}
        if self.profile.stream_usage:
            body["stream_options"] = {"include_usage": True}
        if tools.payload:
            body["tools"] = tools.payload
            body["tool_choice"] = _tool_choice(request.tool_choice)
            if self.profile.parallel_tool_calls:
                body["parallel_tool_calls"] = request.parallel_tool_calls
        body.update(_settings(request.settings, self.profile))
        return Prepared(body, dict(request.settings.extra), _ChatEvents(tools))

    def _send(self, prepared: Prepared) -> AsyncGenerator[Any, None]:
        return create_stream(self._client.chat.completions.create, prepared)


def openai_chat_from_spec(spec: str) -> OpenAIChatModel:
    """`openai-chat:MODEL[@BASE_URL]`, as a model string."""
    parsed = parse_spec(PROVIDER, spec)
    return OpenAIChatModel(parsed.model, base_url=parsed.base_url)


def _tool_choice(choice: ToolChoice) -> str | dict[str, Any]:
    if isinstance(choice, NamedToolChoice):
        return {"type": "function", "function": {"name": wire_name(choice.name)}}
    return choice


def _settings(settings: ModelSettings, profile: OpenAIProfile) -> dict[str, Any]:
    fields: dict[SettingName, str] = {
        "max_output_tokens": profile.max_tokens_field,
        "temperature": "temperature",
        "top_p": "top_p",
        "seed": "seed",
        "stop": "stop",
    }
    return settings_fields(settings, fields)


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "tool":
            out.extend(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.content}
                for result in message.tool_results
            )
        elif message.role == "assistant":
            text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
            calls = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {
                        "name": wire_name(call.name),
                        "arguments": call.raw_arguments or json.dumps(dict(call.arguments)),
                    },
                }
                for call in message.tool_calls
            ]
            if text or calls:
                # An empty string, not null: compatible servers such as llama_cpp.server reject
                # a null content and their templates read the key even beside tool calls.
                entry: dict[str, Any] = {"role": "assistant", "content": text}
                if calls:
                    entry["tool_calls"] = calls
                out.append(entry)
        elif message.text:
            out.append({"role": message.role, "content": message.text})
    return out


class _ChatEvents(StreamTranslator):
    """Chat Completions chunks (SDK objects) to model events.

    Calls are keyed by their `index`. Servers differ: some send the id and name in the first
    fragment (OpenAI), some send the name late, some reuse index 0 for every call with a new id.
    """

    def __init__(self, tools: ToolIndex) -> None:
        super().__init__(tools)
        self._ids: dict[Hashable, str] = {}
        self._early: dict[Hashable, list[str]] = {}
        self._finish: str | None = None
        self._usage: Any = None

    def feed(self, chunk: Any) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        if chunk.usage is not None:
            self._usage = chunk.usage
        for choice in chunk.choices[:1]:
            delta = choice.delta
            if delta is not None:
                reasoning = getattr(delta, "reasoning_content", None) or getattr(
                    delta, "reasoning", None
                )
                if isinstance(reasoning, str) and reasoning:
                    events.append(ReasoningDelta(text=reasoning))
                if delta.content:
                    events.append(TextDelta(text=delta.content))
                for position, fragment in enumerate(delta.tool_calls or ()):
                    events.extend(self._call_fragment(position, fragment))
            if choice.finish_reason:
                self._finish = choice.finish_reason
        return events

    def _call_fragment(self, position: int, fragment: Any) -> list[ModelEvent]:
        key = fragment.index if fragment.index is not None else position
        function = fragment.function
        name = function.name if function is not None else None
        arguments = (function.arguments if function is not None else None) or ""
        events: list[ModelEvent] = []
        known = self._ids.get(key)
        if fragment.id and known is not None and fragment.id != known:
            events.extend(self._calls.end(key))  # the index now belongs to a new call
            del self._ids[key]
        if fragment.id:
            self._ids.setdefault(key, fragment.id)
        if not self._calls.is_open(key):
            if not name:
                self._early.setdefault(key, []).append(arguments)
                return events
            events.extend(self._calls.start(key, name, self._ids.get(key)))
            arguments = "".join(self._early.pop(key, ())) + arguments
        events.extend(self._calls.arguments(key, arguments))
        return events

    def finish(self) -> list[ModelEvent]:
        if self._finish is None:
            return []  # the stream ended before the model finished: the loop retries
        return self._completed(_FINISH.get(self._finish), _usage(self._usage))


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    details = getattr(usage, "prompt_tokens_details", None)
    return Usage(
        input_tokens=usage.prompt_tokens or 0,
        output_tokens=usage.completion_tokens or 0,
        cached_input_tokens=getattr(details, "cached_tokens", None) or 0,
    )
