from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import pytest
from hypothesis import settings
from trio.testing import MockClock

T = TypeVar("T")

# The machines tests run on are shared and noisy: an example that takes over hypothesis's
# default 200 ms once, and not when replayed, is the load, not the code.
settings.register_profile("shared-machine", deadline=None)
settings.load_profile("shared-machine")


def run_with_fake_clock(function: Callable[[], Awaitable[T]]) -> T:
    """Run on trio with a clock that jumps ahead whenever every task is waiting: a 30-second
    timeout takes milliseconds, and timings are exact."""
    return anyio.run(
        function, backend="trio", backend_options={"clock": MockClock(autojump_threshold=0)}
    )


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TOOLWIRE_DATA_DIR", str(tmp_path / "data"))
