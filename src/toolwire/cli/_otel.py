"""`--otel`: the CLI is an application, so it sets up the OpenTelemetry SDK itself and exports its
runs' spans over OTLP/HTTP to where the standard variables say (`OTEL_EXPORTER_OTLP_ENDPOINT`,
`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`; the exporter reads them, default http://localhost:4318)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from ..errors import UsageError

SERVICE_NAME = "toolwire"


@contextmanager
def otlp_export(enabled: bool) -> Iterator[None]:
    """Every run inside is traced and exported; the spans still queued are sent on the way out,
    whatever ends the command (Ctrl-C included)."""
    if not enabled:
        yield
        return
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise UsageError("--otel needs OpenTelemetry: pip install 'toolwire[otel]'") from None
    from .. import otel

    name = os.environ.get("OTEL_SERVICE_NAME") or SERVICE_NAME
    provider = TracerProvider(resource=Resource.create({"service.name": name}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    otel.instrument(tracer_provider=provider)
    try:
        yield
    finally:
        otel.uninstrument()
        provider.shutdown()
