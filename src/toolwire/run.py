"""What a run returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .events import FinishReason, StopReason
from .messages import Message, ToolCall, ToolResult, Usage

__all__ = ["CallRecord", "RunResult"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CallRecord:
    call: ToolCall
    result: ToolResult
    step: int
    duration: float
    """Seconds the tool ran (0 for a call that never ran); waiting for approval is apart."""
    decided_by: str | None = None
    """Who approved or declined the call, when it needed approval."""
    edited_arguments: Mapping[str, Any] | None = None
    """The arguments an approver put in place of `call.arguments` (`Edit`): the call ran with
    these, unless they failed validation (then nothing ran, and `result` says so)."""
    decision_time: float | None = None
    """Seconds spent waiting for that decision, when the call needed one."""
    interrupted: bool = False
    """The call started and was cut off before it finished (its timeout, the run's time limit,
    a cancellation, Ctrl-C): it may have taken effect. A call that never started is not."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RunResult:
    """The outcome of a run, complete or partial: every call in `messages` has its result.

    `output` is the answer when `stop_reason == "answer"` (the final reply exactly: it may be
    empty), else the last text the model wrote. `finish_reason` is why the model's last response
    ended: `length` means that answer was cut off, `content_filter` that it was withheld.
    """

    run_id: str
    output: str
    stop_reason: StopReason
    messages: tuple[Message, ...]
    calls: tuple[CallRecord, ...]
    usage: Usage
    steps: int
    error: str | None = None
    finish_reason: FinishReason | None = None
