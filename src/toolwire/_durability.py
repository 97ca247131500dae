"""The seam between the loop and a durable engine: what a durable run needs, named by no engine.

A durable run is replayed after a crash: everything it read from the world must come back the
same. So the loop hands each model request and each tool call to `step`, waits for a person
through `wait`, and reads time only from `clock`; ids come from `IdSource`, which is derived
from the run id. With no `Durability` (the default) none of this is on the path.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, TypeVar

from .approval import Approve, Decision, Decline, Edit
from .clock import Clock

__all__ = ["Durability", "decision_from_message", "decision_message"]

T = TypeVar("T")


class Durability(Protocol):
    """What a durable engine gives a run (`toolwire.durable` provides one on DBOS)."""

    @property
    def clock(self) -> Clock:
        """Readings that replay identically: time advances only as recorded steps finish."""
        ...

    async def step(self, name: str, run: Callable[[], Awaitable[T]]) -> T:
        """Run `run` once and record what it returned (or raised); on replay, return the record
        without running it. `name` is stable for the same step on every replay:
        `model:<step>.<attempt>` or `tool:<call id>`."""
        ...

    async def wait(
        self, topic: str, within: float | None, about: Mapping[str, Any]
    ) -> Mapping[str, Any] | None:
        """Wait, holding no worker, for a message sent to this run on `topic` from any process;
        None once `within` seconds pass. `about` says what is awaited, for whoever lists the
        run, until the wait ends."""
        ...


def decision_message(decision: Decision) -> dict[str, Any]:
    """A decision as the message that answers a durable approval (plain JSON)."""
    if isinstance(decision, Decline):
        return {"decision": "decline", "message": decision.message, "by": decision.by}
    if isinstance(decision, Edit):
        return {"decision": "edit", "arguments": dict(decision.arguments), "by": decision.by}
    return {"decision": "approve", "by": decision.by}


def decision_from_message(message: Mapping[str, Any] | None) -> Decision:
    """The decision a message carries; no message (the wait timed out) or one nobody can read
    declines, as the loop never runs a call it was not clearly allowed to."""
    if message is None:
        return Decline(message="no decision in time", by="policy:approval-timeout")
    kind = message.get("decision")
    by = message.get("by")
    by = by if isinstance(by, str) and by else "approver"
    if kind == "approve":
        return Approve(by=by)
    if kind == "edit" and isinstance(message.get("arguments"), Mapping):
        return Edit(arguments=message["arguments"], by=by)
    if kind == "decline":
        reason = message.get("message")
        return Decline(message=reason if isinstance(reason, str) else None, by=by)
    return Decline(message="the answer could not be read", by="policy:unreadable-answer")
