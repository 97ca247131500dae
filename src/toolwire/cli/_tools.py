"""`toolwire tools`: exactly what the model will be sent, and what each tool may do."""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio

from ..agent import offered_tools
from ..tools import Tool
from ._display import printable
from ._options import add_tool_options, tools_from


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tools", help="show the tools exactly as the model sees them")
    add_tool_options(parser)
    parser.add_argument("--json", action="store_true", help="print them as a JSON list")
    parser.set_defaults(func=tools_command)


def tools_command(args: argparse.Namespace) -> int:
    tools = anyio.run(offered_tools, tools_from(args))
    if args.json:
        print(json.dumps([_as_json(t) for t in tools], ensure_ascii=False, indent=2))
        return 0
    if not tools:
        print("no tools")
    for t in tools:
        # Names, descriptions and schemas may come from an MCP server: shown, never obeyed.
        print(f"{printable(t.name)}  ({_what_it_may_do(t)})")
        print(_indent(printable(t.description or "(no description)")))
        print(_indent(printable(json.dumps(t.parameters, ensure_ascii=False, indent=2))) + "\n")
    return 0


def _as_json(tool: Tool) -> dict[str, Any]:
    definition = tool.definition
    return {
        "name": definition.name,
        "description": definition.description,
        "parameters": definition.parameters,
        "side_effect": tool.side_effect,
        "needs_approval": tool.needs_approval,
    }


def _what_it_may_do(tool: Tool) -> str:
    effect = tool.side_effect.replace("_", "-")
    return f"{effect}, needs approval" if tool.needs_approval else effect


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
