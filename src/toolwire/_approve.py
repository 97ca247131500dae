"""Asking the application's approver, for a call or for what a tool asks to do on the run's
behalf (a completion from its model)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from ._durability import Durability, decision_from_message
from ._state import RunState
from ._sync import answer_of
from .approval import ApprovalRequest, Approve, Decision, Decline, Edit
from .events import ApprovalDecided, ApprovalRequested
from .messages import ToolCall
from .tools import SideEffect, ToolDefinition


async def ask_approval(
    state: RunState,
    call: ToolCall,
    definition: ToolDefinition,
    side_effect: SideEffect,
    arguments: Mapping[str, Any],
) -> Decision:
    """The approver's decision on a call (or on what a tool asks to do on the run's behalf),
    within the approval timeout; recorded as events."""
    state.emit(ApprovalRequested(call=call, side_effect=side_effect))
    decision: Decision | bool
    if state.durability is not None:
        decision = await _durable_decision(state.durability, call, side_effect, state)
    elif state.approver is None:
        decision = Decline(
            message="this tool needs approval and no approver is configured",
            by="policy:no-approver",
        )
    else:
        request = ApprovalRequest(
            call=call,
            tool=definition,
            arguments=arguments,
            side_effect=side_effect,
            run_id=state.run_id,
        )
        decision = Decline(message="no decision in time", by="policy:approval-timeout")
        with anyio.move_on_after(or_inf(state.bounded(state.limits.approval_timeout))):
            decision = await answer_of(state.approver, request)
    if isinstance(decision, bool):
        decision = Approve() if decision else Decline()
    state.emit(
        ApprovalDecided(
            call=call,
            approved=not isinstance(decision, Decline),
            decided_by=decision.by,
            message=decision.message if isinstance(decision, Decline) else None,
            edited_arguments=decision.arguments if isinstance(decision, Edit) else None,
        )
    )
    return decision


async def _durable_decision(
    durability: Durability, call: ToolCall, side_effect: SideEffect, state: RunState
) -> Decision:
    """Any process may answer (`toolwire approve`), after any restart; `approval_timeout` is
    kept by the engine, apart from the run's own time limit."""
    about = {
        "call_id": call.id,
        "tool": call.name,
        "arguments": call.arguments,
        "side_effect": side_effect,
    }
    answer = await durability.wait(approval_topic(call.id), state.limits.approval_timeout, about)
    return decision_from_message(answer)


def approval_topic(call_id: str) -> str:
    return f"approval:{call_id}"


def or_inf(seconds: float | None) -> float:
    return float("inf") if seconds is None else seconds
