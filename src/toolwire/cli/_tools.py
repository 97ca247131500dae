"""`toolwire tools`: exactly what the model will be sent."""

from __future__ import annotations

import argparse
import json
from typing import Any

import anyio

from ..agent import describe_tools
from ._options import add_tool_options, tools_from


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("tools", help="show the tools exactly as the model sees them")
    add_tool_options(parser)
    parser.add_argument("--json", action="store_true", help="print them as a JSON list")
    parser.set_defaults(func=tools_command)


def tools_command(args: argparse.Namespace) -> int:
    definitions = anyio.run(describe_tools, tools_from(args))
    listed = [
        {"name": d.name, "description": d.description, "parameters": d.parameters}
        for d in definitions
    ]
    if args.json:
        print(json.dumps(listed, ensure_ascii=False, indent=2))
        return 0
    if not listed:
        print("no tools")
    for d in definitions:
        print(f"{d.name}\n{_indent(d.description or '(no description)')}")
        print(_indent(json.dumps(d.parameters, ensure_ascii=False, indent=2)) + "\n")
    return 0


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.splitlines())
