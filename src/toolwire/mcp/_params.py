"""Where an MCP server is and how to reach it: a command (stdio) or a URL (Streamable HTTP)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias
from urllib.parse import urlsplit

from ..errors import UsageError

if TYPE_CHECKING:
    import httpx2

TokenSource: TypeAlias = str | Callable[[], str]
"""A bearer token, or a function returning the current one (asked on every request)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class StdioParams:
    """Start `command args...` and speak MCP over its stdin/stdout.

    The child gets only `env` plus a small safe allow-list of this process's environment (PATH,
    HOME, ...): credentials for the server go in `env`, never in arguments the model sees.
    """

    command: str
    args: Sequence[str] = ()
    env: Mapping[str, str] = field(default_factory=dict, repr=False)
    cwd: str | Path | None = None

    def __post_init__(self) -> None:
        if not self.command.strip():
            raise UsageError("an MCP stdio server needs a command")
        if isinstance(self.args, str):
            raise UsageError("StdioParams.args is a list of arguments, not one string")

    def describe(self) -> str:
        return " ".join([self.command, *self.args])

    def default_name(self) -> str:
        """The program's name; for an interpreter or launcher (`python server.py`,
        `npx -y @scope/server-x`), the name of what it runs."""
        program = Path(self.command).stem
        if _LAUNCHER.fullmatch(program):
            target = next((a for a in self.args if not a.startswith("-")), "")
            for part in reversed(Path(target).with_suffix("").parts):
                if part not in _GENERIC_PARTS:
                    return part.split("@")[0] or program
        return program or "mcp"


_LAUNCHER = re.compile(r"python[0-9.]*|node|npx|uvx|uv|bun|bunx|deno|pipx")
_GENERIC_PARTS = {"index", "main", "__main__", "server", "dist", "build", "src", "lib", "run", "-m"}


@dataclass(frozen=True, kw_only=True, slots=True, repr=False)
class HTTPParams:
    """Speak MCP over Streamable HTTP to `url`.

    Identity: `token` is sent as `Authorization: Bearer ...` on every request (the server derives
    the user from it); `auth` is any `httpx2.Auth` instead (OAuth, say). Neither is ever shown to
    the model, put in an error message, or written to the run log. `headers` are extra headers.
    """

    url: str
    token: TokenSource | None = field(default=None, repr=False)
    auth: httpx2.Auth | None = field(default=None, repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise UsageError(f"an MCP server URL must be http(s)://host/...: {self.describe()!r}")
        if self.token is not None and self.auth is not None:
            raise UsageError("give an MCP server either a token or an auth object, not both")
        if isinstance(self.token, str) and not self.token.strip():
            raise UsageError("the MCP server token is empty")

    def __repr__(self) -> str:
        return f"HTTPParams(url={self.describe()!r})"

    def describe(self) -> str:
        parts = urlsplit(self.url)
        # Userinfo and the query may hold credentials; they never appear in messages.
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
        return f"{parts.scheme}://{host}{port}{parts.path}"

    def default_name(self) -> str:
        return urlsplit(self.url).hostname or "mcp"

    def secrets(self) -> list[str]:
        found = [self.token] if isinstance(self.token, str) else []
        found += [v for k, v in self.headers.items() if _looks_secret(k)]
        parts = urlsplit(self.url)
        found += [p for p in (parts.password, parts.query) if p]
        return found


ServerParams: TypeAlias = StdioParams | HTTPParams

_SECRET_WORDS = ("auth", "token", "key", "secret", "password", "cookie", "credential")


def _looks_secret(name: str) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in _SECRET_WORDS)


def secret_values(params: ServerParams) -> list[str]:
    """Values that must never reach the model, whatever a server echoes back."""
    if isinstance(params, HTTPParams):
        return params.secrets()
    return [v for k, v in params.env.items() if _looks_secret(k)]
