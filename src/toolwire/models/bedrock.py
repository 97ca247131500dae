"""`bedrock:MODEL_ID`: models on AWS Bedrock through Converse / ConverseStream (boto3).

boto3 is synchronous: each call and each read of the event stream runs in a worker thread. Families
that cannot call tools while streaming (see `BedrockProfile`) use Converse when tools are offered,
and its reply is replayed as the same events. Converse has no parallel-calls switch, and no
`tool_choice="none"`: with "none" the tools are left out, unless the history holds tool blocks
(Bedrock then requires the tool list, and the model is free to call).
"""

from __future__ import annotations

import base64
import functools
import json
import os
from collections.abc import AsyncGenerator, Iterator, Mapping, Sequence
from typing import Any, Protocol

import anyio.to_thread

from ..errors import ProviderError, UsageError
from ..events import FinishReason, ModelEvent, ReasoningDelta, TextDelta
from ..messages import Message, ReasoningPart, TextPart, ToolCall, Usage
from ._adapter import Prepared, SdkAdapter, StreamTranslator, settings_fields
from ._base import ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._connect import missing_extra, parse_spec
from ._history import Turns, system_text, text_blocks
from ._http_errors import connection_error, is_transient_code, status_error, stream_error
from ._names import wire_id, wire_name
from ._tools import ToolIndex, WireTool
from .profiles import BedrockProfile, bedrock_profile

__all__ = ["BedrockClient", "BedrockModel", "bedrock_from_spec"]

PROVIDER = "bedrock"
REASONING_KEY = "bedrock_reasoning"
"""`ReasoningPart.provider_data[REASONING_KEY]`: the reasoning blocks (redacted ones base64)."""

_FINISH: dict[str, FinishReason] = {
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "guardrail_intervened": "content_filter",
    "content_filtered": "content_filter",
}
_UNUSABLE = frozenset({"malformed_tool_use", "malformed_model_output"})


class BedrockClient(Protocol):
    """What the adapter needs of a boto3 `bedrock-runtime` client."""

    def converse(self, **kwargs: Any) -> Mapping[str, Any]: ...

    def converse_stream(self, **kwargs: Any) -> Mapping[str, Any]: ...

    def close(self) -> None: ...


