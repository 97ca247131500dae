"""MCP tools through the loop: `toolwire.Agent` with a scripted model."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from toolwire import Agent, Approve, Limits, RunEvent, ScriptedModel, Turn
from toolwire.events import ToolResultReady
from toolwire.mcp import load_config
from toolwire.models import ScriptedCall

from .conftest import SERVERS, context, edge_server, python_server

pytestmark = pytest.mark.timeout(60)


def turn(*calls: tuple[str, dict[str, Any]]) -> Turn:
    return Turn(tool_calls=[ScriptedCall(name=name, arguments=args) for name, args in calls])


def test_the_model_sees_the_servers_tools_and_gets_their_results() -> None:
    model = ScriptedModel(
        [
            turn(
                ("add", {"a": 2, "b": 40}), ("add", {"a": 1, "b": 1}), ("fail", {"message": "no"})
            ),
            "2 + 40 = 42",
        ]
    )
    server = python_server("fm_peer.py", trusted=True)
    agent = Agent(model, [server], approver=lambda request: Approve())
    result = agent.run_sync("add")
    assert result.stop_reason == "answer" and result.output == "2 + 40 = 42"
    # The results go back in the order of the calls (the records, in the order they finished).
    tool_turn = result.messages[-2]
    assert [(r.content, r.is_error) for r in tool_turn.parts] == [  # type: ignore[union-attr]
        ("42", False),
        ("2", False),
        ("Error calling tool 'fail': no", True),
    ]
    offered = {d.name: d for d in model.requests[0].tools}
    assert set(offered) >= {"add", "add_structured", "fail", "slow", "add_tool"}
    assert offered["add"].parameters["properties"]["a"] == {"type": "integer"}
    assert server.status == "closed", "the agent leaves the server as it found it"


def test_untrusted_tools_need_approval() -> None:
    def script() -> ScriptedModel:
        return ScriptedModel([turn(("add", {"a": 1, "b": 2})), "ok"])

    declined = Agent(script(), [python_server("fm_peer.py")]).run_sync("add")
    assert declined.calls[0].result.is_error
    assert "not approved" in declined.calls[0].result.content
    asked: list[str] = []

    def approve(request: Any) -> bool:
        asked.append(f"{request.tool.name}:{request.side_effect}")
        return True

    approved = Agent(script(), [python_server("fm_peer.py")], approver=approve).run_sync("add")
    assert approved.calls[0].result.content == "3"
    assert asked == ["add:destructive"]


def test_a_hung_call_ends_at_the_runs_tool_timeout(tmp_path: Path) -> None:
    model = ScriptedModel([turn(("hang", {})), turn(("echo", {"text": "alive"})), "done"])
    agent = Agent(model, [edge_server(tmp_path, trusted=True, requires_approval=False)])
    result = agent.run_sync("hang", limits=Limits(tool_timeout=0.5))
    assert result.calls[0].result.content == "Timed out after 0.5 s; the call did not finish."
    assert result.calls[1].result.content == "alive"
    assert (tmp_path / "hang_cancelled").exists(), "the server was told to cancel"


def test_a_crash_mid_run_is_an_error_result_and_the_run_goes_on(tmp_path: Path) -> None:
    model = ScriptedModel([turn(("crash", {})), turn(("echo", {"text": "back"})), "done"])
    agent = Agent(model, [edge_server(tmp_path, trusted=True, requires_approval=False)])
    result = agent.run_sync("crash")
    assert result.stop_reason == "answer"
    assert result.calls[0].result.is_error
    assert "lost during the call" in result.calls[0].result.content
    assert result.calls[1].result.content == "back"


def test_a_huge_result_is_cut_by_the_runs_limit_and_kept_whole_in_the_event(
    tmp_path: Path,
) -> None:
    events: list[RunEvent] = []
    model = ScriptedModel([turn(("big", {"size": 4 * 1024 * 1024})), "done"])
    agent = Agent(model, [edge_server(tmp_path, requires_approval=False)])
    result = agent.run_sync("big", limits=Limits(max_result_chars=1000), on_event=events.append)
    content = result.calls[0].result.content
    assert len(content) < 1200 and content.startswith("HEAD") and content.endswith("TAIL")
    (ready,) = [e for e in events if isinstance(e, ToolResultReady)]
    assert ready.full_content is not None and len(ready.full_content) == 4 * 1024 * 1024


def test_a_hidden_tool_is_neither_shown_nor_callable_by_the_model(tmp_path: Path) -> None:
    server = edge_server(tmp_path, trusted=True).hidden("toggle")
    model = ScriptedModel([turn(("toggle", {})), "done"])
    result = Agent(model, [server], approver=lambda request: True).run_sync("toggle")
    assert "toggle" not in {d.name for d in model.requests[0].tools}
    assert result.calls[0].result.content.startswith("Unknown tool 'toggle'")
    assert not (tmp_path / "toggled").exists()

    async def application_calls_it() -> str:
        async with server:
            (hidden,) = await server.hidden_tools()
            return await hidden.invoke({}, context())

    assert anyio.run(application_calls_it) == "toggled"
    assert (tmp_path / "toggled").exists()


def test_two_servers_with_the_same_tools_in_one_config() -> None:
    peer = {"command": sys.executable, "args": [str(SERVERS / "fm_peer.py")], "trusted": True}
    servers = load_config({"mcpServers": {"one": peer, "two": peer}})
    model = ScriptedModel([turn(("add", {"a": 1, "b": 1}), ("two__add", {"a": 2, "b": 2})), "ok"])
    result = Agent(model, [servers]).run_sync("add twice")
    names = [d.name for d in model.requests[0].tools]
    assert names.count("add") == 1 and "two__add" in names
    # Read-only calls run concurrently: records come in the order they finish.
    assert {c.call.name: c.result.content for c in result.calls} == {"add": "2", "two__add": "4"}


def test_one_connection_serves_many_runs_when_the_application_holds_it() -> None:
    server = python_server("fm_peer.py", trusted=True)

    async def run() -> list[str]:
        answers = []
        async with server:
            supervisor = server._supervisor
            for n in range(3):
                model = ScriptedModel([turn(("add", {"a": n, "b": n})), "ok"])
                result = await Agent(model, [server]).run("add")
                answers.append(result.calls[0].result.content)
                assert server._supervisor is supervisor
        return answers

    assert anyio.run(run) == ["0", "2", "4"]
