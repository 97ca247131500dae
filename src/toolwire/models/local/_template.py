"""Chat templates from GGUF files, rendered in a sandbox, the way Hugging Face renders them.

A template is code that came with a downloaded file: it runs in Jinja's immutable sandbox, with
only the helpers chat templates are written against (`tojson`, `raise_exception`,
`strftime_now`). `tojson` keeps non-ASCII text and key order, as Hugging Face's does, so a call
the model wrote in its own format renders back byte for byte and the KV cache keeps matching.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ...errors import UsageError
from ...messages import Message, ReasoningPart, TextPart, ToolCall, ToolResult
from ...tools import ToolDefinition

__all__ = ["ChatTemplate", "template_messages", "template_tools"]


class ChatTemplate:
    def __init__(self, source: str, *, bos_token: str = "", eos_token: str = "") -> None:
        try:
            import jinja2
            from jinja2.sandbox import ImmutableSandboxedEnvironment
        except ImportError:
            raise UsageError(
                "local models need jinja2 for chat templates: pip install 'toolwire[local]'"
            ) from None
        environment = ImmutableSandboxedEnvironment(
            trim_blocks=True,
            lstrip_blocks=True,
            extensions=["jinja2.ext.loopcontrols"],
            undefined=jinja2.Undefined,
        )
        environment.filters["tojson"] = _tojson
        environment.globals["raise_exception"] = _raise_exception
        environment.globals["strftime_now"] = _strftime_now
        try:
            self._template = environment.from_string(source)
        except jinja2.TemplateError as error:
            raise UsageError(f"the model's chat template does not compile: {error}") from None
        self._jinja_error: type[Exception] = jinja2.TemplateError
        self.source = source
        self.bos_token = bos_token
        self.eos_token = eos_token

    @property
    def supports_tools(self) -> bool:
        """Whether the template itself lays out tool definitions (else: prompted mode)."""
        return "tools" in self.source and "tool_call" in self.source

    def render(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        add_generation_prompt: bool = True,
    ) -> str:
        try:
            return self._template.render(
                messages=list(messages),
                tools=list(tools) if tools else None,
                add_generation_prompt=add_generation_prompt,
                bos_token=self.bos_token,
                eos_token=self.eos_token,
            )
        except _TemplateRaised as error:
            raise UsageError(
                f"the model's chat template refused the conversation: {error}"
            ) from None
        except self._jinja_error as error:
            raise UsageError(f"the model's chat template failed: {error}") from None

    def default_system(self) -> str:
        """The system message the template writes when the conversation brings none (Qwen's
        "You are Qwen, created by Alibaba Cloud..."), or "" if it writes none. Found by
        rendering the same turn with a system message of our own and without one: whatever
        stands in its place in the second is the default."""
        marker = "\x00toolwire system\x00"
        question = {"role": "user", "content": "\x00"}
        try:
            given = self.render([{"role": "system", "content": marker}, question])
            alone = self.render([question])
        except UsageError:
            return ""
        before, found, after = given.partition(marker)
        if not found or len(before) + len(after) > len(alone):
            return ""
        if not (alone.startswith(before) and alone.endswith(after)):
            return ""
        return alone[len(before) : len(alone) - len(after)].strip()


class _TemplateRaised(Exception):
    pass


def _raise_exception(message: str) -> None:
    raise _TemplateRaised(message)


def _strftime_now(fmt: str) -> str:
    return datetime.datetime.now().strftime(fmt)


def _tojson(
    value: Any,
    ensure_ascii: bool = False,
    indent: int | None = None,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    return json.dumps(
        value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys
    )


def template_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Tool definitions in the OpenAI shape that chat templates are written for."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": dict(tool.parameters),
            },
        }
        for tool in tools
    ]


def template_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """toolwire messages as chat-template messages: assistant calls under `tool_calls` (arguments
    as parsed objects), and one `tool` message per result, in the order the calls were made."""
    out: list[dict[str, Any]] = []
    for message in messages:
        text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
        calls = [p for p in message.parts if isinstance(p, ToolCall)]
        results = [p for p in message.parts if isinstance(p, ToolResult)]
        if results:
            if text:
                out.append({"role": "user", "content": text})
            out.extend(
                {
                    "role": "tool",
                    "tool_call_id": result.call_id,
                    "name": result.name,
                    "content": result.content,
                }
                for result in results
            )
            continue
        entry: dict[str, Any] = {"role": message.role, "content": text}
        reasoning = "".join(p.text for p in message.parts if isinstance(p, ReasoningPart))
        if reasoning:
            entry["reasoning_content"] = reasoning
        if calls:
            entry["tool_calls"] = [_template_call(call) for call in calls]
        out.append(entry)
    return out


def _template_call(call: ToolCall) -> dict[str, Any]:
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": dict(call.arguments)},
    }
