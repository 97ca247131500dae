"""Tools whose parameters are held to patterns, for a call written on trial.

Left to itself on such a trial, a small model writes what the trial would not keep: a
parameter's description, a search of the request's words whole, a path of its own. A pattern in
the tool's schema, which llama.cpp's schema converter writes into the call's grammar, leaves it
only the words chosen for it. The patterns are written in the regular expressions that converter
reads.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ...tools import ToolDefinition
from ._coverage import FUNCTION_WORDS
from ._lists import POSSESSIVE

__all__ = [
    "UNWRITABLE",
    "fewer_of",
    "held_to_patterns",
    "literal_words",
    "one_of",
    "searched_words",
]

_TYPED_BY = frozenset(["type", "anyOf", "oneOf", "allOf", "enum", "const", "default"])
"""What else a schema may say of a value's type, which a parameter held to words drops."""


def held_to_patterns(
    tool: ToolDefinition, patterns: Mapping[str, str], properties: Mapping[str, Any]
) -> ToolDefinition:
    """`tool` with each parameter of `patterns` a string held to its pattern: only a string,
    since where the schema also allows null (`str | None = None`) the grammar takes its
    `anyOf` and never reads the pattern."""
    held = {
        name: {
            **{key: value for key, value in schema.items() if key not in _TYPED_BY},
            "type": "string",
            "pattern": patterns[name],
        }
        if name in patterns and isinstance(schema, Mapping)
        else schema
        for name, schema in properties.items()
    }
    return replace(tool, parameters={**tool.parameters, "properties": held})


def searched_words(text: str) -> list[str]:
    """The words free text searches for, as written ("candidate's"), but for those that say
    nothing of what is asked, and those no call grammar can hold (see `_literal`; llama.cpp's
    parser rejects a control character even in a class of one)."""
    words = (word.strip(_TRIMMED) for word in text.split())
    return [
        word
        for word in words
        if word
        and word.isprintable()
        and word.casefold() not in FUNCTION_WORDS
        and not UNWRITABLE & set(word)
    ]


_TRIMMED = ",;:!?\"'()[]"


def fewer_of(words: Sequence[str]) -> str:
    """A pattern for a run of `words` in their order, each possessive written as the word
    alone: fewer of them than all, or all of them where a possessive is left out (a wider
    search than the one made)."""
    bare = [POSSESSIVE.sub("", word) or word for word in words]
    longest = len(words) if bare != list(words) else len(words) - 1
    runs = [
        literal_words(bare[start : start + size])
        for size in range(longest, 0, -1)
        for start in range(len(words) - size + 1)
    ]
    return f"^({'|'.join(runs)})$"


def one_of(values: Iterable[str]) -> str:
    """A pattern matching any one of `values` whole, and nothing else."""
    return f"^({'|'.join(literal_words([value]) for value in values)})$"


def literal_words(words: Sequence[str]) -> str:
    """A pattern matching `words`, one space apart (see `_literal`)."""
    return " ".join(map(_literal, words))


def _literal(word: str) -> str:
    """`word` as a pattern matching it alone, in the regular expressions llama.cpp's schema
    converter reads: it takes a backslash only before the characters of `_ESCAPED`, and writes
    any other escape into the grammar, whose parser rejects it (`\\.`, `\\$`); a class of one
    character holds the rest."""
    return "".join(c if c.isalnum() else f"\\{c}" if c in _ESCAPED else f"[{c}]" for c in word)


_ESCAPED = frozenset("[](){}|*+?")
UNWRITABLE = frozenset('^\\"')
"""Characters neither escaped nor held in a class of one in the grammar (a JSON string escapes
the quote and the backslash; `[^]` negates)."""
