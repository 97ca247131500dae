"""`--mcp SPEC` on the command line: a command, an http(s) URL, or an `mcpServers` JSON file."""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError
from ..tools import Toolset
from ._config import load_config
from ._group import MCPServers
from ._server import MCPServer, ProgressCallback


def toolsets_from_spec(spec: str, *, on_progress: ProgressCallback | None = None) -> list[Toolset]:
    """The toolsets for one `--mcp` value. Servers named this way are untrusted (every call
    needs approval); mark a server trusted, give it a token or an environment in a config file."""
    text = spec.strip()
    if not text:
        raise UsageError("--mcp needs a command, an http(s) URL or an MCP config file")
    if text.startswith(("http://", "https://")):
        return [MCPServer.http(text, on_progress=on_progress)]
    path = Path(text).expanduser()
    if path.suffix.lower() == ".json":
        if not path.is_file():
            raise UsageError(f"MCP config file not found: {text}")
        return [load_config(path, on_progress=on_progress)]
    if "://" in text.split()[0]:
        raise UsageError(f"--mcp takes http(s) URLs only: {text.split()[0]!r}")
    try:
        argv = shlex.split(text)
    except ValueError as error:
        raise UsageError(f"cannot parse the MCP server command {text!r}: {error}") from None
    command = argv[0]
    if shutil.which(command) is None:
        raise UsageError(f"MCP server command not found: {command!r}")
    return [MCPServer.stdio(command, argv[1:], on_progress=on_progress)]


def toolsets_from_specs(
    specs: Iterable[str], *, on_progress: ProgressCallback | None = None
) -> list[Toolset]:
    """All `--mcp` values as one toolset, so tools of the same name on two servers get prefixed
    instead of failing the run."""
    members: dict[str, Toolset] = {}
    for spec in specs:
        for toolset in toolsets_from_spec(spec, on_progress=on_progress):
            named = (
                toolset.servers.items()
                if isinstance(toolset, MCPServers)
                else [(_name_of(toolset), toolset)]
            )
            for name, member in named:
                unique, n = name, 1
                while unique in members:
                    n += 1
                    unique = f"{name}{n}"
                members[unique] = member
    return [MCPServers(members)] if members else []


def _name_of(toolset: Toolset) -> str:
    return toolset.name if isinstance(toolset, MCPServer) else "mcp"
