"""Generation in a worker thread, its text streamed to the event loop as it is produced.

The worker never waits for the consumer: pieces go into a queue, and the async side takes
whatever has accumulated each time it wakes. When the consumer stops early (the run was
cancelled, or the caller has seen enough), the worker is told to stop before its next token.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import anyio.to_thread

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
        self._queue: queue.SimpleQueue[str | _Done] = queue.SimpleQueue()
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
            self._queue.put(done)

    def _emit(self, piece: str) -> None:
        if self._watch is not None:
            self._seen.append(piece)
        self._queue.put(piece)

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
        try:
            while True:
                batch = await anyio.to_thread.run_sync(_take, self._queue, abandon_on_cancel=True)
                for item in batch:
                    if isinstance(item, _Done):
                        if item.error is not None:
                            raise item.error
                        self.result = item.generation
                        return
                    yield item
        finally:
            self._stop.set()


def _take(source: queue.SimpleQueue[str | _Done]) -> list[str | _Done]:
    """Block for one item, then take everything else already waiting."""
    items = [source.get()]
    while True:
        try:
            items.append(source.get_nowait())
        except queue.Empty:
            return items


def start(engine: Engine, request: GenerationRequest, watch: Watcher | None = None) -> Run:
    return Run(engine, request, watch)
