"""Formats framed by special tokens: DeepSeek, Kimi-K2, gpt-oss Harmony, FunctionGemma / Gemma-4,
and Functionary's `>>>`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._args import ArgsReader
from ._json import LenientJson, ValueKind
from ._readers import NamedCallReader
from ._text import TextMode
from ._util import (
    IDENT_START,
    PARTIAL,
    fence_mark,
    find_first,
    match_token,
    safe_end,
    skip_space,
)

if TYPE_CHECKING:
    from ._machine import Machine, Mode, Owner

__all__ = [
    "DEEPSEEK_CALLS_BEGIN",
    "DEEPSEEK_CALLS_END",
    "DEEPSEEK_CALL_BEGIN",
    "DEEPSEEK_END_OF_SENTENCE",
    "HARMONY_HEADERS",
    "DeepSeekCall",
    "GemmaCall",
    "KimiCall",
    "functionary_action",
    "harmony_action",
]

_NAME_LIMIT = 256


def _deepseek(words: str, joiner: str = "\u2581") -> str:
    """A DeepSeek token: fullwidth bars (U+FF5C) around words joined by U+2581."""
    return "<\uff5c" + joiner.join(words.split()) + "\uff5c>"


def _spellings(words: str) -> tuple[str, ...]:
    # R1 distills write the joiner as `_`, a space, or an escaped `\_`.
    return tuple(_deepseek(words, joiner) for joiner in ("\u2581", "_", " ", "\\_"))


DEEPSEEK_CALLS_BEGIN = (*_spellings("tool calls begin"), _deepseek("tool calls"))
DEEPSEEK_CALLS_END = _spellings("tool calls end")
DEEPSEEK_CALL_BEGIN = _spellings("tool call begin")
DEEPSEEK_END_OF_SENTENCE = _deepseek("end of sentence")
_DEEPSEEK_CALL_END = _spellings("tool call end")
_DEEPSEEK_SEP = _spellings("tool sep")


class _NameUntil:
    """Reads the marker, then a name up to one of `ends` (not consumed)."""

    def __init__(self, marker: str, ends: Sequence[str]) -> None:
        self._marker = len(marker)  # still to skip, at the first read
        self._ends = tuple(ends)
        self._parts: list[str] = []
        self._length = 0

    def read(self, m: Machine, buf: str, i: int) -> tuple[int, str | None, str]:
        """(index, name or None when not yet complete, end token found); the name is "" when
        no end comes within the limit (the cut is at a fixed place in the text, whatever the
        chunking)."""
        if self._marker:
            skip, self._marker = self._marker, 0
            return i + skip, None, ""
        limit = i + _NAME_LIMIT - self._length
        at, token = find_first(buf, i, self._ends)
        if 0 <= at <= limit:
            self._parts.append(buf[i:at])
            return at, "".join(self._parts), token
        end = min(safe_end(buf, i, self._ends, m.final), limit)
        self._parts.append(buf[i:end])
        self._length += end - i
        if end == limit or m.final:
            return end, "", ""
        return end, None, ""


def _start(m: Machine, owner: Owner, name: str, at: int, mode: Mode) -> int:
    m.confirm()
    m.pop(mode)
    return m.start_call(m.resolve(name), m.begin_item(at))


class KimiCall:
    """`<|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{...}<|tool_call_end|>`."""

    def __init__(self, m: Machine, owner: Owner, at: int, marker: str) -> None:
        self.owner = owner
        self._name = _NameUntil(marker, ("<|tool_call_argument_begin|>",))

    def step(self, m: Machine, buf: str, i: int) -> int:
        j, name, token = self._name.read(m, buf, i)
        if name is None:
            return j
        if not token:
            m.invalid_call(None, "a Kimi call with no <|tool_call_argument_begin|>", j)
            m.pop(self)
            self.owner.item_done(m, "failed")
            return j
        name = re.sub(r":\d+$", "", name.strip())
        after = j + len(token)
        index = _start(m, self.owner, name, after, self)
        m.push(ArgsReader(self.owner, index, trailers=(("<|tool_call_end|>",),)))
        return after

    def eof(self, m: Machine) -> None:
        m.invalid_call(None, "the text ended inside a Kimi call (truncated)")


class DeepSeekCall:
    """V3/R1: `function<sep>NAME\\n```json\\n{...}\\n```<end>`; V3.1: `NAME<sep>{...}<end>`."""

    def __init__(self, m: Machine, owner: Owner, at: int, marker: str) -> None:
        self.owner = owner
        self._head = _NameUntil(marker, _DEEPSEEK_SEP)
        self._name: _NameUntil | None = None
        self._ready: str | None = None

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._ready is None:
            return self._read_name(m, buf, i)
        j = skip_space(buf, i)
        if j > i:
            return j
        fence = fence_mark(buf, i, m.final)
        if fence == PARTIAL and i < len(buf):
            return i
        if fence > 0:
            return i + fence
        if i >= len(buf) and not m.final:
            return i
        index = _start(m, self.owner, self._ready, i, self)
        m.push(ArgsReader(self.owner, index, trailers=(("```",), _DEEPSEEK_CALL_END)))
        return i

    def _read_name(self, m: Machine, buf: str, i: int) -> int:
        if self._name is None:
            j, head, token = self._head.read(m, buf, i)
            if head is None:
                return j
            if not token:
                return self._broken(m, j)
            after = j + len(token)
            if head.strip() != "function":  # V3.1: the name came first
                self._ready = head.strip()
                return after
            self._name = _NameUntil("", ("\n", "```", "{"))
            return after
        j, name, token = self._name.read(m, buf, i)
        if name is None:
            return j
        if not token:
            return self._broken(m, j)
        self._ready = name.strip()
        return j

    def _broken(self, m: Machine, j: int) -> int:
        m.invalid_call(None, "a DeepSeek call with no tool name", j)
        m.pop(self)
        self.owner.item_done(m, "failed")
        return j

    def eof(self, m: Machine) -> None:
        m.invalid_call(None, "the text ended inside a DeepSeek call (truncated)")


class GemmaCall:
    """`call:NAME{key:<escape>text<escape>,n:42}` (FunctionGemma; Gemma-4 quotes with `<|"|>`)."""

    def __init__(self, m: Machine, owner: Owner, at: int, marker: str, quote: str) -> None:
        self.owner = owner
        self._name = _NameUntil(marker, ("{",))
        self._quote = quote

    def step(self, m: Machine, buf: str, i: int) -> int:
        j, name, token = self._name.read(m, buf, i)
        if name is None:
            return j
        if not token:
            m.invalid_call(None, "a call with no '{' after its name", j)
            m.pop(self)
            self.owner.item_done(m, "failed")
            return j
        index = _start(m, self.owner, name.strip(), j, self)
        m.push(_GemmaArguments(self.owner, index, self._quote))
        return j

    def eof(self, m: Machine) -> None:
        m.invalid_call(None, "the text ended inside a call (truncated)")


class _GemmaArguments:
    """Bare keys and JSON-ish values, with strings between custom quote tokens: the quoted text
    is handed to the transducer as a JSON string, the rest as it is."""

    def __init__(self, owner: Owner, index: int, quote: str) -> None:
        self.owner = owner
        self.index = index
        self._quote = quote
        self._chunks: list[str] = []
        self._json = LenientJson(self)
        self._json.sink = self._chunks
        self._in_string = False

    def on_key(self, key: str) -> bool:
        return True

    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool:
        return True

    def on_end(self) -> bool:
        return True

    def step(self, m: Machine, buf: str, i: int) -> int:
        quote = self._quote
        at = buf.find(quote, i)
        end = at if at >= 0 else safe_end(buf, i, (quote,), m.final)
        if self._in_string:
            if end > i:
                self._json.feed(json.dumps(buf[i:end], ensure_ascii=False)[1:-1], 0)
            if at >= 0:
                self._json.feed('"', 0)
                self._in_string = False
                end = at + len(quote)
        elif end > i:
            end = self._json.feed(buf, i, end)
        elif at == i:
            self._json.feed('"', 0)
            self._in_string = True
            end = at + len(quote)
        return self._report(m, end)

    def _report(self, m: Machine, j: int) -> int:
        if self._chunks:
            m.arguments(self.index, "".join(self._chunks))
            self._chunks.clear()
        if self._json.error is not None:
            m.invalid_call(self.index, f"invalid arguments: {self._json.error}", j)
        elif self._json.done:
            m.complete_call(self.index, upto=j)
        else:
            return j
        m.pop(self)
        self.owner.item_done(m, "ok" if self._json.done else "failed")
        return j

    def eof(self, m: Machine) -> None:
        m.invalid_call(self.index, "the text ended inside the arguments (truncated)")


# --- gpt-oss Harmony -----------------------------------------------------------------------------

HARMONY_HEADERS = ("<|start|>", "<|channel|>")
_HARMONY_MESSAGE = "<|message|>"
_HARMONY_ENDS = ("<|end|>", "<|return|>", "<|call|>")
_HEADER_LIMIT = 512
_RECIPIENT = re.compile(r"to=([^\s<]+)")
_CHANNEL = re.compile(r"<\|channel\|>\s*([A-Za-z_]+)")


def harmony_action(m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool) -> int:
    """A message header up to `<|message|>`: a call (`to=functions.NAME`), reasoning (the
    analysis channel) or content follows."""
    end = buf.find(_HARMONY_MESSAGE, i, i + _HEADER_LIMIT)
    if end < 0:
        return i if not m.final and len(buf) - i < _HEADER_LIMIT else -1
    header = buf[i:end]
    after = end + len(_HARMONY_MESSAGE)
    recipient = _RECIPIENT.search(header)
    channel = _CHANNEL.search(header)
    if recipient is not None:
        m.confirm()
        index = m.start_call(m.resolve(recipient.group(1)), m.begin_item(after))
        m.push(ArgsReader(owner, index, trailers=(_HARMONY_ENDS,)))
    elif channel is not None and channel.group(1) == "analysis":
        m.push(
            TextMode(
                reasoning=True,
                closers=_HARMONY_ENDS,
                stops=HARMONY_HEADERS,
                calls=m.profile.calls_in_reasoning,
            )
        )
    else:
        m.push(TextMode(reasoning=reasoning, closers=_HARMONY_ENDS, stops=HARMONY_HEADERS))
    return after


# --- Functionary v3.2 ----------------------------------------------------------------------------


def functionary_action(
    m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool
) -> int:
    """`>>>NAME\\n{...}` is a call; `>>>all\\n` opens plain text; `>>> ` (a REPL prompt) is text."""
    after = i + len(marker)
    length, _ = match_token(buf, after, ("all\n",), m.final)
    if length == PARTIAL:
        return i
    if length > 0:
        return after + length
    if after >= len(buf):
        return i if not m.final else -1
    if buf[after] not in IDENT_START:
        return -1
    m.begin_candidate(i, reasoning=reasoning)
    m.push(NamedCallReader(m, owner, after, explicit=True, json_args=True, python=False))
    return after
