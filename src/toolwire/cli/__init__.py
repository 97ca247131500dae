"""`toolwire`: a thin shell over the library. Each subcommand is a module with `register`."""

from __future__ import annotations

import argparse
import importlib
import io
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any

from ..errors import ToolwireError, UsageError
from . import _display

__all__ = ["main"]

COMMANDS = [
    "toolwire.cli._run",
    "toolwire.cli._tools",
    "toolwire.cli._logs",
    "toolwire.cli._eval",
    "toolwire.cli._ui",
    "toolwire.cli._durable",
]

EXIT_ERROR = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="toolwire", description="Run the LLM tool-calling round trip from the command line."
    )
    parser.add_argument("--version", action=_ShowVersion)
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMANDS:
        importlib.import_module(module).register(subparsers)
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        # argparse would report them with the top-level usage; the command's own is the help.
        subparsers.choices[args.command].error(f"unrecognized arguments: {' '.join(unknown)}")
    _prepare_streams()
    logs = _display.OneLineLogs()
    logging.getLogger().addHandler(logs)
    try:
        return _dispatch(args)
    finally:
        logging.getLogger().removeHandler(logs)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        code: int = args.func(args)
    except UsageError as error:
        return _fail(str(error), EXIT_USAGE)
    except ToolwireError as error:
        return _fail(str(error), EXIT_ERROR)
    except KeyboardInterrupt:
        print("\ntoolwire: interrupted", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        # The run has already answered every call and the log is written. A sync tool still
        # running in a worker thread cannot be stopped, and a normal exit would wait for it.
        os._exit(EXIT_INTERRUPTED)
    except Exception as error:
        # An environment failure (a full disk, a locked log) or a bug: one line all the same.
        return _fail(f"{type(error).__name__}: {error}", EXIT_ERROR)
    return code


def _fail(message: str, code: int) -> int:
    print(f"toolwire: error: {_display.printable(message)}", file=sys.stderr)
    return code


def _prepare_streams() -> None:
    # Text from a model or a tool may hold lone surrogates (JSON allows "\ud800"): printed, they
    # would raise. Input that is not UTF-8 arrives as surrogates too, and is refused by name.
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    if isinstance(sys.stdin, io.TextIOWrapper):
        sys.stdin.reconfigure(errors="surrogateescape")


class _ShowVersion(argparse.Action):
    """`--version`, reading the installed version only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(
            option_strings,
            dest=argparse.SUPPRESS,
            default=argparse.SUPPRESS,
            nargs=0,
            help="show toolwire's version and exit",
        )

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        from .._version import installed_version

        print(f"toolwire {installed_version()}")
        parser.exit()
