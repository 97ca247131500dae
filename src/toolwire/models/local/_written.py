"""A reply written as text that is only a call, or only a tool's name.

Where the call gate keeps a reply to text, a small model that meant to call still writes the
call, as text: its JSON (`>{"name": "search_emails", "arguments": {...}}`), the call laid out
as lines (`name: calculate` / `arguments: expression: "17 * 23"`), or the tool's name alone
(`git_log`, after "which commit introduced it?"). Passed on, that is the answer the user reads.
Such a reply is no answer. Where the gate kept the reply to text, it is held back while it
could still be one (`CallAsText`) and the reply is written again as a call, under the grammar
and every check on calls; an answer written instead of a call that is one is written again,
not opening as it did (`Reply._answer`).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from ..._untrusted import load_json

__all__ = ["CallAsText", "call_as_text", "may_become_call_as_text"]

_AROUND = " \t\r\n>`'\"*."
"""What a small model writes around a call it lays out as text: a quote's marker, code
backticks, bold, a full stop."""
_NAME_LINE = re.compile(r"(?i)name\s*:\s*([\w.-]+)\s*(?:\n|$)")
_CALLED = re.compile(r"([\w.-]+)\s*(?:\(\s*\))?")
"""A tool's name alone, or with empty parentheses."""
_CALLING = re.compile(r"([\w.-]+)\s*(?:\(\s*\)?)?")
"""The start of `_CALLED`."""


def call_as_text(text: str, tools: Collection[str]) -> str | None:
    """The tool `text` calls or names and says nothing else: its name alone, a JSON object
    whose `name` it is, or lines that begin `name: <tool>`; None for any other text."""
    body = text.strip(_AROUND)
    if body.startswith("{"):
        try:
            value = load_json(body)
        except ValueError:
            return None
        name = value.get("name") if isinstance(value, dict) else None
        return name if isinstance(name, str) and name in tools else None
    if (line := _NAME_LINE.match(body)) is not None:
        return line.group(1) if line.group(1) in tools else None
    if (alone := _CALLED.fullmatch(body)) is not None:
        return alone.group(1) if alone.group(1) in tools else None
    return None


def may_become_call_as_text(text: str, tools: Collection[str]) -> bool:
    """Whether `text`, the start of a reply, may still turn out to be only a call or a name."""
    body = text.lstrip(_AROUND)
    if not body or body.startswith("{"):
        return True
    if "name:".startswith(body[:5].lower()):
        return True
    calling = _CALLING.fullmatch(body.rstrip(_AROUND))
    return calling is not None and any(name.startswith(calling.group(1)) for name in tools)


class CallAsText:
    """The text of a reply, held back from its start while it may be only a call written out
    as text or a tool's name (`call_as_text`), passed on once it cannot be."""

    def __init__(self, tools: Collection[str]) -> None:
        self._tools = tools
        self._held = ""
        self._holding = True

    def feed(self, text: str) -> str:
        """The text that may be passed on now."""
        if not self._holding:
            return text
        self._held += text
        if may_become_call_as_text(self._held, self._tools):
            return ""
        return self.release()

    def release(self) -> str:
        """Whatever is held, to be passed on; nothing is held back after it."""
        held, self._held, self._holding = self._held, "", False
        return held

    def called(self) -> str | None:
        """At the reply's end, the tool the held text only calls or names, if it does."""
        return call_as_text(self._held, self._tools) if self._holding else None
