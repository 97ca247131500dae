"""`toolwire`: a thin shell over the library. Each subcommand is a module with `register`."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ..errors import ToolwireError

__all__ = ["main"]

COMMANDS = [
    "toolwire.cli._run",
    "toolwire.cli._tools",
    "toolwire.cli._logs",
    "toolwire.cli._eval",
]

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="toolwire", description="Run the LLM tool-calling round trip from the command line."
    )
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        importlib.import_module(module).register(subparsers)
    args = parser.parse_args(argv)
    try:
        code: int = args.func(args)
    except ToolwireError as error:
        print(f"toolwire: error: {error}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\ntoolwire: interrupted", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        # The run has already answered every call and the log is written. A sync tool still
        # running in a worker thread cannot be stopped, and a normal exit would wait for it.
        os._exit(EXIT_INTERRUPTED)
    return code
