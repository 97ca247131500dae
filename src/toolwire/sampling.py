"""Sampling: a tool (an MCP server's) asks the run's model for a completion mid-call.

Off unless the application allows it (`MCPServer(sampling=True)`); then each request is shown to
the approver like a call of a tool named `sampling`, runs through the agent's own model within the
run's limits, and is recorded as a `SamplingAnswered` event.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .events import FinishReason
from .messages import Message

__all__ = ["Sampled", "SamplingRefused", "SamplingRequest"]


@dataclass(frozen=True, kw_only=True, slots=True)
class SamplingRequest:
    """What a server asks the run's model, as the approver sees it."""

    server: str
    tool: str
    """The tool whose call is waiting for the completion."""
    run_id: str
    call_id: str
    messages: tuple[Message, ...]
    """User and assistant text turns."""
    system_prompt: str | None = None
    max_tokens: int
    temperature: float | None = None
    stop: tuple[str, ...] = ()

    def arguments(self) -> dict[str, Any]:
        """What the approver sees, and may edit."""
        return {
            "server": self.server,
            "system_prompt": self.system_prompt,
            "messages": [{"role": m.role, "text": m.text} for m in self.messages],
            "max_tokens": self.max_tokens,
        }


@dataclass(frozen=True, kw_only=True, slots=True)
class Sampled:
    """The model's completion, as it goes back to the server."""

    text: str
    model: str
    finish_reason: FinishReason | None


class SamplingRefused(Exception):
    """Nothing was sampled: the message says why (declined, over budget, the model failed)."""
