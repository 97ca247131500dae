"""Streamable HTTP on 127.0.0.1, with and without a bearer token: the token reaches the server and
nothing else."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import anyio
import pytest

from toolwire import Agent, Limits, ScriptedModel, Turn
from toolwire.errors import ToolError, UsageError
from toolwire.log import RunLog
from toolwire.mcp import MCPServer
from toolwire.models import ScriptedCall

from .conftest import PEER_TOKEN, call, free_port, http_peer

pytestmark = pytest.mark.timeout(90)


@pytest.fixture(scope="module")
def guarded_url() -> Iterator[str]:
    with http_peer(token=PEER_TOKEN) as url:
        yield url


def test_an_open_server_needs_no_token() -> None:
    async def run(url: str) -> str:
        async with MCPServer.http(url, trusted=True) as server:
            return await call(server, "add", {"a": 1, "b": 2})

    with http_peer() as url:
        assert anyio.run(run, url) == "3"


def test_the_bearer_token_identifies_the_caller(guarded_url: str) -> None:
    asked: list[int] = []

    def token() -> str:
        asked.append(1)
        return PEER_TOKEN

    async def run() -> tuple[str, str]:
        async with MCPServer.http(guarded_url, token=token, trusted=True) as server:
            added = await call(server, "add", {"a": 20, "b": 22})
            # A badly written server echoes the token back: it still never reaches the model.
            leaked = await call(server, "leak_token")
            return added, leaked

    added, leaked = anyio.run(run)
    assert added == "42"
    assert leaked == "your token is [REDACTED]"
    assert len(asked) >= 3, "a token function is asked on every request"


@pytest.mark.parametrize("token", [None, "wrong-token-000000"])
def test_a_missing_or_wrong_token_is_refused_clearly(guarded_url: str, token: str | None) -> None:
    async def run() -> None:
        async with MCPServer.http(guarded_url, token=token, name="notes"):
            pass

    with pytest.raises(UsageError) as caught:
        anyio.run(run)
    message = str(caught.value)
    assert (
        "MCP server 'notes'" in message and "HTTP 401" in message and "check its token" in message
    )
    assert "wrong-token" not in message


def test_the_token_stays_out_of_the_run_log_and_the_model_request(
    guarded_url: str, tmp_path: Path
) -> None:
    model = ScriptedModel(
        [
            Turn(tool_calls=[ScriptedCall(name="leak_token"), ScriptedCall(name="nope")]),
            "done",
        ]
    )
    log = RunLog(tmp_path / "runs.db")
    server = MCPServer.http(guarded_url, token=PEER_TOKEN, requires_approval=False)
    agent = Agent(model, [server], limits=Limits(max_steps=3), log=log)
    result = agent.run_sync("who am I?")
    assert result.stop_reason == "answer"
    assert result.calls[0].result.content == "your token is [REDACTED]"
    everything = repr(result) + repr(model.requests)
    log.close()
    for path in tmp_path.iterdir():
        everything += path.read_bytes().decode("utf-8", "replace")
    assert PEER_TOKEN not in everything


def test_a_dead_server_fails_the_call_and_a_restarted_one_is_reconnected() -> None:
    port = free_port()

    async def run() -> None:
        with ExitStack() as first_peer:
            url = first_peer.enter_context(http_peer(port=port))
            async with MCPServer.http(url, trusted=True, timeout=10) as server:
                assert await call(server, "add", {"a": 1, "b": 1}) == "2"
                first_peer.close()
                # The server is gone: calls fail fast instead of hanging.
                started = time.monotonic()
                with pytest.raises(ToolError, match=r"lost|unavailable"):
                    await call(server, "add", {"a": 1, "b": 2})
                assert time.monotonic() - started < 5
                with http_peer(port=port):
                    for _ in range(150):
                        if server.status == "ready":
                            break
                        await anyio.sleep(0.1)
                    assert await call(server, "add", {"a": 2, "b": 2}) == "4"

    anyio.run(run)
