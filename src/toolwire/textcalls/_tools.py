"""Tools as the scanner and the catalogue need them, from whatever form the caller has."""

from __future__ import annotations

import ast
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeAlias

from ..errors import UsageError
from ..tools import Tool, ToolDefinition

__all__ = ["ToolLike", "ToolSpec", "tool_specs"]

ToolLike: TypeAlias = str | Mapping[str, Any] | Tool | ToolDefinition
"""A tool name, a dict `{"name", "description", "parameters"}`, or a toolwire tool."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolSpec:
    name: str
    description: str = ""
    parameters: Mapping[str, Any] = field(default_factory=dict)

    @property
    def parameter_names(self) -> tuple[str, ...]:
        """In schema order: what positional arguments of a Python-style call map to."""
        properties = self.parameters.get("properties")
        return tuple(properties) if isinstance(properties, Mapping) else ()

    def typed_value(self, parameter: str, raw: str) -> Any:
        """A raw text value (XML-style formats) as the schema types it; a string otherwise."""
        properties = self.parameters.get("properties")
        schema = properties.get(parameter) if isinstance(properties, Mapping) else None
        types = _schema_types(schema)
        if not types or "string" in types:
            return raw
        text = raw.strip()
        for kind in types:
            converted = _convert(kind, text)
            if converted is not _FAILED:
                return converted
        return raw


def tool_specs(tools: Iterable[ToolLike]) -> tuple[ToolSpec, ...]:
    """Normalise tools given as names, dicts (also OpenAI's `{"type": "function", "function":
    {...}}` and Anthropic's `input_schema`), or toolwire `Tool` / `ToolDefinition` objects."""
    if isinstance(tools, str | Mapping):
        raise UsageError("tools must be a list of tools, not a single tool")
    return tuple(_spec(tool) for tool in tools)


def _spec(tool: ToolLike) -> ToolSpec:
    if isinstance(tool, str):
        return ToolSpec(name=tool)
    if isinstance(tool, Tool | ToolDefinition):
        return ToolSpec(name=tool.name, description=tool.description, parameters=tool.parameters)
    if isinstance(tool, Mapping):
        inner = tool.get("function")
        if isinstance(inner, Mapping):
            tool = inner
        name = tool.get("name")
        if not isinstance(name, str) or not name:
            raise UsageError(f"a tool dict needs a non-empty string 'name': {tool!r}")
        description = tool.get("description") or ""
        parameters = tool.get("parameters", tool.get("input_schema")) or {}
        if not isinstance(description, str) or not isinstance(parameters, Mapping):
            raise UsageError(
                f"tool {name!r}: 'description' must be a string and 'parameters' an object"
            )
        return ToolSpec(name=name, description=description, parameters=parameters)
    raise UsageError(
        f"cannot use {tool!r} as a tool: give a name, a dict with 'name', or a toolwire Tool"
    )


def _schema_types(schema: Any) -> list[str]:
    if not isinstance(schema, Mapping):
        return []
    declared = schema.get("type")
    if isinstance(declared, str):
        return [declared]
    if isinstance(declared, list):
        return [t for t in declared if isinstance(t, str)]
    types: list[str] = []
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list):
            for option in options:
                types.extend(_schema_types(option))
    return types


_FAILED = object()


def _convert(kind: str, text: str) -> Any:
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            return _FAILED
    if kind == "number":
        for parse in (int, float):
            try:
                return parse(text)
            except ValueError:
                pass
        return _FAILED
    if kind == "boolean":
        return {"true": True, "false": False}.get(text.lower(), _FAILED)
    if kind == "null":
        return None if text.lower() in ("null", "none", "") else _FAILED
    if kind in ("object", "array"):
        expected = dict if kind == "object" else list
        value = _structured(text)
        return value if isinstance(value, expected) else _FAILED
    return _FAILED


def _structured(text: str) -> Any:
    # JSON first; Python literals only as a fallback (a blind quote swap corrupts apostrophes).
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _FAILED
