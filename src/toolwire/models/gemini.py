"""`gemini:MODEL`: Gemini through the google-genai SDK (the Gemini API, or Vertex AI when the SDK's
environment says so).

Tool schemas go out in Gemini's OpenAPI subset; one it cannot express goes out whole as
`parameters_json_schema`. Thought signatures, which Gemini needs back with the calls they came
with, ride in `ToolCall.provider_data` (and, for a text answer, in the message's). Gemini has no
switch for parallel calls: `parallel_tool_calls=False` is not enforced by the API.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import AsyncGenerator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..errors import ProviderError, UsageError
from ..events import FinishReason, ModelEvent, ReasoningDelta, TextDelta
from ..messages import Message, TextPart, ToolCall, Usage
from ._adapter import KeyedAdapter, Prepared, SettingName, StreamTranslator, settings_fields
from ._base import ModelProfile, ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._connect import key_or_placeholder, missing_extra, parse_spec
from ._history import Turns, system_text
from ._http_errors import api_message, connection_error, status_error, stream_error
from ._names import wire_name
from ._tools import ToolIndex, WireTool
from .profiles import gemini_profile

if TYPE_CHECKING:
    from google.genai import Client

__all__ = ["GeminiModel", "gemini_from_spec"]

PROVIDER = "gemini"
SIGNATURE_KEY = "thought_signature"
"""`ToolCall.provider_data[SIGNATURE_KEY]` (base64): the signature Gemini sent with the call."""
CALL_ID_KEY = "gemini_call_id"
"""`ToolCall.provider_data[CALL_ID_KEY]`: the id Gemini gave the call (it does not always)."""
TEXT_SIGNATURE_KEY = "gemini_text_signature"
"""`Message.provider_data[TEXT_SIGNATURE_KEY]` (base64): a signature sent with the answer's text."""

_FINISH: dict[str, FinishReason] = {
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
}
_MODES = {"auto": "AUTO", "required": "ANY", "none": "NONE"}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)s")


class GeminiModel(KeyedAdapter["Client", ModelProfile]):
    """Gemini through `google.genai`. `client` (a `google.genai.Client`, with
    `HttpRetryOptions(attempts=1)`) replaces `api_key`, `base_url` and `timeout`."""

    _provider = PROVIDER
    _letter_first = True
    _default_profile = staticmethod(gemini_profile)

    @staticmethod
    def _connect(api_key: str | None, base_url: str | None, timeout: float | None) -> Client:
        try:
            from google import genai
            from google.genai import types
        except ImportError as error:
            raise missing_extra(PROVIDER, "gemini", error) from None
        # On Vertex AI, Google Cloud credentials can stand in for a key.
        if os.environ.get("GOOGLE_GENAI_USE_VERTEXAI", "").lower() not in ("1", "true"):
            api_key = key_or_placeholder(
                api_key,
                base_url,
                key_variables=("GEMINI_API_KEY", "GOOGLE_API_KEY"),
                base_url_variable="GOOGLE_GEMINI_BASE_URL",
                missing="'gemini:' needs an API key: set GEMINI_API_KEY (or pass api_key=)",
            )
        options = types.HttpOptions(
            base_url=base_url,
            retry_options=types.HttpRetryOptions(attempts=1),
            timeout=None if timeout is None else int(timeout * 1000),
        )
        return genai.Client(api_key=api_key, http_options=options)

    @staticmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        declaration: dict[str, Any] = {"name": tool.wire_name, "description": tool.description}
        if tool.schema is not None:
            field = "parameters_json_schema" if tool.full_schema else "parameters"
            declaration[field] = tool.schema
        return declaration

    def _prepare(self, request: ModelRequest) -> Prepared:
        """The SDK's arguments, in its field names: `model`, `contents` and `config` (which holds
        the settings' `extra`)."""
        tools = self._tools.translate(request.tools)
        config: dict[str, Any] = {}
        system = system_text(request.messages)
        if system:
            config["system_instruction"] = system
        if tools.payload:
            config["tools"] = [{"function_declarations": tools.payload}]
            config["tool_config"] = {"function_calling_config": _tool_choice(request.tool_choice)}
        config.update(_settings(request.settings))
        config.update(request.settings.extra)
        body = {"model": self.model, "contents": _contents(request.messages), "config": config}
        return Prepared(body, {}, _ChunkEvents(tools))

    async def _send(self, prepared: Prepared) -> AsyncGenerator[Any, None]:
        chunks = await self._client.aio.models.generate_content_stream(**prepared.body)
        async for chunk in chunks:
            yield chunk

    def _map_error(self, error: Exception) -> Exception | None:
        return _error(error)

    async def _close_client(self) -> None:
        await self._client.aio.aclose()


def gemini_from_spec(spec: str) -> GeminiModel:
    """`gemini:MODEL[@BASE_URL]`, as a model string."""
    parsed = parse_spec(PROVIDER, spec)
    return GeminiModel(parsed.model, base_url=parsed.base_url)


def _error(error: Exception) -> ProviderError | UsageError | None:
    import httpx2
    import pydantic
    from google.genai import errors

    if isinstance(error, errors.APIError):
        headers = getattr(error.response, "headers", None)
        message = api_message(error.details, error.message or str(error))
        return status_error(
            PROVIDER,
            error.code,
            message,
            headers=headers,
            retry_after_seconds=_retry_delay(error.details),
        )
    if isinstance(error, httpx2.TransportError):
        return connection_error(PROVIDER, error)
    if isinstance(error, pydantic.ValidationError):
        return UsageError(f"gemini: the request does not fit the SDK's types: {error}")
    return None


