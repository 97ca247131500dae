"""What a tool's schema and documentation say of its parameters, read once per tool.

A call is judged against what the tool's author wrote as well as what the user did: a default
asks for nothing, an example a description quotes is the author's value, not the user's, and a
parameter's name or description may say it takes an identifier, a file, email addresses, a
fraction or a unit. Reading that is this module's; judging a call by it is `_grounding`'s.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...builtin._units import known_unit
from ...tools import ToolDefinition
from ._coverage import spelled_out
from ._wording import DIGITS, folded, leading_unit, stems

__all__ = [
    "NOTHING_GUESSABLE",
    "Flag",
    "Guessable",
    "Unit",
    "documented_examples",
    "free_text",
    "guessable_of",
    "identified",
    "name_words",
    "scalar",
    "takes_a_file",
    "without_examples",
]

_QUOTED_EXAMPLE = re.compile(r"\"([^\"\n]{1,80})\"|'([^'\n]{1,80})'|`([^`\n]{1,80})`")
"""A value a description quotes."""
_FRACTION = re.compile(
    r"\bfraction|\bdecimal\b|\bbetween 0(?:\.0+)? and 1\b|\b0(?:\.0+)? ?(?:to|-) ?1(?:\.0+)?\b",
    re.IGNORECASE,
)
"""What a `number` parameter's description says when it takes a fraction, not a percentage."""
_IDENTIFIER_WORDS = frozenset(["id", "ids"])
_IDENTIFIER_NAME = re.compile(r"(?:^|[_-])(?:id|ID)s?$|[a-z](?:Id|ID)s?$")
"""What the name of a parameter taking an identifier ends with: "id", "order_id", "eventId"."""
_PATH_NAME = re.compile(
    r"(?:^|[_-])(?:path|file|file_?(?:[nN]ame|[pP]ath))$|[a-z](?:Path|File|File(?:Name|Path))$"
)
"""What the name of a parameter taking a file's path ends with: "path", "file_name", "srcFile"."""
_EMAIL = re.compile(r"\be-?mail\b", re.IGNORECASE)
"""What the name or description of a parameter taking email addresses says."""
_COINED = re.compile(r"[a-z0-9]_[a-z0-9]|[a-z][A-Z]")
"""A name coined for a schema, not written by people: snake_case or camelCase."""
_DEFAULT_UNIT = re.compile(
    r"\bdefaults?\b(?:\s+(?:unit\s+)?(?:is|to))?\s*:?\s*['\"]?([^'\".,;)]+)", re.I
)
"""Where a description names the default ("Default is 'cm'", "defaults to meters")."""
_SOURCE_WORDS = frozenset({"from", "source", "original", "input", "start", "origin", "departure"})
_TARGET_WORDS = frozenset({"to", "target", "desired", "output", "end", "destination", "arrival"})
"""Words of parameter names that say which end of a conversion or a route a parameter is."""


@dataclass(frozen=True, slots=True)
class _OptionList:
    options: frozenset[str]
    required: bool

    def holds_every_option(self, value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) > 1
            and all(isinstance(option, str) for option in value)
            and set(value) == self.options
        )


@dataclass(frozen=True, slots=True)
class Flag:
    default: bool
    """False unless the schema says otherwise."""
    cues: frozenset[str]
    """The stems of the telling words of its description."""
    optional: bool = True


