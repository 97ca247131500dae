"""Scanner events as the model events a native adapter streams."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..events import (
    FinishReason,
    ModelEvent,
    ReasoningDelta,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallStarted,
)
from ._events import ArgumentsDelta, CallInvalid, CallStarted, ContentText, ReasoningText, ScanEvent
from ._scanner import Scanner

__all__ = ["ModelEventReader"]


class ModelEventReader:
    """Reads a model's text through `scanner` into model events (text, reasoning, calls
    started, their arguments, calls that cannot run), with call indexes shared with any calls
    the model also makes natively."""

    def __init__(self, scanner: Scanner) -> None:
        self.scanner = scanner
        self._indexes: dict[int, int] = {}  # scanner index -> response index
        self._native: dict[int, int] = {}
        self._count = 0

    def _allocate(self) -> int:
        self._count += 1
        return self._count - 1

    def native(self, event: ToolCallStarted | ToolCallArgumentsDelta) -> ModelEvent:
        if isinstance(event, ToolCallStarted) or event.index not in self._native:
            self._native[event.index] = self._allocate()
        return replace(event, index=self._native[event.index])

    @property
    def calls(self) -> int:
        """How many calls have started so far."""
        return self._count

    def feed(self, text: str) -> list[ModelEvent]:
        return self.convert(self.scanner.feed(text))

    def close(self) -> list[ModelEvent]:
        return self.convert(self.scanner.close())

    def convert(self, events: Iterable[ScanEvent]) -> list[ModelEvent]:
        out: list[ModelEvent] = []
        for event in events:
            if isinstance(event, ContentText):
                out.append(TextDelta(text=event.text))
            elif isinstance(event, ReasoningText):
                out.append(ReasoningDelta(text=event.text))
            elif isinstance(event, CallStarted):
                self._indexes[event.index] = index = self._allocate()
                out.append(ToolCallStarted(index=index, name=event.name))
            elif isinstance(event, ArgumentsDelta):
                out.append(
                    ToolCallArgumentsDelta(index=self._indexes[event.index], delta=event.delta)
                )
            elif isinstance(event, CallInvalid):
                out.append(ToolCallFailed(index=self._indexes[event.index], reason=event.reason))
            # A completed call needs nothing more: its deltas already are its arguments.
        return out

    def finish_reason(self, inner: FinishReason) -> FinishReason:
        if inner in ("length", "content_filter") or not self._count:
            return inner
        return "tool_calls"
