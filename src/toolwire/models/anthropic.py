"""`anthropic:MODEL`: Claude through the Messages API.

The history follows the API's rules: every tool result of a turn goes back in one user message,
before any text; thinking blocks go back verbatim, signatures included
(`ReasoningPart.provider_data`), ahead of the calls they led to.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..errors import ProviderError, UsageError
from ..events import FinishReason, ModelEvent, ReasoningDelta, TextDelta
from ..messages import Message, ReasoningPart, TextPart, ToolCall, Usage
from ._adapter import KeyedAdapter, Prepared, StreamTranslator, create_stream
from ._base import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._connect import client_options, key_or_placeholder, missing_extra, parse_spec
from ._history import Turns, system_text, text_blocks
from ._http_errors import (
    api_message,
    connection_error,
    is_transient_code,
    status_error,
    stream_error,
)
from ._names import wire_id, wire_name
from ._tools import ToolIndex, WireTool
from .profiles import AnthropicProfile, anthropic_profile

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

__all__ = ["AnthropicModel", "anthropic_from_spec"]

PROVIDER = "anthropic"
THINKING_KEY = "anthropic_thinking"
"""`ReasoningPart.provider_data[THINKING_KEY]`: the thinking blocks, as the API wants them back."""

_FINISH: dict[str, FinishReason] = {
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


class AnthropicModel(KeyedAdapter["AsyncAnthropic", AnthropicProfile]):
    """Claude through the Messages API. `client` (an `anthropic.AsyncAnthropic`, with
    `max_retries=0`) replaces `api_key`, `base_url` and `timeout`."""

    _provider = PROVIDER
    _default_profile = staticmethod(anthropic_profile)

    @staticmethod
    def _connect(
        api_key: str | None, base_url: str | None, timeout: float | None
    ) -> AsyncAnthropic:
        try:
            import anthropic
        except ImportError as error:
            raise missing_extra(PROVIDER, "anthropic", error) from None
        api_key = key_or_placeholder(
            api_key,
            base_url,
            key_variables=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"),
            base_url_variable="ANTHROPIC_BASE_URL",
            missing="'anthropic:' needs an API key: set ANTHROPIC_API_KEY (or pass api_key=, or a "
            "client= with the credentials you use)",
        )
        return anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, **client_options(timeout)
        )

    @staticmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        return {
            "name": tool.wire_name,
            "description": tool.description,
            "input_schema": tool.schema,
        }

    def _prepare(self, request: ModelRequest) -> Prepared:
        tools = self._tools.translate(request.tools)
        settings = request.settings
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": settings.max_output_tokens or self.profile.default_max_tokens,
            "messages": _messages(request.messages),
        }
        system = system_text(request.messages)
        if system:
            body["system"] = system
        if tools.payload:
            body["tools"] = tools.payload
            body["tool_choice"] = _tool_choice(request.tool_choice, request.parallel_tool_calls)
        body.update(_settings(settings))
        return Prepared(body, dict(settings.extra), _MessageEvents(tools))

    def _send(self, prepared: Prepared) -> AsyncGenerator[Any, None]:
        return create_stream(self._client.messages.create, prepared)

    def _map_error(self, error: Exception) -> Exception | None:
        return _error(error)

    async def _close_client(self) -> None:
        await self._client.close()


def anthropic_from_spec(spec: str) -> AnthropicModel:
    """`anthropic:MODEL[@BASE_URL]`, as a model string."""
    parsed = parse_spec(PROVIDER, spec)
    return AnthropicModel(parsed.model, base_url=parsed.base_url)


def _error(error: Exception) -> ProviderError | None:
    import anthropic
    import httpx2

    if isinstance(error, anthropic.APIStatusError):
        message = api_message(error.body, error.message)
        if error.status_code < 400:
            # An `error` event inside a stream that began with HTTP 200.
            body = error.body if isinstance(error.body, Mapping) else {}
            inner = body.get("error", body)
            kind = inner.get("type") if isinstance(inner, Mapping) else None
            return stream_error(PROVIDER, f"{kind}: {message}", retryable=is_transient_code(kind))
        return status_error(PROVIDER, error.status_code, message, headers=error.response.headers)
    # The SDK lets transport failures inside a stream (a dropped connection) through unwrapped.
    if isinstance(error, anthropic.APIConnectionError | httpx2.TransportError):
        return connection_error(PROVIDER, error.__cause__ or error)
    return None


def _tool_choice(choice: ToolChoice, parallel: bool) -> dict[str, Any]:
    if choice == "none":
        return {"type": "none"}
    out: dict[str, Any]
    if isinstance(choice, NamedToolChoice):
        out = {"type": "tool", "name": wire_name(choice.name)}
    else:
        out = {"type": "any" if choice == "required" else "auto"}
    if not parallel:
        out["disable_parallel_tool_use"] = True
    return out


def _settings(settings: ModelSettings) -> dict[str, Any]:
    # Since API version 2026-10-21 (the SDK's default) the Messages API rejects every sampling
    # parameter, even at its default value; the SDK no longer has them.
    unsupported = [
        name
        for name, value in (
            ("temperature", settings.temperature),
            ("top_p", settings.top_p),
            ("seed", settings.seed),
        )
        if value is not None
    ]
    if unsupported:
        raise UsageError(f"the Messages API ('anthropic:') takes no {', '.join(unsupported)}")
    out: dict[str, Any] = {}
    if settings.stop:
        out["stop_sequences"] = list(settings.stop)
    return out


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    turns = Turns("content")
    for message in messages:
        if message.role == "user":
            turns.add("user", text_blocks(message, _text_block))
        elif message.role == "tool":
            results = [
                {
                    "type": "tool_result",
                    "tool_use_id": wire_id(result.call_id),
                    "content": result.content,
                    **({"is_error": True} if result.is_error else {}),
                }
                for result in message.tool_results
            ]
            turns.add("user", results, leading=True)
        elif message.role == "assistant":
            turns.add("assistant", _assistant_blocks(message))
    return turns.build()


def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _assistant_blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ReasoningPart):
            # Thinking without its signature is rejected: only the API's own blocks go back.
            blocks.extend(dict(b) for b in (part.provider_data or {}).get(THINKING_KEY) or ())
        elif isinstance(part, TextPart):
            if part.text:
                blocks.append(_text_block(part.text))
        elif isinstance(part, ToolCall):
            blocks.append(
                {
                    "type": "tool_use",
                    "id": wire_id(part.id),
                    "name": wire_name(part.name),
                    "input": dict(part.arguments),
                }
            )
    return blocks


class _MessageEvents(StreamTranslator):
    """Messages stream events (SDK objects) to model events."""

    def __init__(self, tools: ToolIndex) -> None:
        super().__init__(tools)
        self._thinking: list[dict[str, Any]] = []  # consecutive thinking blocks so far
        self._input = Usage()
        self._output_tokens = 0
        self._stop_reason: str | None = None

    def feed(self, event: Any) -> list[ModelEvent]:
        kind = event.type
        if kind == "content_block_delta":
            return self._delta(event.index, event.delta)
        if kind == "content_block_start":
            return self._block_start(event.index, event.content_block)
        if kind == "content_block_stop":
            if self._calls.is_open(event.index):
                return self._calls.end(event.index)
            if self._thinking and self._thinking[-1].get("index") == event.index:
                return self._thinking_done()
            return []
        if kind == "message_start":
            usage = event.message.usage
            cached = usage.cache_read_input_tokens or 0
            written = usage.cache_creation_input_tokens or 0
            self._input = Usage(
                input_tokens=usage.input_tokens + cached + written, cached_input_tokens=cached
            )
            self._output_tokens = usage.output_tokens or 0
        elif kind == "message_delta":
            self._stop_reason = event.delta.stop_reason or self._stop_reason
            if event.usage is not None and event.usage.output_tokens is not None:
                self._output_tokens = event.usage.output_tokens
        elif kind == "message_stop":
            return self._message_done()
        return []

    def _block_start(self, index: int, block: Any) -> list[ModelEvent]:
        if block.type == "thinking":
            self._thinking.append(
                {"index": index, "type": "thinking", "thinking": block.thinking, "signature": ""}
            )
            return [ReasoningDelta(text=block.thinking)] if block.thinking else []
        if block.type == "redacted_thinking":
            self._thinking.append({"index": index, "type": "redacted_thinking", "data": block.data})
            return []
        self._thinking = []
        if block.type == "tool_use":
            return self._calls.start(index, block.name, block.id)
        if block.type == "text" and block.text:
            return [TextDelta(text=block.text)]
        return []

    def _delta(self, index: int, delta: Any) -> list[ModelEvent]:
        if delta.type == "text_delta":
            return [TextDelta(text=delta.text)] if delta.text else []
        if delta.type == "input_json_delta":
            return self._calls.arguments(index, delta.partial_json)
        if delta.type == "thinking_delta" and self._thinking:
            self._thinking[-1]["thinking"] += delta.thinking
            return [ReasoningDelta(text=delta.thinking)] if delta.thinking else []
        if delta.type == "signature_delta" and self._thinking:
            self._thinking[-1]["signature"] += delta.signature
        return []

    def _thinking_done(self) -> list[ModelEvent]:
        # The loop merges a reasoning part's provider data key by key: carry every block of the
        # run so far, so the last merge holds them all.
        blocks = [{k: v for k, v in b.items() if k != "index"} for b in self._thinking]
        return [ReasoningDelta(text="", provider_data={THINKING_KEY: blocks})]

    def _message_done(self) -> list[ModelEvent]:
        usage = replace(self._input, output_tokens=self._output_tokens)
        return self._completed(_FINISH.get(self._stop_reason or ""), usage)
