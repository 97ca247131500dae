"""What toolwire adds to an MCP tool call, against a bare `mcp.Client` on the same server, in one
run, over stdio and Streamable HTTP.

    python bench/mcp_calls.py [--calls 2000]

Both sides call `add` on the official SDK's `MCPServer` (started by this script) through the same
`mcp.Client`: the bare side is `client.call_tool(..., read_timeout_seconds=60)`; the toolwire side
is what the loop does per call, `tool.validate` then `tool.invoke` on the `MCPServer` toolset
(schema validation, connection wait, timeout, result mapping, redaction). Calls alternate between
the sides. Prints calls per second, latency per call and the ratios; absolute times are only for
orientation.
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
from mcp import Client

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


async def compare(name: str, bare: Call, ours: Call, calls: int) -> None:
    """Calls alternate one by one between the sides, each side going first half of the time, so
    drift, noise and the server's after-work of the previous call hit both alike."""
    for _ in range(20):
        await bare()
        await ours()
    bare_times: list[float] = []
    our_times: list[float] = []
    sides = [(bare, bare_times), (ours, our_times)]
    for _ in range(calls):
        sides.reverse()
        for call, times in sides:
            started = time.perf_counter()
            await call()
            times.append(time.perf_counter() - started)
    b, o = statistics.median(bare_times), statistics.median(our_times)
    rate_b, rate_o = len(bare_times) / sum(bare_times), len(our_times) / sum(our_times)
    print(
        f"{name:<6} bare mcp.Client {rate_b:6.0f} calls/s (median {b * 1e6:5.0f} µs)   "
        f"toolwire {rate_o:6.0f} calls/s (median {o * 1e6:5.0f} µs)   "
        f"added {(o - b) * 1e6:4.0f} µs/call = {100 * (o / b - 1):+5.1f}%   "
        f"latency ratio {o / b:.3f}   throughput ratio {rate_o / rate_b:.3f}"
    )


async def bench(name: str, server: MCPServer, calls: int) -> None:
    async with server:
        (tool,) = [t for t in await server.get_tools() if t.name == "add"]
        context = ToolContext(run_id="bench", call_id="c", step=1, idempotency_key="k")
        # The bare side uses the very client toolwire holds: same process, same pipe or socket.
        assert server._supervisor is not None
        assert server._supervisor.connection is not None
        client: Client = server._supervisor.connection.client

        async def bare() -> Any:
            return await client.call_tool("add", {"a": 2, "b": 40}, read_timeout_seconds=60)

        async def ours() -> str:
            return await tool.invoke(tool.validate({"a": 2, "b": 40}), context)

        await compare(name, bare, ours, calls)


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
    parser.add_argument("--calls", type=int, default=2000, help="calls per side and transport")
    parser.add_argument("--serve", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve[0], int(args.serve[1]) if len(args.serve) > 1 else 0)
        return
    stdio = MCPServer.stdio(sys.executable, [__file__, "--serve", "stdio"], trusted=True)
    anyio.run(bench, "stdio", stdio, args.calls)
    process, url = http_server()
    try:
        anyio.run(bench, "http", MCPServer.http(url, trusted=True), args.calls // 2)
    finally:
        process.kill()
        process.wait()


if __name__ == "__main__":
    main()
