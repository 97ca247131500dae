"""Approvals: the application decides, per call, before anything consequential runs."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from .messages import ToolCall
from .tools import SideEffect, ToolDefinition

__all__ = ["ApprovalRequest", "Approve", "Approver", "Decision", "Decline", "Edit"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalRequest:
    call: ToolCall
    tool: ToolDefinition
    arguments: Mapping[str, Any]
    """The validated arguments the call would run with."""
    side_effect: SideEffect
    run_id: str


@dataclass(frozen=True, kw_only=True, slots=True)
class Approve:
    by: str = "approver"


@dataclass(frozen=True, kw_only=True, slots=True)
class Decline:
    message: str | None = None
    by: str = "approver"


@dataclass(frozen=True, kw_only=True, slots=True)
class Edit:
    """Run the call with these arguments instead (validated again)."""

    arguments: Mapping[str, Any]
    by: str = "approver"


Decision: TypeAlias = Approve | Decline | Edit
Approver: TypeAlias = Callable[[ApprovalRequest], "Decision | bool | Awaitable[Decision | bool]"]
"""Sync or async; `True`/`False` are short for `Approve()`/`Decline()`. An async approver may wait
as long as it likes (a human in a web UI): `Limits.approval_timeout` bounds the wait."""
