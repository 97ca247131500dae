"""Typed events: what a model adapter streams, and what a run streams to its consumers.

A model adapter yields `ModelEvent`s. The loop passes the streaming ones through unchanged and adds
its own, so a run's consumer (the CLI, the run log, a web UI) matches on one union, `RunEvent`.
One dataclass per kind, each with a `kind` Literal tag: no string-keyed events.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from .messages import Message, ToolCall, ToolResult, Usage

if TYPE_CHECKING:
    from .elicitation import ElicitationAnswer, ElicitationRequest
    from .run import RunResult
    from .sampling import SamplingRequest
    from .tools import SideEffect

__all__ = [
    "ApprovalDecided",
    "ApprovalRequested",
    "CallCorrected",
    "ElicitationAnswered",
    "FinishReason",
    "MessageAdded",
    "ModelEvent",
    "ReasoningDelta",
    "ResponseCompleted",
    "RetryScheduled",
    "RunEvent",
    "RunFinished",
    "RunStarted",
    "SamplingAnswered",
    "StepStarted",
    "StopReason",
    "TextDelta",
    "ToolCallArgumentsDelta",
    "ToolCallFailed",
    "ToolCallReady",
    "ToolCallStarted",
    "ToolResultReady",
    "UsageReported",
]

StopReason: TypeAlias = Literal[
    "answer", "max_steps", "timeout", "token_budget", "loop_detected", "cancelled", "error"
]
"""Why a run ended. Everything but `answer` comes with a partial result."""

FinishReason: TypeAlias = Literal["stop", "tool_calls", "length", "content_filter"]
"""Why one model response ended. `length` means it was cut off: an unfinished call never runs."""


# --- streamed by model adapters (and passed through by the loop) ---------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class TextDelta:
    text: str
    kind: Literal["text_delta"] = "text_delta"


@dataclass(frozen=True, kw_only=True, slots=True)
class ReasoningDelta:
    text: str
    provider_data: Mapping[str, Any] | None = None
    kind: Literal["reasoning_delta"] = "reasoning_delta"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallStarted:
    """A call begins. `index` identifies it among this response's calls; `id` is the provider's id
    (the loop assigns one when the provider has none, or repeats one this run already used)."""

    index: int
    name: str
    id: str | None = None
    provider_data: Mapping[str, Any] | None = None
    kind: Literal["tool_call_started"] = "tool_call_started"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallArgumentsDelta:
    index: int
    delta: str
    kind: Literal["tool_call_arguments_delta"] = "tool_call_arguments_delta"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallFailed:
    """The adapter could not read this call (malformed text, a provider's own parse error): it
    never runs, and the model is told `reason`."""

    index: int
    reason: str
    kind: Literal["tool_call_failed"] = "tool_call_failed"


@dataclass(frozen=True, kw_only=True, slots=True)
class CallCorrected:
    """The adapter changed a call the model wrote before passing it on (the embedded model's
    argument checks, see `toolwire.models.local`). `written` is what the model wrote; `index`
    the call as passed on (its `id` filled in by the loop), or None when the call was dropped;
    `changes` says what changed and why, one line each."""

    name: str
    written: Mapping[str, Any]
    index: int | None
    changes: tuple[str, ...]
    id: str | None = None
    kind: Literal["call_corrected"] = "call_corrected"


@dataclass(frozen=True, kw_only=True, slots=True)
class UsageReported:
    usage: Usage
    kind: Literal["usage_reported"] = "usage_reported"


@dataclass(frozen=True, kw_only=True, slots=True)
class ResponseCompleted:
    """The last event of a response. A stream that ends without it was dropped (retried)."""

    finish_reason: FinishReason
    provider_data: Mapping[str, Any] | None = None
    kind: Literal["response_completed"] = "response_completed"


ModelEvent: TypeAlias = (
    TextDelta
    | ReasoningDelta
    | ToolCallStarted
    | ToolCallArgumentsDelta
    | ToolCallFailed
    | CallCorrected
    | UsageReported
    | ResponseCompleted
)


# --- added by the loop ---------------------------------------------------------------------------


@dataclass(frozen=True, kw_only=True, slots=True)
class RunStarted:
    run_id: str
    model: str
    prompt: str | None
    started_at: float
    kind: Literal["run_started"] = "run_started"


@dataclass(frozen=True, kw_only=True, slots=True)
class MessageAdded:
    """A message joined the conversation (`index` is its position in `RunResult.messages`)."""

    message: Message
    index: int
    step: int
    kind: Literal["message_added"] = "message_added"


@dataclass(frozen=True, kw_only=True, slots=True)
class StepStarted:
    step: int
    kind: Literal["step_started"] = "step_started"


@dataclass(frozen=True, kw_only=True, slots=True)
class RetryScheduled:
    """A model request failed and will be retried after `delay` seconds. Text streamed by the
    failed attempt is void."""

    attempt: int
    delay: float
    error: str
    kind: Literal["retry_scheduled"] = "retry_scheduled"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCallReady:
    """A call's arguments are complete; it is about to be validated, approved and run."""

    call: ToolCall
    step: int
    kind: Literal["tool_call_ready"] = "tool_call_ready"


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalRequested:
    call: ToolCall
    side_effect: SideEffect
    kind: Literal["approval_requested"] = "approval_requested"


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalDecided:
    call: ToolCall
    approved: bool
    decided_by: str
    message: str | None = None
    edited_arguments: Mapping[str, Any] | None = None
    kind: Literal["approval_decided"] = "approval_decided"


@dataclass(frozen=True, kw_only=True, slots=True)
class ElicitationAnswered:
    """A tool asked the person for input during a call, and this is the answer that went back
    (`answer.by` says who gave it; `seconds` how long it took)."""

    request: ElicitationRequest
    answer: ElicitationAnswer
    step: int
    seconds: float
    kind: Literal["elicitation_answered"] = "elicitation_answered"


@dataclass(frozen=True, kw_only=True, slots=True)
class SamplingAnswered:
    """A tool asked the run's model for a completion during a call (MCP sampling): who decided,
    and what went back (`refused` says why nothing did). The tokens count in the run's usage."""

    request: SamplingRequest
    decided_by: str
    refused: str | None
    text: str | None
    model: str | None
    usage: Usage
    step: int
    seconds: float
    kind: Literal["sampling_answered"] = "sampling_answered"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolResultReady:
    """The one result of a call. `full_content` is set when `result.content` was cut to the size
    limit; the run log keeps it whole. `duration` is the tool's run time; `decision_time` the
    wait for an approval, apart. `interrupted`: the call started and was cut off, so it may
    have taken effect. `edited_arguments` as in `CallRecord`."""

    call: ToolCall
    result: ToolResult
    step: int
    started_at: float
    duration: float
    full_content: str | None = None
    decided_by: str | None = None
    edited_arguments: Mapping[str, Any] | None = None
    decision_time: float | None = None
    interrupted: bool = False
    kind: Literal["tool_result_ready"] = "tool_result_ready"


@dataclass(frozen=True, kw_only=True, slots=True)
class RunFinished:
    result: RunResult
    kind: Literal["run_finished"] = "run_finished"


RunEvent: TypeAlias = (
    ModelEvent
    | RunStarted
    | MessageAdded
    | StepStarted
    | RetryScheduled
    | ToolCallReady
    | ApprovalRequested
    | ApprovalDecided
    | ElicitationAnswered
    | SamplingAnswered
    | ToolResultReady
    | RunFinished
)
