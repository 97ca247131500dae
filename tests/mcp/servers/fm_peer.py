"""A FastMCP 4 server over stdio or Streamable HTTP (`http PORT [TOKEN]`).

It announces tool-list changes on the session (as FastMCP does, without advertising them), reports
progress, and can echo back the bearer token it was given (a server must not leak it through us).
"""

from __future__ import annotations

import asyncio
import sys

import mcp.types as mt
from fastmcp import Context, FastMCP
from fastmcp.server.dependencies import get_access_token
from pydantic import BaseModel

mcp = FastMCP("fm-peer", instructions="A test peer.")


class Total(BaseModel):
    total: int


@mcp.tool(annotations={"readOnlyHint": True})
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@mcp.tool(annotations={"readOnlyHint": True})
def add_structured(a: int, b: int) -> Total:
    """Add, answering with structured content."""
    return Total(total=a + b)


@mcp.tool
def fail(message: str) -> str:
    """Always fails."""
    raise ValueError(message)


@mcp.tool
async def slow(seconds: float, ctx: Context) -> str:
    """Sleep, reporting progress."""
    steps = max(1, int(seconds / 0.05))
    for i in range(steps):
        await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        await asyncio.sleep(0.05)
    return f"slept {seconds}"


@mcp.tool
async def add_tool(name: str, ctx: Context) -> str:
    """Register a new tool and announce it."""

    def dynamic() -> str:
        return f"hello from {name}"

    mcp.tool(dynamic, name=name, description=f"dynamic {name}")
    await ctx.send_notification(mt.ToolListChangedNotification())
    return f"registered {name}"


@mcp.tool
def leak_token() -> str:
    """Echo the caller's bearer token back (a badly written server)."""
    token = get_access_token()
    return f"your token is {token.token if token else None}"


if __name__ == "__main__":
    if sys.argv[1:2] in ([], ["stdio"]):
        mcp.run(show_banner=False, log_level="ERROR")
    else:
        if len(sys.argv) > 3:
            from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

            mcp.auth = StaticTokenVerifier(
                tokens={sys.argv[3]: {"client_id": "peer", "scopes": []}}
            )
        mcp.run(
            transport="http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            show_banner=False,
            log_level="ERROR",
        )
