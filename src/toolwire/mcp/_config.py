"""The `mcpServers` JSON shape other hosts use (Claude Desktop, Cursor, VS Code's `servers`),
with toolwire's per-server options beside the connection fields.

    {"mcpServers": {
        "time": {"command": "mcp-server-time", "args": ["--local-timezone", "UTC"],
                 "trusted": true},
        "notes": {"url": "https://notes.example/mcp", "token": "${NOTES_TOKEN}",
                  "hidden": ["save_run_summary"], "timeout": 20}}}

`${VAR}` and `${VAR:-default}` are replaced from the environment in commands, arguments, env
values, URLs, headers and tokens, so secrets need not be written into the file.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..tools import Toolset
from ._group import MCPServers
from ._params import HTTPParams, ServerParams, StdioParams
from ._server import MCPServer, ProgressCallback

_CONNECTION_KEYS = {"type", "transport", "command", "args", "env", "cwd", "url", "headers", "token"}
_OPTION_KEYS = {
    "trusted",
    "allow",
    "deny",
    "hidden",
    "prefix",
    "timeout",
    "connect_timeout",
    "requires_approval",
    "required",
    "disabled",
    "sampling",
}
# Keys other hosts write that mean nothing here; anything else unknown is an error (a typo must
# not silently turn, say, `trusted` off).
_FOREIGN_KEYS = {"description", "autoApprove", "alwaysAllow", "icon", "notes", "envFile"}
_HTTP_TYPES = {"http", "streamable-http", "streamableHttp", "streamable_http"}
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")


def load_config(
    source: str | Path | Mapping[str, Any],
    *,
    on_progress: ProgressCallback | None = None,
) -> MCPServers:
    """The servers of an `mcpServers` config (a file path or the parsed mapping) as one toolset.
    Nothing connects until it is entered."""
    where = "MCP config" if isinstance(source, Mapping) else str(source)
    data = source if isinstance(source, Mapping) else _read(Path(source))
    servers = data.get("mcpServers", data.get("servers"))
    if not isinstance(servers, Mapping):
        raise UsageError(f'{where}: expected an object with "mcpServers": {{name: server, ...}}')
    members: dict[str, Toolset] = {}
    for name, entry in servers.items():
        path = f"{where}: mcpServers.{name}"
        if not isinstance(entry, Mapping):
            raise UsageError(f"{path}: a server is an object")
        if _option(entry, "disabled", bool, path, False):
            continue
        members[name] = _server(name, entry, path, on_progress)
    if not members:
        raise UsageError(f"{where}: no servers configured")
    return MCPServers(members)


def _read(path: Path) -> Mapping[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"MCP config file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read MCP config {path}: {error}") from None
    except json.JSONDecodeError as error:
        raise UsageError(f"MCP config {path} is not valid JSON: {error}") from None
    if not isinstance(data, Mapping):
        raise UsageError(f"MCP config {path}: expected a JSON object")
    return data


def _server(
    name: str, entry: Mapping[str, Any], path: str, on_progress: ProgressCallback | None
) -> Toolset:
    unknown = sorted(set(entry) - _CONNECTION_KEYS - _OPTION_KEYS - _FOREIGN_KEYS)
    if unknown:
        raise UsageError(f"{path}: unknown key(s) {', '.join(map(repr, unknown))}")
    server = MCPServer(
        _params(entry, path),
        name=name,
        trusted=_option(entry, "trusted", bool, path, False),
        allow=_names(entry, "allow", path),
        deny=_names(entry, "deny", path) or (),
        prefix=_option(entry, "prefix", str, path, ""),
        timeout=_seconds(entry, "timeout", path),
        connect_timeout=_seconds(entry, "connect_timeout", path) or 30.0,
        requires_approval=_option(entry, "requires_approval", bool, path, None),
        required=_option(entry, "required", bool, path, True),
        sampling=_option(entry, "sampling", bool, path, False),
        on_progress=on_progress,
    )
    hidden = _names(entry, "hidden", path)
    return server.hidden(*hidden) if hidden else server


def _params(entry: Mapping[str, Any], path: str) -> ServerParams:
    kind = entry.get("type", entry.get("transport"))
    if kind is not None and not isinstance(kind, str):
        raise UsageError(f"{path}.type: must be a string")
    has_url, has_command = "url" in entry, "command" in entry
    if has_url == has_command:
        raise UsageError(f'{path}: give either "command" (stdio) or "url" (HTTP)')
    if kind == "sse":
        raise UsageError(
            f"{path}: the deprecated HTTP+SSE transport is not supported; "
            "use the server's Streamable HTTP endpoint"
        )
    if has_command:
        if kind not in (None, "stdio"):
            raise UsageError(f'{path}: type {kind!r} does not go with "command"')
        _only(entry, {"url", "headers", "token"}, "a stdio server", path)
        args = entry.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise UsageError(f"{path}.args: must be a list of strings")
        cwd = entry.get("cwd")
        if cwd is not None and not isinstance(cwd, str):
            raise UsageError(f"{path}.cwd: must be a string")
        return StdioParams(
            command=_expand(_option(entry, "command", str, path, ""), f"{path}.command"),
            args=tuple(_expand(a, f"{path}.args") for a in args),
            env=_strings(entry, "env", path),
            cwd=None if cwd is None else _expand(cwd, f"{path}.cwd"),
        )
    if kind not in (None, *_HTTP_TYPES):
        raise UsageError(f'{path}: type {kind!r} does not go with "url"')
    _only(entry, {"args", "env", "cwd"}, "an HTTP server", path)
    token = entry.get("token")
    if token is not None and not isinstance(token, str):
        raise UsageError(f"{path}.token: must be a string")
    return HTTPParams(
        url=_expand(_option(entry, "url", str, path, ""), f"{path}.url"),
        token=None if token is None else _expand(token, f"{path}.token"),
        headers=_strings(entry, "headers", path),
    )


def _only(entry: Mapping[str, Any], wrong: set[str], what: str, path: str) -> None:
    found = sorted(wrong & set(entry))
    if found:
        raise UsageError(f"{path}: {', '.join(map(repr, found))} do(es) not apply to {what}")


def _option(entry: Mapping[str, Any], key: str, kind: type, path: str, default: Any) -> Any:
    value = entry.get(key, default)
    if value is not default and not isinstance(value, kind):
        raise UsageError(f"{path}.{key}: must be a {_TYPE_NAMES[kind]}")
    return value


_TYPE_NAMES = {bool: "boolean (true/false)", str: "string"}


def _seconds(entry: Mapping[str, Any], key: str, path: str) -> float | None:
    value = entry.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise UsageError(f"{path}.{key}: must be a positive number of seconds")
    return float(value)


def _names(entry: Mapping[str, Any], key: str, path: str) -> list[str] | None:
    value = entry.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise UsageError(f"{path}.{key}: must be a list of tool names")
    return value


def _strings(entry: Mapping[str, Any], key: str, path: str) -> dict[str, str]:
    value = entry.get(key, {})
    if not isinstance(value, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    ):
        raise UsageError(f"{path}.{key}: must be an object of strings")
    return {k: _expand(v, f"{path}.{key}.{k}") for k, v in value.items()}


def _expand(text: str, path: str) -> str:
    def replace(match: re.Match[str]) -> str:
        name, default = match.group(1), match.group(2)
        value = os.environ.get(name)
        if value is None:
            if default is None:
                raise UsageError(f"{path}: environment variable {name} is not set")
            return default
        return value

    return _VARIABLE.sub(replace, text)
