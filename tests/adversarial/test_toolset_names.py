"""Attack: rename a tool (a prefix, a provider-safe mapping, a server-name collision) and see
whether `hidden`, `deny`, `allow` and `requiring_approval` still hold.

They match a tool's own name (the function's, the MCP server's) in any wrapper order, and a
pattern that matches none of the tools is a `UsageError` before the model is asked anything.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import Agent, Limits, ScriptedModel, Turn
from toolwire.errors import UsageError
from toolwire.mcp import MCPServer, MCPServers, load_config
from toolwire.models import ScriptedCall
from toolwire.tools import FunctionToolset, Tool, Toolset, tool

from ..mcp.conftest import SERVERS, context

pytestmark = pytest.mark.timeout(60)


@tool
def delete_file(path: str) -> str:
    return f"deleted {path}"


@tool(side_effect="read_only")
def read_file(path: str) -> str:
    return f"read {path}"


@tool(side_effect="read_only")
def keep(path: str) -> str:
    return path


@tool(side_effect="read_only")
def hide(path: str) -> str:
    return path


@tool(side_effect="read_only")
def deny(path: str) -> str:
    return path


@tool(side_effect="read_only")
def approve(path: str) -> str:
    return path


@tool(side_effect="read_only")
def drop(path: str) -> str:
    return path


def tools_of(toolset: Toolset) -> dict[str, Tool]:
    return {t.name: t for t in anyio.run(toolset.get_tools)}


def hidden_of(toolset: Toolset) -> list[str]:
    return [t.name for t in anyio.run(toolset.hidden_tools)]


def turn(*calls: tuple[str, dict[str, Any]]) -> Turn:
    return Turn(tool_calls=[ScriptedCall(name=name, arguments=args) for name, args in calls])


# Function toolsets: the wrappers after a prefix.


def test_deny_after_a_prefix_removes_the_tool() -> None:
    toolset = FunctionToolset([delete_file, read_file]).prefixed("fs_")
    assert list(tools_of(toolset.filtered(deny=["delete_file"]))) == ["fs_read_file"]
    assert list(tools_of(toolset.filtered(allow=["read_*"]))) == ["fs_read_file"]


def test_hidden_after_a_prefix_hides_the_tool_and_hands_it_to_the_application() -> None:
    toolset = FunctionToolset([delete_file, read_file]).prefixed("fs_").hidden("delete_file")
    assert list(tools_of(toolset)) == ["fs_read_file"]
    assert hidden_of(toolset) == ["fs_delete_file"]


def test_requiring_approval_after_a_prefix_marks_the_tool() -> None:
    toolset = FunctionToolset([delete_file, read_file]).prefixed("fs_")
    marked = tools_of(toolset.requiring_approval("read_file"))
    assert marked["fs_read_file"].needs_approval


def test_hidden_tools_pass_through_every_wrapper_above_them() -> None:
    inner = FunctionToolset([delete_file, read_file]).hidden("delete_file")
    toolset = inner.prefixed("fs_").filtered(deny=["read_file"]).requiring_approval()
    assert hidden_of(toolset) == ["fs_delete_file"]
    merged = MCPServers({"files": inner.prefixed("fs_")})
    assert hidden_of(merged) == ["fs_delete_file"]


def test_a_rule_holds_for_a_tool_renamed_by_a_collision_between_servers() -> None:
    merged = MCPServers(
        {"one": FunctionToolset([delete_file]), "two": FunctionToolset([delete_file, read_file])}
    )
    assert list(tools_of(merged)) == ["delete_file", "two__delete_file", "read_file"]
    assert list(tools_of(merged.filtered(deny=["delete_file"]))) == ["read_file"]


def test_naming_a_tool_hidden_below_is_not_an_error() -> None:
    toolset = FunctionToolset([delete_file, read_file]).hidden("delete_file")
    above = toolset.requiring_approval("delete_file").filtered(deny=["delete_file"])
    assert list(tools_of(above)) == ["read_file"]
    assert hidden_of(above) == ["delete_file"]


_PREFIX = st.from_regex(r"[a-z]{1,4}_", fullmatch=True)


@given(
    order=st.permutations(["hidden", "deny", "allow", "approve", "prefix", "prefix"]),
    prefixes=st.tuples(_PREFIX, _PREFIX),
)
@settings(max_examples=150, deadline=None)
def test_any_wrapper_order_and_prefixes_give_the_same_tools(
    order: Sequence[str], prefixes: tuple[str, str]
) -> None:
    toolset: Toolset = FunctionToolset([keep, hide, deny, approve, drop])
    applied: list[str] = []
    for wrapper in order:
        if wrapper == "hidden":
            toolset = toolset.hidden("hide")
        elif wrapper == "deny":
            toolset = toolset.filtered(deny=["deny"])
        elif wrapper == "allow":
            toolset = toolset.filtered(allow=["*e*"])
        elif wrapper == "approve":
            toolset = toolset.requiring_approval("approve")
        else:
            prefix = prefixes[len(applied)]
            applied.append(prefix)
            toolset = toolset.prefixed(prefix)
    # Prefixes stack: the outermost one is read first.
    full = "".join(reversed(applied))
    tools = tools_of(toolset)
    assert list(tools) == [f"{full}keep", f"{full}approve"]
    assert {t.own_name for t in tools.values()} == {"keep", "approve"}
    assert tools[f"{full}approve"].needs_approval and not tools[f"{full}keep"].needs_approval
    assert hidden_of(toolset) == [f"{full}hide"]


# A pattern that matches nothing.


@pytest.mark.parametrize(
    "wrap",
    [
        lambda t: t.filtered(deny=["delete_flie"]),
        lambda t: t.filtered(allow=["read_file", "delete_flie"]),
        lambda t: t.hidden("delete_flie"),
        lambda t: t.requiring_approval("delete_flie"),
    ],
    ids=["deny", "allow", "hidden", "requiring_approval"],
)
def test_a_pattern_matching_no_tool_is_an_error_naming_it_and_the_tools(wrap: Any) -> None:
    toolset = wrap(FunctionToolset([delete_file, read_file]).prefixed("fs_"))
    with pytest.raises(UsageError) as caught:
        tools_of(toolset)
    message = str(caught.value)
    assert "'delete_flie'" in message
    assert "delete_file (the model sees fs_delete_file)" in message and "read_file" in message


def test_a_long_list_of_tools_is_cut_in_the_error() -> None:
    many = [read_file.replace(name=f"read_{n}", own_name=f"read_{n}") for n in range(45)]
    with pytest.raises(UsageError, match=r"read_28, read_29 and 15 more$"):
        tools_of(FunctionToolset(many).hidden("nope"))


def test_the_model_facing_name_is_not_a_pattern_for_the_tool() -> None:
    # Model-facing names move (a prefix added later, a collision between servers); a rule
    # written against one is refused rather than left to drift.
    toolset = FunctionToolset([delete_file]).prefixed("fs_").hidden("fs_delete_file")
    with pytest.raises(UsageError, match="own name"):
        tools_of(toolset)


def test_the_run_stops_before_the_model_is_asked() -> None:
    model = ScriptedModel([turn(("fs_delete_file", {"path": "/"})), "done"])
    toolset = FunctionToolset([delete_file]).prefixed("fs_").filtered(deny=["fs_delete_file"])
    agent = Agent(model, [toolset], approver=lambda request: True)
    with pytest.raises(UsageError, match="fs_delete_file"):
        agent.run_sync("clean up")
    assert model.requests == []


@pytest.mark.parametrize("patterns", ["delete_file", ["delete_file", 3], [""]])
def test_patterns_must_be_a_list_of_names(patterns: Any) -> None:
    with pytest.raises(UsageError, match="list of tool names"):
        FunctionToolset([delete_file]).filtered(deny=patterns)


# A real MCP server whose names change on the way to the model.


def names_config(state: Path, **options: Any) -> dict[str, Any]:
    server = {
        "command": sys.executable,
        "args": [str(SERVERS / "names_server.py")],
        "env": {"NAMES_STATE_DIR": str(state)},
        "connect_timeout": 15,
        **options,
    }
    return {"mcpServers": {"memory": server}}


def test_a_prefixed_mcp_server_hides_tools_by_the_servers_own_names(tmp_path: Path) -> None:
    config = names_config(
        tmp_path, prefix="ev_", hidden=["save_memory", "memory.write"], requires_approval=False
    )
    servers = load_config(config)
    model = ScriptedModel([turn(("ev_save_memory", {}), ("ev_memory_write", {})), "done"])
    result = Agent(model, [servers]).run_sync("remember this")
    assert {d.name for d in model.requests[0].tools} == {"ev_retire", "ev_read_notes"}
    assert all(c.result.content.startswith("Unknown tool") for c in result.calls)
    assert not list(tmp_path.glob("called *"))

    async def application_calls_them() -> list[str]:
        async with servers:
            hidden = await servers.hidden_tools()
            return [await t.invoke({}, context()) for t in hidden]

    assert anyio.run(application_calls_them) == ["save_memory done", "memory.write done"]


def test_an_mcp_server_requiring_approval_by_its_own_name(tmp_path: Path) -> None:
    server = MCPServer.stdio(
        sys.executable,
        [str(SERVERS / "names_server.py")],
        env={"NAMES_STATE_DIR": str(tmp_path)},
        prefix="ev_",
        requires_approval=False,
    ).requiring_approval("memory.write")

    async def run() -> dict[str, bool]:
        async with server:
            return {t.name: t.needs_approval for t in await server.get_tools()}

    assert anyio.run(run) == {
        "ev_save_memory": False,
        "ev_memory_write": True,
        "ev_retire": False,
        "ev_read_notes": False,
    }


@pytest.mark.parametrize(
    ("option", "pattern"),
    [("hidden", "memory_write"), ("deny", "save-memory"), ("allow", "nothing_*")],
)
def test_an_mcp_pattern_matching_none_of_the_servers_tools_stops_the_run(
    tmp_path: Path, option: str, pattern: str
) -> None:
    config = names_config(tmp_path, prefix="ev_", **{option: [pattern]})
    model = ScriptedModel(["done"])
    with pytest.raises(UsageError) as caught:
        Agent(model, [load_config(config)]).run_sync("hi")
    assert repr(pattern) in str(caught.value) and "memory.write" in str(caught.value)
    assert model.requests == []


def test_a_server_dropping_a_hidden_tool_later_does_not_stop_the_run(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = names_config(tmp_path, hidden=["read_notes"], requires_approval=False)
    model = ScriptedModel([turn(("retire", {})), turn(("retire", {})), "done"])
    with caplog.at_level(logging.WARNING):
        result = Agent(model, [load_config(config)]).run_sync("retire the notes")
    assert result.stop_reason == "answer" and (tmp_path / "retired").exists()
    assert "'read_notes'" in caplog.text and "no tool" in caplog.text


def test_a_per_tool_timeout_matches_the_own_name_and_an_unknown_one_is_an_error() -> None:
    @tool(side_effect="read_only")
    def slow() -> str:
        """Takes its time."""
        time.sleep(2)
        return "done"

    prefixed = FunctionToolset([slow]).prefixed("x_")
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="x_slow")]), "ok"])
    result = Agent(model, [prefixed], limits=Limits(tool_timeouts={"slow": 0.1})).run_sync("go")
    assert result.calls[0].result.content.startswith("Timed out after 0.1 s")
    typo = ScriptedModel(["never asked"])
    with pytest.raises(UsageError, match="tool_timeouts names 'slwo'"):
        Agent(typo, [prefixed], limits=Limits(tool_timeouts={"slwo": 1})).run_sync("go")
