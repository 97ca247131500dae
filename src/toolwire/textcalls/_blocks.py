"""Blocks that hold calls (tag pairs, tool fences, prefix tokens) and lists of calls.

A block reads items until its closer: JSON call objects, lists, Python-style calls, XML-style
functions, or whatever reader its format names. An explicit block is a call attempt as soon as its
body starts like a call; a weak one (```` ```json ````, `<code>`) only with a known tool's name.
A body that does not start like a call means the marker was prose: it is given back as content.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ._readers import JsonCallReader, NamedCallReader
from ._util import (
    IDENT_START,
    NO,
    PARTIAL,
    fence_mark,
    find_first,
    match_token,
    safe_end,
    skip_space,
)
from ._xml import FUNCTION_OPENERS, FunctionReader

if TYPE_CHECKING:
    from ._machine import Machine, Mode, Outcome, Owner

__all__ = ["Block", "BlockSpec", "ItemFactory", "ListReader", "start_item"]

ItemFactory = Callable[["Machine", "Owner", int, str], "Mode"]
"""Builds the reader for an item that starts with a format's own token."""

PUSHED = 1
_ITEMS, _SKIP, _RESIDUAL = range(3)


@dataclass(frozen=True, kw_only=True, slots=True)
class BlockSpec:
    closers: tuple[str, ...] = ()
    """Consumed at the end; with none, the block ends where its items do."""
    explicit: bool = True
    single: bool = False
    """One item only (Mistral's `[TOOL_CALLS]`, `functools[`)."""
    lists_only: bool = False
    """The body must be a list, right after the marker (`functools[`)."""
    inner: tuple[str, ...] = ()
    """Tokens of the same family skipped between items (a repeated opener, nested wrappers)."""
    item_markers: tuple[tuple[str, ItemFactory], ...] = ()
    fence: bool = False
    glm: bool = False
    """A bare name may be followed by `<arg_key>` parameters (GLM)."""
    mistral: bool = False
    """A bare name may be followed by `[ARGS]` / `[CALL_ID]` (Mistral v11)."""


def start_item(
    m: Machine,
    owner: Owner,
    buf: str,
    i: int,
    *,
    explicit: bool,
    glm: bool = False,
    mistral: bool = False,
) -> int:
    """Push the reader for the call that starts at `buf[i]`: PUSHED, PARTIAL or NO."""
    char = buf[i]
    if char == "{" or char == "[":
        if explicit:
            m.confirm()
        m.push(JsonCallReader(m, owner, i) if char == "{" else ListReader(m, owner, i))
        return PUSHED
    if char == "<":
        length, opener = match_token(buf, i, FUNCTION_OPENERS, m.final)
        if length == PARTIAL:
            return PARTIAL
        if length > 0:
            m.push(FunctionReader(m, owner, i, opener))
            return PUSHED
        return NO
    if char in IDENT_START:
        m.push(
            NamedCallReader(
                m, owner, i, explicit=explicit, json_args=True, glm=glm, mistral=mistral
            )
        )
        return PUSHED
    return NO


