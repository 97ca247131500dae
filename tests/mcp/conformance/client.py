"""toolwire's MCP host as the client under test of the official conformance suite.

The suite starts a scenario's server and runs `python client.py URL`, with the scenario's name in
MCP_CONFORMANCE_SCENARIO and its context (the calls to make, if it names them) in
MCP_CONFORMANCE_CONTEXT. This is an application of toolwire like any other: an `Agent` over
`MCPServer.http(URL, trusted=True)`, whose scripted model makes the calls the scenario asks for
(or calls every tool the server offers once), with every call approved and every question to the
person accepted as the form's defaults.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Any

from toolwire import Agent, Approve, ScriptedModel, Turn
from toolwire.elicitation import ElicitationAnswer, ElicitationRequest
from toolwire.mcp import MCPServer
from toolwire.models import ModelRequest, ScriptedCall

_EXAMPLES: dict[str, Any] = {
    "string": "x",
    "integer": 1,
    "number": 1,
    "boolean": True,
    "array": [],
    "object": {},
}


def example_arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A value for every required parameter: enough for a server that only checks types."""
    properties = schema.get("properties", {})
    arguments = {}
    for name in schema.get("required", ()):
        kind = properties.get(name, {}).get("type", "string")
        arguments[name] = _EXAMPLES.get(kind if isinstance(kind, str) else kind[0], "x")
    return arguments


def planned_calls(context: Mapping[str, Any], request: ModelRequest) -> list[ScriptedCall]:
    named = context.get("toolCalls")
    if named:
        return [ScriptedCall(name=c["name"], arguments=c.get("arguments", {})) for c in named]
    offered = {tool.name: tool for tool in request.tools}
    if "json_schema_echo" in offered:
        # The echo tool asks for another tool's input schema, as the model was shown it.
        shown = [t.parameters for name, t in offered.items() if name != "json_schema_echo"]
        return [ScriptedCall(name="json_schema_echo", arguments={"schema": shown[0]})]
    return [
        ScriptedCall(name=tool.name, arguments=example_arguments(tool.parameters))
        for tool in request.tools
    ]


def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    # The person accepts the form as offered: toolwire fills in the schema's defaults.
    return ElicitationAnswer(action="accept", content={}, by="conformance:person")


def main(url: str) -> int:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")

    def script(request: ModelRequest) -> Turn | str:
        if len(request.messages) > 1:
            return "done"
        return Turn(tool_calls=planned_calls(context, request))

    agent = Agent(
        ScriptedModel(script),
        [MCPServer.http(url, trusted=True, connect_timeout=10)],
        approver=lambda request: Approve(by="conformance:person"),
        elicitor=accept_defaults,
    )
    result = agent.run_sync("Make the calls the scenario asks for.")
    for record in result.calls:
        print(f"{record.call.name}: {record.result.content}", file=sys.stderr)
    return 0 if result.stop_reason == "answer" else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[-1]))
