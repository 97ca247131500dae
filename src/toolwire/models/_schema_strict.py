"""OpenAI's strict mode for tool schemas.

Every property is required, the optional ones become nullable, objects are closed, unsupported
keywords are dropped (a validation keyword is kept as a hint in the description; the tool's own
validator still enforces it). A schema strict mode cannot express (free-form maps, tuples, untyped
values) gives None: the tool is then sent non-strict. `drop_added_nulls` undoes the nullable
rewrite on the arguments the model writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ._schema import (
    ANNOTATIONS,
    STRUCTURAL,
    JsonSchema,
    Unrepresentable,
    allows_null,
    deref,
    inline_refs,
    is_array,
    is_object,
    normalise_composition,
    with_hints,
)

_STRICT_KEYWORDS = frozenset(
    {
        "type",
        "enum",
        "const",
        "description",
        "title",
        "$ref",
        "pattern",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    }
)
_STRICT_FORMATS = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)


def openai_strict(schema: Mapping[str, Any]) -> JsonSchema | None:
    """The schema in OpenAI's strict dialect, or None when strict mode cannot express it."""
    inlined = inline_refs(schema, keep_recursive=True)
    if not is_object(inlined):
        return None
    try:
        out = _strict(inlined, root=True)
        if "$defs" in inlined:
            out["$defs"] = {name: _strict(sub) for name, sub in inlined["$defs"].items()}
    except Unrepresentable:
        return None
    return out


def _strict(node: Any, *, root: bool = False) -> JsonSchema:
    if not isinstance(node, Mapping):
        raise Unrepresentable
    node = normalise_composition(node)
    out: JsonSchema = {}
    hints: list[str] = []
    for key, value in node.items():
        if key in ("properties", "required", "additionalProperties", "items", "anyOf", "$defs"):
            continue
        if key in STRUCTURAL:
            raise Unrepresentable
        if key == "format" and value not in _STRICT_FORMATS:
            hints.append(f"format: {value}")
        elif key in _STRICT_KEYWORDS or key == "format":
            out[key] = value
        elif key == "default" and value is None:
            continue  # null is what an omitted optional property becomes anyway
        elif key not in ANNOTATIONS:
            hints.append(f"{key}: {json.dumps(value, default=str)}")
    if "anyOf" in node:
        if root:
            raise Unrepresentable
        out["anyOf"] = [_strict(branch) for branch in node["anyOf"]]
    if is_object(node):
        _strict_object(node, out, root=root)
    elif is_array(node):
        items = node.get("items")
        if not isinstance(items, Mapping):
            raise Unrepresentable
        out["items"] = _strict(items)
    if not ({"type", "anyOf", "enum", "const", "$ref"} & out.keys()):
        raise Unrepresentable
    if hints:
        out["description"] = with_hints(out.get("description"), hints)
    return out


def _strict_object(node: Mapping[str, Any], out: JsonSchema, *, root: bool) -> None:
    extra = node.get("additionalProperties")
    if extra not in (None, False) or ("properties" not in node and not root):
        raise Unrepresentable  # a free-form map: strict mode has no way to say it
    required = set(node.get("required") or ())
    properties: JsonSchema = {}
    for name, sub in (node.get("properties") or {}).items():
        converted = _strict(sub)
        properties[name] = converted if name in required else _nullable(converted)
    out["type"] = "object"
    out["properties"] = properties
    out["required"] = list(properties)
    out["additionalProperties"] = False


def _nullable(schema: JsonSchema) -> JsonSchema:
    if allows_null(schema, {}):
        return schema
    if "anyOf" in schema:
        return {**schema, "anyOf": [*schema["anyOf"], {"type": "null"}]}
    kind = schema.get("type")
    if kind is None or "$ref" in schema or "const" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    out = {**schema, "type": [*kind, "null"] if isinstance(kind, list) else [kind, "null"]}
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def drop_added_nulls(value: Any, schema: Mapping[str, Any]) -> Any:
    """Remove the `null`s a strict-mode model wrote for optional properties whose original schema
    does not allow null, so the tool's validator sees them as omitted. `schema` is the original
    (as `inline_refs(..., keep_recursive=True)` returns it)."""
    return _drop_nulls(value, schema, schema.get("$defs") or {})


def _drop_nulls(value: Any, schema: Any, defs: Mapping[str, Any]) -> Any:
    schema = deref(schema, defs)
    if isinstance(value, dict):
        node = _branch(schema, defs, is_object)
        if node is None:
            return value
        properties = node.get("properties") or {}
        required = set(node.get("required") or ())
        out = {}
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None:
                out[key] = item
            elif item is None and key not in required and not allows_null(sub, defs):
                continue
            else:
                out[key] = _drop_nulls(item, sub, defs)
        return out
    if isinstance(value, list):
        node = _branch(schema, defs, is_array)
        items = node.get("items") if node is not None else None
        if isinstance(items, Mapping):
            return [_drop_nulls(item, items, defs) for item in value]
    return value


def _branch(
    schema: Any, defs: Mapping[str, Any], test: Callable[[Mapping[str, Any]], bool]
) -> Mapping[str, Any] | None:
    if not isinstance(schema, Mapping):
        return None
    if test(schema):
        return schema
    for branch in schema.get("anyOf") or schema.get("oneOf") or ():
        found = _branch(deref(branch, defs), defs, test)
        if found is not None:
            return found
    return None
