"""What the scanner reports: content, reasoning, and the life of each call it reads.

Every call index begins with `CallStarted` (name "" when the attempt never named a tool) and ends
with exactly one `CallCompleted` or `CallInvalid`. The `ArgumentsDelta`s of a call concatenate to
strict JSON; the object's closing brace only arrives with completion, so the argument text of a
call that turns out invalid never parses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

__all__ = [
    "ArgumentsDelta",
    "CallCompleted",
    "CallInvalid",
    "CallStarted",
    "ContentText",
    "ReasoningText",
    "ScanEvent",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class ContentText:
    text: str
    kind: Literal["content"] = "content"


@dataclass(frozen=True, kw_only=True, slots=True)
class ReasoningText:
    text: str
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, kw_only=True, slots=True)
class CallStarted:
    index: int
    name: str
    kind: Literal["call_started"] = "call_started"


@dataclass(frozen=True, kw_only=True, slots=True)
class ArgumentsDelta:
    index: int
    delta: str
    kind: Literal["arguments_delta"] = "arguments_delta"


@dataclass(frozen=True, kw_only=True, slots=True)
class CallCompleted:
    """`raw_arguments` is the concatenation of the call's deltas; `arguments` is its parse."""

    index: int
    name: str
    arguments: Mapping[str, Any]
    raw_arguments: str
    kind: Literal["call_completed"] = "call_completed"


@dataclass(frozen=True, kw_only=True, slots=True)
class CallInvalid:
    """A call attempt that must not run. `text` is the model's text of the attempt."""

    index: int
    name: str
    reason: str
    text: str
    kind: Literal["call_invalid"] = "call_invalid"


ScanEvent: TypeAlias = (
    ContentText | ReasoningText | CallStarted | ArgumentsDelta | CallCompleted | CallInvalid
)
