"""FastMCP and official-SDK servers over stdio: calls, progress, list changes in both protocol
eras, and sharing one connection between runs."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import anyio
import pytest

from toolwire.errors import ToolError
from toolwire.mcp import MCPServer, ToolProgress

from .conftest import SERVERS, by_name, call, free_port, python_server, wait_for_port

pytestmark = pytest.mark.timeout(60)


def fastmcp(**options: object) -> MCPServer:
    return python_server("fm_peer.py", **options)  # type: ignore[arg-type]


def test_fastmcp_tools_calls_and_errors() -> None:
    async def run() -> None:
        async with fastmcp(trusted=True) as server:
            tools = by_name(await server.get_tools())
            assert tools["add"].side_effect == "read_only"
            assert tools["add"].description == "Add two integers."
            assert tools["add"].parameters["required"] == ["a", "b"]
            assert tools["fail"].side_effect == "destructive"
            assert await call(server, "add", {"a": 2, "b": 40}) == "42"
            assert json.loads(await call(server, "add_structured", {"a": 1, "b": 2})) == {
                "total": 3
            }
            with pytest.raises(ToolError, match="boom"):
                await call(server, "fail", {"message": "boom"})
            assert server.instructions == "A test peer."

    anyio.run(run)


def test_progress_notifications_reach_the_callback() -> None:
    seen: list[ToolProgress] = []

    async def run() -> str:
        async with fastmcp(on_progress=seen.append) as server:
            return await call(server, "slow", {"seconds": 0.2})

    assert anyio.run(run) == "slept 0.2"
    assert len(seen) >= 2
    assert [p.progress for p in seen] == sorted(p.progress for p in seen)
    assert {(p.server, p.tool, p.call_id, p.total) for p in seen} == {
        ("fm_peer", "slow", "call-1", 4.0)
    }
    assert seen[-1].message == "step 4"


def test_a_tool_added_on_a_legacy_style_notification_is_offered_next_step() -> None:
    async def run() -> None:
        async with fastmcp() as server:
            await server.get_tools()
            assert not server._stale
            assert await call(server, "add_tool", {"name": "fresh"}) == "registered fresh"
            # FastMCP sends the notification on the session (without advertising it).
            for _ in range(50):
                if server._stale:
                    break
                await anyio.sleep(0.02)
            assert server._stale
            assert await call(server, "fresh") == "hello from fresh"

    anyio.run(run)


@contextmanager
def sdk_peer(transport: str) -> Iterator[MCPServer]:
    if transport == "stdio":
        yield python_server("sdk_peer.py")
        return
    port = free_port()
    command = [sys.executable, str(SERVERS / "sdk_peer.py"), "http", str(port)]
    process = subprocess.Popen(command, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield MCPServer.http(f"http://127.0.0.1:{port}/mcp")
    finally:
        process.kill()
        process.wait()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_a_modern_server_announces_changes_on_a_listen_stream(transport: str) -> None:
    async def run(server: MCPServer) -> None:
        async with server:
            supervisor = server._supervisor
            assert supervisor is not None
            # Notifications are promised, so the list is not re-fetched every step.
            for _ in range(50):
                if supervisor.promises_notifications:
                    break
                await anyio.sleep(0.02)
            assert supervisor.promises_notifications
            before = await server.get_tools()
            assert before is await server.get_tools()
            await call(server, "add_tool", {"name": "fresh"})
            for _ in range(100):
                if "fresh" in by_name(await server.get_tools()):
                    break
                await anyio.sleep(0.02)
            assert await call(server, "fresh") == "hello from fresh"

    with sdk_peer(transport) as server:
        anyio.run(run, server)


def test_entering_is_counted_and_shared_across_tasks() -> None:
    async def run() -> None:
        server = fastmcp()
        first_in = anyio.Event()
        first_out = anyio.Event()
        second_in = anyio.Event()
        results: list[str] = []

        async def first() -> None:
            async with server:
                first_in.set()
                await second_in.wait()
            first_out.set()

        async def second() -> None:
            await first_in.wait()
            async with server:
                second_in.set()
                await first_out.wait()
                # The task that opened the connection has left; it still serves this one.
                results.append(await call(server, "add", {"a": 1, "b": 1}))
                assert server.status == "ready"

        async with anyio.create_task_group() as group:
            group.start_soon(first)
            group.start_soon(second)
        assert results == ["2"]
        assert server.status == "closed"
        async with server, server:
            assert await call(server, "add", {"a": 2, "b": 2}) == "4"
        assert server.status == "closed"

    anyio.run(run)


def test_concurrent_first_entries_share_one_connection() -> None:
    async def run() -> None:
        server = fastmcp()
        supervisors = []

        async def use(n: int) -> None:
            async with server:
                supervisors.append(server._supervisor)
                assert await call(server, "add", {"a": n, "b": n}) == str(2 * n)

        async with anyio.create_task_group() as group:
            for n in range(4):
                group.start_soon(use, n)
        assert len(supervisors) == 4 and len(set(map(id, supervisors))) == 1

    anyio.run(run)


def test_concurrent_calls_on_one_connection() -> None:
    async def run() -> list[str]:
        answers: list[str] = []
        async with fastmcp() as server:

            async def add(n: int) -> None:
                answers.append(await call(server, "add", {"a": n, "b": 1000}))

            async with anyio.create_task_group() as group:
                for n in range(20):
                    group.start_soon(add, n)
        return answers

    assert sorted(anyio.run(run)) == sorted(str(n + 1000) for n in range(20))


def test_runs_on_trio_too() -> None:
    async def run() -> str:
        async with fastmcp() as server:
            return await call(server, "add", {"a": 20, "b": 22})

    assert anyio.run(run, backend="trio") == "42"