@dataclass(frozen=True, slots=True)
class Unit:
    kind: str
    default: str
    """The canonical name of the unit the tool takes unless told (see `known_unit`)."""
    options: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Guessable:
    """A tool's parameters open to made-up values, and those that take fractions."""

    options: frozenset[str] = frozenset()
    """Optional, taking one of an `enum`'s strings."""
    option_lists: Mapping[str, _OptionList] = field(default_factory=dict)
    """Taking a list of an `enum`'s strings, required or not."""
    numbers: frozenset[str] = frozenset()
    """Optional, taking a number."""
    texts: frozenset[str] = frozenset()
    """Optional, taking free text (a string, no `enum`)."""
    flags: Mapping[str, Flag] = field(default_factory=dict)
    """Taking a boolean."""
    fractions: frozenset[str] = frozenset()
    """Taking a `number` the schema declares a fraction (see `_takes_fraction`), required or
    not."""
    units: Mapping[str, Unit] = field(default_factory=dict)
    """Optional, taking a unit, with a default unit the schema names."""
    choices: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Taking one of an `enum`'s strings, required or not: its options."""
    structures: frozenset[str] = frozenset()
    """Optional, taking a list or an object, other than a list of an `enum`'s strings."""
    ends: tuple[str, str] | None = None
    """The string parameters naming the two ends of a conversion or a route, from and to."""
    defaults: Mapping[str, Any] = field(default_factory=dict)
    """The schema's defaults: a value equal to its parameter's default asks for nothing."""
    needed: frozenset[str] = frozenset()
    """Required, taking a number or an integer, with no default: the user's to give. A count
    the request's words imply ("next week" is 7 days) is asked for too: a model that makes
    numbers up for requests its tools do not serve does so far more often."""
    identifiers: frozenset[str] = frozenset()
    """Required, taking a string with no default that the schema names an identifier
    (`_IDENTIFIER_NAME`): the user's to give, or a result's."""
    paths: frozenset[str] = frozenset()
    """Required, taking a string with no default that the schema names a file's path
    (`_PATH_NAME`): the user's to give, or a result's, as identifiers are."""
    addresses: frozenset[str] = frozenset()
    """Required, taking email addresses by its name or description ("to: the recipients'
    email addresses"): the user's to give, or a result's, as identifiers are."""
    required: frozenset[str] = frozenset()
    """Every required parameter."""
    described: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Required, taking free text: what its description says it is, folded, whole and without
    its examples ("the text to find"), which no user's value is."""
    exemplified: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Taking free text, required or not: the examples its description quotes and its schema
    lists, folded, but its default ("Asia/Tokyo" of `"Europe/Paris", "Asia/Tokyo" or "UTC"`,
    whose default is "UTC")."""
    coined: frozenset[str] = frozenset()
    """The names of its parameters written as identifiers (`unread_only`, `maxResults`),
    which people do not write."""
    documented: frozenset[str] = frozenset()
    """The words its documentation (its description and its parameters') writes as prose, folded:
    not the values it offers as examples or quotes (see `_prose`)."""
    parameter_words: frozenset[str] = frozenset()
    """The words of its parameters' names, folded."""

    def asked(self, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """The arguments but those equal to their parameter's default."""
        return {
            name: value
            for name, value in arguments.items()
            if name not in self.defaults or value != self.defaults[name]
        }


NOTHING_GUESSABLE = Guessable()


def _takes_addresses(name: str, schema: Mapping[str, Any]) -> bool:
    """Whether a parameter's name or description says it takes email addresses."""
    return bool(_EMAIL.search(spelled_out(name))) or bool(
        _EMAIL.search(str(schema.get("description", "")))
    )


def identified(parameter: str) -> str | None:
    """What a parameter taking an identifier identifies, as its name says ("event" of
    `event_id`, "email" of `emailId`), if it says."""
    if not _IDENTIFIER_NAME.search(parameter):
        return None
    words = [
        word for word in folded(spelled_out(parameter)).split() if word not in _IDENTIFIER_WORDS
    ]
    return " ".join(words) or None


def takes_a_file(parameter: str) -> bool:
    """Whether a parameter's name says it takes a file's path ("path", "file_name", "srcFile")."""
    return bool(_PATH_NAME.search(parameter))


def name_words(name: str) -> set[str]:
    """The words of a tool's or a parameter's name, folded ("searchNotes": search, notes)."""
    return set(folded(spelled_out(name)).split())


def free_text(schema: Any) -> bool:
    """Whether a parameter takes free text: a string (or null), no `enum`."""
    if not isinstance(schema, Mapping):
        return False
    taken = _not_null(schema)
    return taken.get("type") == "string" and "enum" not in taken


def documented_examples(tool: ToolDefinition) -> frozenset[str]:
    """The values with digits that the tool's description and its parameters' descriptions
    quote, and the schema's `examples`, folded; an `enum`'s options are choices, not examples."""
    properties = tool.parameters.get("properties")
    schemas = [s for s in (properties or {}).values() if isinstance(s, Mapping)]
    quoted = ["".join(found) for found in _QUOTED_EXAMPLE.findall(tool.description)]
    for schema in schemas:
        quoted += _offered(schema)
        if not isinstance(schema.get("examples"), list) and scalar(
            example := schema.get("example")
        ):
            quoted.append(str(example))
    options = {str(option).casefold() for s in schemas for option in s.get("enum") or ()}
    return frozenset(
        folded
        for value in quoted
        if DIGITS.search(value) and (folded := value.strip().casefold()) not in options
    )


def guessable_of(tool: ToolDefinition) -> Guessable:
    properties = tool.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return NOTHING_GUESSABLE
    required = set(tool.parameters.get("required") or ())
    options: set[str] = set()
    option_lists: dict[str, _OptionList] = {}
    numbers: set[str] = set()
    texts: set[str] = set()
    flags: dict[str, Flag] = {}
    fractions: set[str] = set()
    units: dict[str, Unit] = {}
    choices: dict[str, frozenset[str]] = {}
    structures: set[str] = set()
    ends: dict[str, list[str]] = {"source": [], "target": []}
    defaults: dict[str, Any] = {}
    needed: set[str] = set()
    identifiers: set[str] = set()
    paths: set[str] = set()
    addresses: set[str] = set()
    described: dict[str, frozenset[str]] = {}
    exemplified: dict[str, frozenset[str]] = {}
    documentation = [_prose(tool.description)]
    for name, written in properties.items():
        if not isinstance(written, Mapping):
            continue
        schema = _not_null(written)
        if isinstance(description := schema.get("description"), str):
            documentation.append(_prose(description))
        if "default" in schema:
            defaults[name] = schema["default"]
        optional = name not in required
        if optional and "unit" in name.casefold() and (unit := _unit(schema)):
            units[name] = unit
        items = schema.get("items")
        listed = items.get("enum") if isinstance(items, Mapping) else None
        kind = schema.get("type", "string")
        if kind == "number" and _takes_fraction(schema):
            fractions.add(name)
        if kind == "string":
            words = name_words(name)
            for end, named in (("source", _SOURCE_WORDS), ("target", _TARGET_WORDS)):
                if words & named:
                    ends[end].append(name)
            if isinstance(schema.get("enum"), list):
                choices[name] = frozenset(map(str, schema["enum"]))
            elif not optional and "default" not in schema and _IDENTIFIER_NAME.search(name):
                identifiers.add(name)
            elif not optional and "default" not in schema and takes_a_file(name):
                paths.add(name)
            if not optional and "enum" not in schema and (said := _said_by(schema)):
                described[name] = said
            # A quoted parameter's name ("the unit of `value`") points at it, not an example.
            examples = _examples_of(schema) - {folded(other) for other in properties}
            if "enum" not in schema and examples:
                exemplified[name] = examples
        if not optional and kind in ("string", "array") and _takes_addresses(name, schema):
            addresses.add(name)
        if optional and kind == "string" and "enum" in schema:
            options.add(name)
        elif optional and kind == "string":
            texts.add(name)
        elif optional and kind in ("integer", "number") and "enum" not in schema:
            numbers.add(name)
        elif kind in ("integer", "number") and "enum" not in schema and "default" not in schema:
            needed.add(name)
        elif kind == "boolean":
            description = stems(schema.get("description"))
            flags[name] = Flag(schema.get("default") is True, description, optional)
        elif isinstance(listed, list) and listed and all(isinstance(o, str) for o in listed):
            option_lists[name] = _OptionList(frozenset(listed), not optional)
        elif optional and kind in ("array", "object"):
            structures.add(name)
    [sources, targets] = ends.values()
    from_to = None
    if len(sources) == len(targets) == 1 and sources != targets:
        from_to = (sources[0], targets[0])
    return Guessable(
        frozenset(options),
        option_lists,
        frozenset(numbers),
        frozenset(texts),
        flags,
        frozenset(fractions),
        units,
        choices,
        frozenset(structures),
        from_to,
        defaults,
        frozenset(needed),
        frozenset(identifiers),
        frozenset(paths),
        frozenset(addresses),
        frozenset(required),
        described,
        exemplified,
        frozenset(name for name in properties if _COINED.search(name)),
        frozenset(folded(" ".join(documentation)).split()),
        frozenset(word for name in properties for word in name_words(name)),
    )


_EXAMPLES_AFTER = re.compile(r",?\s*\(?\b(?:e\.g\.|for example|such as)\s", re.IGNORECASE)


def without_examples(description: str) -> str:
    """A description up to where it goes on to its examples: they are no value of the user's."""
    return _EXAMPLES_AFTER.split(description)[0]


def _prose(description: str) -> str:
    """A description without the values it offers: its examples and what it quotes ("'bug',
    'fish'"), which a user may well ask for in other words ("something in the middle")."""
    return _QUOTED_EXAMPLE.sub(" ", without_examples(description))


def _said_by(schema: Mapping[str, Any]) -> frozenset[str]:
    """A parameter's description, folded, whole and up to its examples, where it has two words
    or more (a one-word description may be a value too)."""
    description = schema.get("description")
    if not isinstance(description, str):
        return frozenset()
    versions = {folded(description), folded(without_examples(description))}
    return frozenset(version for version in versions if len(version.split()) >= 2)


def _examples_of(schema: Mapping[str, Any]) -> frozenset[str]:
    """The values a parameter's description quotes and its schema lists as examples, folded,
    but its default: a value the tool's author offers to show the form, not the user's."""
    examples = {folded(value) for value in _offered(schema) if folded(value).strip()}
    return frozenset(examples - {folded(str(schema.get("default")))})


def _offered(schema: Mapping[str, Any]) -> list[str]:
    """The values a parameter's description quotes, and those its schema's `examples` list."""
    description = str(schema.get("description") or "")
    quoted = ["".join(found) for found in _QUOTED_EXAMPLE.findall(description)]
    listed = schema.get("examples")
    if isinstance(listed, list):
        quoted += [str(value) for value in listed if scalar(value)]
    return quoted


def _not_null(schema: Mapping[str, Any]) -> Mapping[str, Any]:
    """A parameter that may also be null, read as the one type it takes otherwise
    (`{"anyOf": [{"type": "number"}, {"type": "null"}], "default": null}` as a number whose
    default is null): what a Python tool's `float | None = None` becomes."""
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if not isinstance(branches, list):
            continue
        typed = [b for b in branches if isinstance(b, Mapping) and b.get("type") != "null"]
        if len(typed) == 1 and len(typed) < len(branches):
            rest = {k: v for k, v in schema.items() if k != key}
            return {**typed[0], **rest}
    return schema


def _unit(schema: Mapping[str, Any]) -> Unit | None:
    """A string parameter's default unit, from its schema or its description."""
    if schema.get("type", "string") != "string":
        return None
    default = schema.get("default")
    if not isinstance(default, str):
        named = _DEFAULT_UNIT.search(str(schema.get("description", "")))
        default = named.group(1) if named else ""
    known = known_unit(leading_unit(default.split()) or "")
    if known is None:
        return None
    options = schema.get("enum")
    return Unit(*known, tuple(map(str, options)) if isinstance(options, list) else None)


def scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _takes_fraction(schema: Mapping[str, Any]) -> bool:
    """Whether a `number` parameter's schema declares that it takes a fraction."""
    for bound in ("maximum", "exclusiveMaximum"):
        limit = schema.get(bound)
        if isinstance(limit, int | float) and not isinstance(limit, bool) and limit <= 1:
            return True
    return bool(_FRACTION.search(str(schema.get("description", ""))))
