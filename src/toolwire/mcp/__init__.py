"""MCP servers as toolsets: tools from any MCP server, over stdio or Streamable HTTP.

    from toolwire import Agent
    from toolwire.mcp import MCPServer

    time = MCPServer.stdio("mcp-server-time", ["--local-timezone", "UTC"], trusted=True)
    notes = MCPServer.http("https://notes.example/mcp", token=user_token).hidden("save_summary")
    agent = Agent("openai:gpt-4.1", tools=[time, notes])

Needs the `mcp` extra: `pip install 'toolwire[mcp]'`.
"""

from ._catalogue import Policy
from ._config import load_config
from ._group import MCPServers
from ._params import HTTPParams, StdioParams, TokenSource
from ._server import DEFAULT_CALL_TIMEOUT, MCPServer, ProgressCallback, ToolProgress
from ._spec import toolsets_from_spec, toolsets_from_specs

__all__ = [
    "DEFAULT_CALL_TIMEOUT",
    "HTTPParams",
    "MCPServer",
    "MCPServers",
    "Policy",
    "ProgressCallback",
    "StdioParams",
    "TokenSource",
    "ToolProgress",
    "load_config",
    "toolsets_from_spec",
    "toolsets_from_specs",
]
