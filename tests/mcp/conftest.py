"""Helpers for the MCP tests: real servers started as subprocesses on this machine only."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from toolwire.mcp import MCPServer
from toolwire.tools import Tool, ToolContext

HERE = Path(__file__).parent
SERVERS = HERE / "servers"
NODE_MODULES = HERE / "node" / "node_modules" / "@modelcontextprotocol"
PEER_TOKEN = "peer-token-0123456789"


def python_server(script: str, *args: str, **options: Any) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(SERVERS / script), *args], **options)


def edge_server(state: Path, *args: str, **options: Any) -> MCPServer:
    env = {"EDGE_STATE_DIR": str(state), "EDGE_API_KEY": "edge-key-abcdef123"}
    options.setdefault("connect_timeout", 15)
    return MCPServer.stdio(
        sys.executable, [str(SERVERS / "edge_server.py"), *args], env=env, **options
    )


def context(call_id: str = "call-1") -> ToolContext:
    return ToolContext(run_id="run-1", call_id=call_id, step=1, idempotency_key=f"k-{call_id}")


def by_name(tools: Any) -> dict[str, Tool]:
    return {t.name: t for t in tools}


async def call(server: MCPServer, name: str, arguments: dict[str, Any] | None = None) -> str:
    tool = by_name(await server.get_tools())[name]
    return await tool.invoke(tool.validate(arguments or {}), context())


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 20) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the test server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port}")


@contextmanager
def http_peer(token: str | None = None, port: int | None = None) -> Iterator[str]:
    """The FastMCP peer on Streamable HTTP at 127.0.0.1; yields its URL."""
    port = port or free_port()
    args = [sys.executable, str(SERVERS / "fm_peer.py"), "http", str(port)]
    process = subprocess.Popen([*args, *([token] if token else [])], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait()


def node_server(package: str) -> str:
    entry = NODE_MODULES / package / "dist" / "index.js"
    if not entry.is_file():
        pytest.fail(f"{package} is not installed: run tests/mcp/install-peers")
    return str(entry)
