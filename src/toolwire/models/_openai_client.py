"""The OpenAI SDK client behind `openai:` and `openai-chat:`, and its errors as `ProviderError`s."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import ProviderError, UsageError
from ._connect import missing_extra
from ._http_errors import (
    api_message,
    connection_error,
    is_transient_code,
    status_error,
    stream_error,
)

if TYPE_CHECKING:
    from openai import AsyncOpenAI

# Servers other than OpenAI's rarely check the key, but the SDK insists on one.
_NO_KEY = "not-needed"


def openai_client(
    provider: str,
    *,
    api_key: str | None,
    base_url: str | None,
    timeout: float | None,
) -> AsyncOpenAI:
    """An `AsyncOpenAI` with its own retries off: the loop retries, honouring Retry-After.

    The key is `api_key`, else `OPENAI_API_KEY`; it may be missing only when the base URL (given,
    or `OPENAI_BASE_URL`) points somewhere other than OpenAI."""
    try:
        import openai
    except ImportError as error:
        raise missing_extra(provider, "openai", error) from None
    if api_key is None and not os.environ.get("OPENAI_API_KEY"):
        if base_url is None and not os.environ.get("OPENAI_BASE_URL"):
            raise UsageError(
                f"'{provider}:' needs an API key: set OPENAI_API_KEY (or pass api_key=), or give "
                f"a base URL for a server without keys ({provider}:MODEL@http://HOST:PORT/v1)"
            )
        api_key = _NO_KEY
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:
        options["timeout"] = timeout
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **options)


def openai_error(provider: str, error: Exception) -> ProviderError | None:
    """The `ProviderError` for an exception of the OpenAI SDK; None for any other exception."""
    import openai

    if isinstance(error, openai.APIStatusError):
        return status_error(
            provider,
            error.status_code,
            api_message(error.body, error.message),
            headers=error.response.headers,
        )
    if isinstance(error, openai.APIConnectionError):
        return connection_error(provider, error.__cause__ or error)
    if isinstance(error, openai.APIError):
        # An error event inside a stream that began with HTTP 200.
        body = error.body if isinstance(error.body, Mapping) else {}
        code = body.get("code") or body.get("type")
        return stream_error(provider, error.message, retryable=is_transient_code(code))
    return None
