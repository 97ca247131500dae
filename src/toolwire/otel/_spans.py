"""One run's spans, opened and closed as its events arrive (the events the run log records).

    invoke_agent                  the run (INTERNAL)
    ├── chat {model}              one per model request, a retried attempt apart (CLIENT)
    ├── execute_tool {tool}       one per call, from its arguments being complete to its result,
    │                             approval included (INTERNAL); parallel calls overlap
    └── ...

Attribute names follow the OpenTelemetry GenAI semantic conventions; what they do not cover
(stop reasons, approvals, retries) is under `toolwire.*`.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from ..events import (
    ApprovalDecided,
    ApprovalRequested,
    MessageAdded,
    ReasoningDelta,
    ResponseCompleted,
    RetryScheduled,
    RunEvent,
    RunFinished,
    RunStarted,
    StepStarted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallReady,
    ToolCallStarted,
    ToolResultReady,
    UsageReported,
)
from ..messages import Message, Usage
from . import _content
from ._content import Redact

_logger = logging.getLogger("toolwire.otel")

# `provider:model` prefixes whose provider the conventions name; others are passed as they are.
_PROVIDERS = {
    "openai": "openai",
    "openai-chat": "openai",
    "anthropic": "anthropic",
    "gemini": "gcp.gemini",
    "bedrock": "aws.bedrock",
    "local": "llama_cpp",
}
_WRAPPERS = {"prompted"}
"""Prefixes that wrap another model string, whose provider is the wrapped one's."""
_ERROR_CLASS = re.compile(r"([A-Za-z_][\w.]*): ")


def provider_and_model(name: str) -> tuple[str, str]:
    prefix, separator, model = name.partition(":")
    if not separator:
        return name, name
    if prefix in _WRAPPERS and ":" in model:
        return provider_and_model(model)
    return _PROVIDERS.get(prefix, prefix), model


