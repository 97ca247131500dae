"""An official-SDK `MCPServer` over stdio, or Streamable HTTP (`http PORT`): the modern
(2026-07-28) list-changed path, announced on a `subscriptions/listen` stream."""

from __future__ import annotations

import sys

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.types import ToolAnnotations

mcp = MCPServer("sdk-peer", log_level="WARNING")


@mcp.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool()
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool and announce it."""

    def dynamic() -> str:
        return f"hello from {name}"

    mcp.add_tool(dynamic, name=name, description=f"dynamic {name}")
    await ctx.notify_tools_changed()
    return f"registered {name}"


if __name__ == "__main__":
    if sys.argv[1:2] == ["http"]:
        mcp.run(transport="streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        mcp.run()
