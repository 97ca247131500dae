"""The worker-thread to event-loop bridge, on both of anyio's backends, with an engine that
needs no model."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import aclosing
from typing import cast

import anyio
import pytest

from toolwire.models.local._bridge import start
from toolwire.models.local._engine import Engine, Generation, GenerationRequest

BACKENDS = pytest.mark.parametrize("backend", ["asyncio", "trio"])
REQUEST = GenerationRequest(tokens=(1, 2, 3), max_tokens=100)


class CountingEngine:
    """Writes "0 ", "1 ", ... pausing between pieces the way a model does between tokens."""

    def __init__(self, pieces: int, pause: float = 0.0005, fail_at: int | None = None) -> None:
        self.pieces = pieces
        self.pause = pause
        self.fail_at = fail_at
        self.emitted = 0
        self.finished = threading.Event()

    def generate(
        self,
        request: GenerationRequest,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
    ) -> Generation:
        try:
            for index in range(self.pieces):
                if should_stop():
                    break
                if index == self.fail_at:
                    raise RuntimeError("the model failed mid-reply")
                time.sleep(self.pause)
                emit(f"{index} ")
                self.emitted += 1
            return Generation(
                text="",
                prompt_tokens=len(request.tokens),
                cached_tokens=0,
                output_tokens=self.emitted,
                finish="length",
            )
        finally:
            self.finished.set()


def pieces_of(engine: CountingEngine, backend: str, keep: int) -> list[str]:
    async def collect() -> list[str]:
        seen: list[str] = []
        async with aclosing(start(cast(Engine, engine), REQUEST).pieces()) as pieces:
            async for piece in pieces:
                seen.append(piece)
                if len(seen) == keep:
                    break
        return seen

    return anyio.run(collect, backend=backend)


@BACKENDS
def test_every_piece_arrives_in_order_then_the_result(backend: str) -> None:
    engine = CountingEngine(200)

    async def collect() -> tuple[list[str], Generation | None]:
        run = start(cast(Engine, engine), REQUEST)
        return [piece async for piece in run.pieces()], run.result

    seen, result = anyio.run(collect, backend=backend)
    assert seen == [f"{index} " for index in range(200)]
    assert result is not None and result.output_tokens == 200


@BACKENDS
def test_a_consumer_that_stops_early_stops_the_worker(backend: str) -> None:
    engine = CountingEngine(100_000, pause=0.0001)
    assert len(pieces_of(engine, backend, keep=5)) == 5
    assert engine.finished.wait(5)
    assert engine.emitted < 100_000


@BACKENDS
def test_a_worker_error_reaches_the_consumer_after_what_came_before(backend: str) -> None:
    engine = CountingEngine(10, fail_at=3)
    seen: list[str] = []

    async def collect() -> None:
        async for piece in start(cast(Engine, engine), REQUEST).pieces():
            seen.append(piece)

    with pytest.raises(RuntimeError, match="failed mid-reply"):
        anyio.run(collect, backend=backend)
    assert seen == ["0 ", "1 ", "2 "]


@BACKENDS
def test_cancelling_the_consumer_stops_the_worker(backend: str) -> None:
    engine = CountingEngine(100_000, pause=0.001)

    async def cancelled() -> None:
        with anyio.move_on_after(0.05):
            async for _ in start(cast(Engine, engine), REQUEST).pieces():
                pass

    anyio.run(cancelled, backend=backend)
    assert engine.finished.wait(5)
    assert engine.emitted < 100_000