class Block:
    def __init__(self, spec: BlockSpec) -> None:
        self.spec = spec
        self.items = 0
        self._state = _ITEMS

    def closer_at(self, m: Machine, buf: str, i: int) -> int:
        return match_token(buf, i, self.spec.closers, m.final)[0]

    def item_done(self, m: Machine, outcome: Outcome) -> None:
        if outcome != "text":
            self.items += 1
        if self.spec.single or (outcome != "ok" and not self.spec.closers):
            m.pop(self)  # one item only, or no closer to read up to
        elif outcome == "failed":
            self._state = _SKIP  # the rest of a broken call, up to the closer
        elif outcome == "text":
            self._state = _RESIDUAL

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._state != _ITEMS:
            return self._until_closer(m, buf, i)
        spec = self.spec
        if not spec.lists_only:
            j = skip_space(buf, i)
            if j > i:
                return j
        if i >= len(buf):
            return i
        length = self.closer_at(m, buf, i)
        if length > 0:
            return self._close(m, i + length)
        if length == PARTIAL:
            return i
        if spec.lists_only:
            if buf[i] != "[":
                return m.reject(i) if m.undecided else self._end(m, buf, i)
            m.confirm()
            m.push(ListReader(m, self, i))
            return i
        if buf[i] in ",;" and self.items:
            return i + 1
        skipped = self._skippable(m, buf, i)
        if skipped != NO:
            return i if skipped == PARTIAL else i + skipped
        for marker, factory in spec.item_markers:
            length, _ = match_token(buf, i, (marker,), m.final)
            if length == PARTIAL:
                return i
            if length > 0:
                m.confirm()
                m.push(factory(m, self, i, marker))
                return i
        started = start_item(
            m, self, buf, i, explicit=spec.explicit, glm=spec.glm, mistral=spec.mistral
        )
        if started == PARTIAL:
            return i
        if started == PUSHED:
            return i
        found = m.markers.match(buf, i, m.final)  # a tag inside a fence (```json <tool_call>)
        if found == PARTIAL:
            return i
        if isinstance(found, tuple):
            marker, action = found
            resumed = action(m, self, buf, i, marker, False)
            if resumed >= 0:
                return resumed
        if m.undecided:
            return m.reject(i)
        return self._end(m, buf, i)

    def _skippable(self, m: Machine, buf: str, i: int) -> int:
        length, _ = match_token(buf, i, self.spec.inner, m.final)
        if length != NO or self.spec.fence or buf[i] != "`":
            return length
        # A fence inside a tag (`<tool_call>```json {...}```</tool_call>`): its marks go.
        return fence_mark(buf, i, m.final)

    def _end(self, m: Machine, buf: str, i: int) -> int:
        """Text that is no call, after calls: it is content, up to the closer if there is one."""
        if not self.spec.closers:
            m.pop(self)
            return i
        self._state = _RESIDUAL
        return self._until_closer(m, buf, i)

    def _close(self, m: Machine, after: int) -> int:
        m.pop(self)
        if m.undecided:
            if not self.spec.explicit:
                return m.reject(after, resume=False)  # a fence with no call in it: text
            m.confirm()  # an empty explicit block (`<tool_call>[]</tool_call>`): no call
        return after

    def _until_closer(self, m: Machine, buf: str, i: int) -> int:
        at, closer = find_first(buf, i, self.spec.closers)
        end = at if at >= 0 else safe_end(buf, i, self.spec.closers, m.final)
        if self._state == _RESIDUAL and end > i:
            m.content(buf[i:end])
        if at >= 0:
            m.pop(self)
            return at + len(closer)
        return end

    def eof(self, m: Machine) -> None:
        pass


class ListReader:
    """`[call, call, ...]`: JSON call objects or Python-style calls."""

    def __init__(self, m: Machine, owner: Owner, at: int) -> None:
        self.owner = owner
        self.items = 0
        self._opened = False

    def closer_at(self, m: Machine, buf: str, i: int) -> int:
        return NO

    def item_done(self, m: Machine, outcome: Outcome) -> None:
        if outcome == "ok":
            self.items += 1
            return
        m.pop(self)
        self.owner.item_done(m, "failed")

    def step(self, m: Machine, buf: str, i: int) -> int:
        if not self._opened:
            self._opened = True
            return i + 1  # the '['
        j = skip_space(buf, i)
        if j > i:
            return j
        if i >= len(buf):
            return i
        char = buf[i]
        if char == "]":
            if not self.items and m.undecided:
                return m.reject(i + 1, resume=False)
            m.pop(self)
            self.owner.item_done(m, "ok")
            return i + 1
        if char == "," and self.items:
            return i + 1
        if char == "{":
            m.push(JsonCallReader(m, self, i))
            return i
        if char in IDENT_START:
            m.push(NamedCallReader(m, self, i, explicit=not m.undecided, json_args=False))
            return i
        if m.undecided:
            return m.reject(i)
        m.pop(self)
        if not self.items:
            m.invalid_call(None, f"a list that holds no call: found {char!r}")
        self.owner.item_done(m, "failed")
        return i

    def eof(self, m: Machine) -> None:
        pass
