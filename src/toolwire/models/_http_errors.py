"""API failures as `ProviderError`s: which the loop retries, and how long the API asked it to wait.

Each adapter catches its own SDK's exceptions and describes them with these helpers, so the rules
(what is retryable, how Retry-After is read) live in one place and no SDK type reaches the loop.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Mapping

from ..errors import ProviderError

# 408 and 409 (a lock or concurrent-request conflict) succeed on a retry, like 429 and the 5xx;
# every other 4xx would fail the same way again.
_RETRYABLE_4XX = frozenset({408, 409, 429})


def is_retryable_status(status: int) -> bool:
    return status in _RETRYABLE_4XX or status >= 500


def retry_after(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms` (OpenAI, Anthropic) or `retry-after` (seconds or an
    HTTP date); None when neither is usable."""
    if not headers:
        return None
    lowered = {name.lower(): value for name, value in headers.items()}
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = lowered.get(name)
        if value is None:
            continue
        try:
            seconds = float(value) * scale
        except ValueError:
            continue
        if seconds >= 0:
            return seconds
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def status_error(
    provider: str,
    status: int,
    message: str,
    *,
    headers: Mapping[str, str] | None = None,
    retry_after_seconds: float | None = None,
) -> ProviderError:
    """An HTTP error status from the API, with the API's own message."""
    wait = retry_after_seconds if retry_after_seconds is not None else retry_after(headers)
    return ProviderError(
        f"{provider}: HTTP {status}: {message}",
        retryable=is_retryable_status(status),
        status=status,
        retry_after=wait,
    )


def api_message(body: object, fallback: str) -> str:
    """The API's own words from an error body (`{"error": {"message": ...}}` and variants)."""
    if isinstance(body, list) and len(body) == 1:
        body = body[0]
    if isinstance(body, Mapping):
        inner = body.get("error", body)
        if isinstance(inner, Mapping) and isinstance(inner.get("message"), str):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return fallback


def connection_error(provider: str, error: BaseException) -> ProviderError:
    """The connection failed, timed out or dropped mid-stream: always worth a retry."""
    detail = str(error) or type(error).__name__
    return ProviderError(f"{provider}: connection failed: {detail}", retryable=True)


def stream_error(provider: str, message: str, *, retryable: bool) -> ProviderError:
    """The API reported a failure inside a stream that had started with HTTP 200."""
    return ProviderError(f"{provider}: {message}", retryable=retryable)


# Error codes and types that name a transient failure, across the APIs' vocabularies: OpenAI
# `server_error` / `rate_limit_exceeded`, Anthropic `overloaded_error` / `api_error` (its 500),
# Bedrock `throttlingException` / `modelStreamErrorException`, Gemini `UNAVAILABLE`.
_TRANSIENT = (
    "rate_limit",
    "overloaded",
    "server_error",
    "api_error",
    "internal",
    "unavailable",
    "timeout",
    "throttl",
    "modelstreamerror",
    "resource_exhausted",
)


def is_transient_code(code: object) -> bool:
    text = str(code or "").lower()
    return any(marker in text for marker in _TRANSIENT)
