"""An MCP server (official low-level API, stdio) whose tool names change on the way to the model.

Tools: `save_memory` and `memory.write` (a name providers reject, offered as `memory_write`) write
a marker file when called; `read_notes` is read-only; `retire` drops `read_notes` from the list
(no notification: the client sees it at its next listing). State lives in NAMES_STATE_DIR.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from mcp.server import Server
from mcp.server.stdio import stdio_server

STATE = Path(os.environ["NAMES_STATE_DIR"])
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}
WRITERS = ("save_memory", "memory.write")


def tools() -> list[mt.Tool]:
    names = [*WRITERS, "retire"]
    if not (STATE / "retired").exists():
        names.append("read_notes")
    return [mt.Tool(name=n, description=f"names tool {n}", input_schema=NO_ARGS) for n in names]


async def list_tools(ctx: Any, params: mt.PaginatedRequestParams | None) -> mt.ListToolsResult:
    return mt.ListToolsResult(tools=tools())


async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
    name = params.name
    if name in WRITERS:
        (STATE / f"called {name}").write_text("1")
    elif name == "retire":
        (STATE / "retired").write_text("1")
    return mt.CallToolResult(content=[mt.TextContent(text=f"{name} done")])


server = Server("names", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
