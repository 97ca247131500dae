"""Live pages: runs are written to the log by other processes (the CLI, an application using the
library), so the log is the feed. One watcher per server notices any commit; each open page then
asks whether its own run (or the list) changed, and is sent a server-sent event only if so.

Noticing is cheap: `PRAGMA data_version` on an idle connection changes when another connection
commits, and reading it touches no table (SQLite keeps it in the WAL index, in shared memory).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

from ..log import RunLog

WATCH_INTERVAL = 0.1
"""Seconds between looks at the log: the delay a page may lag behind a run."""
KEEPALIVE = 15.0
"""Seconds of quiet after which a page is sent a comment, so a closed page is noticed."""


class LogWatcher:
    def __init__(self, path: Path, interval: float = WATCH_INTERVAL) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._interval = interval
        self._changed = anyio.Event()
        self.closed = False

    def close(self) -> None:
        """Ends every feed within one interval, so a server shutting down has no streams to
        wait for. Callable from any thread (a signal handler's)."""
        self.closed = True

    async def watch(self) -> None:
        """Runs for the server's lifetime."""
        try:
            version = self._version()
            while not self.closed:
                await anyio.sleep(self._interval)
                current = self._version()
                if current != version or self.closed:
                    version = current
                    self._changed.set()
                    self._changed = anyio.Event()
        finally:
            self._db.close()

    def _version(self) -> int:
        version: int = self._db.execute("PRAGMA data_version").fetchone()[0]
        return version

    async def next_change(self, within: float) -> None:
        """Returns at the next commit to the log, or after `within` seconds."""
        with anyio.move_on_after(within):
            await self._changed.wait()


async def feed(
    watcher: LogWatcher, path: Path, marker: Callable[[RunLog], Any]
) -> AsyncIterator[str]:
    """Server-sent events: a `change` event whenever `marker` (read from the log) differs."""
    log = await anyio.to_thread.run_sync(RunLog, path)
    try:
        last: Any = None
        while not watcher.closed:
            current = await anyio.to_thread.run_sync(marker, log)
            if current != last:
                last = current
                yield f"event: change\ndata: {json.dumps(current)}\n\n"
            else:
                yield ": keepalive\n\n"
            await watcher.next_change(KEEPALIVE)
    finally:
        log.close()
