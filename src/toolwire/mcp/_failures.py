"""Every way an MCP request can fail, sorted into what the host must do about it.

The SDK reports failures in many shapes: `MCPError` with a JSON-RPC code (a local timeout is
-32001, a dead connection -32000), raw transport errors from httpx2 or anyio, pydantic errors for
malformed results, `RuntimeError` for output that fails the tool's output schema, and any of these
wrapped in (nested) exception groups by anyio task groups.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal, TypeAlias

import anyio

FailureKind: TypeAlias = Literal["timeout", "lost", "refused", "unknown_tool", "error"]
"""`lost`: the connection died (reconnect; the call may or may not have run). `refused`: the
server rejected our credentials. `unknown_tool`: the server no longer has the tool (re-list)."""

_CONNECTION_CLOSED = -32000
_REQUEST_TIMEOUT = -32001
_INVALID_REQUEST = -32600
_INVALID_PARAMS = -32602
_SHORT = 300


@dataclass(frozen=True, slots=True)
class Failure:
    kind: FailureKind
    message: str


def classify(error: BaseException, http_status: int | None = None) -> Failure:
    """`http_status`: the last 4xx/5xx the connection's HTTP client saw, since the SDK folds an
    HTTP error status into an opaque JSON-RPC error."""
    leaf = root_cause(error)
    from mcp import InputRequiredRoundsExceededError, MCPError

    if isinstance(leaf, MCPError):
        return _from_mcp_error(leaf.code, leaf.message, http_status)
    if isinstance(leaf, InputRequiredRoundsExceededError):
        return Failure("error", "the server kept asking for user input, which this host lacks")
    import httpx2
    import pydantic

    if isinstance(leaf, httpx2.HTTPStatusError):
        return _from_status(leaf.response.status_code)
    if isinstance(leaf, httpx2.TimeoutException | TimeoutError):
        return Failure("timeout", "the server did not answer in time")
    if isinstance(
        leaf,
        httpx2.TransportError
        | anyio.ClosedResourceError
        | anyio.BrokenResourceError
        | anyio.EndOfStream
        | OSError,
    ):
        return Failure("lost", f"the connection failed ({_describe(leaf)})")
    if isinstance(leaf, pydantic.ValidationError):
        first = leaf.errors(include_url=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        return Failure("error", f"the server sent a malformed message ({where}: {first['msg']})")
    if isinstance(leaf, RuntimeError) and "structured content" in str(leaf):
        return Failure("error", "the server's result does not match the tool's output schema")
    return Failure("error", _describe(leaf))


def _from_mcp_error(code: int, message: str, http_status: int | None) -> Failure:
    if code == _REQUEST_TIMEOUT:
        return Failure("timeout", "the server did not answer in time")
    if code == _CONNECTION_CLOSED:
        return Failure("lost", "the connection to the server closed")
    if code == _INVALID_REQUEST and message == "Session terminated":
        # A legacy HTTP server restarted and forgot our session: the spec says start a new one.
        return Failure("lost", "the server ended the session")
    if http_status is not None and message == "Server returned an error response":
        return _from_status(http_status)
    kind: FailureKind = "unknown_tool" if code == _INVALID_PARAMS else "error"
    return Failure(kind, f"server error {code}: {_short(message)}")


def _from_status(status: int) -> Failure:
    if status in (401, 403):
        reason = "rejected the credentials" if status == 401 else "denied access"
        return Failure("refused", f"the server {reason} (HTTP {status})")
    if status == 404:
        return Failure("lost", "the server no longer knows this connection (HTTP 404)")
    return Failure("error", f"the server answered HTTP {status}")


def root_cause(error: BaseException) -> BaseException:
    """The failure an (exception) group is about."""
    leaves = list(_leaves(error))
    cancelled = anyio.get_cancelled_exc_class()
    # A task group reports the real failure next to the cancellations it caused.
    return next((leaf for leaf in leaves if not isinstance(leaf, cancelled)), leaves[0])


def _leaves(error: BaseException) -> Iterator[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        for inner in error.exceptions:
            yield from _leaves(inner)
    else:
        yield error


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {_short(text)}" if text else type(error).__name__


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _SHORT else text[: _SHORT - 1] + "…"
