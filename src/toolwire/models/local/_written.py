"""A reply written as text that is only a call, or only a tool's name.

Where the call gate keeps a reply to text, a small model that meant to call still writes the
call, as text: its JSON (`>{"name": "search_emails", "arguments": {...}}`), the call laid out
as lines (`name: calculate` / `arguments: expression: "17 * 23"`), or the tool's name alone
(`git_log`, after "which commit introduced it?"). Passed on, that is the answer the user reads.
Such a reply is no answer. Where the gate kept the reply to text, it is held back while it
could still be one (`CallAsText`) and the reply is written again as a call, under the grammar
and every check on calls; an answer written instead of a call that is one is written again,
not opening as it did (`Reply._answer`).

Some models, kept to text, describe the call they mean to the user instead: "To find out what
time it is in Sydney, you can use the `current_time` function. Here's how you can call it:" and
the call's JSON in a code fence; after tool results, that call again, or which call it made
("I called the `search_orders` function with..."). For a model known to do so
(`LocalModel.describes_calls`), text is held back from the first line that names an offered
tool, or the line before a code fence (`FencedCall`). A reply that shows a call to an offered
tool in a fence (its JSON, or only its arguments after text naming the tool: "use the
`search_emails` function with the following parameters:") is written as a call, as above;
after results, one held back whole that names a tool is written again as the answer from the
results. Other models show in a fence a call they decided against as often as one they mean,
so for them it stays text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ..._untrusted import load_json, load_json_prefix

__all__ = ["CallAsText", "FencedCall", "call_as_text", "fenced_call", "may_become_call_as_text"]

_AROUND = " \t\r\n>`'\"*."
"""What a small model writes around a call it lays out as text: a quote's marker, code
backticks, bold, a full stop."""
_NAME_LINE = re.compile(r"(?i)name\s*:\s*([\w.-]+)\s*(?:\n|$)")
_CALLED = re.compile(r"([\w.-]+)\s*(?:\(\s*\))?")
"""A tool's name alone, or with empty parentheses."""
_CALLING = re.compile(r"([\w.-]+)\s*(?:\(\s*\)?)?")
"""The start of `_CALLED`."""


_FENCED = re.compile(r"```[\w-]*[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL)
"""A code fence's body; the last fence of a reply cut short may be left open."""


def call_as_text(text: str, tools: Collection[str]) -> str | None:
    """The tool `text` calls or names and says nothing else: its name alone, a JSON object
    whose `name` it is, or lines that begin `name: <tool>`; None for any other text."""
    body = text.strip(_AROUND)
    if body.startswith("{"):
        try:
            value = load_json(body)
        except ValueError:
            return None
        return _offered(value, tools)
    if (line := _NAME_LINE.match(body)) is not None:
        return line.group(1) if line.group(1) in tools else None
    if (alone := _CALLED.fullmatch(body)) is not None:
        return alone.group(1) if alone.group(1) in tools else None
    return None


def fenced_call(text: str, tools: Mapping[str, Collection[str]]) -> str | None:
    """The offered tool (`tools` by name, with their parameters' names) that a JSON object
    opening one of `text`'s code fences calls, if one does: the object names it as the call's
    `name`, or holds only that tool's parameters where, of the tools the text names before the
    fence, that tool alone has them all."""
    naming = _naming(tools)
    for fence in _FENCED.finditer(text):
        body = fence.group(1).strip()
        if not body.startswith("{"):
            continue
        try:
            value, _ = load_json_prefix(body)
        except ValueError:
            continue
        if (name := _offered(value, tools)) is not None:
            return name
        if not isinstance(value, dict) or not value:
            continue
        named = {_name_in(found) for found in naming.finditer(text, 0, fence.start())}
        taking = [tool for tool in named if value.keys() <= set(tools[tool])]
        if len(taking) == 1:
            return taking[0]
    return None


def _offered(call: Any, tools: Collection[str]) -> str | None:
    """The `name` of a JSON call, where it is one of `tools`."""
    name = call.get("name") if isinstance(call, dict) else None
    return name if isinstance(name, str) and name in tools else None


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


def _naming(tools: Collection[str]) -> re.Pattern[str]:
    """Where text names one of `tools`: as code (`calculate`, `calculate(`, "the calculate
    function") where the name is also a word, anywhere where it is not (`search_orders`)."""
    words = [re.escape(tool) for tool in tools if tool.isalpha()]
    names = [re.escape(tool) for tool in tools if not tool.isalpha()]
    ways = []
    if words:
        word = "|".join(words)
        ways.append(rf"[`'\"]({word})[`'\"(]|\b({word})(?:\(|\s+(?:function|tool)\b)")
    if names:
        ways.append(rf"(?<![\w.-])({'|'.join(names)})(?![\w-])")
    return re.compile("|".join(ways) or "(?!)")


def _name_in(found: re.Match[str]) -> str:
    """The tool's name a match of `_naming` found."""
    return next(group for group in found.groups() if group)


class FencedCall:
    """The text of a reply, passed on line by line up to the first line that names one of the
    tools (or the line announcing it, ending with a colon), or the line before a code fence
    opens ("Here's how you can call it:"), and held back from there to the reply's end, where
    it may turn out to show a call (`fenced_call`): the lines that tell the user which tool to
    use are then no answer either. Each line is passed on once the next has begun and does not
    open a fence. `tools` are the offered tools by name, with their parameters' names."""

    def __init__(self, tools: Mapping[str, Collection[str]]) -> None:
        self._tools = tools
        self._naming = _naming(tools)
        self._text = ""
        self._holding = False
        self._passed = False

    def feed(self, text: str) -> str:
        """The text that may be passed on now."""
        self._text += text
        if self._holding:
            return ""
        text, start, last = self._text, 0, 0
        while True:
            end = text.find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            if line.lstrip().startswith("```"):
                self._holding = True
                return self._pass(last)
            if self._naming.search(line):
                self._holding = True
                announced = text[last:start].rstrip().endswith(":")
                return self._pass(last if announced else start)
            if line.strip():
                last = start
            if end < 0:
                return self._pass(last)
            start = end + 1

    def release(self) -> str:
        """Whatever is held, to be passed on; nothing is held back after it."""
        self._holding = False
        return self._pass(len(self._text))

    def called(self) -> str | None:
        """At the reply's end, the tool the held text shows a call to, if it does."""
        return fenced_call(self._text, self._tools) if self._holding else None

    def about_the_tools(self) -> bool:
        """At the reply's end, whether it was all held back, and names one of the tools: after
        tool results, text that says which tool was called ("I called the `search_orders`
        function with...", "This is the response from the `current_time` function") instead
        of what it returned."""
        return self._holding and not self._passed and self._naming.search(self._text) is not None

    def _pass(self, end: int) -> str:
        passed, self._text = self._text[:end], self._text[end:]
        self._passed = self._passed or bool(passed)
        return passed
