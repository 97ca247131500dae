"""The one place generated text becomes tool calls: the shared text tool-call scanner
(`toolwire.textcalls`), told the model family's format first, its events mapped to model events."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

from ...events import (
    ModelEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from ...textcalls import (
    ArgumentsDelta,
    CallInvalid,
    CallStarted,
    ContentText,
    ReasoningText,
    ScanEvent,
    Scanner,
)
from ...tools import ToolDefinition

__all__ = ["CallReader", "ScannerFactory", "default_scanner"]

ScannerFactory = Callable[[Sequence[ToolDefinition], str], Scanner]
"""Makes a scanner for these tools that tries this text tool-call profile first."""


def default_scanner(tools: Sequence[ToolDefinition], profile: str) -> Scanner:
    return Scanner(tools, profile=profile)


class CallReader:
    """Feeds generated text through a scanner and yields the model events it settles."""

    def __init__(self, scanner: Scanner) -> None:
        self._scanner = scanner
        self.calls = 0

    def feed(self, text: str) -> Iterator[ModelEvent]:
        return self._map(self._scanner.feed(text))

    def close(self) -> Iterator[ModelEvent]:
        return self._map(self._scanner.close())

    def _map(self, events: Iterable[ScanEvent]) -> Iterator[ModelEvent]:
        for event in events:
            if isinstance(event, ContentText):
                yield TextDelta(text=event.text)
            elif isinstance(event, ReasoningText):
                yield ReasoningDelta(text=event.text)
            elif isinstance(event, CallStarted):
                self.calls += 1
                yield ToolCallStarted(index=event.index, name=event.name)
            elif isinstance(event, ArgumentsDelta):
                yield ToolCallArgumentsDelta(index=event.index, delta=event.delta)
            elif isinstance(event, CallInvalid):
                yield ToolCallFailed(index=event.index, reason=event.reason)
            # A completed call needs nothing more: its deltas already are its arguments.
