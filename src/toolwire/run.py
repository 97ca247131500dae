"""What a run returns."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .events import StopReason
from .messages import Message, ToolCall, ToolResult, Usage

__all__ = ["CallRecord", "RunResult"]


@dataclass(frozen=True, kw_only=True, slots=True)
class CallRecord:
    call: ToolCall
    result: ToolResult
    step: int
    duration: float
    decided_by: str | None = None
    """Who approved or declined the call, when it needed approval."""
    edited_arguments: Mapping[str, Any] | None = None
    """The arguments an approver put in place of `call.arguments` (`Edit`): the call ran with
    these, unless they failed validation (then nothing ran, and `result` says so)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class RunResult:
    """The outcome of a run, complete or partial: every call in `messages` has its result.

    `output` is the answer when `stop_reason == "answer"`, else the last text the model wrote.
    """

    run_id: str
    output: str
    stop_reason: StopReason
    messages: tuple[Message, ...]
    calls: tuple[CallRecord, ...]
    usage: Usage
    steps: int
    error: str | None = None