class BedrockModel(SdkAdapter[BedrockClient, BedrockProfile]):
    """A model on Bedrock. Credentials and region come from boto3's usual chain (environment,
    profile, role; `AWS_BEARER_TOKEN_BEDROCK` for Bedrock API keys). `client` (a boto3
    `bedrock-runtime` client with retries off) replaces `region`, `endpoint_url` and `timeout`."""

    _provider = PROVIDER
    _default_profile = staticmethod(bedrock_profile)

    def __init__(
        self,
        model: str,
        *,
        region: str | None = None,
        endpoint_url: str | None = None,
        client: BedrockClient | None = None,
        profile: BedrockProfile | None = None,
        timeout: float | None = None,
    ) -> None:
        connect = functools.partial(_client, region, endpoint_url, timeout)
        super().__init__(model, client, connect, profile)

    @staticmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        return {
            "toolSpec": {
                "name": tool.wire_name,
                "description": tool.description,
                "inputSchema": {"json": tool.schema},
            }
        }

    def _prepare(self, request: ModelRequest) -> Prepared:
        """The keyword arguments of the Converse call (redacted reasoning as bytes), the settings'
        `extra` among them as `additionalModelRequestFields`."""
        tools = self._tools.translate(request.tools)
        messages = _messages(request.messages)
        kwargs: dict[str, Any] = {"modelId": self.model, "messages": messages}
        system = system_text(request.messages)
        if system:
            kwargs["system"] = [{"text": system}]
        if tools.payload and (request.tool_choice != "none" or _has_tool_blocks(messages)):
            config: dict[str, Any] = {"tools": tools.payload}
            if request.tool_choice != "none":
                config["toolChoice"] = self._tool_choice(request.tool_choice)
            kwargs["toolConfig"] = config
        inference = _inference(request.settings)
        if inference:
            kwargs["inferenceConfig"] = inference
        if request.settings.extra:
            kwargs["additionalModelRequestFields"] = dict(request.settings.extra)
        return Prepared(kwargs, {}, _ConverseEvents(tools))

    def _send(self, prepared: Prepared) -> AsyncGenerator[Mapping[str, Any], None]:
        if self.profile.stream_tool_use or "toolConfig" not in prepared.body:
            return self._stream_events(prepared.body)
        return self._converse_events(prepared.body)

    async def _stream_events(
        self, kwargs: dict[str, Any]
    ) -> AsyncGenerator[Mapping[str, Any], None]:
        response = await anyio.to_thread.run_sync(
            functools.partial(self._client.converse_stream, **kwargs), abandon_on_cancel=True
        )
        stream = response["stream"]
        try:
            events: Iterator[Mapping[str, Any]] = iter(stream)
            while True:
                event = await anyio.to_thread.run_sync(next, events, None, abandon_on_cancel=True)
                if event is None:
                    return
                yield event
        finally:
            stream.close()

    async def _converse_events(
        self, kwargs: dict[str, Any]
    ) -> AsyncGenerator[Mapping[str, Any], None]:
        """Converse's whole reply, as the events ConverseStream would have sent."""
        response = await anyio.to_thread.run_sync(
            functools.partial(self._client.converse, **kwargs), abandon_on_cancel=True
        )
        for event in _converse_as_stream(response):
            yield event

    def _map_error(self, error: Exception) -> Exception | None:
        return _error(error)

    async def _close_client(self) -> None:
        self._client.close()

    def _tool_choice(self, choice: ToolChoice) -> dict[str, Any]:
        if choice == "auto":
            return {"auto": {}}
        if not self.profile.forced_tool_choice:
            raise UsageError(
                f"{self.name} cannot be made to call a tool (tool_choice={choice!r}): Bedrock "
                f"accepts only 'auto' for this model family"
            )
        if isinstance(choice, NamedToolChoice):
            return {"tool": {"name": wire_name(choice.name)}}
        return {"any": {}}


def bedrock_from_spec(spec: str) -> BedrockModel:
    """`bedrock:MODEL_ID[@ENDPOINT_URL]`, as a model string."""
    parsed = parse_spec(PROVIDER, spec)
    return BedrockModel(parsed.model, endpoint_url=parsed.base_url)


def _client(region: str | None, endpoint_url: str | None, timeout: float | None) -> BedrockClient:
    try:
        import boto3  # type: ignore[import-untyped]
        import botocore.config  # type: ignore[import-untyped]
        import botocore.exceptions  # type: ignore[import-untyped]
    except ImportError as error:
        raise missing_extra(PROVIDER, "bedrock", error) from None
    region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
    if region is None and endpoint_url is not None:
        region = "us-east-1"  # a custom endpoint still needs a region to sign with
    config = botocore.config.Config(
        retries={"total_max_attempts": 1, "mode": "standard"},
        read_timeout=timeout or 300,
    )
    try:
        client: BedrockClient = boto3.client(
            "bedrock-runtime", region_name=region, endpoint_url=endpoint_url, config=config
        )
    except botocore.exceptions.NoRegionError:
        raise UsageError("'bedrock:' needs a region: set AWS_REGION (or pass region=)") from None
    return client