def _retry_delay(details: object) -> float | None:
    """The `RetryInfo.retryDelay` ("19s") Google APIs put in a 429's error details."""
    error = details.get("error") if isinstance(details, Mapping) else None
    for detail in (error or {}).get("details") or ():
        delay = detail.get("retryDelay") if isinstance(detail, Mapping) else None
        match = _DURATION.fullmatch(delay) if isinstance(delay, str) else None
        if match:
            return float(match[1])
    return None


def _tool_choice(choice: ToolChoice) -> dict[str, Any]:
    if isinstance(choice, NamedToolChoice):
        name = wire_name(choice.name, letter_first=True)
        return {"mode": "ANY", "allowed_function_names": [name]}
    return {"mode": _MODES[choice]}


def _settings(settings: ModelSettings) -> dict[str, Any]:
    fields: dict[SettingName, str] = {
        "max_output_tokens": "max_output_tokens",
        "temperature": "temperature",
        "top_p": "top_p",
        "seed": "seed",
        "stop": "stop_sequences",
    }
    return settings_fields(settings, fields)


def _contents(messages: Sequence[Message]) -> list[dict[str, Any]]:
    turns = Turns("parts")
    ids_from_api: set[str] = set()
    for message in messages:
        if message.role == "user":
            turns.add("user", [{"text": message.text}] if message.text else [])
        elif message.role == "assistant":
            turns.add("model", _model_parts(message, ids_from_api))
        elif message.role == "tool":
            responses = []
            for result in message.tool_results:
                response: dict[str, Any] = {
                    "name": wire_name(result.name, letter_first=True),
                    "response": {"error" if result.is_error else "result": result.content},
                }
                if result.call_id in ids_from_api:
                    response["id"] = result.call_id
                responses.append({"function_response": response})
            turns.add("user", responses, leading=True)
    return turns.build()


def _model_parts(message: Message, ids_from_api: set[str]) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    last_text: dict[str, Any] | None = None
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            last_text = {"text": part.text}
            parts.append(last_text)
        elif isinstance(part, ToolCall):
            parts.append(_call_part(part, ids_from_api))
    signature = (message.provider_data or {}).get(TEXT_SIGNATURE_KEY)
    if last_text is not None and isinstance(signature, str):
        last_text["thought_signature"] = base64.b64decode(signature)
    return parts


def _call_part(call: ToolCall, ids_from_api: set[str]) -> dict[str, Any]:
    data = call.provider_data or {}
    function_call: dict[str, Any] = {
        "name": wire_name(call.name, letter_first=True),
        "args": dict(call.arguments),
    }
    if data.get(CALL_ID_KEY) == call.id:
        function_call["id"] = call.id
        ids_from_api.add(call.id)
    part: dict[str, Any] = {"function_call": function_call}
    if isinstance(data.get(SIGNATURE_KEY), str):
        part["thought_signature"] = base64.b64decode(data[SIGNATURE_KEY])
    return part


class _ChunkEvents(StreamTranslator):
    """`GenerateContentResponse` chunks (SDK objects) to model events. Gemini sends each call
    whole, its arguments as an object."""

    def __init__(self, tools: ToolIndex) -> None:
        super().__init__(tools)
        self._finish: str | None = None
        self._usage: Any = None
        self._text_signature: str | None = None

    def feed(self, chunk: Any) -> list[ModelEvent]:
        if chunk.usage_metadata is not None:
            self._usage = chunk.usage_metadata
        feedback = chunk.prompt_feedback
        if feedback is not None and feedback.block_reason:
            self._finish = "SAFETY"
        events: list[ModelEvent] = []
        for candidate in (chunk.candidates or ())[:1]:
            content = candidate.content
            for part in (content.parts if content is not None else None) or ():
                events.extend(self._part(part))
            if candidate.finish_reason:
                self._finish = _enum_name(candidate.finish_reason)
        return events

    def _part(self, part: Any) -> list[ModelEvent]:
        signature = _b64(part.thought_signature)
        call = part.function_call
        if call is not None:
            data: dict[str, Any] = {}
            if call.id:
                data[CALL_ID_KEY] = call.id
            if signature:
                data[SIGNATURE_KEY] = signature
            key = self._calls.count
            return [
                *self._calls.start(key, call.name or "", call.id, data or None),
                *self._calls.end(key, json.dumps(call.args or {}, ensure_ascii=False)),
            ]
        if signature:
            self._text_signature = signature
        if not part.text:
            return []
        return [ReasoningDelta(text=part.text) if part.thought else TextDelta(text=part.text)]

    def finish(self) -> list[ModelEvent]:
        if self._finish is None:
            return []  # the stream ended before the model finished: the loop retries
        if self._finish in ("MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL"):
            raise stream_error(
                PROVIDER, f"the model wrote an unusable call ({self._finish})", retryable=True
            )
        data = {TEXT_SIGNATURE_KEY: self._text_signature} if self._text_signature else None
        return self._completed(_FINISH.get(self._finish), _usage(self._usage), data)


def _usage(usage: Any) -> Usage | None:
    if usage is None:
        return None
    return Usage(
        input_tokens=(usage.prompt_token_count or 0) + (usage.tool_use_prompt_token_count or 0),
        output_tokens=(usage.candidates_token_count or 0) + (usage.thoughts_token_count or 0),
        cached_input_tokens=usage.cached_content_token_count or 0,
    )


def _enum_name(value: Any) -> str:
    return str(getattr(value, "value", value))


def _b64(value: bytes | None) -> str | None:
    return base64.b64encode(value).decode("ascii") if value else None
