"""Schema dialects: OpenAI strict mode, Gemini's subset, `$ref` inlining, undoing strict nulls."""

from __future__ import annotations

import copy
import json
from typing import Any, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field

from toolwire.models._schema import inline_refs
from toolwire.models._schema_gemini import gemini_schema
from toolwire.models._schema_strict import drop_added_nulls, openai_strict
from toolwire.tools import tool


class Leg(BaseModel):
    origin: str
    destination: str = Field(description="IATA code")
    date: str | None = None


class Trip(BaseModel):
    legs: list[Leg] = Field(min_length=1)
    travellers: int = 1


class Node(BaseModel):
    name: str
    children: list[Node] = []


@tool
def book(trip: Trip, note: str | None = None, mode: Literal["fast", "cheap"] = "cheap") -> str:
    """Book a trip.

    Args:
        trip: The trip.
        note: A note for the agent.
    """
    return "booked"


@tool
def tag(labels: dict[str, int]) -> str:
    """Tag things."""
    return "tagged"


@tool
def tree(root: Node) -> str:
    """Walk a tree."""
    return "walked"


@tool
def nothing() -> str:
    """Takes no arguments."""
    return "done"


def test_strict_makes_every_property_required_and_optional_ones_nullable() -> None:
    strict = openai_strict(book.parameters)
    assert strict == {
        "type": "object",
        "properties": {
            "trip": {
                "description": "The trip.",
                "title": "Trip",
                "type": "object",
                "properties": {
                    "legs": {
                        "minItems": 1,
                        "type": "array",
                        "items": {
                            "title": "Leg",
                            "type": "object",
                            "properties": {
                                "origin": {"type": "string"},
                                "destination": {"description": "IATA code", "type": "string"},
                                "date": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                            },
                            "required": ["origin", "destination", "date"],
                            "additionalProperties": False,
                        },
                    },
                    "travellers": {"type": ["integer", "null"], "description": "(default: 1)"},
                },
                "required": ["legs", "travellers"],
                "additionalProperties": False,
            },
            "note": {
                "description": "A note for the agent.",
                "anyOf": [{"type": "string"}, {"type": "null"}],
            },
            "mode": {
                "enum": ["fast", "cheap", None],
                "type": ["string", "null"],
                "description": '(default: "cheap")',
            },
        },
        "required": ["trip", "note", "mode"],
        "additionalProperties": False,
    }


def test_strict_keeps_recursion_as_refs() -> None:
    strict = openai_strict(tree.parameters)
    assert strict is not None
    node = strict["$defs"]["Node"]
    assert node["properties"]["children"]["items"] == {"$ref": "#/$defs/Node"}
    assert strict["properties"]["root"]["properties"]["children"]["items"] == {
        "$ref": "#/$defs/Node"
    }


@pytest.mark.parametrize(
    "schema",
    [
        tag.parameters,  # a free-form map
        {"type": "object", "properties": {"x": {"description": "anything"}}},  # untyped
        {"type": "object", "properties": {"p": {"type": "array", "prefixItems": [{}]}}},
        {"anyOf": [{"type": "object", "properties": {}}]},  # the root must be an object
        {"type": "object", "properties": {"m": {"type": "object"}}},  # an object of any shape
    ],
)
def test_strict_gives_up_on_what_it_cannot_express(schema: dict[str, Any]) -> None:
    assert openai_strict(schema) is None


def test_strict_keeps_unsupported_constraints_as_hints() -> None:
    schema = {
        "type": "object",
        "properties": {
            "code": {"type": "string", "minLength": 3, "format": "iban", "examples": ["x"]},
            "when": {"type": "string", "format": "date-time"},
        },
        "required": ["code", "when"],
    }
    strict = openai_strict(schema)
    assert strict is not None
    assert strict["properties"]["code"] == {
        "type": "string",
        "description": "(minLength: 3; format: iban)",
    }
    assert strict["properties"]["when"] == {"type": "string", "format": "date-time"}


def test_drop_added_nulls_restores_omitted_optionals() -> None:
    original = inline_refs(book.parameters, keep_recursive=True)
    written = {
        "trip": {
            "legs": [{"origin": "OSL", "destination": "LIM", "date": None}],
            "travellers": None,
        },
        "note": None,
        "mode": None,
    }
    # `date` and `note` allow null in their own schemas, so their nulls stay.
    assert drop_added_nulls(written, original) == {
        "trip": {"legs": [{"origin": "OSL", "destination": "LIM", "date": None}]},
        "note": None,
    }
    assert book.validate(drop_added_nulls(written, original))


def test_inline_refs_moves_sibling_descriptions_over_the_target() -> None:
    inlined = inline_refs(book.parameters, keep_recursive=False)
    assert "$defs" not in inlined
    trip = inlined["properties"]["trip"]
    assert trip["description"] == "The trip."
    assert trip["properties"]["legs"]["items"]["properties"]["origin"] == {"type": "string"}


def test_inline_refs_cuts_recursion_when_asked() -> None:
    inlined = inline_refs(tree.parameters, keep_recursive=False)
    children = inlined["properties"]["root"]["properties"]["children"]
    assert children["items"] == {"type": "object"}
    assert "$ref" not in json.dumps(inlined)


def test_inline_refs_leaves_data_alone() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"const": {"$ref": "#/$defs/A"}, "default": {"$ref": "#/$defs/A"}}},
        "$defs": {"A": {"type": "integer"}},
    }
    assert inline_refs(schema, keep_recursive=False)["properties"]["x"] == {
        "const": {"$ref": "#/$defs/A"},
        "default": {"$ref": "#/$defs/A"},
    }


