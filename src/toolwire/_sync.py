"""Synchronous entry points drive the same async loop on an event loop of their own."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")


class SyncRunner:
    """One event loop in a daemon thread, started on first use and kept: connections an adapter
    opens in one `run_sync` call (an HTTP client's pool) stay usable in the next, by any agent
    sharing the model, which a fresh event loop per call would break."""

    def __init__(self) -> None:
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def run(self, function: Callable[[], Awaitable[T]]) -> T:
        loop = self._running_loop()
        finished = threading.Event()

        async def guarded() -> T:
            try:
                return await function()
            finally:
                finished.set()

        future = asyncio.run_coroutine_threadsafe(guarded(), loop)
        try:
            return future.result()
        except KeyboardInterrupt:
            # Ctrl-C lands in the calling thread: cancel the run and wait until it has answered
            # every open call, then let the interrupt go on.
            future.cancel()
            finished.wait()
            raise

    def _running_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(
                    target=_serve, args=(loop,), name="toolwire-sync", daemon=True
                ).start()
                self._loop = loop
            return self._loop


def _serve(loop: asyncio.AbstractEventLoop) -> None:
    """Run `loop` for good. asyncio lets a task's `SystemExit` or `KeyboardInterrupt` out of
    `run_forever` (after storing it in the task, whose caller receives it); the loop itself is
    intact, and every later `run_sync` needs it, so it keeps serving."""
    while True:
        try:
            loop.run_forever()
        except BaseException:  # stored in the task it came from, which reports it
            continue


sync_runner = SyncRunner()


Q = TypeVar("Q")


async def answer_of(ask: Callable[[Q], T | Awaitable[T]], request: Q) -> T:
    """What a sync or async application callback (an approver, an elicitor) answers. A sync one
    may block (a person at a prompt): in a worker thread a timeout can fire meanwhile, and an
    answer arriving later is dropped with the thread."""
    import inspect

    import anyio.to_thread

    answer: T | Awaitable[T]
    if inspect.iscoroutinefunction(ask):
        answer = ask(request)
    else:
        answer = await anyio.to_thread.run_sync(
            functools.partial(ask, request), abandon_on_cancel=True
        )
    return await answer if inspect.isawaitable(answer) else answer
