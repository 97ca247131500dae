"""One task per server owns its connection: connect within a deadline, follow list-changed
notifications, reconnect with backoff after a crash or a dropped session, and let callers wait
(bounded) for a usable connection."""

from __future__ import annotations

import logging
import math
import random
import sys
from collections.abc import Awaitable, Callable, Mapping
from contextlib import nullcontext
from typing import Any, Literal, TextIO, TypeAlias

import anyio
import mcp.types as mt
import pydantic
from mcp.client.session import IncomingMessage
from mcp.client.subscriptions import SubscriptionLost

from .._redact import redact
from ..errors import RunError, ToolError, ToolwireError, UsageError
from ._connect import Connection, HTTPStatuses, StderrCapture, open_connection
from ._detached import spawn
from ._failures import classify, root_cause
from ._params import ServerParams, StdioParams

logger = logging.getLogger("toolwire.mcp")


class _ParseErrorsReportedHere(logging.Filter):
    """The SDK logs every line a stdio server writes that is not JSON-RPC with a traceback, and
    hands the error on to the supervisor, which reports it with the server's name and the line."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.msg != "Failed to parse JSONRPC message from server"


logging.getLogger("mcp.client.stdio").addFilter(_ParseErrorsReportedHere())

State: TypeAlias = Literal["connecting", "ready", "backoff", "failed", "stopped"]
Prepare: TypeAlias = Callable[[Connection], Awaitable[None]]

_BACKOFF_BASE = 0.5
_BACKOFF_CAP = 30.0
_STABLE_AFTER = 2.0
"""A connection that lived this long resets the backoff: a server that dies right after every
start is retried ever more slowly, one that crashed once is restarted at once."""
_STOP_TIMEOUT = 10.0
_RELISTEN_DELAY = 1.0
_SHOWN_CHARS = 100
_GARBLED_GRACE = 2.0
"""After a line that is not JSON-RPC, how long the calls then waiting still get for their answer:
the line may be stray output (a server's print), tolerated, or the answer itself, garbled, which
would otherwise leave each of them waiting out its whole timeout."""


class Supervisor:
    """Owns the connection to one server for as long as the toolset is open.

    `prepare` runs on every new connection before it counts as ready (it lists the tools);
    `tools_changed` is called when the server says its tool list changed.
    """

    def __init__(
        self,
        *,
        name: str,
        params: ServerParams,
        connect_timeout: float,
        read_timeout: float,
        stderr: TextIO | None,
        prepare: Prepare,
        tools_changed: Callable[[], None],
        seen_secret: Callable[[str], None],
        secrets: Callable[[], list[str]],
        callbacks: Mapping[str, Any],
    ) -> None:
        self.name = name
        self.params = params
        self.connect_timeout = connect_timeout
        self.read_timeout = read_timeout
        self.stderr = stderr
        self.prepare = prepare
        self.tools_changed = tools_changed
        self.seen_secret = seen_secret
        self.secrets = secrets
        self.callbacks = callbacks
        """The SDK client's callbacks for what the server asks of the host (elicitation...)."""
        self.state: State = "stopped"
        self.connection: Connection | None = None
        self.listening = False
        """A `subscriptions/listen` stream promises list-changed notifications (2026-07-28)."""
        self.last_error: str | None = None
        self._reachable = False
        self._ever_ready = False
        self._fatal: ToolwireError | None = None
        self._statuses = HTTPStatuses()
        self._unparsed_lines = 0
        self._last_unparsed = ""
        self._required = True
        self._startup: anyio.CancelScope | None = None
        self._changed = anyio.Event()
        self._stop = anyio.Event()
        self._done = anyio.Event()

    async def start(self, *, required: bool) -> None:
        """Start the task and wait for the first connection. A `required` server that cannot be
        reached raises (`UsageError` when the configuration must change, else `RunError`); any
        other keeps trying in the background."""
        self._required = required
        self._set("connecting")
        spawn(self._run)
        while self.state == "connecting":
            await self._changed.wait()
        if self.state == "failed":
            await self._done.wait()
            assert self._fatal is not None
            raise self._fatal

    async def stop(self) -> None:
        self._stop.set()
        if self._startup is not None:
            self._startup.cancel()
        if self.connection is not None:
            self.connection.lost.set()
        # Shielded and bounded: a caller being cancelled must still not leak the server process,
        # and a server that ignores its closed stdin is killed by the SDK within a few seconds.
        with anyio.CancelScope(shield=True), anyio.move_on_after(_STOP_TIMEOUT):
            await self._done.wait()

    async def connection_before(self, deadline: float) -> Connection:
        """A ready connection, waiting through a (re)connect until `deadline`."""
        while True:
            changed = self._changed
            conn = self.connection
            if self.state == "ready" and conn is not None and not conn.lost.is_set():
                return conn
            if self.state in ("failed", "stopped") or (
                self.state == "backoff" and not self._reachable
            ):
                raise ToolError(self.unavailable())
            with anyio.move_on_at(deadline):
                await changed.wait()
            if anyio.current_time() >= deadline:
                raise ToolError(self.unavailable())

    def unavailable(self) -> str:
        why = f": {self.last_error}" if self.last_error else ""
        return f"MCP server {self.name!r} is unavailable{why}"

    @property
    def promises_notifications(self) -> bool:
        """Whether the server tells us when its tools change (else the list is polled)."""
        conn = self.connection
        if conn is None:
            return False
        if self.listening:
            return True
        tools = conn.client.server_capabilities.tools
        return not conn.modern and tools is not None and bool(tools.list_changed)

    def _set(self, state: State) -> None:
        self.state = state
        changed, self._changed = self._changed, anyio.Event()
        changed.set()

    async def _run(self) -> None:
        failures = 0
        try:
            while not self._stop.is_set():
                self._set("connecting")
                error, lived = await self._attempt()
                if self._stop.is_set():
                    break
                if error is None:
                    failures = 0 if lived >= _STABLE_AFTER else failures + 1
                    if failures <= 1:
                        continue
                else:
                    failures += 1
                    if not self._ever_ready and self._required:
                        self._fatal = error
                        self._set("failed")
                        return
                    # Once per outage, not once per retry.
                    logger.log(logging.WARNING if failures == 1 else logging.DEBUG, "%s", error)
                self._set("backoff")
                delay = min(_BACKOFF_CAP, _BACKOFF_BASE * 2 ** (failures - 1))
                with anyio.move_on_after(delay * (0.5 + random.random() / 2)):
                    await self._stop.wait()
        except Exception:
            logger.exception("the supervisor of MCP server %r failed", self.name)
        finally:
            self.connection = None
            if self.state != "failed":
                self._set("stopped")
            self._done.set()

    async def _attempt(self) -> tuple[ToolwireError | None, float]:
        """One connection, from start to loss. Returns the startup error, or None and how long
        the connection was ready."""
        capture = (
            StderrCapture()
            if isinstance(self.params, StdioParams) and self.stderr is None
            else None
        )
        ready_at: float | None = None
        self._statuses = statuses = HTTPStatuses()
        self._unparsed_lines = 0
        with capture or nullcontext():
            errlog = self.stderr or (capture.file if capture else sys.stderr)
            try:
                with anyio.CancelScope() as scope:
                    # The deadline bounds the start only; `stop` cancels a start in progress.
                    scope.deadline = anyio.current_time() + self.connect_timeout
                    self._startup = scope
                    async with open_connection(
                        self.params,
                        read_timeout=self.read_timeout,
                        connect_timeout=self.connect_timeout,
                        message_handler=self._on_message,
                        errlog=errlog,
                        http_statuses=statuses,
                        seen_secret=self.seen_secret,
                        callbacks=self.callbacks,
                    ) as conn:
                        await self.prepare(conn)
                        scope.deadline = math.inf
                        self._startup = None
                        ready_at = anyio.current_time()
                        self._serve(conn)
                        async with anyio.create_task_group() as group:
                            if conn.modern and conn.client.server_capabilities.tools:
                                group.start_soon(self._listen, conn)
                            await conn.lost.wait()
                            group.cancel_scope.cancel()
                if ready_at is None:
                    why = (
                        f"no answer within {self.connect_timeout:g} s"
                        if scope.cancelled_caught
                        else "the connection closed during startup"
                    )
                    return self._startup_error(why, None, capture), 0.0
            except Exception as error:
                if ready_at is None:
                    return self._startup_error(None, error, capture), 0.0
                logger.info("MCP server %r: connection lost (%s)", self.name, root_cause(error))
            finally:
                self._startup = None
                self.connection = None
                self.listening = False
        return None, anyio.current_time() - ready_at

    def _serve(self, conn: Connection) -> None:
        self.connection = conn
        self._reachable = self._ever_ready = True
        self.last_error = None
        self._set("ready")

    def _startup_error(
        self, why: str | None, error: Exception | None, capture: StderrCapture | None
    ) -> ToolwireError:
        self._reachable = False
        where = f"MCP server {self.name!r} ({self.params.describe()})"
        cause = root_cause(error) if error is not None else None
        if isinstance(cause, FileNotFoundError | PermissionError):
            problem = "not found" if isinstance(cause, FileNotFoundError) else "not executable"
            self.last_error = f"its command is {problem}"
            return UsageError(f"cannot start {where}: command {problem}")
        failure = classify(error, self._statuses.last) if error is not None else None
        if failure is not None and failure.kind == "refused":
            self.last_error = failure.message
            return UsageError(f"{where}: {failure.message}; check its token")
        detail = why or (failure.message if failure else "failed")
        # What a model is told when a call finds the server down: no paths, no stderr.
        self.last_error = redact(detail, self.secrets())
        tail = capture.tail() if capture else ""
        if tail:
            detail += f"\nlast lines of its stderr:\n{tail}"
        return RunError(redact(f"cannot connect to {where}: {detail}", self.secrets()))

    async def _on_message(self, message: IncomingMessage) -> None:
        # Legacy servers (and FastMCP) send list_changed on the session itself.
        if isinstance(message, mt.ToolListChangedNotification):
            self.tools_changed()
        elif isinstance(message, Exception):
            await self._garbled(message)

    async def _garbled(self, error: Exception) -> None:
        # The SDK runs this in a task of its own: waiting here holds up no other message.
        self._unparsed_lines += 1
        self._last_unparsed = line = _unparsed(error)
        # Once per connection: a server that prints as it works would fill the screen.
        level = logging.WARNING if self._unparsed_lines == 1 else logging.DEBUG
        logger.log(level, "MCP server %r wrote a line that is not JSON-RPC: %s", self.name, line)
        conn = self.connection
        if conn is None or not conn.waiting:
            return
        waiting = set(conn.waiting)
        await anyio.sleep(_GARBLED_GRACE)
        if waiting & conn.waiting and not conn.lost.is_set():
            # The answer is not coming: drop the connection, so those calls fail now (or are
            # replayed, if safe) and the next one gets a fresh server.
            conn.fault = (
                f"it wrote a line that is not JSON-RPC ({self._last_unparsed}) "
                "and no answer followed"
            )
            conn.lost.set()

    async def _listen(self, conn: Connection) -> None:
        """Modern servers announce list changes only on a listen stream; re-listen after a drop
        and refetch, since nothing missed in between is replayed."""
        first = True
        while not conn.lost.is_set():
            try:
                async with conn.client.listen(tools_list_changed=True) as subscription:
                    if not subscription.honored.tools_list_changed:
                        return
                    self.listening = True
                    if not first:
                        self.tools_changed()
                    async for _ in subscription:
                        self.tools_changed()
            except SubscriptionLost:
                pass
            except Exception as error:
                # Not offered (FastMCP answers "method not found"): the list is polled instead.
                logger.debug("MCP server %r: no listen stream (%s)", self.name, error)
                return
            finally:
                self.listening = False
            first = False
            await anyio.sleep(_RELISTEN_DELAY)


def _unparsed(error: Exception) -> str:
    """What the server wrote, short, from the SDK's parse error (or the error itself)."""
    if isinstance(error, pydantic.ValidationError) and error.errors():
        shown = repr(error.errors(include_url=False)[0].get("input"))
    else:
        shown = f"{type(error).__name__}: {error}"
    return shown if len(shown) <= _SHOWN_CHARS else shown[: _SHOWN_CHARS - 1] + "…"
