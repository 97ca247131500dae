"""JSON Schema plumbing shared by the dialects: walking subschemas, inlining `$ref`s, and the
small predicates the dialect converters (`_schema_strict`, `_schema_gemini`) have in common.

Pure functions over plain data; the input is never modified.
"""

from __future__ import annotations

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
# Keywords that only annotate: a dialect without them drops them silently.
ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$comment",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "discriminator",
    }
)
# Keywords that change what shape a value has: a dialect without them cannot express the schema.
STRUCTURAL = frozenset(
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


class Unrepresentable(Exception):
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


def deref(schema: Any, defs: Mapping[str, Any]) -> Any:
    if isinstance(schema, Mapping) and isinstance(schema.get("$ref"), str):
        return defs.get(schema["$ref"].rsplit("/", 1)[-1], schema)
    return schema


def allows_null(schema: Any, defs: Mapping[str, Any]) -> bool:
    schema = deref(schema, defs)
    if not isinstance(schema, Mapping):
        return schema is True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "const" in schema and schema["const"] is None:
        return True
    branches = schema.get("anyOf") or schema.get("oneOf") or ()
    return any(allows_null(branch, defs) for branch in branches)


def normalise_composition(node: Mapping[str, Any]) -> Mapping[str, Any]:
    all_of = node.get("allOf")
    if all_of is not None:
        if len(all_of) != 1 or not isinstance(all_of[0], Mapping):
            raise Unrepresentable
        node = {**all_of[0], **{k: v for k, v in node.items() if k != "allOf"}}
    if "oneOf" in node:
        node = {**{k: v for k, v in node.items() if k != "oneOf"}, "anyOf": node["oneOf"]}
    return node


def types_of(node: Mapping[str, Any]) -> list[Any]:
    kind = node.get("type")
    return kind if isinstance(kind, list) else [kind]


def is_object(node: Mapping[str, Any]) -> bool:
    return "object" in types_of(node) or "properties" in node


def is_array(node: Mapping[str, Any]) -> bool:
    return "array" in types_of(node) or ("items" in node and "type" not in node)


def is_null_only(node: Any) -> bool:
    return isinstance(node, Mapping) and node.get("type") == "null" and len(node) == 1


def with_hints(description: Any, hints: list[str]) -> str:
    note = "(" + "; ".join(hints) + ")"
    return f"{description} {note}" if description else note