def test_gemini_subset() -> None:
    assert gemini_schema(book.parameters) == {
        "type": "OBJECT",
        "properties": {
            "trip": {
                "type": "OBJECT",
                "description": "The trip.",
                "title": "Trip",
                "properties": {
                    "legs": {
                        "type": "ARRAY",
                        "min_items": 1,
                        "items": {
                            "type": "OBJECT",
                            "title": "Leg",
                            "properties": {
                                "origin": {"type": "STRING"},
                                "destination": {"type": "STRING", "description": "IATA code"},
                                "date": {"type": "STRING", "default": None, "nullable": True},
                            },
                            "required": ["origin", "destination"],
                            "property_ordering": ["origin", "destination", "date"],
                        },
                    },
                    "travellers": {"type": "INTEGER", "default": 1},
                },
                "required": ["legs"],
                "property_ordering": ["legs", "travellers"],
            },
            "note": {
                "type": "STRING",
                "default": None,
                "description": "A note for the agent.",
                "nullable": True,
            },
            "mode": {"type": "STRING", "default": "cheap", "enum": ["fast", "cheap"]},
        },
        "required": ["trip"],
        "property_ordering": ["trip", "note", "mode"],
    }


def test_gemini_without_arguments_has_no_parameters() -> None:
    assert gemini_schema(nothing.parameters) is None


@pytest.mark.parametrize("schema", [tag.parameters, tree.parameters])
def test_gemini_refuses_what_its_subset_cannot_say(schema: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"recursive|subset"):
        gemini_schema(schema)


def test_gemini_moves_non_string_enums_to_the_description() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "enum": [1, 2]}}}
    converted = gemini_schema(schema)
    assert converted is not None
    assert converted["properties"]["n"] == {"type": "INTEGER", "description": "(one of: [1, 2])"}


# --- properties over generated schemas ----------------------------------------------------------

_NAMES = st.text("abcdefghij_", min_size=1, max_size=6)
_PRIMITIVES = st.sampled_from(
    [
        {"type": "string"},
        {"type": "integer", "minimum": 0},
        {"type": "number"},
        {"type": "boolean"},
        {"type": "string", "format": "email"},
        {"type": "string", "minLength": 1, "description": "text"},
        {"type": "string", "enum": ["a", "b"]},
        {"type": "integer", "enum": [1, 2]},
        {"const": "fixed"},
        {"type": ["string", "null"]},
    ]
)


def _objects(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    def with_required(properties: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
        names = sorted(properties)
        required = st.lists(st.sampled_from(names), unique=True) if names else st.just([])
        return required.map(
            lambda chosen: {"type": "object", "properties": properties, "required": chosen}
        )

    return st.dictionaries(_NAMES, children, max_size=4).flatmap(with_required)


_SCHEMAS = st.recursive(
    _PRIMITIVES,
    lambda children: st.one_of(
        _objects(children),
        children.map(lambda c: {"type": "array", "items": c}),
        children.map(lambda c: {"anyOf": [c, {"type": "null"}]}),
        children.map(lambda c: {"type": "object", "additionalProperties": c}),
        st.tuples(children, children).map(lambda cs: {"oneOf": list(cs)}),
    ),
    max_leaves=12,
)
_ROOTS = st.tuples(_objects(_SCHEMAS), _SCHEMAS).map(
    lambda pair: {
        **pair[0],
        "properties": {**pair[0]["properties"], "shared": {"$ref": "#/$defs/Shared"}},
        "$defs": {"Shared": pair[1]},
    }
)
_STRICT_KEYS = {
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "description", "title", "$ref", "$defs", "pattern", "format", "multipleOf", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems",
}  # fmt: skip


def _nodes(schema: Any) -> list[dict[str, Any]]:
    if not isinstance(schema, dict):
        return []
    found = [schema]
    for key in ("items", "additionalProperties"):
        found += _nodes(schema.get(key))
    for key in ("properties", "$defs"):
        for sub in (schema.get(key) or {}).values():
            found += _nodes(sub)
    for sub in schema.get("anyOf") or ():
        found += _nodes(sub)
    return found


@settings(max_examples=150, deadline=None)
@given(_ROOTS)
def test_strict_output_follows_the_rules(schema: dict[str, Any]) -> None:
    before = copy.deepcopy(schema)
    strict = openai_strict(schema)
    assert schema == before, "the input must not be modified"
    if strict is None:
        return
    for node in _nodes(strict):
        assert set(node) <= _STRICT_KEYS
        if "properties" in node:
            assert node["additionalProperties"] is False
            assert node["required"] == list(node["properties"])
    assert "$ref" not in json.dumps(strict)  # nothing recursive here: every ref is inlined


@settings(max_examples=150, deadline=None)
@given(_ROOTS)
def test_gemini_output_is_a_valid_sdk_schema(schema: dict[str, Any]) -> None:
    from google.genai import types

    before = copy.deepcopy(schema)
    try:
        converted = gemini_schema(schema)
    except ValueError:
        return
    assert schema == before
    if converted is not None:
        types.Schema.model_validate(converted)  # the SDK forbids unknown fields
        assert "$ref" not in json.dumps(converted)


@settings(max_examples=150, deadline=None)
@given(_ROOTS)
def test_inlining_removes_every_ref(schema: dict[str, Any]) -> None:
    inlined = inline_refs(schema, keep_recursive=True)
    assert "$ref" not in json.dumps(inlined)
    assert inlined["properties"]["shared"] == schema["$defs"]["Shared"]
