"""The reference servers other hosts use: the npm ones speak the 2025-11-25 protocol, the PyPI ones
2026-07-28. Installed by `tests/mcp/install-peers` (pinned versions, offline afterwards)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from toolwire.errors import ToolError
from toolwire.mcp import MCPServer, ToolProgress

from .conftest import by_name, call, node_server

pytestmark = pytest.mark.timeout(60)


def test_server_everything() -> None:
    progress: list[ToolProgress] = []
    server = MCPServer.stdio(
        "node",
        [node_server("server-everything"), "stdio"],
        trusted=True,
        on_progress=progress.append,
    )

    async def run() -> None:
        async with server:
            tools = by_name(await server.get_tools())
            # 13, and the two that ask the host for input, since it can answer (elicitation).
            assert len(tools) == 15
            assert {"trigger-elicitation-request", "trigger-url-elicitation"} <= set(tools)
            assert tools["echo"].side_effect == "read_only"
            # The TS SDK puts a draft-07 `$schema` on every input schema; it is honoured.
            assert tools["echo"].parameters["$schema"].startswith("http://json-schema.org/draft-07")
            assert server._supervisor is not None
            assert server._supervisor.promises_notifications
            assert await call(server, "echo", {"message": "hi"}) == "Echo: hi"
            assert "42" in await call(server, "get-sum", {"a": 40, "b": 2})
            links = await call(server, "get-resource-links", {"count": 2})
            assert links.count("[resource ") == 2
            assert "[image omitted: image/png" in await call(server, "get-tiny-image")
            structured = await call(server, "get-structured-content", {"location": "Chicago"})
            assert "temperature" in structured
            await call(server, "trigger-long-running-operation", {"duration": 0.2, "steps": 2})

    anyio.run(run)
    assert [p.progress for p in progress] == [1, 2]


def test_server_filesystem(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "notes.txt").write_text("first line\n")
    server = MCPServer.stdio("node", [node_server("server-filesystem"), str(root)], trusted=True)

    async def run() -> None:
        async with server:
            tools = by_name(await server.get_tools())
            assert len(tools) == 14
            assert tools["write_file"].needs_approval
            assert tools["read_text_file"].side_effect == "read_only"
            path = str(root / "notes.txt")
            assert await call(server, "read_text_file", {"path": path}) == "first line\n"
            await call(server, "write_file", {"path": str(root / "new.txt"), "content": "made"})
            assert (root / "new.txt").read_text() == "made"
            with pytest.raises(ToolError, match="Access denied"):
                await call(server, "read_text_file", {"path": str(tmp_path / "outside.txt")})

    anyio.run(run)


def test_server_memory(tmp_path: Path) -> None:
    memory = tmp_path / "memory.jsonl"
    server = MCPServer.stdio(
        "node", [node_server("server-memory")], env={"MEMORY_FILE_PATH": str(memory)}
    )

    async def run() -> dict[str, object]:
        async with server:
            entity = {"name": "Ada", "entityType": "person", "observations": ["wrote notes"]}
            await call(server, "create_entities", {"entities": [entity]})
            return dict(json.loads(await call(server, "read_graph")))

    graph = anyio.run(run)
    assert [e["name"] for e in graph["entities"]] == ["Ada"]  # type: ignore[attr-defined]
    assert memory.exists()


def test_mcp_server_time() -> None:
    server = MCPServer.stdio(
        sys.executable, ["-m", "mcp_server_time", "--local-timezone", "UTC"], trusted=True
    )

    async def run() -> None:
        async with server:
            tools = by_name(await server.get_tools())
            assert set(tools) == {"get_current_time", "convert_time"}
            assert all(t.side_effect == "read_only" for t in tools.values())
            now = json.loads(await call(server, "get_current_time", {"timezone": "UTC"}))
            assert now["timezone"] == "UTC"
            converted = await call(
                server,
                "convert_time",
                {"source_timezone": "UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"},
            )
            assert "21:00" in converted
            with pytest.raises(ToolError):
                await call(server, "get_current_time", {"timezone": "Mars/Olympus"})

    anyio.run(run)


def test_mcp_server_git(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "a.txt").write_text("hello\n")
    subprocess.run([*git, "add", "a.txt"], check=True)
    subprocess.run([*git, "commit", "-qm", "first commit"], check=True)
    (repo / "a.txt").write_text("changed\n")
    server = MCPServer.stdio(
        sys.executable, ["-m", "mcp_server_git", "--repository", str(repo)], trusted=True
    )

    async def run() -> None:
        async with server:
            tools = by_name(await server.get_tools())
            assert len(tools) == 12
            assert tools["git_status"].side_effect == "read_only"
            assert tools["git_reset"].needs_approval
            # Optional parameters are `anyOf: [{type: string}, {type: null}]`: null is valid.
            log = await call(server, "git_log", {"repo_path": str(repo), "start_timestamp": None})
            assert "first commit" in log
            assert "a.txt" in await call(server, "git_status", {"repo_path": str(repo)})
            assert "+changed" in await call(server, "git_diff_unstaged", {"repo_path": str(repo)})

    anyio.run(run)
