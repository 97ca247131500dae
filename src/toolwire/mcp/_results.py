"""`tools/call` results as the text of a tool result."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from ..errors import ToolError

if TYPE_CHECKING:
    from mcp.types import CallToolResult, ContentBlock


def result_text(result: CallToolResult) -> str:
    """Text blocks joined; other blocks as short references; structured content as compact JSON
    when there is nothing else (servers mirror it in a text block for older clients). An
    `isError` result raises `ToolError`, so the model gets it as an error result."""
    parts = [_block(block) for block in result.content]
    if result.structured_content is not None and not any(parts):
        parts = [json.dumps(result.structured_content, ensure_ascii=False, separators=(",", ":"))]
    text = "\n".join(part for part in parts if part)
    if result.is_error:
        raise ToolError(text or "the tool failed without saying why")
    return text


def _block(block: ContentBlock) -> str:
    import mcp.types as mt

    if isinstance(block, mt.TextContent):
        return block.text
    if isinstance(block, mt.ImageContent | mt.AudioContent):
        # The loop's results are text; binary data would only waste the model's context.
        return f"[{block.type} omitted: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, mt.ResourceLink):
        details = ", ".join(x for x in (block.mime_type, block.description) if x)
        return f"[resource {block.name} <{block.uri}>{f': {details}' if details else ''}]"
    resource = block.resource
    header = f"[resource <{resource.uri}>{f' {resource.mime_type}' if resource.mime_type else ''}]"
    if isinstance(resource, mt.TextResourceContents):
        return f"{header}\n{resource.text}"
    return f"{header} binary, {_decoded_size(resource.blob)} bytes omitted"


def _decoded_size(base64_text: str) -> int:
    return len(base64_text) * 3 // 4 - base64_text[-2:].count("=")
