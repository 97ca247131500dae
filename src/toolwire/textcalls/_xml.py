"""XML-style calls: `<function=NAME>` (Qwen3-Coder, Seed-OSS; with a JSON body: Functionary),
`<function name="NAME">`, `<invoke name="NAME">` (MiniMax-M2), and GLM's `<arg_key>` pairs.

Parameter values are raw text: one leading and one trailing newline are layout, the rest is the
value, with no entity decoding. A value stays a string unless the tool's schema types it. Each
parameter is sent as one argument delta when it closes; the call completes at the function's
closer (GLM: the block's), and only an enclosing block's closer may be missing at the end.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._args import ArgsReader
from ._util import NO, PARTIAL, find_first, match_token, safe_end, skip_space

if TYPE_CHECKING:
    from ._machine import Machine, Owner

__all__ = ["FUNCTION_OPENERS", "FunctionReader", "XmlParams"]

FUNCTION_OPENERS = ('<function name="', "<function=", '<invoke name="')
_NAME_LIMIT = 128
_KEY_LIMIT = 256


@dataclass(frozen=True, slots=True)
class _Style:
    openers: tuple[str, ...]
    key_ends: tuple[str, ...]
    value_opener: str  # after the key (GLM's `<arg_value>`), or "" when the value follows it
    closers: tuple[str, ...]
    function_closers: tuple[str, ...]


_STYLES = {
    "qwen": _Style(("<parameter=",), (">",), "", ("</parameter>",), ("</function>",)),
    "attr": _Style(
        ('<parameter name="',), ('">', '" >'), "", ("</parameter>",), ("</invoke>", "</function>")
    ),
    "glm": _Style(("<arg_key>",), ("</arg_key>",), "<arg_value>", ("</arg_value>",), ()),
}


class FunctionReader:
    """`<function=NAME>` and kin: the name, then XML-style parameters or a JSON object."""

    def __init__(self, m: Machine, owner: Owner, at: int, opener: str) -> None:
        self.owner = owner
        self._opener = opener
        self._item = m.begin_item(at)
        self._closers = ("</invoke>",) if opener.startswith("<invoke") else ("</function>",)
        self._name_end = ">" if opener == "<function=" else '"'
        self._name: str | None = None

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._name is None:
            return self._read_name(m, buf, i)
        j = skip_space(buf, i)
        if j > i:
            return j
        if i >= len(buf):
            return i
        length, token = match_token(
            buf, i, ("<parameter=", '<parameter name="', *self._closers), m.final
        )
        owner_closer = self.owner.closer_at(m, buf, i)
        if length == PARTIAL or (length == NO and owner_closer == PARTIAL):
            return i
        if length == NO and owner_closer == NO and buf[i] != "{":
            return self._not_a_call(m, i)
        m.confirm()
        m.pop(self)
        index = m.start_call(m.resolve(self._name), self._item)
        if buf[i] == "{":
            m.push(ArgsReader(self.owner, index, trailers=(self._closers,)))
            return i
        if token in self._closers or length == NO:  # no parameters
            m.arguments(index, "{")
            m.complete_call(index, "}")
            self.owner.item_done(m, "ok")
            return i + max(length, 0)
        style = "qwen" if token == "<parameter=" else "attr"
        m.push(XmlParams(m, self.owner, index, self._name, style, self._closers))
        return i

    def _read_name(self, m: Machine, buf: str, i: int) -> int:
        start = i + len(self._opener)
        end = buf.find(self._name_end, start, start + _NAME_LIMIT + 1)
        if end < 0:
            if len(buf) - start <= _NAME_LIMIT and not m.final:
                return i
            return self._not_a_call(m, start)
        name = buf[start:end].strip()
        after = end + 1
        if self._name_end == '"':
            length, _ = match_token(buf, after, (">", " >"), m.final)
            if length == PARTIAL:
                return i
            if length == NO:
                return self._not_a_call(m, start)
            after += length
        if not name or any(c in name for c in "<>\n"):
            return self._not_a_call(m, start)
        self._name = name
        return after

    def _not_a_call(self, m: Machine, i: int) -> int:
        if m.undecided:
            return m.reject(i)
        # Inside a block already holding calls: this tag is text.
        text = m.end_item(self._item, i)
        m.pop(self)
        m.content(text)
        self.owner.item_done(m, "text")
        return i

    def eof(self, m: Machine) -> None:
        if self._name is not None:
            m.invalid_call(
                m.start_call(m.resolve(self._name), self._item),
                "the text ended before the call's arguments (truncated)",
            )
        else:
            m.drop_item(self._item)


class XmlParams:
    """Parameters until the function's closer (or the enclosing block's, for GLM)."""

    _BETWEEN, _KEY, _GAP, _VALUE = range(4)

    def __init__(
        self,
        m: Machine,
        owner: Owner,
        index: int,
        name: str,
        style: str,
        function_closers: tuple[str, ...] = (),
    ) -> None:
        self.owner = owner
        self.index = index
        self._spec = m.spec(m.resolve(name))
        self._style = _STYLES[style]
        self._function_closers = function_closers or self._style.function_closers
        self._state = self._BETWEEN
        self._key: list[str] = []
        self._value: list[str] = []
        self._count = 0

    def step(self, m: Machine, buf: str, i: int) -> int:
        state = self._state
        if state == self._BETWEEN:
            return self._between(m, buf, i)
        if state == self._KEY:
            return self._read_key(m, buf, i)
        if state == self._GAP:
            return self._gap(m, buf, i)
        return self._read_value(m, buf, i)

    def _between(self, m: Machine, buf: str, i: int) -> int:
        j = skip_space(buf, i)
        if j > i or j >= len(buf):
            return j
        style = self._style
        length, token = match_token(buf, i, style.openers + self._function_closers, m.final)
        if length == PARTIAL:
            return i
        if length > 0:
            if token in self._function_closers:
                return self._finish(m, i + length)
            self._state = self._KEY
            self._key = []
            return i + length
        closer = self.owner.closer_at(m, buf, i)
        if closer == PARTIAL:
            return i
        if closer > 0:
            return self._finish(m, i)
        # Stray text between parameters: skipped up to the next tag.
        j = buf.find("<", i + 1)
        return j if j >= 0 else len(buf)

    def _read_key(self, m: Machine, buf: str, i: int) -> int:
        ends = self._style.key_ends
        limit = i + _KEY_LIMIT - sum(map(len, self._key))  # a fixed place in the text
        at, token = find_first(buf, i, ends)
        if 0 <= at <= limit:
            self._key.append(buf[i:at])
            self._state = self._GAP if self._style.value_opener else self._VALUE
            self._value = []
            return at + len(token)
        j = min(safe_end(buf, i, ends, m.final), limit)
        self._key.append(buf[i:j])
        if j == limit or m.final:
            return self._fail(m, j, "a parameter name that does not end")
        return j

    def _gap(self, m: Machine, buf: str, i: int) -> int:
        j = skip_space(buf, i)
        if j > i:
            return j
        length, _ = match_token(buf, i, (self._style.value_opener,), m.final)
        if length == PARTIAL or (length == NO and i >= len(buf)):
            return i
        if length == NO:
            return self._fail(m, i, f"expected {self._style.value_opener} after a parameter name")
        self._state = self._VALUE
        return i + length

    def _read_value(self, m: Machine, buf: str, i: int) -> int:
        j = buf.find("<", i)
        if j < 0:
            j = len(buf)
        if j > i:
            self._value.append(buf[i:j])
            return j
        if i >= len(buf):
            return i
        # A value ends at its closer; a missing one is forgiven before the next parameter or the
        # function's end. Not at the enclosing block's closer: values (code, say) may hold it.
        style = self._style
        length, token = match_token(
            buf, i, style.closers + style.openers + self._function_closers, m.final
        )
        if length == PARTIAL:
            return i
        if length > 0:
            self._end_value(m)
            return i + length if token in style.closers else i
        self._value.append("<")
        return i + 1

    def _end_value(self, m: Machine) -> None:
        key = "".join(self._key).strip()
        raw = "".join(self._value)
        if raw.startswith("\n"):
            raw = raw[1:]
        if raw.endswith("\n"):
            raw = raw[:-1]
        value: Any = self._spec.typed_value(key, raw) if self._spec else raw
        try:
            text = json.dumps(value, ensure_ascii=False)
        except (TypeError, ValueError, RecursionError):
            text = json.dumps(raw, ensure_ascii=False)
        opening = "{" if self._count == 0 else ", "
        m.arguments(self.index, f"{opening}{json.dumps(key, ensure_ascii=False)}: {text}")
        self._count += 1
        self._state = self._BETWEEN

    def _finish(self, m: Machine, after: int) -> int:
        if self._count == 0:
            m.arguments(self.index, "{")
        m.complete_call(self.index, "}", upto=after)
        m.pop(self)
        self.owner.item_done(m, "ok")
        return after

    def _fail(self, m: Machine, at: int, reason: str) -> int:
        m.invalid_call(self.index, reason, at)
        m.pop(self)
        self.owner.item_done(m, "failed")
        return at

    def eof(self, m: Machine) -> None:
        # Without the function's own closer the reply may have been cut before its next
        # parameter: never a call (only an enclosing block's closer may be missing).
        where = "before the call's end" if self._state == self._BETWEEN else "inside a parameter"
        m.invalid_call(self.index, f"the text ended {where} (truncated)")
