"""Who may use the page. The page can approve calls that delete files or send mail, so:

- off loopback, every request carries the token printed at start (in the URL once, then in a
  cookie the browser keeps for this origin only);
- on loopback, the Host header must name this server, so a web page elsewhere cannot reach it by
  pointing a name of its own at 127.0.0.1 (DNS rebinding);
- an answer must be JSON from this origin: a form on another site can post neither.
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "toolwire_token"


class Guard:
    def __init__(
        self,
        app: ASGIApp,
        *,
        token: str | None,
        hosts: frozenset[str],
        on_close: Callable[[], None] = lambda: None,
    ) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts
        self.close = on_close
        """Call before stopping the server: ends the live feeds it would otherwise wait for."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self._problem(scope, headers)
        if problem is not None:
            await _drain(receive)
            await _plain(send, *problem)
            return
        if self.token is not None and _query_token(scope) is not None:
            await self.app(scope, receive, _with_cookie(send, self.token))
            return
        await self.app(scope, receive, send)

    def _problem(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        if self.hosts and host not in self.hosts:
            return 421, f"this server answers to {', '.join(sorted(self.hosts))} only"
        if self.token is not None and not self._has_token(scope, headers):
            return 401, "open the address with the token that `toolwire ui` printed"
        if scope["method"] not in ("GET", "HEAD"):
            origin = headers.get("origin")
            if origin is not None and origin.split("://", 1)[-1] != host:
                return 403, "answers are taken from this page only"
            if headers.get("content-type", "").split(";")[0].strip() != "application/json":
                return 415, "answers are JSON"
        return None

    def _has_token(self, scope: Scope, headers: dict[str, str]) -> bool:
        assert self.token is not None
        given = [_query_token(scope)]
        cookie = SimpleCookie(headers.get("cookie", ""))
        if COOKIE in cookie:
            given.append(cookie[COOKIE].value)
        scheme, _, bearer = headers.get("authorization", "").partition(" ")
        if scheme.lower() == "bearer":
            given.append(bearer.strip())
        expected = self.token.encode()
        return any(g is not None and hmac.compare_digest(g.encode(), expected) for g in given)


def _query_token(scope: Scope) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return values[0] if values else None


def _with_cookie(send: Send, token: str) -> Send:
    async def sending(message: MutableMapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
            message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie.encode())]
        await send(message)

    return sending


async def _drain(receive: Receive, limit: int = 1 << 16) -> None:
    """Read the refused request's body, up to `limit` bytes: a connection closed on a body it
    never read is reset, and the client may lose the refusal to the reset."""
    read = 0
    while read <= limit:
        message = await receive()
        if message["type"] != "http.request":
            return
        read += len(message.get("body", b""))
        if not message.get("more_body"):
            return


async def _plain(send: Send, status: int, text: str) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8")],
        }
    )
    await send({"type": "http.response.body", "body": f"toolwire ui: {text}\n".encode()})
