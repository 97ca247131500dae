"""Generation in a worker thread, its text streamed to the event loop as it is produced.

The worker never waits for the consumer: pieces are appended to a list, and the async side
takes whatever has accumulated each time it wakes. A sleeping consumer is woken by the worker
scheduling the wake-up straight into its event loop: a thread hopping between them (a
`to_thread` wait per batch) cost 7-10% of the generation speed on two cores, where every extra
runnable thread takes time from llama.cpp's. Each generation has a thread that ends with it:
llama.cpp's OpenMP threads sleep at every barrier (0.63x the speed on two cores) while more than
one thread that has run the model lives. When the consumer stops early (the run was
cancelled, or the caller has seen enough), the worker is told to stop before its next token.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import anyio

from ._engine import Engine, Generation, GenerationRequest

__all__ = ["Run", "Watcher", "start"]

Watcher = Callable[[str], "bool | None"]
"""Shown the text so far after each token, in the worker: True stops the generation there, False
lets it run to its end unwatched, None asks again after the next token."""


@dataclass(slots=True)
class _Done:
    generation: Generation | None
    error: BaseException | None


class Run:
    """One generation in flight: iterate `pieces()`, then read `result`."""

    def __init__(
        self, engine: Engine, request: GenerationRequest, watch: Watcher | None = None
    ) -> None:
        self._lock = threading.Lock()
        self._pending: list[str | _Done] = []
        self._wake: Callable[[], object] | None = None
        self._stop = threading.Event()
        self._watch = watch
        self._seen: list[str] = []
        self.result: Generation | None = None
        self._thread = threading.Thread(
            target=self._work, args=(engine, request), name="toolwire-local", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _work(self, engine: Engine, request: GenerationRequest) -> None:
        done = _Done(None, None)
        try:
            done.generation = engine.generate(request, self._emit, self._should_stop)
        except BaseException as error:  # handed to the consumer, who re-raises it
            done.error = error
        finally:
            self._deliver(done)

    def _emit(self, piece: str) -> None:
        if self._watch is not None:
            self._seen.append(piece)
        self._deliver(piece)

    def _deliver(self, item: str | _Done) -> None:
        with self._lock:
            self._pending.append(item)
            wake, self._wake = self._wake, None
        if wake is not None:
            wake()

    def _should_stop(self) -> bool:
        if self._stop.is_set():
            return True
        if self._watch is None:
            return False
        verdict = self._watch("".join(self._seen))
        if verdict is None:
            return False
        self._watch = None
        return verdict

    async def pieces(self) -> AsyncIterator[str]:
        run_soon = _scheduler_for_this_loop()
        try:
            while True:
                batch, woken = self._take_or_sleep(run_soon)
                if woken is not None:
                    await woken.wait()
                    continue
                for item in batch:
                    if isinstance(item, _Done):
                        if item.error is not None:
                            raise item.error
                        self.result = item.generation
                        return
                    yield item
        finally:
            with self._lock:
                self._wake = None
            self._stop.set()

    def _take_or_sleep(
        self, run_soon: Callable[[Callable[[], object]], object]
    ) -> tuple[list[str | _Done], anyio.Event | None]:
        """Everything delivered so far, or (when nothing is) an event the worker's next
        delivery sets."""
        with self._lock:
            batch, self._pending = self._pending, []
            if batch:
                return batch, None
            woken = anyio.Event()
            self._wake = lambda: run_soon(woken.set)
            return batch, woken


def _scheduler_for_this_loop() -> Callable[[Callable[[], object]], object]:
    """How another thread runs a callback in the current event loop without waiting for it."""
    try:
        return asyncio.get_running_loop().call_soon_threadsafe
    except RuntimeError:  # not asyncio, so anyio's other backend
        import trio

        return trio.lowlevel.current_trio_token().run_sync_soon


def start(engine: Engine, request: GenerationRequest, watch: Watcher | None = None) -> Run:
    return Run(engine, request, watch)
