"""Optional arguments a call makes up.

Small models fill optional parameters with values of their own: the Los Angeles Lakers for a
player's career statistics nobody asked to narrow, "Lunch" for a recipe's calories, "London" for
a football club's schedule. A string that has nothing in common with the conversation is the
model's guess, and the tool's own default is the better one, so such an argument is left out of
the call. A value counts as given when the conversation holds it whole, or any word of it of
four characters or more: "Asia/Tokyo" for "the time in Tokyo" is the model's knowledge put to
use, not a guess. Only strings are judged: a number or a flag may be implied ("three days", "with
details") where a name or a place is not, and a parameter with an `enum` is a choice the model
was offered.

Replayed over Qwen2.5-Coder-0.5B's raw calls on BFCL (`bench/local_grounding.py`), it makes 13
simple items right and one wrong (`"24h"` for "24-hour format"), and 5 multiple items right (on
toolwire's calls before it: 13, 1 and 4). Leaving out numbers too made five right calls wrong
("3" for "three days"); requiring the whole value rather than one telling word of it changed no
item there, but would drop "Asia/Tokyo" for Tokyo.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...messages import Message
from ...tools import ToolDefinition

__all__ = ["Grounding"]

_SEPARATORS = re.compile(r"[\W_]+")
_TELLING_WORD = 4
"""Characters a word needs to show on its own that a value came from the conversation."""


@dataclass(frozen=True, slots=True)
class Grounding:
    """What a conversation says, and which parameters of its tools are open to made-up values."""

    said: str
    """The conversation's text, folded (see `_folded`)."""
    words: frozenset[str]
    """Its words."""
    guessable: Mapping[str, frozenset[str]]
    """By tool name: its optional parameters that take free text."""

    @classmethod
    def of(cls, messages: Iterable[Message], tools: Sequence[ToolDefinition]) -> Grounding:
        texts: list[str] = []
        for message in messages:
            texts.append(message.text)
            texts.extend(result.content for result in message.tool_results)
            texts.extend(call.raw_arguments for call in message.tool_calls)
        said = _folded(" ".join(texts))
        guessable = {tool.name: _guessable(tool) for tool in tools}
        return cls(said, frozenset(said.split()), guessable)

    def arguments(self, tool: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """`arguments` without the guessable ones whose value the conversation never gave."""
        guessable = self.guessable.get(tool, frozenset())
        return {
            name: value
            for name, value in arguments.items()
            if not (name in guessable and isinstance(value, str)) or self.gave(value)
        }

    def gave(self, value: str) -> bool:
        """Whether the conversation holds `value` whole, or a telling word of it."""
        folded = _folded(value)
        telling = {word for word in folded.split() if len(word) >= _TELLING_WORD}
        return folded in self.said or bool(telling & self.words)


def _guessable(tool: ToolDefinition) -> frozenset[str]:
    properties = tool.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return frozenset()
    required = set(tool.parameters.get("required") or ())
    return frozenset(
        name
        for name, schema in properties.items()
        if name not in required
        and isinstance(schema, Mapping)
        and schema.get("type", "string") == "string"
        and not {"enum", "const"} & schema.keys()
    )


def _folded(text: str) -> str:
    """Case folded, every run of non-word characters one space, padded with one on each side,
    so that a value is found whole words at a time however either is punctuated."""
    return f" {_SEPARATORS.sub(' ', text.casefold()).strip()} "
