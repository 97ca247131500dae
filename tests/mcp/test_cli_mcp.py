"""`toolwire tools --mcp ...` and `toolwire run --mcp ...` against every kind of server."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire.cli import main

from .conftest import PEER_TOKEN, SERVERS, http_peer, node_server

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    with http_peer(token=PEER_TOKEN) as url:
        yield url


def spec(tmp_path: Path, kind: str, guarded_url: str) -> str:
    python = shlex.quote(sys.executable)
    if kind == "fastmcp-stdio":
        return f"{python} {SERVERS / 'fm_peer.py'}"
    if kind == "fastmcp-http-token":
        config = {"mcpServers": {"peer": {"url": guarded_url, "token": "${PEER_TOKEN}"}}}
        path = tmp_path / "mcp.json"
        path.write_text(json.dumps(config))
        return str(path)
    if kind == "everything":
        return f"node {node_server('server-everything')} stdio"
    if kind == "filesystem":
        return f"node {node_server('server-filesystem')} {tmp_path}"
    if kind == "memory":
        return f"node {node_server('server-memory')}"
    if kind == "time":
        return f"{python} -m mcp_server_time --local-timezone UTC"
    return f"{python} -m mcp_server_git --repository {tmp_path}"


CASES: list[tuple[str, str, dict[str, Any], str]] = [
    ("fastmcp-stdio", "add", {"a": 2, "b": 40}, "42"),
    ("fastmcp-http-token", "add", {"a": 2, "b": 40}, "42"),
    ("everything", "echo", {"message": "hi"}, "Echo: hi"),
    ("filesystem", "list_allowed_directories", {}, "Allowed directories"),
    ("memory", "read_graph", {}, "entities"),
    ("time", "get_current_time", {"timezone": "UTC"}, '"timezone": "UTC"'),
    ("git", "git_status", {"repo_path": "REPO"}, "On branch main"),
]


@pytest.mark.parametrize(("kind", "name", "arguments", "expected"), CASES)
def test_tools_and_run_with_each_server(
    kind: str,
    name: str,
    arguments: dict[str, Any],
    expected: str,
    tmp_path: Path,
    guarded_url: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_FILE_PATH", str(tmp_path / "memory.jsonl"))
    monkeypatch.setenv("PEER_TOKEN", PEER_TOKEN)
    if kind == "git":
        import subprocess

        subprocess.run(["git", "init", "-q", "-b", "main", str(tmp_path)], check=True)
        arguments = {**arguments, "repo_path": str(tmp_path)}
    server = spec(tmp_path, kind, guarded_url)

    assert main(["tools", "--mcp", server, "--json"]) == 0
    listed = {t["name"]: t for t in json.loads(capsys.readouterr().out)}
    assert name in listed and listed[name]["parameters"]["type"] == "object"

    turns = [{"tool_calls": [{"name": name, "arguments": arguments}]}, {"text": "done"}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    model = f"scripted:{tmp_path / 'turns.json'}"
    code = main(["run", "go", "--model", model, "--mcp", server, "--approve", "all", "--json"])
    output = json.loads(capsys.readouterr().out)
    assert code == 0, output
    (record,) = output["calls"]
    assert not record["is_error"], record
    assert expected in record["result"]
    assert PEER_TOKEN not in json.dumps(output)


def test_a_bad_spec_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools", "--mcp", "no-such-server-command"]) == 2
    assert "MCP server command not found" in capsys.readouterr().err


def test_an_untrusted_server_without_approval_is_declined(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    turns = [{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}, {"text": "done"}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    server = f"{shlex.quote(sys.executable)} {SERVERS / 'fm_peer.py'}"
    model = f"scripted:{tmp_path / 'turns.json'}"
    main(["run", "go", "--model", model, "--mcp", server, "--approve", "none", "--json"])
    (record,) = json.loads(capsys.readouterr().out)["calls"]
    assert record["is_error"] and "declined" in record["result"]
