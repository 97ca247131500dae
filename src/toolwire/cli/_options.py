"""Options shared by the commands that build an agent, and how they become one."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent import Agent, ToolLike
from ..approval import Approver
from ..elicitation import Elicitor
from ..errors import UsageError
from ..limits import Limits
from ..tools import Tool, Toolset
from ._display import one_line, show_progress

DEFAULT_MODEL = "local"


def add_tool_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="FILE_OR_MODULE",
        help="a Python file or module whose tools to offer (its TOOLS list, else every tool and "
        "toolset it defines); repeatable; default: the built-in example tools",
    )
    parser.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="SPEC",
        help="an MCP server: a command, an http(s) URL, or an mcpServers JSON file; repeatable",
    )


def positive_int(text: str) -> int:
    """An argparse type: the error names the option and says what it wants."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text}")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, not {text}")
    return value


def add_agent_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", "-m", help=f"provider:model (default: {DEFAULT_MODEL})")
    add_tool_options(parser)
    parser.add_argument("--instructions", help="system instructions for the model")
    parser.add_argument(
        "--max-steps", type=positive_int, default=25, help="model requests (default 25)"
    )
    parser.add_argument(
        "--timeout", type=positive_seconds, help="wall-clock seconds for the whole run"
    )
    parser.add_argument(
        "--tool-timeout",
        type=positive_seconds,
        default=60.0,
        help="seconds per tool call (default 60)",
    )
    parser.add_argument("--max-tokens", type=positive_int, help="token budget for the run (total)")
    parser.add_argument(
        "--approve",
        choices=["ask", "all", "none", "web"],
        help="calls that need approval: ask on the terminal (default when there is one), "
        "approve all, decline all (default without a terminal), or wait for an answer on the "
        "web page of `toolwire ui`",
    )
    parser.add_argument("--no-log", action="store_true", help="do not record the run")
    parser.add_argument(
        "--otel",
        action="store_true",
        help="export OpenTelemetry traces over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT "
        "(needs toolwire[otel]; message content only with "
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true)",
    )


def limits_from(args: argparse.Namespace) -> Limits:
    return Limits(
        max_steps=args.max_steps,
        timeout=args.timeout,
        tool_timeout=args.tool_timeout,
        max_total_tokens=args.max_tokens,
    )


def tools_from(args: argparse.Namespace) -> list[ToolLike]:
    tools: list[ToolLike] = []
    for spec in args.tools:
        tools.extend(load_tools(spec))
    if args.mcp:
        try:
            mcp = importlib.import_module("toolwire.mcp")
        except ImportError:
            raise UsageError("--mcp needs the MCP extra: pip install 'toolwire[mcp]'") from None
        tools.extend(mcp.toolsets_from_specs(args.mcp, on_progress=show_progress))
    if not args.tools and not args.mcp:
        tools.extend(builtin_tools())
    return tools


def builtin_tools() -> list[ToolLike]:
    try:
        module = importlib.import_module("toolwire.builtin")
    except ImportError:
        return []
    return list(module.TOOLS)


def load_tools(spec: str) -> list[ToolLike]:
    """Tools from a file (`tools.py`) or a module (`pkg.tools`), optionally `:ATTRIBUTE`."""
    target, _, attribute = spec.partition(":") if not Path(spec).exists() else (spec, "", "")
    module = _import(target)
    if attribute:
        if not hasattr(module, attribute):
            raise UsageError(f"{target} has no attribute {attribute!r}")
        found: Any = getattr(module, attribute)
        return list(found) if isinstance(found, list | tuple) else [found]
    if hasattr(module, "TOOLS"):
        listed: Any = module.TOOLS
        if not isinstance(listed, list | tuple):
            raise UsageError(
                f"{target}: TOOLS must be a list of tools, not {type(listed).__name__}"
            )
        return list(listed)
    tools: list[ToolLike] = [v for v in vars(module).values() if isinstance(v, Tool | Toolset)]
    if not tools:
        raise UsageError(f"{spec} defines no tools (decorate functions with @tool, or set TOOLS)")
    return tools


def _import(target: str) -> Any:
    path = Path(target)
    try:
        if path.suffix == ".py" or path.exists():
            if not path.is_file():
                raise UsageError(f"tools file not found: {target}")
            name = f"toolwire_user_tools_{path.stem}"
            module_spec = importlib.util.spec_from_file_location(name, path)
            if module_spec is None or module_spec.loader is None:
                raise UsageError(f"cannot load tools from {target}")
            module = importlib.util.module_from_spec(module_spec)
            sys.modules[name] = module
            module_spec.loader.exec_module(module)
            return module
        return importlib.import_module(target)
    except UsageError:
        raise
    except SystemExit as error:
        # A module that calls sys.exit() (argparse at import time, say) is not a tools module.
        raise UsageError(
            f"cannot import tools from {target}: it exited while being imported "
            f"(SystemExit: {error.code})"
        ) from None
    except ModuleNotFoundError as error:
        if error.name == target:
            raise UsageError(f"no tools file or module named {target!r}") from None
        raise UsageError(f"cannot import tools from {target}: {error}") from None
    except Exception as error:
        raise UsageError(
            f"cannot import tools from {target}: {type(error).__name__}: {error}"
        ) from None


def build_agent(
    args: argparse.Namespace, approver: Approver | None, elicitor: Elicitor | None = None
) -> Agent:
    from ..log import RunLog
    from ..models import get_model, model_providers

    limits = limits_from(args)
    if args.instructions is not None:
        require_text(args.instructions, "--instructions")
    try:
        model = get_model(DEFAULT_MODEL if args.model is None else args.model)
    except UsageError as error:
        if args.model is not None:
            raise
        available = ", ".join(f"{p}:..." for p in model_providers())
        raise UsageError(
            f"no --model given and the embedded default model is not available ({error}); "
            f"choose one with --model: {available} (scripted:PATH plays a JSON list of turns)"
        ) from None
    return Agent(
        model,
        tools_from(args),
        instructions=args.instructions,
        limits=limits,
        approver=approver,
        elicitor=elicitor,
        log=None if args.no_log else RunLog(),
    )


def require_text(text: str, what: str) -> str:
    """Text for the model, refused if the bytes it came from were not UTF-8 (Python hands them
    over as lone surrogates, which no model API or the run log can take)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as error:
        byte = ord(text[error.start]) & 0xFF
        raise UsageError(
            f"{what} is not valid UTF-8 (byte 0x{byte:02x} at position {error.start})"
        ) from None
    return text


def choose_approver(args: argparse.Namespace, ask: Callable[[], Approver]) -> Approver:
    from ..approval import Approve, Decline

    if args.approve == "all":
        return lambda request: Approve(by="cli:--approve=all")
    if args.approve == "none":
        return lambda request: Decline(
            message="declined by policy (--approve=none)", by="cli:--approve=none"
        )
    if args.approve == "web":
        if args.no_log:
            raise UsageError("--approve web is answered through the run log: drop --no-log")
        return _web_approver()
    if sys.stdin.isatty():
        return ask()
    # Nobody declined: say so, to the person reading the output and to the model.
    return lambda request: Decline(
        message="not asked: no terminal to ask on (run with --approve all to allow such calls)",
        by="policy:no-terminal",
    )


def _web_approver() -> Approver:
    from ..approval import ApprovalRequest, Decision
    from ..log import RunLog, log_approver

    wait = log_approver(RunLog())

    async def ask(request: ApprovalRequest) -> Decision:
        print(
            f"waiting for approval of {one_line(request.tool.name)} on the web page (toolwire ui)",
            file=sys.stderr,
        )
        return await wait(request)

    return ask
