"""What toolwire adds to an MCP tool call, against a bare `mcp.Client` on the same server, in one
run, over stdio and Streamable HTTP.

    python bench/mcp_calls.py [--calls 400] [--rounds 5]

Both sides call `add` on the official SDK's `MCPServer` (started by this script). The bare side is
`client.call_tool(..., read_timeout_seconds=60)`; the toolwire side is what the loop does per call:
`tool.validate` then `tool.invoke` on an `MCPServer` toolset (connection wait, timeout, result
mapping, redaction). Rounds alternate between the sides so that machine noise hits both. Prints
calls per second, latency per call and the ratios; absolute times are only for orientation.
"""

from __future__ import annotations

import argparse
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
from mcp import Client, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from toolwire.mcp import MCPServer
from toolwire.tools import ToolContext

Call = Callable[[], Awaitable[Any]]


def serve(transport: str, port: int) -> None:
    from mcp.server import MCPServer as SDKServer

    server = SDKServer("bench", log_level="WARNING")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    if transport == "stdio":
        server.run()
    else:
        server.run(transport="streamable-http", host="127.0.0.1", port=port)


async def time_calls(call: Call, count: int) -> float:
    started = time.perf_counter()
    for _ in range(count):
        await call()
    return (time.perf_counter() - started) / count


async def compare(name: str, bare: Call, ours: Call, calls: int, rounds: int) -> None:
    for _ in range(20):  # warm both connections
        await bare()
        await ours()
    bare_times, our_times = [], []
    for _ in range(rounds):
        bare_times.append(await time_calls(bare, calls))
        our_times.append(await time_calls(ours, calls))
    b, o = statistics.median(bare_times), statistics.median(our_times)
    print(
        f"{name:<6} bare mcp.Client {1 / b:8.0f} calls/s ({b * 1e6:7.0f} µs/call)   "
        f"toolwire {1 / o:8.0f} calls/s ({o * 1e6:7.0f} µs/call)   "
        f"added {(o - b) * 1e6:6.0f} µs/call = {100 * (o / b - 1):+5.1f}%   ratio {o / b:.3f}"
    )


async def toolwire_call(server: MCPServer) -> Call:
    (tool,) = [t for t in await server.get_tools() if t.name == "add"]
    context = ToolContext(run_id="bench", call_id="c", step=1, idempotency_key="k")

    async def call() -> str:
        return await tool.invoke(tool.validate({"a": 2, "b": 40}), context)

    return call


def bare_call(client: Client) -> Call:
    async def call() -> Any:
        return await client.call_tool("add", {"a": 2, "b": 40}, read_timeout_seconds=60)

    return call


async def bench_stdio(calls: int, rounds: int) -> None:
    command = [__file__, "--serve", "stdio"]
    params = StdioServerParameters(command=sys.executable, args=command)
    server = MCPServer.stdio(sys.executable, command, trusted=True)
    async with Client(stdio_client(params), read_timeout_seconds=60) as client, server:
        await compare("stdio", bare_call(client), await toolwire_call(server), calls, rounds)


async def bench_http(url: str, calls: int, rounds: int) -> None:
    server = MCPServer.http(url, trusted=True)
    async with httpx2.AsyncClient() as http, server:
        transport = streamable_http_client(url, http_client=http)
        async with Client(transport, read_timeout_seconds=60) as client:
            await compare("http", bare_call(client), await toolwire_call(server), calls, rounds)


def http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, __file__, "--serve", "http", str(port)])
    for _ in range(400):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise SystemExit("the benchmark's HTTP server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=400, help="calls per round and side")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--serve", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]) if len(args.serve) > 1 else 0)
        return
    anyio.run(bench_stdio, args.calls, args.rounds)
    process, url = http_server()
    try:
        anyio.run(bench_http, url, max(args.calls // 4, 50), args.rounds)
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    main()
