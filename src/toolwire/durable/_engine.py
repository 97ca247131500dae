"""`Durability` on DBOS: the only module of the loop's side that names the engine."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from dbos import DBOS

from ..errors import ProviderError

__all__ = ["WAITING_EVENT", "DBOSDurability", "RecordedClock"]

T = TypeVar("T")

WAITING_EVENT = "toolwire.waiting"
"""The event a run sets while it waits for a message (what it waits for), cleared after."""
FOREVER = 100 * 365 * 24 * 3600.0
"""DBOS waits always have a timeout: a century stands for none."""


class RecordedClock:
    """Time as the run's recorded steps saw it: every reading replays identically, and the
    clock moves only when a step finishes (steps record when they did)."""

    def __init__(self, start: float) -> None:
        self._at = start

    def now(self) -> float:
        return self._at

    def timestamp(self) -> float:
        return self._at

    async def sleep(self, seconds: float) -> None:
        await DBOS.sleep_async(seconds)
        self._at += seconds

    def advance(self, at: float) -> None:
        # Concurrent steps finish in any order; the latest time seen is the same on replay.
        self._at = max(self._at, at)


@dataclass(frozen=True, slots=True)
class _Outcome:
    """What a step returned, or the provider failure it raised (kept as plain fields, as an
    exception does not survive pickling with its keyword arguments), and when it finished."""

    value: Any
    finished_at: float
    failure: tuple[str, bool, int | None, float | None] | None = None

    def unwrap(self) -> Any:
        if self.failure is not None:
            message, retryable, status, retry_after = self.failure
            raise ProviderError(
                message, retryable=retryable, status=status, retry_after=retry_after
            )
        return self.value


async def _now() -> float:
    return time.time()


class DBOSDurability:
    """Used from inside a DBOS workflow: each step is `DBOS.run_step_async` under its loop name."""

    def __init__(self, clock: RecordedClock) -> None:
        self.clock = clock

    @classmethod
    async def start(cls) -> DBOSDurability:
        """The run's first recorded reading of the time starts its clock."""
        return cls(RecordedClock(await DBOS.run_step_async({"name": "clock"}, _now)))

    async def step(self, name: str, run: Callable[[], Awaitable[T]]) -> T:
        async def recorded() -> _Outcome:
            try:
                value = await run()
            except ProviderError as failure:
                fields = (str(failure), failure.retryable, failure.status, failure.retry_after)
                return _Outcome(None, time.time(), fields)
            return _Outcome(value, time.time())

        outcome: _Outcome = await DBOS.run_step_async({"name": name}, recorded)
        self.clock.advance(outcome.finished_at)
        value: T = outcome.unwrap()
        return value

    async def wait(
        self, topic: str, within: float | None, about: Mapping[str, Any]
    ) -> Mapping[str, Any] | None:
        await DBOS.set_event_async(WAITING_EVENT, {"topic": topic, **about})
        message = await DBOS.recv_async(topic, FOREVER if within is None else within)
        await DBOS.set_event_async(WAITING_EVENT, None)
        self.clock.advance(await DBOS.run_step_async({"name": "clock"}, _now))
        return message if isinstance(message, Mapping) or message is None else {}
