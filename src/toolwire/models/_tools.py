"""Tool definitions in an API's shape, translated once; streamed calls mapped back.

The loop sends the same tools at every step, so each adapter keeps the translated form of each tool
(schema dialect, wire name, the API's envelope) and reuses it while the tool's parameters are the
same object: a step costs a lookup per tool, not a schema rewrite.
"""

from __future__ import annotations

import functools
import json
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from ..errors import UsageError
from ..events import ModelEvent, ToolCallArgumentsDelta, ToolCallStarted
from ..tools import ToolDefinition
from ._names import wire_name
from ._schema import JsonSchema, inline_refs
from ._schema_gemini import gemini_schema
from ._schema_strict import drop_added_nulls, openai_strict

Dialect: TypeAlias = Literal["json-schema", "openai-strict", "gemini"]


@dataclass(frozen=True, kw_only=True, slots=True)
class WireTool:
    """One tool as an API sees it. `schema` is in the dialect (None: no parameters); `strict` says
    it went out in strict mode; `original` is set when the model's arguments need the nulls strict
    mode added removed again; `full_schema` marks a Gemini tool sent as plain JSON Schema."""

    name: str
    wire_name: str
    description: str
    schema: JsonSchema | None
    strict: bool = False
    original: JsonSchema | None = None
    full_schema: bool = False


@dataclass(frozen=True, slots=True)
class ToolIndex:
    """The tools of one request: their API form, in order, and the way back from wire names."""

    payload: list[dict[str, Any]]
    by_wire_name: Mapping[str, WireTool]

    def original_name(self, name: str) -> str:
        tool = self.by_wire_name.get(name)
        return tool.name if tool is not None else name


@dataclass(slots=True)
class _Entry:
    parameters: Mapping[str, Any]
    tool: WireTool
    payload: dict[str, Any]


class ToolTranslator:
    """Translates tool definitions to `render(WireTool)` payloads, remembering the last `size`."""

    def __init__(
        self,
        dialect: Dialect,
        render: Callable[[WireTool], dict[str, Any]],
        *,
        letter_first: bool = False,
        size: int = 512,
    ) -> None:
        self._dialect = dialect
        self._render = render
        self._letter_first = letter_first
        self._size = size
        self._cache: OrderedDict[tuple[str, str, int], _Entry] = OrderedDict()

    def translate(self, tools: Sequence[ToolDefinition]) -> ToolIndex:
        payload: list[dict[str, Any]] = []
        by_wire_name: dict[str, WireTool] = {}
        for definition in tools:
            entry = self._entry(definition)
            if entry.tool.wire_name in by_wire_name:
                raise UsageError(
                    f"tools {by_wire_name[entry.tool.wire_name].name!r} and {definition.name!r} "
                    f"have the same name on the wire ({entry.tool.wire_name!r}): rename one"
                )
            by_wire_name[entry.tool.wire_name] = entry.tool
            payload.append(entry.payload)
        return ToolIndex(payload, by_wire_name)

    def _entry(self, definition: ToolDefinition) -> _Entry:
        # Keyed by the parameters' identity (held by the entry, so the id cannot be reused while
        # cached): the loop rebuilds ToolDefinitions every step around the same schema object.
        key = (definition.name, definition.description, id(definition.parameters))
        entry = self._cache.get(key)
        if entry is not None and entry.parameters is definition.parameters:
            self._cache.move_to_end(key)
            return entry
        tool = self._wire_tool(definition)
        entry = _Entry(definition.parameters, tool, self._render(tool))
        self._cache[key] = entry
        if len(self._cache) > self._size:
            self._cache.popitem(last=False)
        return entry

    def _wire_tool(self, definition: ToolDefinition) -> WireTool:
        tool = functools.partial(
            WireTool,
            name=definition.name,
            wire_name=wire_name(definition.name, letter_first=self._letter_first),
            description=definition.description,
        )
        parameters = definition.parameters
        if self._dialect == "openai-strict":
            strict = openai_strict(parameters)
            if strict is not None:
                original = inline_refs(parameters, keep_recursive=True)
                return tool(schema=strict, strict=True, original=original)
        elif self._dialect == "gemini":
            try:
                return tool(schema=gemini_schema(parameters))
            except ValueError:
                return tool(schema=inline_refs(parameters, keep_recursive=True), full_schema=True)
        return tool(schema=inline_refs(parameters, keep_recursive=True))


@dataclass(slots=True)
class _OpenCall:
    index: int
    tool: WireTool | None
    streamed: bool = False
    held: list[str] = field(default_factory=list)


class CallStream:
    """Turns an API's call events into `ToolCallStarted` / `ToolCallArgumentsDelta`.

    Calls are numbered 0, 1, ... in the order they start; `key` is whatever identifies a call in
    the API's stream (a block index, an item id). Names are mapped back to the tools' own. The
    arguments of a strict-mode call are held until the call ends, to remove the nulls strict mode
    made the model write for omitted optional properties; all others stream through.
    """

    def __init__(self, tools: ToolIndex) -> None:
        self._tools = tools
        self._open: dict[Hashable, _OpenCall] = {}
        self.count = 0

    def start(
        self,
        key: Hashable,
        name: str,
        call_id: str | None,
        provider_data: Mapping[str, Any] | None = None,
    ) -> list[ModelEvent]:
        events = self.end(key) if key in self._open else []
        tool = self._tools.by_wire_name.get(name)
        self._open[key] = _OpenCall(self.count, tool)
        self.count += 1
        events.append(
            ToolCallStarted(
                index=self.count - 1,
                name=tool.name if tool is not None else name,
                id=call_id or None,
                provider_data=provider_data,
            )
        )
        return events

    def is_open(self, key: Hashable) -> bool:
        return key in self._open

    def arguments(self, key: Hashable, delta: str) -> list[ModelEvent]:
        call = self._open.get(key)
        if call is None or not delta:
            return []
        call.streamed = True
        if call.tool is not None and call.tool.original is not None:
            call.held.append(delta)
            return []
        return [ToolCallArgumentsDelta(index=call.index, delta=delta)]

    def end(self, key: Hashable, arguments: str | None = None) -> list[ModelEvent]:
        """Close a call; `arguments` is the whole argument text, for APIs that send it at the end
        (used only if nothing was streamed)."""
        call = self._open.pop(key, None)
        if call is None:
            return []
        if arguments and not call.streamed:
            call.held.append(arguments)
        if not call.held:
            return []
        raw = "".join(call.held)
        if call.tool is not None and call.tool.original is not None:
            raw = _without_added_nulls(raw, call.tool.original)
        return [ToolCallArgumentsDelta(index=call.index, delta=raw)]

    def end_all(self) -> list[ModelEvent]:
        return [event for key in list(self._open) for event in self.end(key)]


def _without_added_nulls(raw: str, original: JsonSchema) -> str:
    try:
        arguments = json.loads(raw)
    except json.JSONDecodeError:
        return raw  # left as written: the loop reports it to the model
    if not isinstance(arguments, dict):
        return raw
    return json.dumps(drop_added_nulls(arguments, original), ensure_ascii=False)
