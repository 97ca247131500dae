"""One connection to one MCP server: the SDK client over stdio or Streamable HTTP, plus what the
supervisor needs to notice that it died."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator, Callable, Generator, Iterator, Mapping
from contextlib import (
    AbstractAsyncContextManager,
    AsyncExitStack,
    asynccontextmanager,
    contextmanager,
)
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, TextIO

import anyio
import httpx2
import mcp.types as mt
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.session import MessageHandlerFnT
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.message import SessionMessage
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from .._version import installed_version
from ._params import HTTPParams, ServerParams, TokenSource

_STDERR_TAIL = 2000


@dataclass(eq=False, slots=True)
class HTTPStatuses:
    """The 4xx/5xx answers an HTTP connection got: the SDK folds them into opaque JSON-RPC
    errors, and a 401 must be told apart from a crash."""

    count: int = 0
    last: int | None = None

    def add(self, status: int) -> None:
        self.count += 1
        self.last = status

    def since(self, count: int) -> int | None:
        return self.last if self.count > count else None


@dataclass(eq=False)
class Connection:
    """A live session. `lost` is set once it can no longer carry requests: the server's output
    ended, or a request failed in a way that means the connection is gone."""

    client: Client
    lost: anyio.Event
    http_statuses: HTTPStatuses
    fault: str | None = None
    """Why the host gave the connection up, when the server broke the protocol."""
    waiting: set[object] = field(default_factory=set)
    """The calls waiting for an answer now."""

    @property
    def modern(self) -> bool:
        return self.client.protocol_version in MODERN_PROTOCOL_VERSIONS

    @contextmanager
    def awaiting_answer(self) -> Iterator[None]:
        call = object()
        self.waiting.add(call)
        try:
            yield
        finally:
            self.waiting.discard(call)


@asynccontextmanager
async def open_connection(
    params: ServerParams,
    *,
    read_timeout: float,
    connect_timeout: float,
    message_handler: MessageHandlerFnT,
    errlog: TextIO,
    http_statuses: HTTPStatuses,
    seen_secret: Callable[[str], None],
    callbacks: Mapping[str, Any],
) -> AsyncIterator[Connection]:
    """Connect and negotiate (both protocol eras). The caller bounds the time this takes."""
    lost = anyio.Event()
    async with AsyncExitStack() as stack:
        if isinstance(params, HTTPParams):
            http = await stack.enter_async_context(
                _http_client(params, read_timeout, connect_timeout, http_statuses, seen_secret)
            )
            transport: AbstractAsyncContextManager[Any] = streamable_http_client(
                params.url, http_client=http
            )
        else:
            server = StdioServerParameters(
                command=params.command,
                args=list(params.args),
                env=dict(params.env),
                cwd=params.cwd,
            )
            transport = stdio_client(server, errlog=errlog)
        client = Client(
            _Watched(transport, lost),
            read_timeout_seconds=read_timeout,
            message_handler=message_handler,
            client_info=mt.Implementation(name="toolwire", version=installed_version()),
            # Our catalogue is the cache (refreshed on list_changed, reconnects and TTL expiry).
            cache=None,
            **callbacks,
        )
        connection = await stack.enter_async_context(client)
        yield Connection(client=connection, lost=lost, http_statuses=http_statuses)


class StderrCapture:
    """A stdio server's stderr, kept in an unlinked temporary file so its tail can explain a
    failed start. Opened for append, so the child's writes land at the end whatever we read."""

    def __init__(self) -> None:
        fd, path = tempfile.mkstemp(prefix="toolwire-mcp-", suffix=".stderr")
        os.close(fd)
        self.file: TextIO = open(path, "a+", encoding="utf-8", errors="replace")  # noqa: SIM115
        os.unlink(path)

    def __enter__(self) -> StderrCapture:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()

    def tail(self) -> str:
        try:
            fd = self.file.fileno()
            size = os.fstat(fd).st_size
            data = os.pread(fd, _STDERR_TAIL, max(0, size - _STDERR_TAIL))
        except (OSError, ValueError):
            return ""
        return data.decode("utf-8", "replace").strip()


@asynccontextmanager
async def _http_client(
    params: HTTPParams,
    read_timeout: float,
    connect_timeout: float,
    statuses: HTTPStatuses,
    seen_secret: Callable[[str], None],
) -> AsyncIterator[httpx2.AsyncClient]:
    async def record(response: httpx2.Response) -> None:
        if response.status_code >= 400:
            statuses.add(response.status_code)

    auth = params.auth
    if params.token is not None:
        auth = _BearerAuth(params.token, seen_secret)
    # Reads wait for a tool's answer: the per-call timeout bounds them, this is a backstop.
    timeout = httpx2.Timeout(connect_timeout, read=read_timeout + connect_timeout)
    async with httpx2.AsyncClient(
        auth=auth,
        headers=dict(params.headers),
        timeout=timeout,
        event_hooks={"response": [record]},
    ) as client:
        yield client


class _BearerAuth(httpx2.Auth):
    """`Authorization: Bearer <token>` on every request; a token function is asked each time, so
    a refreshed token is used as soon as the application has it."""

    def __init__(self, token: TokenSource, seen: Callable[[str], None]) -> None:
        self._token = token
        self._seen = seen

    def auth_flow(
        self, request: httpx2.Request
    ) -> Generator[httpx2.Request, httpx2.Response, None]:
        token = self._token() if callable(self._token) else self._token
        self._seen(token)
        request.headers["Authorization"] = f"Bearer {token}"
        yield request


class _Watched:
    """Wraps a transport so the end of the server's output sets `lost`: a stdio server that exits
    while idle is restarted before the next call, instead of failing it."""

    def __init__(self, transport: AbstractAsyncContextManager[Any], lost: anyio.Event) -> None:
        self._transport = transport
        self._lost = lost

    async def __aenter__(self) -> tuple[Any, Any]:
        read, write = await self._transport.__aenter__()
        return _WatchedReadStream(read, self._lost), write

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        self._lost.set()
        return await self._transport.__aexit__(exc_type, exc, traceback)


class _WatchedReadStream:
    def __init__(self, inner: Any, lost: anyio.Event) -> None:
        self._inner = inner
        self._lost = lost

    @property
    def last_context(self) -> Any:
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item: SessionMessage | Exception = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._lost.set()
            raise
        return item

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _WatchedReadStream:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