def _error(error: Exception) -> ProviderError | UsageError | None:
    import botocore.exceptions
    import urllib3.exceptions

    if isinstance(error, botocore.exceptions.EventStreamError):
        code = error.response.get("Error", {}).get("Code")
        message = error.response.get("Error", {}).get("Message") or str(error)
        return stream_error(PROVIDER, f"{code}: {message}", retryable=is_transient_code(code))
    if isinstance(error, botocore.exceptions.ClientError):
        metadata = error.response.get("ResponseMetadata", {})
        message = error.response.get("Error", {}).get("Message") or str(error)
        return status_error(
            PROVIDER,
            metadata.get("HTTPStatusCode") or 400,
            message,
            headers=metadata.get("HTTPHeaders"),
        )
    if isinstance(error, botocore.exceptions.NoCredentialsError):
        return UsageError(f"'bedrock:' found no AWS credentials: {error}")
    # Reading the event stream, botocore lets urllib3's errors (a dropped connection) through.
    transport = (
        botocore.exceptions.HTTPClientError,
        botocore.exceptions.ConnectionError,
        urllib3.exceptions.HTTPError,
    )
    if isinstance(error, transport):
        return connection_error(PROVIDER, error)
    return None


def _inference(settings: ModelSettings) -> dict[str, Any]:
    if settings.seed is not None:
        raise UsageError("Bedrock Converse ('bedrock:') takes no seed")
    return settings_fields(
        settings,
        {
            "max_output_tokens": "maxTokens",
            "temperature": "temperature",
            "top_p": "topP",
            "stop": "stopSequences",
        },
    )


def _messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    turns = Turns("content")
    for message in messages:
        if message.role == "user":
            turns.add("user", text_blocks(message, _text_block))
        elif message.role == "tool":
            results = [
                {
                    "toolResult": {
                        "toolUseId": wire_id(result.call_id),
                        # Bedrock rejects a blank text block.
                        "content": [{"text": result.content or "(empty result)"}],
                        "status": "error" if result.is_error else "success",
                    }
                }
                for result in message.tool_results
            ]
            turns.add("user", results, leading=True)
        elif message.role == "assistant":
            turns.add("assistant", _assistant_blocks(message))
    return turns.build()


def _text_block(text: str) -> dict[str, Any]:
    return {"text": text}


def _assistant_blocks(message: Message) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, ReasoningPart):
            stored = (part.provider_data or {}).get(REASONING_KEY) or ()
            blocks.extend({"reasoningContent": _reasoning_block(b)} for b in stored)
        elif isinstance(part, TextPart):
            if part.text:
                blocks.append(_text_block(part.text))
        elif isinstance(part, ToolCall):
            blocks.append(
                {
                    "toolUse": {
                        "toolUseId": wire_id(part.id),
                        "name": wire_name(part.name),
                        "input": dict(part.arguments),
                    }
                }
            )
    return blocks


def _reasoning_block(stored: Mapping[str, Any]) -> dict[str, Any]:
    if "redactedContent" in stored:
        return {"redactedContent": base64.b64decode(stored["redactedContent"])}
    return {"reasoningText": dict(stored["reasoningText"])}


def _has_tool_blocks(messages: Sequence[Mapping[str, Any]]) -> bool:
    return any(
        "toolUse" in block or "toolResult" in block
        for message in messages
        for block in message["content"]
    )


