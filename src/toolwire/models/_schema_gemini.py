"""Gemini's schema subset: the OpenAPI-style `Schema` of a function declaration, in the SDK's
field names. `gemini_schema` raises `ValueError` for what the subset cannot say (free-form maps,
recursion, tuples); the adapter then sends the schema whole as `parameters_json_schema`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ._schema import (
    ANNOTATIONS,
    STRUCTURAL,
    JsonSchema,
    Unrepresentable,
    allows_null,
    inline_refs,
    is_array,
    is_null_only,
    is_object,
    normalise_composition,
    with_hints,
)

_GEMINI_TYPES = {
    "string": "STRING",
    "number": "NUMBER",
    "integer": "INTEGER",
    "boolean": "BOOLEAN",
    "array": "ARRAY",
    "object": "OBJECT",
}
_GEMINI_KEYWORDS = {
    "description": "description",
    "title": "title",
    "default": "default",
    "pattern": "pattern",
    "minimum": "minimum",
    "maximum": "maximum",
    "minItems": "min_items",
    "maxItems": "max_items",
    "minLength": "min_length",
    "maxLength": "max_length",
    "minProperties": "min_properties",
    "maxProperties": "max_properties",
}
_GEMINI_FORMATS = {
    "STRING": frozenset({"enum", "date-time"}),
    "INTEGER": frozenset({"int32", "int64"}),
    "NUMBER": frozenset({"float", "double"}),
}


def gemini_schema(schema: Mapping[str, Any]) -> JsonSchema | None:
    """`parameters` for a Gemini function declaration, in the SDK's field names.

    Raises `ValueError` when the subset cannot express the schema; returns None for a tool that
    takes no arguments (Gemini wants no `parameters` then)."""
    inlined = inline_refs(schema, keep_recursive=True)
    if "$defs" in inlined:
        raise ValueError("recursive schema")
    if not (inlined.get("properties") or {}):
        return None
    try:
        return _gemini(inlined)
    except Unrepresentable:
        raise ValueError("outside Gemini's schema subset") from None


def _gemini(node: Any) -> JsonSchema:
    if not isinstance(node, Mapping):
        raise Unrepresentable
    node = normalise_composition(node)
    nullable = allows_null(node, {})
    out: JsonSchema = {}
    hints: list[str] = []
    branches = [b for b in node.get("anyOf") or () if not is_null_only(b)]
    kinds = node.get("type")
    kinds = [k for k in (kinds if isinstance(kinds, list) else [kinds]) if k not in (None, "null")]
    if len(branches) == 1 and not kinds:
        out = _gemini({**branches[0], **{k: v for k, v in node.items() if k != "anyOf"}})
        if nullable:
            out["nullable"] = True
        return out
    if branches:
        out["any_of"] = [_gemini(branch) for branch in branches]
    elif len(kinds) > 1:
        out["any_of"] = [_gemini({**node, "type": kind}) for kind in kinds]
    elif kinds:
        if kinds[0] not in _GEMINI_TYPES:
            raise Unrepresentable
        out["type"] = _GEMINI_TYPES[kinds[0]]
    for key, value in node.items():
        if key in STRUCTURAL:
            raise Unrepresentable
        if key in _GEMINI_KEYWORDS:
            out.setdefault(_GEMINI_KEYWORDS[key], value)
        elif key == "format":
            if value in _GEMINI_FORMATS.get(out.get("type", ""), ()):
                out["format"] = value
            else:
                hints.append(f"format: {value}")
        elif key in ("enum", "const"):
            values = value if key == "enum" else [value]
            strings = [v for v in values if v is not None]
            if all(isinstance(v, str) for v in strings):
                out.setdefault("type", "STRING")
                out["enum"] = strings
            else:
                hints.append(f"one of: {json.dumps(strings)}")
        elif key not in ANNOTATIONS and key not in (
            "type", "anyOf", "properties", "required", "items", "additionalProperties"
        ):  # fmt: skip
            hints.append(f"{key}: {json.dumps(value, default=str)}")
    if is_object(node) and "any_of" not in out:
        _gemini_object(node, out)
    elif is_array(node) and "any_of" not in out:
        items = node.get("items")
        if not isinstance(items, Mapping):
            raise Unrepresentable
        out["items"] = _gemini(items)
    if "type" not in out and "any_of" not in out:
        raise Unrepresentable
    if nullable:
        out["nullable"] = True
    if hints:
        out["description"] = with_hints(out.get("description"), hints)
    return out


def _gemini_object(node: Mapping[str, Any], out: JsonSchema) -> None:
    properties = node.get("properties") or {}
    if not properties:
        raise Unrepresentable  # a free-form map: Gemini rejects an OBJECT without properties
    out["type"] = "OBJECT"
    out["properties"] = {name: _gemini(sub) for name, sub in properties.items()}
    required = [name for name in node.get("required") or () if name in properties]
    if required:
        out["required"] = required
    if len(properties) > 1:
        # Gemini orders properties alphabetically unless told: keep the function's order.
        out["property_ordering"] = list(properties)
