"""The hook through which a run is watched by a tracing system (`toolwire.otel` is one).

It lives in the core, apart from any tracing library, so that a process that never turns tracing
on pays nothing: no import, and no handler in the run's event path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from .events import RunEvent


class Telemetry(Protocol):
    """Watches runs. `watch` is called once per run, before its first event, with a function that
    removes the run's secrets (its deps' strings, secret environment values, known key shapes)
    from any text; it returns the handler that then receives every event of that run."""

    def watch(self, run_id: str, redact: Callable[[str], str]) -> Callable[[RunEvent], None]: ...


_installed: Telemetry | None = None


def install(telemetry: Telemetry | None) -> None:
    """Make `telemetry` watch every run of every agent that has none of its own (None: stop)."""
    global _installed
    _installed = telemetry


def installed() -> Telemetry | None:
    return _installed
