"""Prompted mode, as text: the catalogue and calling convention for the system prompt, and the
calls and results of earlier turns written the way the convention asks.

The convention: reply with only a ```` ```tool_call ```` block holding `{"name": ..., "arguments":
{...}}`, one block per call; each result comes back in a ```` ```tool_result ```` block.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from ..messages import ToolCall, ToolResult
from ._tools import ToolLike, tool_specs

__all__ = ["render_call", "render_catalogue", "render_result"]

_ARGUMENTS_SHOWN = 200
_BACKTICK_RUN = re.compile(r"`{3,}")

CONVENTION = """\
# How to call a tool

To call a tool, reply with only a fenced block like this one, and write nothing after it:

```tool_call
{"name": "TOOL_NAME", "arguments": {"PARAMETER": "VALUE"}}
```

- "name" is one of the tools above; "arguments" is a JSON object that matches its parameters.
- To call several tools at once, write one tool_call block for each call.
- Each result comes back to you in a ```tool_result block. Never write a result yourself: stop \
after your tool_call blocks and wait for it.
- When you need no tool, answer normally, without a tool_call block."""


def render_catalogue(
    tools: Iterable[ToolLike],
    *,
    required: bool = False,
    only: str | None = None,
    parallel: bool = True,
) -> str:
    """The system-prompt text that gives a text-only model the tools: each tool's name,
    description (whole: descriptions are prompts) and JSON Schema, then the convention.
    `required` / `only` ask for a call now (of any tool / of that tool); `parallel=False` asks
    for one call per reply."""
    sections = ["# Tools\n\nYou can call these tools:"]
    for spec in tool_specs(tools):
        lines = [f"## {spec.name}"]
        if spec.description.strip():
            lines.append(spec.description.strip())
        schema = json.dumps(spec.parameters or {"type": "object", "properties": {}})
        lines.append(f"Parameters (JSON Schema): {schema}")
        sections.append("\n".join(lines))
    sections.append(CONVENTION)
    rules = []
    if only is not None:
        rules.append(f"In this reply you must call the tool {only}.")
    elif required:
        rules.append("In this reply you must call at least one tool.")
    if not parallel:
        rules.append("Call at most one tool per reply.")
    if rules:
        sections.append(" ".join(rules))
    return "\n\n".join(sections)


def _fence(body: str) -> str:
    # A fence longer than any run of backticks inside, so the body cannot close it.
    longest = max((len(run) for run in _BACKTICK_RUN.findall(body)), default=2)
    return "`" * max(3, longest + 1)


def render_call(call: ToolCall) -> str:
    """An earlier call, as the model would have written it. A call that did not parse is shown
    with its own argument text, so the model can see what to fix."""
    if call.error is None:
        body = json.dumps(
            {"name": call.name, "arguments": dict(call.arguments)}, ensure_ascii=False
        )
    else:
        raw = call.raw_arguments or "{}"
        body = f'{{"name": {json.dumps(call.name, ensure_ascii=False)}, "arguments": {raw}}}'
    fence = _fence(body)
    return f"{fence}tool_call\n{body}\n{fence}"


def render_result(result: ToolResult, call: ToolCall | None) -> str:
    """A result, naming the call it answers (tool and arguments, shortened when long)."""
    if call is not None:
        shown = json.dumps(dict(call.arguments), ensure_ascii=False)
        if len(shown) > _ARGUMENTS_SHOWN:
            shown = shown[:_ARGUMENTS_SHOWN] + "…"
        title = f"{result.name}({shown})"
    else:
        title = result.name
    verdict = "failed" if result.is_error else "returned"
    body = f"{title} {verdict}:\n{result.content}"
    fence = _fence(body)
    return f"{fence}tool_result\n{body}\n{fence}"
