"""Time and identity as objects the loop is given, never read directly.

A durable engine replays a run by handing the loop recorded readings; tests hand it a fake clock.
"""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from collections.abc import Iterable
from typing import Protocol

import anyio

__all__ = ["Clock", "EventLoopClock", "IdSource", "new_run_id"]


class Clock(Protocol):
    def now(self) -> float:
        """Monotonic seconds: the wall-clock budget and durations are computed from these."""
        ...

    def timestamp(self) -> float:
        """Seconds since the epoch, for the record."""
        ...

    async def sleep(self, seconds: float) -> None: ...


class EventLoopClock:
    """The event loop's own clock, so the loop's deadlines and anyio's cancel scopes agree (and a
    mock clock on the trio backend drives both)."""

    def now(self) -> float:
        return anyio.current_time()

    def timestamp(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await anyio.sleep(seconds)


def new_run_id() -> str:
    return uuid.uuid4().hex


class IdSource:
    """Ids and randomness derived from the run id: a replayed run gets the same ones."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._count = 0
        self._taken: set[str] = set()
        self.random = random.Random(run_id)

    def call_id(self, proposed: str | None = None) -> str:
        """A call id no other call of this run has: the provider's `proposed` id when it is new,
        else a generated one. Providers and local models do repeat ids (`call_0` every step, or
        twice in one reply), and one id must name one call, its result and its log row."""
        while not proposed or proposed in self._taken:
            self._count += 1
            proposed = f"call_{self.run_id[:12]}_{self._count}"
        self._taken.add(proposed)
        return proposed

    def take(self, call_ids: Iterable[str]) -> None:
        """Mark ids already in the conversation (a continued history) as used."""
        self._taken.update(call_ids)

    def idempotency_key(self, call_id: str) -> str:
        return hashlib.sha256(f"{self.run_id}\x00{call_id}".encode()).hexdigest()[:32]
