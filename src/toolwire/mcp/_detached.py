"""A task that belongs to no caller.

A server's connection is shared, reference-counted, by every run that enters the toolset, from any
task, in any order; so the task that owns it cannot live in one caller's task group (the first
caller could leave while others still use the connection).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

_running: set[asyncio.Task[Any]] = set()


def spawn(function: Callable[[], Awaitable[None]]) -> None:
    """Run `function()` in a new top-level task of the current event loop (asyncio or trio).
    It must handle its own exceptions."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        import trio  # the only other backend anyio runs on

        trio.lowlevel.spawn_system_task(function)
        return

    async def run() -> None:
        await function()

    task = loop.create_task(run())
    # The loop keeps only weak references to tasks.
    _running.add(task)
    task.add_done_callback(_running.discard)
