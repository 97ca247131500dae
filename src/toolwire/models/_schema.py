"""JSON Schema dialects: a tool's parameters in the form each API accepts.

- `inline_refs`: local `$ref`s replaced by their definitions (recursive ones kept or cut).
- `openai_strict`: OpenAI strict mode. Every property is required, the optional ones become
  nullable, objects are closed, unsupported keywords are dropped (a validation keyword is kept as a
  hint in the description; the tool's own validator still enforces it). A schema strict mode
  cannot express (free-form maps, tuples, untyped values) gives None: the tool is sent non-strict.
  `drop_added_nulls` undoes the nullable rewrite on the model's arguments.
- `gemini_schema`: the OpenAPI subset of Gemini's `Schema`, or None when that subset cannot express
  the schema (the adapter then sends it whole as `parameters_json_schema`).

Pure functions over plain data; the input is never modified.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

JsonSchema: TypeAlias = dict[str, Any]

_ONE_SCHEMA = frozenset(
    {
        "additionalProperties",
        "items",
        "not",
        "if",
        "then",
        "else",
        "contains",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
    }
)
_SCHEMA_MAP = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)
_SCHEMA_LIST = frozenset({"anyOf", "oneOf", "allOf", "prefixItems"})
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "examples", "deprecated", "readOnly", "writeOnly"}
    | {"discriminator"}
)


class _Unrepresentable(Exception):
    """The schema needs a construct the target dialect does not have."""


def map_subschemas(node: Mapping[str, Any], fn: Callable[[Any], Any]) -> JsonSchema:
    """A copy of `node` with `fn` applied to each direct subschema (and only to subschemas: an
    `enum`, `const` or `default` value is data, whatever it looks like)."""
    out: JsonSchema = {}
    for key, value in node.items():
        if key in _ONE_SCHEMA and isinstance(value, Mapping):
            out[key] = fn(value)
        elif key in _SCHEMA_MAP and isinstance(value, Mapping):
            out[key] = {name: fn(sub) for name, sub in value.items()}
        elif (key in _SCHEMA_LIST or key == "items") and isinstance(value, list):
            out[key] = [fn(sub) for sub in value]
        else:
            out[key] = value
    return out


def inline_refs(schema: Mapping[str, Any], *, keep_recursive: bool) -> JsonSchema:
    """Replace every local `$ref` by its target (sibling keywords such as `description` win).

    A reference back into a definition being expanded stays a `$ref` into `$defs` when
    `keep_recursive`, else it becomes `{"type": "object"}`.
    """
    definitions: dict[str, Any] = {}
    for key in ("definitions", "$defs"):
        for name, target in (schema.get(key) or {}).items():
            definitions[f"#/{key}/{name}"] = target
    kept: dict[str, Any] = {}

    def resolve(node: Any, active: frozenset[str]) -> Any:
        if not isinstance(node, Mapping):
            return node
        ref = node.get("$ref")
        target = (schema if ref == "#" else definitions.get(ref)) if isinstance(ref, str) else None
        if target is None:
            return map_subschemas(node, lambda sub: resolve(sub, active))
        assert isinstance(ref, str)
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        siblings = map_subschemas(siblings, lambda sub: resolve(sub, active))
        if ref in active:
            if not keep_recursive:
                return {"type": "object", **siblings}
            if ref == "#":
                return {"$ref": "#", **siblings}
            name = ref.rsplit("/", 1)[1]
            if name not in kept:
                kept[name] = None  # reserve: the expansion below may meet this reference again
                kept[name] = resolve(target, frozenset({ref}))
            return {"$ref": f"#/$defs/{name}", **siblings}
        return {**resolve(target, active | {ref}), **siblings}

    root = {k: v for k, v in schema.items() if k not in ("definitions", "$defs")}
    out: JsonSchema = resolve(root, frozenset({"#"}))
    if kept:
        out["$defs"] = kept
    return out


# --- OpenAI strict mode ---------------------------------------------------------------------------

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
_STRUCTURAL = frozenset(
    {
        "patternProperties",
        "prefixItems",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
        "unevaluatedProperties",
        "unevaluatedItems",
        "additionalItems",
    }
)


def openai_strict(schema: Mapping[str, Any]) -> JsonSchema | None:
    """The schema in OpenAI's strict dialect, or None when strict mode cannot express it."""
    inlined = inline_refs(schema, keep_recursive=True)
    if not _is_object(inlined):
        return None
    try:
        out = _strict(inlined, root=True)
        if "$defs" in inlined:
            out["$defs"] = {name: _strict(sub) for name, sub in inlined["$defs"].items()}
    except _Unrepresentable:
        return None
    return out