class RunSpans:
    """Called with each event of one run. A failure in here is logged once, never raised, and
    ends the run's tracing: tracing must not break the run it watches, nor flood its log."""

    def __init__(self, tracer: Tracer, redact: Redact, capture_content: bool) -> None:
        self._tracer = tracer
        self._redact = redact
        self._capture = capture_content
        self._agent: Span | None = None
        self._parent: Any = None
        self._base: dict[str, str] = {}
        self._chat_name = "chat"
        self._chat: Span | None = None
        self._chat_usage: Usage | None = None
        self._finish_reason: str | None = None
        self._retry_at: int | None = None
        """When the next attempt of a retried request starts (ns): after the backoff."""
        self._attempt = 0
        self._step = 0
        self._tools: dict[str, Span] = {}
        self._declined: set[str] = set()
        self._messages: list[Message] = []
        self._handlers: dict[type[Any], Callable[[Any], None]] = {
            RunStarted: self._run_started,
            StepStarted: self._step_started,
            TextDelta: self._model_event,
            ReasoningDelta: self._model_event,
            ToolCallStarted: self._model_event,
            ToolCallArgumentsDelta: self._model_event,
            ToolCallFailed: self._model_event,
            UsageReported: self._usage,
            ResponseCompleted: self._response_completed,
            RetryScheduled: self._retry,
            MessageAdded: self._message_added,
            ToolCallReady: self._call_ready,
            ApprovalRequested: self._approval_requested,
            ApprovalDecided: self._approval_decided,
            ToolResultReady: self._result,
            RunFinished: self._run_finished,
        }

    def __call__(self, event: RunEvent) -> None:
        handler = self._handlers.get(type(event))
        if handler is None:
            return
        try:
            handler(event)
        except Exception:
            self._handlers = {}
            _logger.exception(
                "toolwire.otel: could not trace a %s event; this run is not traced further",
                event.kind,
            )

    # --- the run -----------------------------------------------------------------------------

    def _run_started(self, event: RunStarted) -> None:
        provider, model = provider_and_model(event.model)
        self._base = {"gen_ai.provider.name": provider, "gen_ai.request.model": model}
        self._agent = self._tracer.start_span(
            "invoke_agent",
            kind=SpanKind.INTERNAL,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                **self._base,
                "toolwire.run.id": event.run_id,
            },
        )
        if not self._agent.is_recording():
            # No SDK set up, or the run sampled out: its requests and calls would not be
            # recorded either (children follow their parent's sampling), so skip their work.
            self._handlers = {}
            return
        self._parent = trace.set_span_in_context(self._agent)
        self._chat_name = f"chat {model}"

    def _run_finished(self, event: RunFinished) -> None:
        result = event.result
        failed = result.stop_reason in ("error", "cancelled", "timeout")
        error_type = _error_type(result.stop_reason, result.error)
        for span in self._tools.values():
            _fail(span, "interrupted", None)
        self._tools.clear()
        if self._chat is not None or self._retry_at is not None:
            self._close_chat(error_type if failed else None, result.error)
        agent = self._agent
        if agent is None:
            return
        agent.set_attributes(
            {
                "gen_ai.usage.input_tokens": result.usage.input_tokens,
                "gen_ai.usage.output_tokens": result.usage.output_tokens,
                "toolwire.stop_reason": result.stop_reason,
                "toolwire.steps": result.steps,
            }
        )
        if result.finish_reason is not None:
            agent.set_attribute("gen_ai.response.finish_reasons", [result.finish_reason])
        if failed:
            _fail(agent, error_type, result.error and self._redact(result.error))
        agent.end()

    # --- model requests ----------------------------------------------------------------------

    def _step_started(self, event: StepStarted) -> None:
        self._step = event.step
        self._attempt = 0
        self._open_chat(None)

    def _open_chat(self, start_time: int | None) -> Span:
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            **self._base,
            "toolwire.step": self._step,
        }
        if self._attempt:
            attributes["toolwire.retry.attempt"] = self._attempt
        if self._capture:
            messages = self._messages
            attributes["gen_ai.input.messages"] = self._json(_content.input_messages(messages))
            instructions = _content.system_instructions(messages)
            if instructions:
                attributes["gen_ai.system_instructions"] = self._json(instructions)
        self._chat = self._tracer.start_span(
            self._chat_name,
            context=self._parent,
            kind=SpanKind.CLIENT,
            attributes=attributes,
            start_time=start_time,
        )
        self._chat_usage = None
        self._finish_reason = None
        self._retry_at = None
        return self._chat

    def _current_chat(self) -> Span:
        """The open request's span; a retried attempt's opens at its first event, dated from
        the end of its backoff (or now, if that is later than now: a fake clock's sleep)."""
        if self._chat is not None:
            return self._chat
        retry_at = self._retry_at
        return self._open_chat(None if retry_at is None else min(retry_at, time.time_ns()))

    def _model_event(self, event: RunEvent) -> None:
        if self._chat is None:
            self._current_chat()

    def _usage(self, event: UsageReported) -> None:
        self._current_chat()
        usage = self._chat_usage
        self._chat_usage = event.usage if usage is None else usage + event.usage

    def _response_completed(self, event: ResponseCompleted) -> None:
        self._current_chat()
        self._finish_reason = event.finish_reason

    def _retry(self, event: RetryScheduled) -> None:
        # This attempt failed (its span may not be open yet: it failed before its first event).
        self._current_chat()
        self._close_chat("ProviderError", self._redact(event.error))
        self._attempt = event.attempt
        self._retry_at = time.time_ns() + int(event.delay * 1e9)

    def _message_added(self, event: MessageAdded) -> None:
        message = event.message
        if self._capture:
            self._messages.append(message)
        if message.role == "assistant" and self._chat is not None:
            if self._capture:
                output = _content.output_messages(message, self._finish_reason)
                self._chat.set_attribute("gen_ai.output.messages", self._json(output))
            self._close_chat(None, None)

    def _close_chat(self, error_type: str | None, description: str | None) -> None:
        chat = self._current_chat()
        usage = self._chat_usage
        attributes: dict[str, Any] = {}
        if usage is not None:
            attributes["gen_ai.usage.input_tokens"] = usage.input_tokens
            attributes["gen_ai.usage.output_tokens"] = usage.output_tokens
        if self._finish_reason is not None:
            attributes["gen_ai.response.finish_reasons"] = (self._finish_reason,)
        # One call, not three: each takes the span's lock (a step's tracing budget is small).
        chat.set_attributes(attributes)
        if error_type is not None:
            _fail(chat, error_type, description)
        chat.end()
        self._chat = None
        self._retry_at = None

    # --- tool calls --------------------------------------------------------------------------

    def _call_ready(self, event: ToolCallReady) -> None:
        call = event.call
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.type": "function",
            "toolwire.step": event.step,
        }
        if self._capture:
            arguments = _content.call_arguments(call)
            attributes["gen_ai.tool.call.arguments"] = self._json(arguments)
        self._tools[call.id] = self._tracer.start_span(
            f"execute_tool {call.name}",
            context=self._parent,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )

    def _approval_requested(self, event: ApprovalRequested) -> None:
        span = self._tools.get(event.call.id)
        if span is not None:
            span.set_attribute("toolwire.tool.side_effect", event.side_effect)
            span.add_event("toolwire.approval.requested")

    def _approval_decided(self, event: ApprovalDecided) -> None:
        span = self._tools.get(event.call.id)
        if span is None:
            return
        if not event.approved:
            self._declined.add(event.call.id)
        attributes: dict[str, Any] = {
            "toolwire.approval.approved": event.approved,
            "toolwire.approval.decided_by": event.decided_by,
            "toolwire.approval.edited": event.edited_arguments is not None,
        }
        if self._capture and event.edited_arguments is not None:
            edited = self._json(event.edited_arguments)
            attributes["toolwire.approval.edited_arguments"] = edited
        if self._capture and event.message is not None:
            attributes["toolwire.approval.message"] = self._redact(event.message)
        span.set_attributes(attributes)
        span.add_event("toolwire.approval.decided", attributes)

    def _result(self, event: ToolResultReady) -> None:
        call, result = event.call, event.result
        span = self._tools.pop(call.id, None)
        if span is None:
            # A call answered without having been started (its turn was cut off first).
            self._call_ready(ToolCallReady(call=call, step=event.step))
            span = self._tools.pop(call.id)
        if self._capture:
            span.set_attribute("gen_ai.tool.call.result", self._redact(result.content))
        if event.interrupted:
            span.set_attribute("toolwire.tool.interrupted", True)
        if result.is_error:
            description = self._redact(result.content) if self._capture else None
            _fail(span, self._call_error_type(event), description)
        span.end()

    def _call_error_type(self, event: ToolResultReady) -> str:
        if event.interrupted:
            return "interrupted"
        if event.call.id in self._declined:
            self._declined.discard(event.call.id)
            return "declined"
        if event.call.error is not None:
            return "invalid_call"
        return "tool_error"

    def _json(self, value: Any) -> str:
        return _content.to_json(value, self._redact)


def _fail(span: Span, error_type: str, description: str | None) -> None:
    span.set_attribute("error.type", error_type)
    span.set_status(Status(StatusCode.ERROR, description))


def _error_type(stop_reason: str, error: str | None) -> str:
    """A low-cardinality name for why a run failed: the exception's class when the loop caught
    one (its error reads `Class: message`), else the stop reason; a failed model request (the
    loop's only other error) is a `ProviderError`."""
    if stop_reason != "error":
        return stop_reason
    found = _ERROR_CLASS.match(error or "")
    return found.group(1) if found else "ProviderError"
