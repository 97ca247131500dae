"""One small error tree, split by who must act.

    ToolwireError
    ├── UsageError          the developer: misconfiguration, bad input to the library or CLI
    ├── RunError            the run: a failure the loop could not recover from
    │   └── ProviderError   the model's API or transport (retryable or not)
    └── ToolError           the model: raised inside a tool, its message becomes an error result
        └── InvalidArguments    the arguments failed validation (with paths)

Budget stops (steps, wall clock, tokens, loops) are not errors: the run ends with a typed stop
reason and a partial result.
"""

from __future__ import annotations

__all__ = [
    "InvalidArguments",
    "ProviderError",
    "RunError",
    "ToolError",
    "ToolwireError",
    "UsageError",
]


class ToolwireError(Exception):
    """Base of every error toolwire raises."""


class UsageError(ToolwireError):
    """The developer must act: a misconfiguration or invalid input to toolwire itself."""


class RunError(ToolwireError):
    """The run failed for a reason outside the model's control."""


class ProviderError(RunError):
    """The model API failed. `retryable` failures (429, 5xx, timeouts, dropped streams) are retried
    by the loop with backoff; `retry_after` (seconds) is honoured when the provider sent one."""

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


class ToolError(ToolwireError):
    """Raise inside a tool to send the model an error result with exactly this message."""


class InvalidArguments(ToolError):
    """A call's arguments failed validation. `errors` holds (path, message) pairs, so the model
    learns exactly which argument to fix."""

    def __init__(self, errors: list[tuple[str, str]]) -> None:
        self.errors = tuple(errors)
        lines = [f"- {path or '(arguments)'}: {message}" for path, message in errors]
        super().__init__("invalid arguments:\n" + "\n".join(lines))
