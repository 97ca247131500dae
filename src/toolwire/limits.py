"""Every hard limit of a run, in one value object."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import UsageError

__all__ = ["Limits"]


@dataclass(frozen=True, kw_only=True, slots=True)
class Limits:
    """`None` means "no limit". Each limit ends the run with its own stop reason and a partial
    result, never an exception.

    - `max_steps`: model requests per run (stop reason `max_steps`).
    - `timeout`: wall-clock seconds for the whole run, retries and waits included (`timeout`).
    - `tool_timeout`: seconds per call; a tool's own `timeout`, then `tool_timeouts[name]`, win.
    - `max_input_tokens` / `max_output_tokens` / `max_total_tokens`: summed over the run
      (`token_budget`).
    - `max_result_chars`: a longer result keeps its head and tail; the run log keeps it whole.
    - `loop_threshold`: the same call (tool + canonical arguments) or the same error text this many
      times gets a warning result instead; once more stops the run (`loop_detected`).
    - `max_concurrency`: read-only calls of one turn running at once.
    - `approval_timeout`: seconds to wait for an approval before the call counts as declined,
      and for an answer to a tool's question to the person (elicitation) before it is cancelled.
    - `max_retries`, `retry_base_delay`, `retry_max_delay`: provider failures, with exponential
      backoff and jitter; a Retry-After from the provider wins when longer.
    """

    max_steps: int | None = 25
    timeout: float | None = None
    tool_timeout: float | None = 60.0
    tool_timeouts: Mapping[str, float] = field(default_factory=dict)
    max_input_tokens: int | None = None
    max_output_tokens: int | None = None
    max_total_tokens: int | None = None
    max_result_chars: int | None = 20_000
    loop_threshold: int | None = 3
    max_concurrency: int = 8
    approval_timeout: float | None = None
    max_retries: int = 4
    retry_base_delay: float = 1.0
    retry_max_delay: float = 30.0

    def __post_init__(self) -> None:
        for name in (
            "max_steps",
            "max_input_tokens",
            "max_output_tokens",
            "max_total_tokens",
            "max_result_chars",
            "loop_threshold",
        ):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, int) or value < 1):
                raise UsageError(f"limit {name} must be a positive integer or None, not {value!r}")
        for name in ("timeout", "tool_timeout", "approval_timeout"):
            value = getattr(self, name)
            if value is not None and not value > 0:
                raise UsageError(f"limit {name} must be a positive number of seconds or None")
        for tool_name, seconds in self.tool_timeouts.items():
            if not seconds > 0:
                raise UsageError(f"tool timeout for {tool_name!r} must be positive")
        if self.max_concurrency < 1:
            raise UsageError("limit max_concurrency must be at least 1")
        if self.max_retries < 0 or self.retry_base_delay < 0 or self.retry_max_delay < 0:
            raise UsageError("retry limits must not be negative")
        if self.max_result_chars is not None and self.max_result_chars < 100:
            raise UsageError("limit max_result_chars must be at least 100")

    def replace(self, **changes: Any) -> Limits:
        return dataclasses.replace(self, **changes)
