"""Runs as OpenTelemetry traces, in the GenAI semantic conventions (`pip install 'toolwire[otel]'`).

    import toolwire.otel
    toolwire.otel.instrument()          # every agent's runs, to the global tracer provider

    Agent(model, tools, telemetry=toolwire.otel.OpenTelemetry())     # or one agent's

Each run is an `invoke_agent` span with a `chat {model}` span per model request and an
`execute_tool {tool}` span per call. toolwire depends on the OpenTelemetry API only: the
application sets up the SDK and an exporter (`toolwire run --otel` does, for OTLP over HTTP).

Message and argument content is left out unless asked for (`capture_content=True`, or
`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`): it may hold personal data. Either way,
a run's secrets (its deps, which tools get injected, the values of secret-named environment
variables, key-shaped strings) are redacted from everything exported.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import _telemetry
from .._version import installed_version
from ..errors import UsageError
from ..events import RunEvent

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = ["CAPTURE_CONTENT_ENV", "OpenTelemetry", "instrument", "uninstrument"]

CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT"
_CAPTURE_VALUES = {"true", "1", "span_only", "span_and_event"}
"""The values other GenAI instrumentations read as "record content on spans"."""


class OpenTelemetry:
    """Traces runs through `tracer_provider` (default: the global one, set by the application).
    `capture_content` adds the messages, the calls' arguments and results, and approvers' edits
    and messages (default: from `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT`)."""

    def __init__(
        self,
        *,
        tracer_provider: TracerProvider | None = None,
        capture_content: bool | None = None,
    ) -> None:
        try:
            from opentelemetry import trace
        except ImportError:
            raise UsageError("tracing needs OpenTelemetry: pip install 'toolwire[otel]'") from None
        from ._spans import RunSpans

        if capture_content is None:
            capture_content = os.environ.get(CAPTURE_CONTENT_ENV, "").lower() in _CAPTURE_VALUES
        self.capture_content = capture_content
        self._tracer = trace.get_tracer(
            "toolwire", installed_version(), tracer_provider=tracer_provider
        )
        self._spans = RunSpans

    def watch(self, run_id: str, redact: Callable[[str], str]) -> Callable[[RunEvent], None]:
        return self._spans(self._tracer, redact, self.capture_content)


def instrument(
    *, tracer_provider: TracerProvider | None = None, capture_content: bool | None = None
) -> OpenTelemetry:
    """Trace every run of every agent that has no `telemetry` of its own; returns the tracer."""
    telemetry = OpenTelemetry(tracer_provider=tracer_provider, capture_content=capture_content)
    _telemetry.install(telemetry)
    return telemetry


def uninstrument() -> None:
    """Stop what `instrument` started; agents given their own `telemetry` keep it."""
    _telemetry.install(None)
