"""`toolwire ui`: the web page over the run log."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from ..errors import UsageError

DEFAULT_PORT = 8765


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "ui", help="a local web page: runs, live runs, and calls waiting for approval"
    )
    parser.add_argument(
        "--port",
        type=_port,
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT}; 0: any free one)",
    )
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1; any other needs the token printed)",
    )
    parser.add_argument("--no-open", action="store_true", help="do not open a browser")
    parser.set_defaults(func=ui_command)


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port number (0-65535), not {text}")
    return port


def ui_command(args: argparse.Namespace) -> int:
    from ..log import default_log_path

    try:
        ui = importlib.import_module("toolwire.ui")
    except ImportError as missing:
        raise UsageError(str(missing)) from None
    ui.serve(default_log_path(), host=args.host, port=args.port, open_browser=not args.no_open)
    return 0
