"""Results and failures of every shape, as the model will see them (no servers here)."""

from __future__ import annotations

from typing import Any

import anyio
import httpx2
import mcp.types as mt
import pydantic
import pytest
from mcp import MCPError

from toolwire.errors import ToolError
from toolwire.mcp._failures import classify
from toolwire.mcp._results import result_text


def result(*blocks: Any, structured: Any = None, is_error: bool = False) -> mt.CallToolResult:
    return mt.CallToolResult(content=list(blocks), structured_content=structured, is_error=is_error)


def test_text_blocks_are_joined() -> None:
    assert result_text(result(mt.TextContent(text="a"), mt.TextContent(text="b"))) == "a\nb"


def test_structured_content_is_compact_json_when_there_is_no_text() -> None:
    assert result_text(result(structured={"b": [1, 2], "é": None})) == '{"b":[1,2],"é":null}'
    assert result_text(result(structured=[1, "x"])) == '[1,"x"]'
    # Servers mirror structured content in a text block for older clients: not repeated.
    assert result_text(result(mt.TextContent(text="3"), structured={"result": 3})) == "3"


def test_binary_blocks_and_resources_become_short_references() -> None:
    text = result_text(
        result(
            mt.ImageContent(data="aGVsbG8gd29ybGQ=", mime_type="image/png"),
            mt.AudioContent(data="AAAA", mime_type="audio/wav"),
            mt.ResourceLink(uri="file:///a.md", name="a.md", description="notes"),
            mt.EmbeddedResource(resource=mt.TextResourceContents(uri="mem://t", text="body")),
            mt.EmbeddedResource(
                resource=mt.BlobResourceContents(uri="mem://b", blob="AAAA", mime_type="x/y")
            ),
        )
    )
    assert text.splitlines() == [
        "[image omitted: image/png, 11 bytes]",
        "[audio omitted: audio/wav, 3 bytes]",
        "[resource a.md <file:///a.md>: notes]",
        "[resource <mem://t>]",
        "body",
        "[resource <mem://b> x/y] binary, 3 bytes omitted",
    ]


def test_an_error_result_raises_tool_error_with_its_text() -> None:
    with pytest.raises(ToolError, match=r"^disk full$"):
        result_text(result(mt.TextContent(text="disk full"), is_error=True))
    with pytest.raises(ToolError, match="without saying why"):
        result_text(result(is_error=True))


def classified(error: BaseException, status: int | None = None) -> tuple[str, str]:
    async def run() -> tuple[str, str]:
        failure = classify(error, status)
        return failure.kind, failure.message

    return anyio.run(run)


def test_json_rpc_errors_by_code() -> None:
    assert classified(MCPError(-32001, "Request 'tools/call' timed out"))[0] == "timeout"
    assert classified(MCPError(-32000, "Connection closed"))[0] == "lost"
    assert classified(MCPError(-32600, "Session terminated"))[0] == "lost"
    assert classified(MCPError(-32602, "Unknown tool: x")) == (
        "unknown_tool",
        "server error -32602: Unknown tool: x",
    )
    assert classified(MCPError(-32050, "no\n\n  backend")) == (
        "error",
        "server error -32050: no backend",
    )


def test_http_statuses_hidden_behind_a_generic_error_are_recovered() -> None:
    generic = MCPError(-32603, "Server returned an error response")
    assert classified(generic, 401) == ("refused", "the server rejected the credentials (HTTP 401)")
    assert classified(generic, 403)[0] == "refused"
    assert classified(generic, 404)[0] == "lost"
    assert classified(generic, 502) == ("error", "the server answered HTTP 502")
    assert classified(generic) == (
        "error",
        "server error -32603: Server returned an error response",
    )


def test_transport_errors_and_nested_groups_are_unwrapped() -> None:
    request = httpx2.Request("POST", "http://127.0.0.1/mcp")
    dropped = httpx2.RemoteProtocolError("Server disconnected", request=request)
    nested = ExceptionGroup("outer", [ExceptionGroup("inner", [dropped])])
    assert classified(nested)[0] == "lost"
    assert classified(httpx2.ReadTimeout("slow", request=request))[0] == "timeout"
    assert classified(anyio.BrokenResourceError())[0] == "lost"
    assert classified(ExceptionGroup("g", [MCPError(-32001, "timed out")]))[0] == "timeout"


def test_malformed_results_and_output_schema_failures_are_tool_errors() -> None:
    try:
        mt.CallToolResult.model_validate({"content": [{"type": "text"}]})
    except pydantic.ValidationError as error:
        kind, message = classified(error)
    assert kind == "error" and message.startswith("the server sent a malformed message (content.0")
    mismatch = RuntimeError("Invalid structured content returned by tool add: 'x' is not int")
    assert classified(mismatch) == (
        "error",
        "the server's result does not match the tool's output schema",
    )
    assert classified(ValueError("odd")) == ("error", "ValueError: odd")
