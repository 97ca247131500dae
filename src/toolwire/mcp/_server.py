"""An MCP server as a toolwire toolset."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, Literal, TextIO, TypeAlias

import anyio

from .._redact import REDACTED, redact
from ..errors import RunError, ToolError, UsageError
from ..tools import Tool, ToolContext, Toolset
from ..tools._patterns import NamePatterns
from ._asking import AnswerFailed, WaitingCalls
from ._catalogue import Policy, RemoteTool, build_tools
from ._failures import classify
from ._params import HTTPParams, ServerParams, StdioParams, TokenSource, secret_values
from ._results import result_text
from ._sdk import require_sdk

if TYPE_CHECKING:
    import httpx2
    import mcp.types as mt

    from ..tools._tool import Invoker
    from ._connect import Connection
    from ._supervisor import Supervisor

logger = logging.getLogger("toolwire.mcp")

DEFAULT_CALL_TIMEOUT = 300.0
"""The protocol-level limit on a call when the server has no `timeout` of its own: the SDK sets
none by default, and a call must never wait forever. The run's `tool_timeout` is usually shorter."""
_MAX_PAGES = 100
_RELIST_TIMEOUT = 5.0
"""A refresh happens at the start of a step: a stuck server must not hold the run for long."""
_GRACE = 1.0
"""Our own deadline trails the SDK's by this much: the SDK's timeout also asks the server to stop
the call; ours only catches a transport that hangs before the request is even sent."""

_MIN_SECRET = 6
"""Shorter values are not credentials, and replacing them would garble results."""

