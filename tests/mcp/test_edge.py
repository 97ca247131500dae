"""Faults a real server can have: each ends in an error result or a reconnect, never a hang."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import anyio
import pytest

from toolwire.errors import InvalidArguments, RunError, ToolError, UsageError
from toolwire.mcp import MCPServer

from .conftest import SERVERS, by_name, call, edge_server

pytestmark = pytest.mark.timeout(60)


def test_the_catalogue_checks_names_schemas_and_trust(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, trusted=True) as server:
            tools = by_name(await server.get_tools())
            # Invalid schemas are dropped, not the server; the first of two equal names wins;
            # names are mapped for providers.
            assert "bad_keyword" not in tools and "remote_ref" not in tools
            assert list(tools).count("echo") == 1
            assert "get_thing" in tools
            long = next(name for name in tools if name.startswith("nnnn"))
            assert len(long) == 64
            assert tools["echo"].side_effect == "read_only" and not tools["echo"].needs_approval
            assert tools["crash"].side_effect == "destructive" and tools["crash"].needs_approval
            # The call goes out under the server's own name.
            assert await call(server, "get_thing") == "the thing"

    anyio.run(run)


def test_allow_deny_and_prefix_apply_to_the_servers_own_names(tmp_path: Path) -> None:
    async def run() -> list[str]:
        options = {"allow": ["e*", "get.*", "crash*"], "deny": ["crash_*"], "prefix": "edge_"}
        async with edge_server(tmp_path, **options) as server:
            names = [t.name for t in await server.get_tools()]
            assert await call(server, "edge_echo", {"text": "x"}) == "x"
            return names

    assert anyio.run(run) == ["edge_echo", "edge_crash", "edge_get_thing"]


def test_untrusted_servers_get_no_benefit_of_the_doubt(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path) as server:
            for tool in await server.get_tools():
                assert tool.side_effect == "destructive" and tool.needs_approval, tool.name

    anyio.run(run)


def test_calls_map_every_kind_of_result(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, trusted=True) as server:
            assert await call(server, "echo", {"text": "hi"}) == "hi"
            assert (await call(server, "content_kinds")).splitlines() == [
                "see below",
                "[image omitted: image/png, 5 bytes]",
                "[resource a.md <file:///notes/a.md>: text/markdown]",
                "[resource <mem://b>]",
                "embedded body",
            ]
            assert await call(server, "structured_only") == '{"answer":42,"unit":"m"}'
            with pytest.raises(ToolError, match=r"^disk full$"):
                await call(server, "fails")
            with pytest.raises(ToolError, match=r"server error -32050: the backend said no"):
                await call(server, "rpc_error")
            # The server's own credential never reaches the model, whatever the server echoes.
            assert await call(server, "whoami") == "key=[REDACTED]"

    anyio.run(run)


def test_defs_and_type_array_schemas_validate_with_paths(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, trusted=True) as server:
            shapes = by_name(await server.get_tools())["shapes"]
            assert shapes.parameters["properties"]["label"] == {"type": ["string", "null"]}
            assert "$defs" in shapes.parameters
            with pytest.raises(InvalidArguments) as caught:
                shapes.validate({"points": [{"x": 1, "y": "2"}], "flag": 3})
            assert [path for path, _ in caught.value.errors] == ["flag", "points[0].y"]
            points = {"points": [{"x": 1, "y": 2}], "label": None, "flag": "yes"}
            assert await call(server, "shapes", points) == "1 points"

    anyio.run(run)


def test_a_paged_tool_list_is_read_to_the_end(tmp_path: Path) -> None:
    async def run() -> list[str]:
        async with edge_server(tmp_path, "--paged", trusted=True) as server:
            return [t.name for t in await server.get_tools()]

    names = anyio.run(run)
    # An empty-string cursor is a valid cursor, not the end of the list.
    assert (tmp_path / "cursors").read_text().splitlines()[:3] == ["None", "''", "'2'"]
    assert "remote_ref" not in names and "whoami" in names and "get_thing" in names


def test_a_changed_tool_list_is_seen_at_the_next_step(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, trusted=True) as server:
            before = await server.get_tools()
            assert before is await server.get_tools(), "unchanged lists keep their identity"
            assert "appeared" not in by_name(before)
            await call(server, "toggle")
            after = await server.get_tools()
            assert after is not before
            assert await call(server, "appeared") == "here now"

    anyio.run(run)


def test_a_crash_mid_call_is_an_error_result_and_the_server_restarts(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, trusted=True) as server:
            with pytest.raises(ToolError, match=r"lost during the call.*not repeated"):
                await call(server, "crash")
            assert await call(server, "echo", {"text": "again"}) == "again"
            assert server.status == "ready"

    anyio.run(run)


def test_a_read_only_call_cut_by_a_crash_is_replayed_after_the_restart(tmp_path: Path) -> None:
    async def run() -> str:
        async with edge_server(tmp_path, trusted=True) as server:
            return await call(server, "crash_once")

    assert anyio.run(run) == "survived"
    assert (tmp_path / "crashed_once").exists()


def test_nothing_is_replayed_for_an_untrusted_server(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path) as server:
            with pytest.raises(ToolError, match="lost during the call"):
                await call(server, "crash_once")
            assert await call(server, "crash_once") == "survived"

    anyio.run(run)


def test_a_hung_call_times_out_and_the_server_is_told_to_stop(tmp_path: Path) -> None:
    async def run() -> float:
        async with edge_server(tmp_path, timeout=0.5) as server:
            started = time.monotonic()
            with pytest.raises(ToolError, match=r"Timed out after 0\.5 s"):
                await call(server, "hang")
            elapsed = time.monotonic() - started
            assert await call(server, "echo", {"text": "still here"}) == "still here"
            return elapsed

    assert anyio.run(run) < 3
    assert (tmp_path / "hang_cancelled").exists()


def test_a_cancelled_call_is_cancelled_on_the_server(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path) as server:
            with anyio.move_on_after(0.5):
                await call(server, "hang")
            await wait_for_file(tmp_path / "hang_cancelled")

    anyio.run(run)


async def wait_for_file(path: Path) -> None:
    # The server writes the file once it has processed the cancellation.
    for _ in range(100):
        if await anyio.Path(path).exists():
            return
        await anyio.sleep(0.05)
    raise AssertionError(f"{path.name} never appeared")


def test_a_server_stuck_in_its_event_loop_cannot_hang_the_caller(tmp_path: Path) -> None:
    async def run() -> None:
        async with edge_server(tmp_path, timeout=0.5) as server:
            with pytest.raises(ToolError, match="Timed out"):
                await call(server, "block")
            with pytest.raises(ToolError, match="Timed out"):
                await call(server, "echo", {"text": "x"})

    started = time.monotonic()
    anyio.run(run)
    assert time.monotonic() - started < 15


def test_a_4_mib_result_arrives_whole(tmp_path: Path) -> None:
    size = 4 * 1024 * 1024

    async def run() -> str:
        async with edge_server(tmp_path) as server:
            return await call(server, "big", {"size": size})

    text = anyio.run(run)
    assert len(text) == size and text.startswith("HEAD") and text.endswith("TAIL")


def raw(mode: str, **options: object) -> MCPServer:
    return MCPServer.stdio(sys.executable, [str(SERVERS / "raw_server.py"), mode], **options)  # type: ignore[arg-type]


def test_startup_failures_are_clear_errors(tmp_path: Path) -> None:
    async def enter(server: MCPServer) -> None:
        async with server:
            pass

    with pytest.raises(RunError, match=r"(?s)connection to the server closed.*RAW_API_KEY is not"):
        anyio.run(enter, raw("exit"))
    started = time.monotonic()
    with pytest.raises(RunError, match="no answer within 1 s"):
        anyio.run(enter, raw("silent", connect_timeout=1))
    assert time.monotonic() - started < 5
    with pytest.raises(RunError, match=r"malformed message \(tools.1.inputSchema.type"):
        anyio.run(enter, raw("bad_root"))
    with pytest.raises(UsageError, match="command not found"):
        anyio.run(enter, MCPServer.stdio(str(tmp_path / "no-such-server")))


def test_a_start_can_be_cancelled_without_waiting_for_the_connect_timeout() -> None:
    async def run() -> None:
        server = raw("silent", connect_timeout=30)
        with anyio.move_on_after(0.5):
            async with server:
                raise AssertionError("a silent server never gets ready")
        assert server.status == "closed"

    started = time.monotonic()
    anyio.run(run)
    assert time.monotonic() - started < 5


def test_garbage_on_stdout_is_skipped() -> None:
    async def run() -> str:
        async with raw("garbage") as server:
            return await call(server, "good")

    assert anyio.run(run) == "good result"


def test_an_optional_server_that_is_down_leaves_the_run_without_its_tools() -> None:
    async def run() -> None:
        async with raw("silent", connect_timeout=0.5, required=False) as server:
            assert await server.get_tools() == ()
            assert server.status in ("connecting", "backoff")

    anyio.run(run)
