"""A model's event stream, assembled into one assistant message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ._untrusted import load_json, safe_text
from .clock import IdSource
from .errors import ProviderError
from .events import (
    CallCorrected,
    FinishReason,
    ModelEvent,
    ReasoningDelta,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallStarted,
    UsageReported,
)
from .messages import Message, Part, ReasoningPart, TextPart, ToolCall, Usage


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelResponse:
    """One model request's outcome: serializable, the unit a durable engine records."""

    message: Message
    finish_reason: FinishReason
    usage: Usage


@dataclass(slots=True)
class _PendingCall:
    id: str
    name: str
    provider_data: Mapping[str, Any] | None
    chunks: list[str] = field(default_factory=list)
    failure: str | None = None


class ResponseBuilder:
    """Collects streamed events in order. Text and reasoning runs become one part each; calls sit
    where they started. A call runs only if its complete argument text parses to an object.
    Every text the model sent enters here, and is made writable here (`safe_text`)."""

    def __init__(self, ids: IdSource) -> None:
        self._ids = ids
        self._parts: list[Part | _PendingCall] = []
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._reasoning_data: Mapping[str, Any] | None = None
        self._calls: dict[int, _PendingCall] = {}
        self._usage = Usage()
        self._completed: ResponseCompleted | None = None

    def add(self, event: ModelEvent) -> ModelEvent:
        """Take one event; returns it as consumers should see it (with the call's id in the run:
        filled in when the provider sent none, replaced when this run already used it)."""
        event = _writable(event)
        if isinstance(event, TextDelta):
            self._flush_reasoning()
            self._text.append(event.text)
        elif isinstance(event, ReasoningDelta):
            self._flush_text()
            self._reasoning.append(event.text)
            if event.provider_data is not None:
                self._reasoning_data = {**(self._reasoning_data or {}), **event.provider_data}
        elif isinstance(event, ToolCallStarted):
            self._flush_text()
            self._flush_reasoning()
            call_id = self._ids.call_id(event.id)
            if call_id != event.id:
                event = ToolCallStarted(
                    index=event.index,
                    name=event.name,
                    id=call_id,
                    provider_data=event.provider_data,
                )
            pending = _PendingCall(call_id, event.name, event.provider_data)
            self._calls[event.index] = pending
            self._parts.append(pending)
        elif isinstance(event, ToolCallArgumentsDelta):
            self._pending(event.index).chunks.append(event.delta)
        elif isinstance(event, ToolCallFailed):
            self._pending(event.index).failure = event.reason
        elif isinstance(event, CallCorrected):
            if event.index is not None:
                event = replace(event, id=self._pending(event.index).id)
        elif isinstance(event, UsageReported):
            self._usage = self._usage + event.usage
        else:
            self._completed = event
        return event

    def _pending(self, index: int) -> _PendingCall:
        pending = self._calls.get(index)
        if pending is None:
            raise ProviderError(
                f"malformed stream: an event for unknown call index {index}", retryable=True
            )
        return pending

    def finish(self) -> ModelResponse:
        if self._completed is None:
            raise ProviderError("the response stream ended early", retryable=True)
        self._flush_text()
        self._flush_reasoning()
        cut_off = self._completed.finish_reason == "length"
        parts = tuple(
            _finish_call(p, cut_off) if isinstance(p, _PendingCall) else p for p in self._parts
        )
        usage = self._usage if self._usage.requests else self._usage + Usage(requests=1)
        message = Message(
            role="assistant", parts=parts, provider_data=self._completed.provider_data
        )
        return ModelResponse(
            message=message, finish_reason=self._completed.finish_reason, usage=usage
        )

    def _flush_text(self) -> None:
        if self._text:
            self._parts.append(TextPart(text="".join(self._text)))
            self._text.clear()

    def _flush_reasoning(self) -> None:
        if self._reasoning or self._reasoning_data:
            text = "".join(self._reasoning)
            self._parts.append(ReasoningPart(text=text, provider_data=self._reasoning_data))
            self._reasoning.clear()
            self._reasoning_data = None


def _writable(event: ModelEvent) -> ModelEvent:
    if isinstance(event, TextDelta | ReasoningDelta):
        return replace(event, text=safe_text(event.text))
    if isinstance(event, ToolCallStarted):
        return replace(event, name=safe_text(event.name))
    if isinstance(event, ToolCallArgumentsDelta):
        return replace(event, delta=safe_text(event.delta))
    if isinstance(event, ToolCallFailed):
        return replace(event, reason=safe_text(event.reason))
    return event


def _finish_call(pending: _PendingCall, cut_off: bool) -> ToolCall:
    raw = "".join(pending.chunks)
    arguments: Any = {}
    error = None
    try:
        arguments = load_json(raw) if raw.strip() else {}
    except ValueError as unusable:
        error = f"The arguments are {unusable}; not run."
    if error is None and not isinstance(arguments, dict):
        error = "The arguments must be a JSON object of parameter names to values; not run."
    if pending.failure is not None or error is not None:
        arguments = {}
        if cut_off:
            error = (
                "The reply was cut off (length limit) while this call was being written, so it "
                "was not run. Write the call again, shorter."
            )
        elif pending.failure is not None:
            error = f"This call could not be read ({pending.failure}), so it was not run."
    return ToolCall(
        id=pending.id,
        name=pending.name,
        arguments=arguments,
        raw_arguments=raw,
        error=error,
        provider_data=pending.provider_data,
    )
