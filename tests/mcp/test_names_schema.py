"""Tool names for providers, and validation against a server's JSON Schema (no servers here)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire.errors import InvalidArguments
from toolwire.mcp._names import model_name
from toolwire.mcp._schema import drop_unwanted_nulls, make_validate, prepare_schema

PROVIDER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def test_names_keep_what_providers_accept_and_map_the_rest() -> None:
    assert model_name("git_status", set()) == "git_status"
    assert model_name("get-env", set()) == "get-env"
    assert model_name("files.read", set()) == "files_read"
    assert model_name("", set()) == "tool"
    assert model_name("status", set(), "git__") == "git__status"


def test_long_or_colliding_names_get_a_stable_hash_suffix() -> None:
    long = model_name("n" * 100, set())
    assert len(long) == 64 and PROVIDER_NAME.fullmatch(long)
    assert long == model_name("n" * 100, set())
    first = model_name("a.b", set())
    second = model_name("a_b", {first})
    assert first == "a_b" and second != first and second.startswith("a_b_")


@given(names=st.lists(st.text(max_size=150), max_size=12), prefix=st.text(max_size=20))
@settings(max_examples=200, deadline=None)
def test_any_names_map_to_distinct_provider_safe_names(names: list[str], prefix: str) -> None:
    taken: set[str] = set()
    for name in names:
        mapped = model_name(name, taken, prefix)
        assert PROVIDER_NAME.fullmatch(mapped), mapped
        assert mapped not in taken
        taken.add(mapped)


POINT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "point": {
            "type": "object",
            "properties": {"x": {"type": "number"}, "y": {"type": "number"}},
            "required": ["x", "y"],
            "additionalProperties": False,
        }
    },
    "properties": {
        "points": {"type": "array", "items": {"$ref": "#/$defs/point"}},
        "label": {"type": ["string", "null"]},
    },
    "required": ["points"],
    "additionalProperties": False,
}


def errors_for(schema: dict[str, Any], arguments: Any) -> list[tuple[str, str]]:
    _, validator = prepare_schema(schema)
    with pytest.raises(InvalidArguments) as caught:
        make_validate(validator)(arguments)
    return list(caught.value.errors)


def test_valid_arguments_pass_through_unchanged() -> None:
    _, validator = prepare_schema(POINT_SCHEMA)
    arguments = {"points": [{"x": 1, "y": 2.5}], "label": None}
    assert make_validate(validator)(arguments) is arguments


def test_errors_name_the_argument_to_fix() -> None:
    errors = errors_for(POINT_SCHEMA, {"points": [{"x": 1}, {"x": 1, "y": "2"}], "label": 3})
    paths = dict(errors)
    assert paths["points[0].y"] == "required property missing"
    assert "'2' is not of type 'number'" in paths["points[1].y"]
    assert "is not of type 'string', 'null'" in paths["label"]


def test_unexpected_and_missing_properties_are_listed_one_by_one() -> None:
    errors = errors_for(POINT_SCHEMA, {"pionts": [], "colour": "red"})
    assert errors == [
        ("colour", "unexpected property (allowed: label, points)"),
        ("pionts", "unexpected property (allowed: label, points)"),
        ("points", "required property missing"),
    ]


def test_long_messages_are_cut_and_errors_are_capped() -> None:
    schema = {"type": "object", "properties": {f"p{i}": {"type": "integer"} for i in range(30)}}
    errors = errors_for(schema, {f"p{i}": "x" * 1000 for i in range(30)})
    assert len(errors) == 10
    assert all(len(message) <= 200 for _, message in errors)


def test_a_schema_without_properties_gets_them_for_the_model() -> None:
    shown, _ = prepare_schema({"type": "object"})
    assert shown == {"type": "object", "properties": {}}


def test_the_draft_named_by_the_schema_is_used() -> None:
    draft7 = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"n": {"type": "integer", "exclusiveMinimum": 0}},
    }
    assert errors_for(draft7, {"n": 0})[0][0] == "n"


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ([], "not an object"),
        ({"type": "array"}, "root is not"),
        ({"properties": {}}, "root is not"),
        ({"type": "object", "properties": {"a": {"type": "strnig"}}}, "invalid JSON Schema"),
        ({"type": "object", "properties": {"a": {"$ref": "https://x.test/a.json"}}}, "external"),
        ({"type": "object", "properties": {"a": {"$ref": "other.json#/a"}}}, "external"),
    ],
)
def test_unusable_schemas_are_refused_with_a_reason(schema: Any, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        prepare_schema(schema)


def test_hostile_schemas_are_bounded() -> None:
    deep: dict[str, Any] = {"type": "object"}
    node = deep
    for _ in range(100):
        node["properties"] = {"a": {"type": "object"}}
        node = node["properties"]["a"]
    with pytest.raises(ValueError, match="too deep or too large"):
        prepare_schema(deep)
    wide = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(30_000)}}
    with pytest.raises(ValueError, match="too deep or too large"):
        prepare_schema(wide)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


POINT_VALIDATE = make_validate(prepare_schema(POINT_SCHEMA)[1])


@given(arguments=st.dictionaries(st.text(max_size=10), json_values, max_size=5))
@settings(max_examples=300, deadline=None)
def test_any_arguments_are_either_accepted_or_refused_with_paths(arguments: dict[str, Any]) -> None:
    try:
        accepted = POINT_VALIDATE(arguments)
    except InvalidArguments as invalid:
        errors = invalid.errors
    else:
        assert accepted is arguments
        errors = ((".", "accepted"),)
    assert errors
    assert all(isinstance(path, str) and message for path, message in errors)


NULLS_SCHEMA = {
    "type": "object",
    "$defs": {"flag": {"type": "boolean"}},
    "properties": {
        "query": {"type": "string"},
        "verbose": {"$ref": "#/$defs/flag"},
        "limit": {"type": "integer", "default": 10},
        "label": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": None},
    },
    "required": ["query"],
    "additionalProperties": False,
}


def test_a_null_for_an_optional_parameter_that_refuses_null_is_left_out() -> None:
    _, validator = prepare_schema(NULLS_SCHEMA)
    validate = make_validate(validator)
    given = {"query": "q", "verbose": None, "limit": None, "label": None}
    assert validate(given) == {"query": "q", "label": None}
    assert given["verbose"] is None  # the model's own arguments are not changed


def test_a_null_for_a_required_parameter_is_still_an_error_to_fix() -> None:
    assert errors_for(NULLS_SCHEMA, {"query": None})[0][0] == "query"


_TYPES = ["string", "integer", "boolean", "number", ["string", "null"], "null", "array"]


@given(
    st.lists(st.sampled_from(range(len(_TYPES))), min_size=1, max_size=6),
    st.data(),
)
@settings(max_examples=60, deadline=None)
def test_only_nulls_the_schema_refuses_for_optional_parameters_are_dropped(
    kinds: list[int], data: st.DataObject
) -> None:
    properties = {f"p{i}": {"type": _TYPES[kind]} for i, kind in enumerate(kinds)}
    required = data.draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    nulls = data.draw(st.lists(st.sampled_from(sorted(properties)), unique=True))
    schema = {"type": "object", "properties": properties, "required": required}
    _, validator = prepare_schema(schema)
    arguments = dict.fromkeys(nulls)
    kept = drop_unwanted_nulls(validator, arguments)
    for name in nulls:
        accepts_null = "null" in properties[name]["type"]
        assert (name in kept) == (accepts_null or name in required)
