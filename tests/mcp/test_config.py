"""Configuration: mcpServers files, --mcp specs, server parameters, merging servers."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import UsageError
from toolwire.mcp import (
    HTTPParams,
    MCPServer,
    MCPServers,
    StdioParams,
    load_config,
    toolsets_from_spec,
    toolsets_from_specs,
)
from toolwire.tools import FunctionToolset, HiddenToolset, tool


def server_of(toolset: Any) -> MCPServer:
    inner = toolset.inner if isinstance(toolset, HiddenToolset) else toolset
    assert isinstance(inner, MCPServer)
    return inner


def test_a_config_gives_one_toolset_of_its_servers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NOTES_TOKEN", "tok-123456")
    config = load_config(
        {
            "mcpServers": {
                "time": {
                    "command": "mcp-server-time",
                    "args": ["--local-timezone", "${TZ_NAME:-UTC}"],
                    "env": {"LOG": "quiet"},
                    "trusted": True,
                    "allow": ["get_*"],
                    "timeout": 5,
                },
                "notes": {
                    "type": "http",
                    "url": "http://127.0.0.1:9/mcp",
                    "token": "${NOTES_TOKEN}",
                    "hidden": ["save_run_summary"],
                    "requires_approval": False,
                    "sampling": True,
                    "description": "written by another host; ignored",
                },
                "off": {"command": "nothing-here", "disabled": True},
            }
        }
    )
    assert list(config.servers) == ["time", "notes"]
    time_server = server_of(config.servers["time"])
    assert time_server.params == StdioParams(
        command="mcp-server-time", args=("--local-timezone", "UTC"), env={"LOG": "quiet"}
    )
    assert time_server.policy.trusted and time_server.policy.timeout == 5.0
    assert time_server.policy.allow == ("get_*",)
    notes = config.servers["notes"]
    assert isinstance(notes, HiddenToolset) and notes.names.patterns == ("save_run_summary",)
    params = server_of(notes).params
    assert isinstance(params, HTTPParams) and params.token == "tok-123456"
    assert server_of(notes).policy.requires_approval is False
    assert server_of(notes).sampling and not time_server.sampling


def test_a_config_file_and_vs_code_style_servers_key(tmp_path: Path) -> None:
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"servers": {"a": {"command": "x"}}}))
    assert list(load_config(path).servers) == ["a"]
    assert list(load_config(str(path)).servers) == ["a"]


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, 'expected an object with "mcpServers"'),
        ({"mcpServers": []}, 'expected an object with "mcpServers"'),
        ({"mcpServers": {}}, "no servers configured"),
        ({"mcpServers": {"a": "cmd"}}, "mcpServers.a: a server is an object"),
        ({"mcpServers": {"a": {}}}, 'give either "command" (stdio) or "url" (HTTP)'),
        ({"mcpServers": {"a": {"command": "x", "url": "http://h"}}}, "give either"),
        ({"mcpServers": {"a": {"command": "x", "trustd": True}}}, "unknown key(s) 'trustd'"),
        ({"mcpServers": {"a": {"command": "x", "trusted": "yes"}}}, "a.trusted: must be a boolean"),
        (
            {"mcpServers": {"a": {"command": "x", "args": "-v"}}},
            "a.args: must be a list of strings",
        ),
        ({"mcpServers": {"a": {"command": "x", "env": {"K": 1}}}}, "a.env: must be an object of"),
        ({"mcpServers": {"a": {"command": "x", "timeout": 0}}}, "a.timeout: must be a positive"),
        ({"mcpServers": {"a": {"command": "x", "timeout": True}}}, "a.timeout: must be a positive"),
        ({"mcpServers": {"a": {"command": "x", "hidden": "t"}}}, "a.hidden: must be a list"),
        ({"mcpServers": {"a": {"command": "x", "headers": {}}}}, "'headers' do(es) not apply"),
        ({"mcpServers": {"a": {"url": "http://h/mcp", "args": []}}}, "'args' do(es) not apply"),
        ({"mcpServers": {"a": {"url": "http://h/mcp", "type": "sse"}}}, "HTTP+SSE transport"),
        ({"mcpServers": {"a": {"url": "http://h/mcp", "type": "stdio"}}}, "does not go with"),
        ({"mcpServers": {"a": {"url": "ftp://h/x"}}}, "must be http(s)://host"),
        ({"mcpServers": {"a": {"url": "http://h", "token": "${NOPE_NOT_SET}"}}}, "NOPE_NOT_SET is"),
        ({"mcpServers": {"a": {"command": "  "}}}, "needs a command"),
        ({"mcpServers": {"a": {"command": "x", "sampling": "yes"}}}, "a.sampling: must be"),
    ],
)
def test_bad_configs_are_refused_with_the_place_to_fix(config: Any, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        load_config(config)
    assert message in str(caught.value)


def test_bad_config_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not found"):
        load_config(tmp_path / "missing.json")
    broken = tmp_path / "broken.json"
    broken.write_text("{nope")
    with pytest.raises(UsageError, match="not valid JSON"):
        load_config(broken)
    listed = tmp_path / "list.json"
    listed.write_text("[]")
    with pytest.raises(UsageError, match="expected a JSON object"):
        load_config(listed)


json_leaf = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=10), inner, max_size=4)
    ),
    max_leaves=12,
)
entry_keys = st.sampled_from(
    [
        "command",
        "args",
        "env",
        "url",
        "headers",
        "token",
        "type",
        "trusted",
        "timeout",
        "hidden",
        "x",
    ]
)


@given(
    servers=st.dictionaries(
        st.text(max_size=8), st.dictionaries(entry_keys, json_value), max_size=3
    )
)
@settings(max_examples=150, deadline=None)
def test_any_config_is_loaded_or_refused_with_a_usage_error(servers: dict[str, Any]) -> None:
    try:
        loaded = load_config({"mcpServers": servers})
    except UsageError as error:
        refusal = str(error)
    else:
        refusal = ""
        assert set(loaded.servers) <= set(servers)
    assert refusal or loaded


def test_specs_name_a_url_a_config_or_a_command(tmp_path: Path) -> None:
    (url_server,) = toolsets_from_spec("  https://mcp.example.com/mcp ")
    assert isinstance(url_server, MCPServer) and isinstance(url_server.params, HTTPParams)
    assert not url_server.policy.trusted
    config = tmp_path / "servers.json"
    config.write_text(json.dumps({"mcpServers": {"a": {"command": "x"}}}))
    (group,) = toolsets_from_spec(str(config))
    assert isinstance(group, MCPServers)
    (command,) = toolsets_from_spec(f"{sys.executable} -m some_server --flag 'two words'")
    assert isinstance(command, MCPServer)
    assert command.params == StdioParams(
        command=sys.executable, args=("-m", "some_server", "--flag", "two words")
    )
    assert command.name == "some_server"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "--mcp needs a command"),
        ("   ", "--mcp needs a command"),
        ("missing.json", "MCP config file not found: missing.json"),
        ("ftp://host/mcp", "http(s) URLs only"),
        ("no-such-command-xyz --flag", "MCP server command not found: 'no-such-command-xyz'"),
        ("python3 'unclosed", "cannot parse the MCP server command"),
    ],
)
def test_bad_specs_are_refused(spec: str, message: str) -> None:
    with pytest.raises(UsageError) as caught:
        toolsets_from_spec(spec)
    assert message in str(caught.value)


def test_several_specs_become_one_toolset_with_distinct_names() -> None:
    (group,) = toolsets_from_specs([f"{sys.executable} a.py", f"{sys.executable} a.py"])
    assert isinstance(group, MCPServers) and list(group.servers) == ["a", "a2"]
    assert toolsets_from_specs([]) == []


def test_credentials_stay_out_of_reprs_and_descriptions() -> None:
    params = HTTPParams(
        url="https://user:pw-secret@h.example:8443/mcp?key=q-secret",
        token="tok-secret",
        headers={"X-Api-Key": "hdr-secret", "Accept-Language": "en"},
    )
    shown = repr(params) + params.describe() + repr(MCPServer(params))
    assert "secret" not in shown
    assert params.describe() == "https://h.example:8443/mcp"
    assert sorted(params.secrets()) == ["hdr-secret", "key=q-secret", "pw-secret", "tok-secret"]
    env = StdioParams(command="x", env={"GITHUB_TOKEN": "gh-secret", "LANG": "C"})
    assert "secret" not in repr(env)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: HTTPParams(url="localhost:8000/mcp"), "must be http(s)://host"),
        (lambda: HTTPParams(url="http://h/mcp", token=""), "token is empty"),
        (lambda: HTTPParams(url="http://h/mcp", token="t", auth=object()), "not both"),  # type: ignore[arg-type]
        (lambda: StdioParams(command="x", args="a b"), "list of arguments"),  # type: ignore[arg-type]
        (lambda: MCPServer.stdio("x", timeout=0), "timeout must be a positive"),
        (lambda: MCPServer.stdio("x", connect_timeout=-1), "connect_timeout must be a positive"),
        (lambda: MCPServer.stdio("x", allow="git_*"), "list of tool names or patterns"),
    ],
)
def test_bad_parameters_are_refused(make: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make()


def test_a_server_must_be_open_to_list_or_call() -> None:
    server = MCPServer.stdio("x")
    assert server.status == "closed" and server.instructions is None
    with pytest.raises(UsageError, match="is not open: use it inside `async with server:`"):
        anyio.run(server.get_tools)


def test_the_extra_is_named_when_the_sdk_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    import toolwire.mcp._sdk as sdk

    monkeypatch.setattr(sdk, "find_spec", lambda name: None if name == "mcp" else object())
    sdk.require_sdk.cache_clear()
    with pytest.raises(UsageError, match=r"mcp not installed\): pip install 'toolwire\[mcp\]'"):
        MCPServer.stdio("x")


@tool(side_effect="read_only")
def status() -> str:
    """Status of the first server."""
    return "first"


@tool(name="status", side_effect="read_only")
def status_two() -> str:
    """Status of the second server."""
    return "second"


@tool(side_effect="read_only")
def only_second() -> str:
    """Unique."""
    return "unique"


def test_merged_servers_prefix_only_the_later_of_two_equal_names() -> None:
    first = FunctionToolset([status])
    second = FunctionToolset([status_two, only_second])
    merged = MCPServers({"one": first, "two.x": second})

    async def run() -> tuple[list[str], bool]:
        async with merged:
            tools = await merged.get_tools()
            same = tools is await merged.get_tools()
        return [t.name for t in tools], same

    names, same = anyio.run(run)
    assert names == ["status", "two_x__status", "only_second"]
    assert same, "an unchanged list must keep its identity (the agent caches by it)"


def test_hidden_tools_of_merged_servers_are_gathered() -> None:
    merged = MCPServers({"a": FunctionToolset([status, only_second]).hidden("only_second")})

    async def run() -> tuple[list[str], list[str]]:
        visible = [t.name for t in await merged.get_tools()]
        hidden = [t.name for t in await merged.hidden_tools()]
        return visible, hidden

    assert anyio.run(run) == (["status"], ["only_second"])


def test_servers_given_as_a_list_need_distinct_names() -> None:
    with pytest.raises(UsageError, match="same name"):
        MCPServers([MCPServer.stdio("x"), MCPServer.stdio("x")])
