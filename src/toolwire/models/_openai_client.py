"""What the adapters of OpenAI's two APIs (`openai:` and `openai-chat:`) share: the SDK's client,
their schema dialect, and the SDK's errors as `ProviderError`s."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ..errors import ProviderError
from ._adapter import KeyedAdapter
from ._base import ModelProfile
from ._connect import client_options, key_or_placeholder, missing_extra
from ._http_errors import (
    api_message,
    connection_error,
    is_transient_code,
    status_error,
    stream_error,
)
from ._tools import Dialect
from .profiles import OpenAIProfile

if TYPE_CHECKING:
    from openai import AsyncOpenAI


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
    api_key = key_or_placeholder(
        api_key,
        base_url,
        key_variables=("OPENAI_API_KEY",),
        base_url_variable="OPENAI_BASE_URL",
        missing=f"'{provider}:' needs an API key: set OPENAI_API_KEY (or pass api_key=), or give "
        f"a base URL for a server without keys ({provider}:MODEL@http://HOST:PORT/v1)",
    )
    return openai.AsyncOpenAI(api_key=api_key, base_url=base_url, **client_options(timeout))


def openai_dialect(profile: ModelProfile) -> Dialect:
    """Strict schemas where the profile says the model takes them; plain JSON Schema elsewhere."""
    return "openai-strict" if profile.strict_schemas else "json-schema"


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


class OpenAIAdapter(KeyedAdapter["AsyncOpenAI", OpenAIProfile]):
    """A model behind one of OpenAI's APIs, through an `openai.AsyncOpenAI`."""

    _dialect = staticmethod(openai_dialect)

    def _connect(
        self, api_key: str | None, base_url: str | None, timeout: float | None
    ) -> AsyncOpenAI:
        return openai_client(self._provider, api_key=api_key, base_url=base_url, timeout=timeout)

    def _map_error(self, error: Exception) -> Exception | None:
        return openai_error(self._provider, error)

    async def _close_client(self) -> None:
        await self._client.close()
