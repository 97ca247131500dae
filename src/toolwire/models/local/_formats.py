"""How a model family writes a tool call, as far as generation needs to know it: the text around
a call (for grammars), the scanner profile to read it with first, and whether the opening of a
reply is a call attempt (in the family's format or a neighbouring one)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "BARE_JSON",
    "CALL_ON_A_LINE",
    "HERMES",
    "PROMPTED",
    "CallFormat",
    "call_key",
    "detect_format",
]

_DECODER = json.JSONDecoder()
_CALL_OBJECT = '{"name": '

CALL_ON_A_LINE = "\n" + _CALL_OBJECT
"""A call a reply writes as a bare JSON object on a line of its text: in an answer, a call the
model shows rather than makes."""

# Openings that small models use for a call instead of (or besides) their own marker: a bare
# JSON object or list, or a fenced JSON block.
_CALL_OPENINGS = re.compile(r"\{|\[\s*\{|```(json|tool_call)?\s*[\[{]")
_UNDECIDED = re.compile(r"\[\s*|`{1,2}|```(j(s(on?)?)?|t[a-z_]*)?\s*")


@dataclass(frozen=True, slots=True)
class CallFormat:
    profile: str | None
    """The text tool-call profile the scanner tries first for this family (None: guess it from
    the model's name)."""
    start: str
    end: str
    separator: str
    result_start: str = ""
    result_end: str = ""
    """The text around a tool result, as the family's template writes it."""

    def call_text(self, name: str) -> tuple[str, str]:
        """The text before and after a call's arguments object."""
        before = f'{self.start}{_CALL_OBJECT}{json.dumps(name, ensure_ascii=False)}, "arguments": '
        return before, "}" + self.end

    def whole_call(
        self, text: str, position: int, *, first: bool
    ) -> tuple[int, dict[str, Any]] | None:
        """If `text` holds, from `position`, one whole call as the call grammar writes it (after
        the separator, unless it is the reply's first): where it ends, and the call. None while
        it is still being written."""
        opening = self.start if first else self.separator + self.start
        if not text.startswith(opening, position):
            return None
        try:
            call, end = _DECODER.raw_decode(text, position + len(opening))
        except ValueError:
            return None
        if not text.startswith(self.end, end) or not isinstance(call, dict):
            return None
        return end + len(self.end), call

    def write(self, name: str, arguments: Mapping[str, Any], *, first: bool) -> str:
        """A call as the call grammar writes it (after the separator, unless it is the first)."""
        before, after = self.call_text(name)
        written = json.dumps(arguments, ensure_ascii=False)
        return f"{'' if first else self.separator}{before}{written}{after}"

    def written_calls(self, text: str) -> list[dict[str, Any]]:
        """The whole calls at the start of `text`, written as the call grammar writes them."""
        calls: list[dict[str, Any]] = []
        position = 0
        while (found := self.whole_call(text, position, first=not calls)) is not None:
            position, call = found
            calls.append(call)
        return calls

    def opens_call(self, text: str) -> bool | None:
        """Whether a reply beginning with `text` is writing a call; None while it cannot tell."""
        head = text.lstrip()
        if not head:
            return None
        marker = self.start.strip()
        if marker and (head.startswith(marker) or marker.startswith(head)):
            return True if head.startswith(marker) else None
        if _CALL_OPENINGS.match(head):
            return True
        if _UNDECIDED.fullmatch(head):
            return None
        return False

    def may_open_call(self, piece: str) -> bool:
        """Whether a reply starting with this piece (a token's text) may be writing a call."""
        head = piece.lstrip()
        return bool(head) and (self.opens_call(head) is not False or "```".startswith(head))


HERMES = CallFormat(
    profile="hermes",
    start="<tool_call>\n",
    end="\n</tool_call>",
    separator="\n",
    result_start="<tool_response>\n",
    result_end="\n</tool_response>",
)
"""Hermes / Qwen: `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`, one per call."""

BARE_JSON = CallFormat(profile=None, start="", end="", separator="\n")
"""One JSON object per call, one per line: the fallback for templates of unknown format."""

PROMPTED = CallFormat(
    profile=None,
    start="```tool_call\n",
    end="\n```",
    separator="\n\n",
    result_start="```tool_result\n",
    result_end="\n```",
)
"""The convention `toolwire.textcalls` teaches models that have no tool format of their own."""


def call_key(name: object, arguments: Mapping[str, Any] | object) -> str:
    """Equal for two calls of one tool with the same arguments, in whatever key order, and
    whether a whole number is written `100` or `100.0` (strict grammars write the second)."""
    return json.dumps(
        [name, _whole_numbers(arguments)], sort_keys=True, ensure_ascii=False, default=str
    )


def _whole_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _whole_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_whole_numbers(item) for item in value]
    return value


def detect_format(template: str) -> CallFormat:
    return HERMES if "<tool_call>" in template else BARE_JSON
