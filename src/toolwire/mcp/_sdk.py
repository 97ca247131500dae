"""The `mcp` extra: checked when a server is configured, imported when it is connected."""

from __future__ import annotations

from importlib.util import find_spec

from ..errors import UsageError

_MODULES = ("mcp", "httpx2", "jsonschema")


def require_sdk() -> None:
    missing = [name for name in _MODULES if find_spec(name) is None]
    if missing:
        raise UsageError(
            f"MCP servers need the mcp extra ({', '.join(missing)} not installed): "
            "pip install 'toolwire[mcp]'"
        )
