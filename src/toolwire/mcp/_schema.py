"""Input schemas from untrusted servers: checked once when listed, then used to validate every
call cheaply, with errors that name the argument to fix."""

from __future__ import annotations

import functools
import importlib
import json
import re
from collections import deque
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import InvalidArguments

if TYPE_CHECKING:
    from ..tools._tool import Validator

SchemaValidator = Any

MAX_DEPTH = 40
MAX_NODES = 20_000
MAX_ERRORS = 10
_MESSAGE_CHARS = 200


def prepare_schema(schema: Any) -> tuple[dict[str, Any], SchemaValidator]:
    """The schema to show the model and its compiled validator; `ValueError` says why a schema is
    unusable (the tool is then dropped, not the server). Both are shared by equal schemas: treat
    them as read-only."""
    if not isinstance(schema, Mapping):
        raise ValueError("the input schema is not an object")
    if schema.get("type") != "object":
        raise ValueError('the input schema\'s root is not {"type": "object"}')
    _check_size_and_refs(schema)
    try:
        # Key order kept: the model sees the properties in the server's order.
        key = json.dumps(schema)
    except (TypeError, ValueError):
        raise ValueError("the input schema is not JSON") from None
    # Checking a schema against its metaschema takes milliseconds; a server re-listed after one
    # tool changed must not pay that for every tool again.
    return _prepare(key)


@functools.lru_cache(maxsize=1024)
def _prepare(key: str) -> tuple[dict[str, Any], SchemaValidator]:
    schema = json.loads(key)
    # Imported by name: jsonschema ships no type information (its stubs are a separate package).
    jsonschema = importlib.import_module("jsonschema")
    shown = dict(schema)
    # OpenAI rejects an object schema without `properties` (no-argument tools often omit it).
    shown.setdefault("properties", {})
    cls = jsonschema.validators.validator_for(shown, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(shown)
    except jsonschema.SchemaError as error:
        raise ValueError(f"invalid JSON Schema: {_short(error.message)}") from None
    return shown, cls(shown)


def make_validate(validator: SchemaValidator) -> Validator:
    def validate(arguments: Mapping[str, Any]) -> Mapping[str, Any]:
        arguments = drop_unwanted_nulls(validator, arguments)
        errors = _describe(validator.iter_errors(arguments))
        if errors:
            raise InvalidArguments(errors)
        return arguments

    return validate


def drop_unwanted_nulls(
    validator: SchemaValidator, arguments: Mapping[str, Any]
) -> Mapping[str, Any]:
    """`arguments` without a `null` given for an optional parameter whose schema refuses null.

    Models in strict mode (OpenAI's) must send every parameter, so they write `null` for one
    they mean to leave out; the server's schema says "absent", not "null". A null the schema
    accepts is kept (it may mean something), and a null for a required parameter stays, so the
    model hears which argument to fix."""
    properties = validator.schema.get("properties")
    if not isinstance(properties, Mapping):
        return arguments
    required = validator.schema.get("required", ())
    unwanted = [
        name
        for name, value in arguments.items()
        if value is None
        and name not in required
        and name in properties
        and next(validator.descend(None, properties[name], path=name), None) is not None
    ]
    if not unwanted:
        return arguments
    return {name: value for name, value in arguments.items() if name not in unwanted}


def _check_size_and_refs(schema: Mapping[str, Any]) -> None:
    # Bounded walk: a hostile schema must not cost unbounded time here or in the validator.
    pending: deque[tuple[Any, int]] = deque([(schema, 0)])
    nodes = 0
    while pending:
        node, depth = pending.popleft()
        nodes += 1
        if depth > MAX_DEPTH or nodes > MAX_NODES:
            raise ValueError("the input schema is too deep or too large")
        if isinstance(node, Mapping):
            ref = node.get("$ref")
            # Network references are never fetched (spec MUST NOT); unresolvable means unusable.
            if isinstance(ref, str) and not ref.startswith("#"):
                raise ValueError(f"the input schema has an external $ref ({_short(ref)})")
            pending.extend((child, depth + 1) for child in node.values())
        elif isinstance(node, list):
            pending.extend((child, depth + 1) for child in node)


def _describe(errors: Iterable[Any]) -> list[tuple[str, str]]:
    found: dict[str, str] = {}
    for error in errors:
        for path, message in _entries(error):
            found.setdefault(path, message)
        if len(found) >= MAX_ERRORS:
            break
    return sorted(found.items())


def _entries(error: Any) -> list[tuple[str, str]]:
    base = _path(error.absolute_path)
    instance = error.instance
    if error.validator == "required" and isinstance(instance, Mapping):
        return [
            (_join(base, name), "required property missing")
            for name in error.validator_value
            if isinstance(name, str) and name not in instance
        ]
    if (
        error.validator == "additionalProperties"
        and error.validator_value is False
        and isinstance(instance, Mapping)
    ):
        properties = error.schema.get("properties", {})
        patterns = error.schema.get("patternProperties", {})
        allowed = ", ".join(sorted(properties)) or "none"
        return [
            (_join(base, name), f"unexpected property (allowed: {allowed})")
            for name in instance
            if name not in properties and not any(re.search(p, name) for p in patterns)
        ]
    return [(base, _short(error.message))]


def _path(parts: Iterable[Any]) -> str:
    path = ""
    for part in parts:
        path = f"{path}[{part}]" if isinstance(part, int) else _join(path, str(part))
    return path


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _short(text: str) -> str:
    return text if len(text) <= _MESSAGE_CHARS else text[: _MESSAGE_CHARS - 1] + "…"
