"""What the adapters for providers' APIs share: the client they talk through, the model's profile
and the translator of its tools, one stream skeleton, the end of a response and the settings under
an API's field names.

Each adapter module keeps its API's format: the request it builds with the translator of the reply
(`_prepare`), the SDK call that streams the reply (`_send`) and the SDK's exceptions as toolwire's
(`_map_error`). What else sets one API apart its class says in hooks rather than constructor
arguments, so that a constructor is left with the API's connection options alone: the profile's
default (`_default_profile`, from `profiles.py`), how a tool is written in the request
(`_render_tool`), the tools' schema dialect where it is not the profile's (`_dialect`) and whether
a tool's name must start with a letter (`_letter_first`). The APIs reached with a key at a base URL
then share one constructor (`KeyedAdapter`), and their adapters say only how to connect
(`_connect`); Bedrock's names its own options and hands `SdkAdapter` how to connect.
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Mapping
from contextlib import aclosing
from dataclasses import replace
from typing import Any, ClassVar, Generic, Literal, NamedTuple, TypeAlias, TypeVar

from ..events import FinishReason, ModelEvent, ResponseCompleted, UsageReported
from ..messages import Usage
from ._base import ModelProfile, ModelRequest, ModelSettings
from ._tools import CallStream, Dialect, ToolIndex, ToolTranslator, WireTool

ClientT = TypeVar("ClientT")
ProfileT = TypeVar("ProfileT", bound=ModelProfile)


class StreamTranslator(ABC):
    """An API's stream events to model events: `feed` each event, then `finish` once the stream
    has ended."""

    def __init__(self, tools: ToolIndex) -> None:
        self._calls = CallStream(tools)

    @abstractmethod
    def feed(self, event: Any) -> list[ModelEvent]: ...

    def finish(self) -> list[ModelEvent]:
        """What the end of the stream adds: nothing, where an event of the API says it is done."""
        return []

    def _completed(
        self,
        reason: FinishReason | None,
        usage: Usage | None,
        provider_data: Mapping[str, Any] | None = None,
    ) -> list[ModelEvent]:
        """The last events of a response: the calls still open end, its usage (one request) is
        reported, and `ResponseCompleted` gives `reason`, or else whether the model made calls."""
        events = self._calls.end_all()
        if usage is not None:
            events.append(UsageReported(usage=replace(usage, requests=1)))
        finish = reason or ("tool_calls" if self._calls.count else "stop")
        events.append(ResponseCompleted(finish_reason=finish, provider_data=provider_data))
        return events


class Prepared(NamedTuple):
    """One request in the API's shape, and the translator of the reply to it (which knows the
    request's tools)."""

    body: dict[str, Any]
    """What the SDK call takes by name."""
    extra: dict[str, Any]
    """The settings' `extra`, for SDKs that take unknown fields apart (`extra_body`); empty where
    the adapter put them in `body` itself."""
    reply: StreamTranslator


class SdkAdapter(ABC, Generic[ClientT, ProfileT]):
    """A model behind a provider's SDK client: the client it made (closed by `aclose`) or was
    given (left to its owner), what the model can do (`profile`), and the stream of a request,
    its errors mapped at the boundary."""

    _provider: ClassVar[str]
    """The model-string prefix (`provider:MODEL`)."""

    _letter_first: ClassVar[bool] = False
    """Whether a tool's name on the wire must start with a letter."""

    def __init__(
        self,
        model: str,
        client: ClientT | None,
        connect: Callable[[], ClientT],
        profile: ProfileT | None,
    ) -> None:
        """`connect()` makes the client where none is given."""
        self.model = model
        self._owns_client = client is None
        self._client = connect() if client is None else client
        self.profile = profile or self._default_profile(model)
        self._tools = ToolTranslator(
            self._dialect(self.profile), self._render_tool, letter_first=self._letter_first
        )

    @property
    def name(self) -> str:
        return f"{self._provider}:{self.model}"

    async def aclose(self) -> None:
        """Close the client this adapter made (an injected client is left to its owner)."""
        if self._owns_client:
            await self._close_client()

    def wire_request(self, request: ModelRequest) -> dict[str, Any]:
        """The request exactly as it is handed to the SDK (settings' `extra` merged in)."""
        prepared = self._prepare(request)
        return {**prepared.body, **prepared.extra}

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        prepared = self._prepare(request)
        try:
            # Closed here, not when collected, so that a reader who stops early frees the
            # connection at once.
            async with aclosing(self._send(prepared)) as replies:
                async for reply in replies:
                    for event in prepared.reply.feed(reply):
                        yield event
        except Exception as error:
            mapped = self._map_error(error)
            if mapped is None:
                raise
            raise mapped from error
        for event in prepared.reply.finish():
            yield event

    @abstractmethod
    def _prepare(self, request: ModelRequest) -> Prepared: ...

    @abstractmethod
    def _send(self, prepared: Prepared) -> AsyncGenerator[Any, None]:
        """The SDK's stream of events for the request."""

    @abstractmethod
    def _map_error(self, error: Exception) -> Exception | None:
        """The toolwire error for an exception of the SDK; None for any other exception."""

    @abstractmethod
    async def _close_client(self) -> None: ...

    @abstractmethod
    def _default_profile(self, model: str) -> ProfileT:
        """The profile where none is given. The client is made by then: a default may depend on
        the server."""

    @staticmethod
    @abstractmethod
    def _render_tool(tool: WireTool) -> dict[str, Any]:
        """A tool as the request lists it."""

    def _dialect(self, profile: ProfileT) -> Dialect:
        """The dialect of the tools' schemas: the one the profile names."""
        return profile.schema_dialect


class KeyedAdapter(SdkAdapter[ClientT, ProfileT]):
    """An adapter for an API reached with a key at a base URL, where `client` replaces `api_key`,
    `base_url` and `timeout`."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: ClientT | None = None,
        profile: ProfileT | None = None,
        timeout: float | None = None,
    ) -> None:
        connect = functools.partial(self._connect, api_key, base_url, timeout)
        super().__init__(model, client, connect, profile)

    @abstractmethod
    def _connect(self, api_key: str | None, base_url: str | None, timeout: float | None) -> ClientT:
        """A client of the SDK, its own retries off: the loop retries, honouring Retry-After."""


async def create_stream(
    create: Callable[..., Awaitable[Any]], prepared: Prepared
) -> AsyncGenerator[Any, None]:
    """The events of an SDK call that streams as `create(**body, stream=True)` and takes unknown
    fields as `extra_body` (OpenAI's and Anthropic's SDKs); the stream is closed when its reader
    stops."""
    events = await create(**prepared.body, stream=True, extra_body=prepared.extra or None)
    async with events:
        async for event in events:
            yield event


SettingName: TypeAlias = Literal["max_output_tokens", "temperature", "top_p", "seed", "stop"]


def settings_fields(settings: ModelSettings, fields: Mapping[SettingName, str]) -> dict[str, Any]:
    """The settings given (not None, `stop` not empty), under the API's names: `fields` maps each
    setting the API takes to its field; the API's other settings are the adapter's to refuse."""
    given = {
        "max_output_tokens": settings.max_output_tokens,
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "seed": settings.seed,
        "stop": list(settings.stop) or None,
    }
    return {field: given[name] for name, field in fields.items() if given[name] is not None}