Status: TypeAlias = Literal["closed", "connecting", "ready", "backoff", "failed", "stopped"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolProgress:
    """A progress notification for a running call (`progress` rises; `total` may be unknown)."""

    server: str
    tool: str
    call_id: str
    progress: float
    total: float | None
    message: str | None


ProgressCallback: TypeAlias = Callable[[ToolProgress], Awaitable[None] | None]


class MCPServer(Toolset):
    """The tools of one MCP server, over stdio (`MCPServer.stdio`) or Streamable HTTP
    (`MCPServer.http`).

    Entering it (the agent does, for each run; an application may too, to share one connection
    across runs) starts a supervisor that connects, lists the tools, follows list-changed
    notifications and reconnects after a crash. Entering is reference-counted: the connection
    closes when the last holder leaves.

    Options:
        name: what errors and logs call the server (default: the command or host name).
        trusted: take the server's annotations (read-only, idempotent, destructive) at their
            word. Tools of an untrusted server are all destructive and need approval.
        allow / deny: shell-style patterns (`git_*`) on the server's own tool names (whatever
            `prefix` and the provider-safe mapping show the model); a pattern matching none of
            them is a `UsageError` when the tools are first listed.
        prefix: put before every tool name the model sees.
        timeout: seconds per call (default: the run's `tool_timeout`, and at most 300 at the
            protocol level).
        connect_timeout: seconds to start, negotiate and list the tools.
        requires_approval: True or False for every tool, overriding the default above.
        required: if the first connection fails, raise (default) or keep retrying in the
            background while the run goes on without these tools.
        on_progress: called with a `ToolProgress` for every progress notification.
        sampling: let the server ask the run's model for completions during its calls (off by
            default: the capability is not even offered). Each request is shown to the
            approver like a call, runs within the run's limits and is logged.
        stderr: where a stdio server's stderr goes (default: kept, and its last lines shown if
            the server fails to start).
    """

    def __init__(
        self,
        params: ServerParams,
        *,
        name: str | None = None,
        trusted: bool = False,
        allow: Collection[str] | None = None,
        deny: Collection[str] = (),
        prefix: str = "",
        timeout: float | None = None,
        connect_timeout: float = 30.0,
        requires_approval: bool | None = None,
        required: bool = True,
        on_progress: ProgressCallback | None = None,
        sampling: bool = False,
        stderr: TextIO | None = None,
    ) -> None:
        require_sdk()
        for label, seconds in (("timeout", timeout), ("connect_timeout", connect_timeout)):
            if seconds is not None and not seconds > 0:
                raise UsageError(f"MCP server option {label} must be a positive number of seconds")
        self.params = params
        self.name = name or params.default_name()
        allowed = None if allow is None else NamePatterns(allow, f"MCP server {self.name!r}: allow")
        denied = NamePatterns(deny, f"MCP server {self.name!r}: deny")
        self._patterns = (denied,) if allowed is None else (allowed, denied)
        self.policy = Policy(
            trusted=trusted,
            allow=None if allowed is None else allowed.patterns,
            deny=denied.patterns,
            prefix=prefix,
            requires_approval=requires_approval,
            timeout=timeout,
        )
        self.connect_timeout = connect_timeout
        self.required = required
        self.on_progress = on_progress
        self.sampling = sampling
        self.stderr = stderr
        self._secrets = set(secret_values(params))
        self._waiting = WaitingCalls()
        self._refs = 0
        self._opening: anyio.Event | None = None
        self._supervisor: Supervisor | None = None
        self._listing: anyio.Lock | None = None
        self._listed: list[mt.Tool] | None = None
        self._checked: list[mt.Tool] | None = None
        self._tools: tuple[Tool, ...] = ()
        self._stale = True
        self._listed_at = 0.0
        self._ttl = 0.0

    @classmethod
    def stdio(
        cls,
        command: str,
        args: Sequence[str] = (),
        *,
        env: Mapping[str, str] | None = None,
        cwd: str | Path | None = None,
        **options: Any,
    ) -> MCPServer:
        """A server started as `command args...`, speaking MCP on its stdin/stdout."""
        return cls(
            StdioParams(command=command, args=tuple(args), env=env or {}, cwd=cwd), **options
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        token: TokenSource | None = None,
        auth: httpx2.Auth | None = None,
        headers: Mapping[str, str] | None = None,
        **options: Any,
    ) -> MCPServer:
        """A server at a Streamable HTTP endpoint. `token` (or a function returning the current
        one) is sent as a bearer token: the user's identity, kept from the model."""
        return cls(HTTPParams(url=url, token=token, auth=auth, headers=headers or {}), **options)

    def __repr__(self) -> str:
        return f"MCPServer({self.name!r}, {self.params.describe()!r})"

    @property
    def status(self) -> Status:
        return "closed" if self._supervisor is None else self._supervisor.state

    @property
    def instructions(self) -> str | None:
        """What the server says about using its tools (for the system prompt), once connected."""
        conn = self._supervisor.connection if self._supervisor else None
        return conn.client.instructions if conn else None

    async def __aenter__(self) -> MCPServer:
        if self._opening is not None:
            # Another task is connecting right now: share its outcome.
            await self._opening.wait()
            if self._supervisor is None:
                raise RunError(f"MCP server {self.name!r} could not be started")
        elif self._refs == 0:
            self._opening = anyio.Event()
            supervisor = self._new_supervisor()
            try:
                await supervisor.start(required=self.required)
            except BaseException:
                await supervisor.stop()
                raise
            finally:
                opening, self._opening = self._opening, None
                opening.set()
            self._supervisor = supervisor
        self._refs += 1
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._refs == 0:
            return  # an exit without an enter (or a failed one): nothing is open
        self._refs -= 1
        if self._refs == 0 and self._supervisor is not None:
            supervisor, self._supervisor = self._supervisor, None
            await supervisor.stop()

    async def get_tools(self) -> Sequence[Tool]:
        supervisor = self._open_supervisor()
        conn = supervisor.connection
        if conn is not None and supervisor.state == "ready" and self._needs_listing(supervisor):
            await self._relist(conn)
        if self._listed is not self._checked:
            # Here, not where the list is read: that also happens while reconnecting, where an
            # error would only be logged; from here it stops the run.
            listed = [(t.name, t.name) for t in self._listed or ()]
            for patterns in self._patterns:
                patterns.check(listed)
            self._checked = self._listed
        return self._tools

    def _open_supervisor(self) -> Supervisor:
        if self._supervisor is None:
            raise UsageError(
                f"MCP server {self.name!r} is not open: use it inside `async with server:` "
                "(an Agent opens its toolsets for each run)"
            )
        return self._supervisor

    def _new_supervisor(self) -> Supervisor:
        from ._supervisor import Supervisor

        self._listing = anyio.Lock()
        timeout = self.policy.timeout or DEFAULT_CALL_TIMEOUT
        return Supervisor(
            name=self.name,
            params=self.params,
            connect_timeout=self.connect_timeout,
            read_timeout=timeout,
            stderr=self.stderr,
            prepare=self._list_tools,
            tools_changed=self._mark_stale,
            seen_secret=self._secrets.add,
            secrets=self._secret_list,
            callbacks=self._callbacks(),
        )

    def _callbacks(self) -> dict[str, Any]:
        """What the SDK client answers for the server; each one it is given, it also declares."""
        from ._asking import elicitation_callback, sampling_callback

        callbacks: dict[str, Any] = {
            "elicitation_callback": elicitation_callback(self.name, self._waiting)
        }
        if self.sampling:
            callbacks["sampling_callback"] = sampling_callback(self.name, self._waiting)
        return callbacks

    def _secret_list(self) -> list[str]:
        return list(self._secrets)

    def _mark_stale(self) -> None:
        self._stale = True

    def _needs_listing(self, supervisor: Supervisor) -> bool:
        if self._stale:
            return True
        # Without list-changed notifications the list is as fresh as the server's TTL allows.
        expired = anyio.current_time() - self._listed_at >= self._ttl
        return expired and not supervisor.promises_notifications

    async def _relist(self, conn: Connection) -> None:
        assert self._listing is not None
        asked_at = anyio.current_time()
        async with self._listing:
            if not self._stale and self._listed_at >= asked_at:
                return  # another step listed them while this one waited
            try:
                with anyio.fail_after(min(self.connect_timeout, _RELIST_TIMEOUT)):
                    await self._list_tools(conn)
            except Exception as error:
                failure = classify(error, conn.http_statuses.last)
                if failure.kind == "lost":
                    conn.lost.set()
                self._stale = True
                logger.warning(
                    "MCP server %r: could not refresh its tools (%s); keeping the last list",
                    self.name,
                    failure.message,
                )

    async def _list_tools(self, conn: Connection) -> None:
        self._stale = False
        listed: list[mt.Tool] = []
        cursor: str | None = None
        cursors: set[str] = set()
        ttl: float | None = None
        for _ in range(_MAX_PAGES):
            page = await conn.client.list_tools(cursor=cursor)
            listed.extend(page.tools)
            if ttl is None:
                ttl = (page.ttl_ms or 0) / 1000
            cursor = page.next_cursor
            # Only a missing cursor ends the list: "" is a valid cursor.
            if cursor is None or cursor in cursors:
                break
            cursors.add(cursor)
        else:
            logger.warning("MCP server %r: tool list cut at %d pages", self.name, _MAX_PAGES)
        if cursor is not None and cursor in cursors:
            logger.warning("MCP server %r: tool list pages repeat; list cut there", self.name)
        self._listed_at = anyio.current_time()
        self._ttl = ttl or 0.0
        if listed != self._listed:
            self._tools = build_tools(listed, self.policy, self.name, self._invoker)
            self._listed = listed

    def _invoker(self, remote: RemoteTool) -> Invoker:
        async def invoke(arguments: Mapping[str, Any], context: ToolContext) -> str:
            return await self._call(remote, arguments, context)

        return invoke

    async def _call(
        self, remote: RemoteTool, arguments: Mapping[str, Any], context: ToolContext
    ) -> str:
        supervisor = self._open_supervisor()
        timeout = self.policy.timeout or DEFAULT_CALL_TIMEOUT
        deadline = anyio.current_time() + timeout
        progress = self._progress(remote, context) if self.on_progress else None
        replayed = False
        while True:
            conn = await supervisor.connection_before(deadline)
            statuses = conn.http_statuses.count
            try:
                result = await self._send(conn, remote, arguments, context, deadline, progress)
            except AnswerFailed as failed:
                raise failed.error from None
            except Exception as error:
                failure = classify(error, conn.http_statuses.since(statuses))
                if failure.kind == "lost":
                    conn.lost.set()
                    if remote.replayable and not replayed and anyio.current_time() < deadline:
                        replayed = True
                        logger.info("MCP server %r: replaying %s", self.name, remote.mcp_name)
                        continue
                    why = f" ({conn.fault})" if conn.fault else ""
                    raise ToolError(
                        self._scrub(
                            f"The connection to MCP server {self.name!r} was lost during the "
                            f"call{why}, so it may or may not have taken effect. It was not "
                            "repeated because the tool may have side effects."
                        )
                    ) from None
                if failure.kind == "timeout":
                    raise ToolError(self._timed_out(timeout)) from None
                if failure.kind == "unknown_tool":
                    self._stale = True
                message = f"{failure.message} (MCP server {self.name!r})"
                raise ToolError(redact(message, self._secrets)) from None
            if result is None:
                raise ToolError(self._timed_out(timeout))
            return self._render(result)

    async def _send(
        self,
        conn: Connection,
        remote: RemoteTool,
        arguments: Mapping[str, Any],
        context: ToolContext,
        deadline: float,
        progress: Any,
    ) -> mt.CallToolResult | None:
        """The server's result, or None when our own deadline (trailing the SDK's) passed."""
        scope = anyio.move_on_at(deadline + _GRACE)
        with scope, conn.awaiting_answer(), self._waiting.waiting(remote.name, context, scope):
            return await conn.client.call_tool(
                remote.mcp_name,
                dict(arguments),
                read_timeout_seconds=max(deadline - anyio.current_time(), 0.001),
                progress_callback=progress,
            )
        return None

    def _render(self, result: mt.CallToolResult) -> str:
        try:
            return self._scrub(result_text(result))
        except ToolError as error:
            message = str(error)
            if "unknown tool" in message.lower():
                self._stale = True
            raise ToolError(self._scrub(message)) from None

    def _scrub(self, text: str) -> str:
        # Whatever a server echoes, the credentials it was given never reach the model.
        for secret in self._secrets:
            if len(secret) >= _MIN_SECRET:
                text = text.replace(secret, REDACTED)
        return text

    def _timed_out(self, timeout: float) -> str:
        return (
            f"Timed out after {timeout:g} s waiting for MCP server {self.name!r}; "
            "the server was asked to cancel the call."
        )

    def _progress(self, remote: RemoteTool, context: ToolContext) -> Any:
        callback = self.on_progress
        assert callback is not None

        async def report(progress: float, total: float | None, message: str | None) -> None:
            event = ToolProgress(
                server=self.name,
                tool=remote.name,
                call_id=context.call_id,
                progress=progress,
                total=total,
                message=message,
            )
            try:
                outcome = callback(event)
                if inspect.isawaitable(outcome):
                    await outcome
            except Exception:
                logger.exception("the on_progress callback of MCP server %r failed", self.name)

        return report
