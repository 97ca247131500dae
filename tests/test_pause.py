"""A call's timeout waits while the host answers the tool (toolwire._pause), on a fake clock."""

from __future__ import annotations

import math

import anyio
import pytest

from toolwire._pause import PausableDeadline

from .conftest import run_with_fake_clock


def test_a_pause_stops_the_timeout_and_moves_it_by_its_length() -> None:
    async def call() -> tuple[bool, float]:
        with anyio.move_on_after(20) as scope:
            start = scope.deadline
            deadline = PausableDeadline(scope)
            with deadline.paused():
                assert scope.deadline == math.inf
                await anyio.sleep(30)  # longer than the timeout: the call is not cut meanwhile
            moved = scope.deadline - start
            await anyio.sleep(15)
        return scope.cancelled_caught, moved

    assert run_with_fake_clock(call) == (False, pytest.approx(30))


def test_overlapping_pauses_count_once() -> None:
    async def call() -> float:
        with anyio.move_on_after(100) as scope:
            start, deadline = scope.deadline, PausableDeadline(scope)

            async def question(seconds: float) -> None:
                with deadline.paused():
                    await anyio.sleep(seconds)

            async with anyio.create_task_group() as group:
                group.start_soon(question, 10)
                group.start_soon(question, 20)
            assert scope.deadline != math.inf
            return scope.deadline - start

    assert run_with_fake_clock(call) == pytest.approx(20)


def test_a_pause_never_carries_the_deadline_past_the_limit() -> None:
    async def call() -> bool:
        with anyio.move_on_after(100) as scope:
            limit = anyio.current_time() + 5
            with PausableDeadline(scope, lambda: limit).paused():
                assert scope.deadline == limit
                await anyio.sleep(60)
            raise AssertionError("cut at the limit, not reached")
        return scope.cancelled_caught

    assert run_with_fake_clock(call) is True
