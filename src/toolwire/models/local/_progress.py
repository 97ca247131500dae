"""A progress bar on stderr for long first-use steps (assembling a model file)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Redraws one line at most ten times a second on a terminal; elsewhere (logs, CI) it writes
    only the start and end lines, so captured output stays short."""

    def __init__(self, label: str, total: int, stream: TextIO | None = None) -> None:
        self._label = label
        self._total = max(total, 1)
        self._stream = stream if stream is not None else sys.stderr
        self._tty = self._stream.isatty()
        self._done = 0
        self._drawn_at = 0.0
        self._started = time.monotonic()
        if not self._tty:
            self._stream.write(f"{label} ({_mb(total)})...\n")
            self._stream.flush()

    def advance(self, amount: int) -> None:
        self._done += amount
        now = time.monotonic()
        if self._tty and (now - self._drawn_at >= 0.1 or self._done >= self._total):
            self._drawn_at = now
            fraction = min(self._done / self._total, 1.0)
            filled = int(fraction * 30)
            bar = "#" * filled + "-" * (30 - filled)
            self._stream.write(
                f"\r{self._label} [{bar}] {fraction:4.0%} {_mb(self._done)}/{_mb(self._total)}"
            )
            self._stream.flush()

    def note(self, text: str) -> None:
        """A status line that must not be overdrawn (e.g. which part is being downloaded)."""
        prefix = "\n" if self._tty and self._done else ""
        self._stream.write(f"{prefix}{text}\n")
        self._stream.flush()

    def finish(self, text: str) -> None:
        elapsed = time.monotonic() - self._started
        prefix = "\n" if self._tty else ""
        self._stream.write(f"{prefix}{text} in {elapsed:.1f}s\n")
        self._stream.flush()


def _mb(size: int) -> str:
    return f"{size / 1_000_000:.0f} MB"