def _converse_as_stream(response: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """A Converse reply as the ConverseStream events it would have been."""
    content = response.get("output", {}).get("message", {}).get("content") or ()
    for index, block in enumerate(content):
        if "toolUse" in block:
            use = block["toolUse"]
            start = {"toolUseId": use["toolUseId"], "name": use["name"]}
            yield {"contentBlockStart": {"contentBlockIndex": index, "start": {"toolUse": start}}}
            arguments = json.dumps(use.get("input") or {}, ensure_ascii=False)
            yield _delta(index, {"toolUse": {"input": arguments}})
        elif "text" in block:
            yield _delta(index, {"text": block["text"]})
        elif "reasoningContent" in block:
            reasoning = block["reasoningContent"]
            if "redactedContent" in reasoning:
                yield _delta(index, {"reasoningContent": reasoning})
            else:
                text = reasoning.get("reasoningText", {})
                yield _delta(index, {"reasoningContent": {"text": text.get("text", "")}})
                if text.get("signature"):
                    yield _delta(index, {"reasoningContent": {"signature": text["signature"]}})
        yield {"contentBlockStop": {"contentBlockIndex": index}}
    yield {"messageStop": {"stopReason": response.get("stopReason")}}
    if "usage" in response:
        yield {"metadata": {"usage": response["usage"]}}


def _delta(index: int, delta: Mapping[str, Any]) -> Mapping[str, Any]:
    return {"contentBlockDelta": {"contentBlockIndex": index, "delta": delta}}


class _ConverseEvents(StreamTranslator):
    """ConverseStream events (plain dicts from boto3) to model events."""

    def __init__(self, tools: ToolIndex) -> None:
        super().__init__(tools)
        self._reasoning: list[dict[str, Any]] = []  # consecutive reasoning blocks so far
        self._reasoning_index: int | None = None
        self._stop_reason: str | None = None
        self._usage: Mapping[str, Any] | None = None

    def feed(self, event: Mapping[str, Any]) -> list[ModelEvent]:
        if "contentBlockDelta" in event:
            body = event["contentBlockDelta"]
            return self._delta(body["contentBlockIndex"], body["delta"])
        if "contentBlockStart" in event:
            body = event["contentBlockStart"]
            use = body.get("start", {}).get("toolUse")
            if use is None:
                return []
            self._reasoning = []
            return self._calls.start(body["contentBlockIndex"], use["name"], use["toolUseId"])
        if "contentBlockStop" in event:
            index = event["contentBlockStop"]["contentBlockIndex"]
            if self._calls.is_open(index):
                return self._calls.end(index)
            if index == self._reasoning_index:
                self._reasoning_index = None
                blocks = [dict(block) for block in self._reasoning]
                return [ReasoningDelta(text="", provider_data={REASONING_KEY: blocks})]
            return []
        if "messageStop" in event:
            self._stop_reason = event["messageStop"].get("stopReason") or "end_turn"
        elif "metadata" in event:
            self._usage = event["metadata"].get("usage")
        return []

    def _delta(self, index: int, delta: Mapping[str, Any]) -> list[ModelEvent]:
        if "toolUse" in delta:
            return self._calls.arguments(index, delta["toolUse"].get("input") or "")
        if "reasoningContent" in delta:
            return self._reasoning_delta(index, delta["reasoningContent"])
        if "text" in delta:
            self._reasoning = []
            return [TextDelta(text=delta["text"])] if delta["text"] else []
        return []

    def _reasoning_delta(self, index: int, delta: Mapping[str, Any]) -> list[ModelEvent]:
        if index != self._reasoning_index:
            self._reasoning_index = index
            self._reasoning.append({})
        block = self._reasoning[-1]
        if "redactedContent" in delta:
            block["redactedContent"] = base64.b64encode(delta["redactedContent"]).decode("ascii")
            return []
        text = block.setdefault("reasoningText", {"text": ""})
        if "signature" in delta:
            text["signature"] = text.get("signature", "") + delta["signature"]
            return []
        text["text"] += delta.get("text", "")
        return [ReasoningDelta(text=delta["text"])] if delta.get("text") else []

    def finish(self) -> list[ModelEvent]:
        if self._stop_reason is None:
            return []  # the stream ended before the model finished: the loop retries
        if self._stop_reason in _UNUSABLE:
            raise stream_error(
                PROVIDER, f"the model wrote an unusable reply ({self._stop_reason})", retryable=True
            )
        return self._completed(_FINISH.get(self._stop_reason), _usage(self._usage))


def _usage(usage: Mapping[str, Any] | None) -> Usage | None:
    if usage is None:
        return None
    cached = usage.get("cacheReadInputTokens") or 0
    written = usage.get("cacheWriteInputTokens") or 0
    return Usage(
        input_tokens=(usage.get("inputTokens") or 0) + cached + written,
        output_tokens=usage.get("outputTokens") or 0,
        cached_input_tokens=cached,
    )
