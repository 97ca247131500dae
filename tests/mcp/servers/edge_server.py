"""An MCP server (official low-level API, stdio) that misbehaves on request.

Tools: crash mid-call (always, or only the first time), hang (recording that it was cancelled),
block its own event loop, return 4 MiB, page its tool list (`--paged`), change its tools without
notice, and schemas with `$defs`, type arrays and outright invalid ones. State lives in the
directory named by EDGE_STATE_DIR.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import mcp.types as mt
from mcp import MCPError
from mcp.server import Server
from mcp.server.stdio import stdio_server

STATE = Path(os.environ["EDGE_STATE_DIR"])
PAGED = "--paged" in sys.argv
READ_ONLY = mt.ToolAnnotations(read_only_hint=True)
WRITES = mt.ToolAnnotations(read_only_hint=False, destructive_hint=True)
NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def tool(name: str, schema: dict[str, Any] | None = None, **extra: Any) -> mt.Tool:
    return mt.Tool(
        name=name, description=f"edge tool {name}", input_schema=schema or NO_ARGS, **extra
    )


DEFS_SCHEMA = {
    "type": "object",
    "$defs": {
        "point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        }
    },
    "properties": {
        "points": {"type": "array", "items": {"$ref": "#/$defs/point"}, "minItems": 1},
        "label": {"type": ["string", "null"]},
        "flag": {"type": ["boolean", "string"]},
    },
    "required": ["points"],
    "additionalProperties": False,
}


def tools() -> list[mt.Tool]:
    listed = [
        tool(
            "echo",
            {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
            annotations=READ_ONLY,
        ),
        tool("crash", annotations=WRITES),
        tool("crash_once", annotations=READ_ONLY),
        tool("hang"),
        tool("block"),
        tool(
            "big",
            {"type": "object", "properties": {"size": {"type": "integer"}}, "required": ["size"]},
        ),
        tool("shapes", DEFS_SCHEMA, annotations=READ_ONLY),
        tool("content_kinds"),
        tool("structured_only"),
        tool("fails"),
        tool("rpc_error"),
        tool("whoami"),
        tool("toggle"),
        tool("get.thing"),
        tool("n" * 100),
        tool("echo"),  # a duplicate: the first one wins
        tool("bad_keyword", {"type": "object", "properties": {"a": {"type": "strnig"}}}),
        tool(
            "remote_ref",
            {"type": "object", "properties": {"a": {"$ref": "https://example.com/s.json"}}},
        ),
    ]
    if (STATE / "toggled").exists():
        listed.append(tool("appeared"))
    return listed


PAGE = 7


async def list_tools(ctx: Any, params: mt.PaginatedRequestParams | None) -> mt.ListToolsResult:
    everything = tools()
    if not PAGED:
        return mt.ListToolsResult(tools=everything)
    # Cursors: none -> page 0, "" (valid, not the end!) -> page 1, "2" -> page 2, ...
    cursor = params.cursor if params else None
    with (STATE / "cursors").open("a") as log:
        log.write(f"{cursor!r}\n")
    page = 0 if cursor is None else (1 if cursor == "" else int(cursor))
    chunk = everything[page * PAGE : (page + 1) * PAGE]
    more = (page + 1) * PAGE < len(everything)
    next_cursor = ("" if page == 0 else str(page + 1)) if more else None
    return mt.ListToolsResult(tools=chunk, next_cursor=next_cursor)


def text(value: str) -> mt.CallToolResult:
    return mt.CallToolResult(content=[mt.TextContent(text=value)])


async def call_tool(ctx: Any, params: mt.CallToolRequestParams) -> mt.CallToolResult:
    name, args = params.name, params.arguments or {}
    if name == "echo":
        return text(str(args.get("text")))
    if name == "crash":
        os._exit(3)
    if name == "crash_once":
        marker = STATE / "crashed_once"
        if not marker.exists():
            marker.write_text("1")
            os._exit(3)
        return text("survived")
    if name == "hang":
        try:
            await anyio.sleep(3600)
        finally:
            (STATE / "hang_cancelled").write_text("1")
    if name == "block":
        time.sleep(3600)  # noqa: ASYNC251 - the point: a server whose event loop is stuck
    if name == "big":
        size = int(args["size"])
        return text("HEAD" + "x" * (size - 8) + "TAIL")
    if name == "shapes":
        return text(f"{len(args['points'])} points")
    if name == "content_kinds":
        return mt.CallToolResult(
            content=[
                mt.TextContent(text="see below"),
                mt.ImageContent(data="aGVsbG8=", mime_type="image/png"),
                mt.ResourceLink(uri="file:///notes/a.md", name="a.md", mime_type="text/markdown"),
                mt.EmbeddedResource(
                    resource=mt.TextResourceContents(uri="mem://b", text="embedded body")
                ),
            ]
        )
    if name == "structured_only":
        return mt.CallToolResult(content=[], structured_content={"answer": 42, "unit": "m"})
    if name == "fails":
        return mt.CallToolResult(content=[mt.TextContent(text="disk full")], is_error=True)
    if name == "rpc_error":
        raise MCPError(-32050, "the backend said no")
    if name == "whoami":
        return text(f"key={os.environ.get('EDGE_API_KEY')}")
    if name == "toggle":
        (STATE / "toggled").write_text("1")
        return text("toggled")
    if name == "get.thing":
        return text("the thing")
    if name == "appeared":
        return text("here now")
    return mt.CallToolResult(content=[mt.TextContent(text=f"Unknown tool: {name}")], is_error=True)


server = Server("edge", on_list_tools=list_tools, on_call_tool=call_tool)


async def main() -> None:
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