def _strict(node: Any, *, root: bool = False) -> JsonSchema:
    if not isinstance(node, Mapping):
        raise _Unrepresentable
    node = _normalise_composition(node)
    out: JsonSchema = {}
    hints: list[str] = []
    for key, value in node.items():
        if key in ("properties", "required", "additionalProperties", "items", "anyOf", "$defs"):
            continue
        if key in _STRUCTURAL:
            raise _Unrepresentable
        if key == "format" and value not in _STRICT_FORMATS:
            hints.append(f"format: {value}")
        elif key in _STRICT_KEYWORDS or key == "format":
            out[key] = value
        elif key == "default" and value is None:
            continue  # null is what an omitted optional property becomes anyway
        elif key not in _ANNOTATIONS:
            hints.append(f"{key}: {json.dumps(value, default=str)}")
    if "anyOf" in node:
        if root:
            raise _Unrepresentable
        out["anyOf"] = [_strict(branch) for branch in node["anyOf"]]
    if _is_object(node):
        _strict_object(node, out, root=root)
    elif _is_array(node):
        items = node.get("items")
        if not isinstance(items, Mapping):
            raise _Unrepresentable
        out["items"] = _strict(items)
    if not ({"type", "anyOf", "enum", "const", "$ref"} & out.keys()):
        raise _Unrepresentable
    if hints:
        out["description"] = _with_hints(out.get("description"), hints)
    return out


def _strict_object(node: Mapping[str, Any], out: JsonSchema, *, root: bool) -> None:
    extra = node.get("additionalProperties")
    if extra not in (None, False) or ("properties" not in node and not root):
        raise _Unrepresentable  # a free-form map: strict mode has no way to say it
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
    if _allows_null(schema, {}):
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
    schema = _deref(schema, defs)
    if isinstance(value, dict):
        node = _branch(schema, defs, _is_object)
        if node is None:
            return value
        properties = node.get("properties") or {}
        required = set(node.get("required") or ())
        out = {}
        for key, item in value.items():
            sub = properties.get(key)
            if sub is None:
                out[key] = item
            elif item is None and key not in required and not _allows_null(sub, defs):
                continue
            else:
                out[key] = _drop_nulls(item, sub, defs)
        return out
    if isinstance(value, list):
        node = _branch(schema, defs, _is_array)
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
        found = _branch(_deref(branch, defs), defs, test)
        if found is not None:
            return found
    return None


def _deref(schema: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        return defs.get(schema["$ref"].rsplit("/", 1)[-1], schema)
    return schema


def _allows_null(schema: Any, defs: Mapping[str, Any]) -> bool:
    schema = _deref(schema, defs)
    if not isinstance(schema, Mapping):
        return schema is True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    branches = schema.get("anyOf") or schema.get("oneOf") or ()
    return any(_allows_null(branch, defs) for branch in branches)


# --- Gemini ---------------------------------------------------------------------------------------

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
    except _Unrepresentable:
        raise ValueError("outside Gemini's schema subset") from None


def _gemini(node: Any) -> JsonSchema:
    if not isinstance(node, Mapping):
        raise _Unrepresentable
    node = _normalise_composition(node)
    nullable = _allows_null(node, {})
    out: JsonSchema = {}
    hints: list[str] = []
    branches = [b for b in node.get("anyOf") or () if not _is_null_only(b)]
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
            raise _Unrepresentable
        out["type"] = _GEMINI_TYPES[kinds[0]]
    for key, value in node.items():
        if key in _STRUCTURAL:
            raise _Unrepresentable
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
        elif key not in _ANNOTATIONS and key not in (
            "type", "anyOf", "properties", "required", "items", "additionalProperties"
        ):  # fmt: skip
            hints.append(f"{key}: {json.dumps(value, default=str)}")
    if _is_object(node) and "any_of" not in out:
        _gemini_object(node, out)
    elif _is_array(node) and "any_of" not in out:
        items = node.get("items")
        if not isinstance(items, Mapping):
            raise _Unrepresentable
        out["items"] = _gemini(items)
    if "type" not in out and "any_of" not in out:
        raise _Unrepresentable
    if nullable:
        out["nullable"] = True
    if hints:
        out["description"] = _with_hints(out.get("description"), hints)
    return out


def _gemini_object(node: Mapping[str, Any], out: JsonSchema) -> None:
    properties = node.get("properties") or {}
    if not properties:
        raise _Unrepresentable  # a free-form map: Gemini rejects an OBJECT without properties
    out["type"] = "OBJECT"
    out["properties"] = {name: _gemini(sub) for name, sub in properties.items()}
    required = [name for name in node.get("required") or () if name in properties]
    if required:
        out["required"] = required
    if len(properties) > 1:
        # Gemini orders properties alphabetically unless told: keep the function's order.
        out["property_ordering"] = list(properties)


# --- shared ---------------------------------------------------------------------------------------


def _normalise_composition(node: Mapping[str, Any]) -> Mapping[str, Any]:
    all_of = node.get("allOf")
    if all_of is not None:
        if len(all_of) != 1 or not isinstance(all_of[0], Mapping):
            raise _Unrepresentable
        node = {**all_of[0], **{k: v for k, v in node.items() if k != "allOf"}}
    if "oneOf" in node:
        node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": node["oneOf"]}
    return node


def _types(node: Mapping[str, Any]) -> list[Any]:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind]


def _is_object(node: Mapping[str, Any]) -> bool:
    return "object" in _types(node) or "properties" in node


def _is_array(node: Mapping[str, Any]) -> bool:
    return "array" in _types(node) or ("items" in node and "type" not in node)


def _is_null_only(node: Any) -> bool:
    return isinstance(node, Mapping) and node.get("type") == "null" and len(node) == 1


def _with_hints(description: Any, hints: list[str]) -> str:
    note = "(" + "; ".join(hints) + ")"
    return f"{description} {note}" if description else note
