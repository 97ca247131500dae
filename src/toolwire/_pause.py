"""A call's timeout that stops running while the host answers the tool mid-call (a person's
answer, an approved completion): that time is the host's, not the tool's."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import anyio


class PausableDeadline:
    """Pauses `scope`'s deadline; pauses that overlap (questions asked together) count once.
    `limit` is a deadline no pause may carry it past (the run's own)."""

    def __init__(self, scope: anyio.CancelScope, limit: Callable[[], float] | None = None) -> None:
        self.scope = scope
        self._limit = limit or (lambda: math.inf)
        self._paused = 0
        self._began = 0.0
        self._deadline = math.inf

    @contextmanager
    def paused(self) -> Iterator[None]:
        if self._paused == 0:
            self._began, self._deadline = anyio.current_time(), self.scope.deadline
            self.scope.deadline = self._limit()
        self._paused += 1
        try:
            yield
        finally:
            self._paused -= 1
            if self._paused == 0:
                waited = anyio.current_time() - self._began
                self.scope.deadline = min(self._deadline + waited, self._limit())
