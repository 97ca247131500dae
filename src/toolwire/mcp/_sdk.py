"""The `mcp` extra: checked when a server is configured, imported when it is connected."""

from __future__ import annotations

import functools
from importlib.util import find_spec

from ..errors import UsageError

_MODULES = ("mcp", "httpx2", "jsonschema")


@functools.cache
def require_sdk() -> None:
    """Cached once the extra is found (a failure raises, and is checked again next time)."""
    missing = [name for name in _MODULES if find_spec(name) is None]
    if missing:
        raise UsageError(
            f"MCP servers need the mcp extra ({', '.join(missing)} not installed): "
            "pip install 'toolwire[mcp]'"
        )
