"""`Durability` on DBOS: the only module of the loop's side that names the engine."""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
from dbos import DBOS
from dbos._error import DBOSWorkflowCancelledError

from ..errors import ProviderError

__all__ = ["WAITING_EVENT", "DBOSDurability", "RecordedClock"]

T = TypeVar("T")

WAITING_EVENT = "toolwire.waiting"
"""The event a run sets while it waits for a message (what it waits for), cleared after."""
FOREVER = 100 * 365 * 24 * 3600.0
"""DBOS waits always have a timeout: a century stands for none."""
SUPERSEDED_CHECK = 1.0
"""Seconds between a waiting run's checks that it is still the run's live execution."""


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

    def __init__(self, clock: RecordedClock, run_id: str, dequeued_at: int | None) -> None:
        self.clock = clock
        self.run_id = run_id
        self.dequeued_at = dequeued_at
        """When the queue handed the run to this execution (None: started in process)."""

    @classmethod
    async def start(cls, run_id: str) -> DBOSDurability:
        """The run's first recorded reading of the time starts its clock."""
        clock = RecordedClock(await DBOS.run_step_async({"name": "clock"}, _now))
        status = await _status(run_id)
        return cls(clock, run_id, None if status is None else status.dequeued_at)

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
        message = await self._receive(topic, FOREVER if within is None else within)
        await DBOS.set_event_async(WAITING_EVENT, None)
        self.clock.advance(await DBOS.run_step_async({"name": "clock"}, _now))
        return message if isinstance(message, Mapping) or message is None else {}

    async def _receive(self, topic: str, seconds: float) -> Any:
        """The message, unless this execution is superseded while it waits, or before it acts
        on what it received: a run cancelled while it waits stays blocked in the wait, and
        once resumed, the new execution and this stale one would both take the next message
        and run the next step (a tool call, twice). Superseded, the execution parks as DBOS
        parks one that sees its own cancellation, until the live one records the outcome."""
        superseded = anyio.Event()
        message: Any = None
        async with anyio.create_task_group() as waiting:

            async def watch() -> None:
                while True:
                    await anyio.sleep(SUPERSEDED_CHECK)
                    if await self._superseded():
                        break
                superseded.set()
                waiting.cancel_scope.cancel()

            waiting.start_soon(watch)
            message = await DBOS.recv_async(topic, seconds)
            waiting.cancel_scope.cancel()
        if superseded.is_set() or await self._superseded():
            raise DBOSWorkflowCancelledError(f"run {self.run_id} was cancelled while it waited")
        return message

    async def _superseded(self) -> bool:
        """Whether the run is cancelled, or was handed to another execution since this one
        began (resuming puts it back on the queue, which stamps when it hands it out)."""
        status = await _status(self.run_id)
        return (
            status is None or status.status != "PENDING" or status.dequeued_at != self.dequeued_at
        )


async def _status(run_id: str) -> Any:
    """The run's status as stored now. Read in a context of its own: inside the workflow's,
    DBOS would record the reading as a step, and a replay would see the old one."""
    fresh = contextvars.Context()
    return await anyio.to_thread.run_sync(fresh.run, DBOS.get_workflow_status, run_id)
