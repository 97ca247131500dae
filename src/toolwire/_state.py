"""The state one run carries between its steps."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import anyio

from ._durability import Durability
from ._loopguard import LoopGuard
from ._redact import redact
from .approval import Approver
from .clock import Clock, IdSource
from .elicitation import Elicitor
from .events import RunEvent
from .limits import Limits
from .messages import ToolCall, ToolResult, Usage
from .run import CallRecord

if TYPE_CHECKING:
    from .models import Model


@dataclass(kw_only=True, slots=True)
class RunState:
    run_id: str
    clock: Clock
    limits: Limits
    ids: IdSource
    emit: Callable[[RunEvent], None]
    deps: Mapping[str, Any]
    approver: Approver | None
    elicitor: Elicitor | None = None
    model: Model | None = None
    """The agent's model, for a tool that asks it for a completion (MCP sampling)."""
    secrets: list[str]
    """Values no error text may show (`_redact.run_secrets`)."""
    deadline: float | None
    guard: LoopGuard
    durability: Durability | None = None
    """The engine recording a durable run's steps; None for an ordinary run."""
    records: list[CallRecord] = field(default_factory=list)
    answered: dict[str, tuple[ToolResult, CallRecord]] = field(default_factory=dict)
    """Results of the current turn so far, in finishing order, so a cancelled turn can still
    answer every call. Keyed by call id, which no two calls of a run share (`IdSource.call_id`)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens spent so far: the loop's model requests, and completions tools asked for."""
    started: set[str] = field(default_factory=set)
    """Calls of the current turn whose tool began to run: cut off, they may have taken effect."""

    def close_turn(self, calls: Sequence[ToolCall]) -> tuple[ToolResult, ...]:
        """The turn's results and records, in the order the calls were written."""
        done = [self.answered[call.id] for call in calls]
        self.records.extend(record for _, record in done)
        self.answered.clear()
        self.started.clear()
        return tuple(result for result, _ in done)

    def redact(self, text: str) -> str:
        return redact(text, self.secrets)

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock.now()

    def run_ends(self) -> float:
        """The run's deadline on the event loop's clock (infinite without a run timeout)."""
        remaining = self.remaining()
        return math.inf if remaining is None else anyio.current_time() + max(remaining, 0.0)

    def bounded(self, seconds: float | None) -> float | None:
        """`seconds`, shortened to what is left of the run's wall-clock budget."""
        remaining = self.remaining()
        if remaining is None:
            return seconds
        return max(remaining, 0.0) if seconds is None else max(min(seconds, remaining), 0.0)
