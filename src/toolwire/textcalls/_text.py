"""Text modes: content and reasoning, code fences and inline code spans.

Content is where markers are looked for. Inline code spans and code fences in a language other
than a tool's are passed through untouched: a call written there is an example, not a call.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from ._util import IDENT_START, NO, PARTIAL, match_token, skip_space

if TYPE_CHECKING:
    from ._machine import Machine, Mode, Outcome, Owner

__all__ = ["Action", "FenceOpen", "InlineCode", "MarkerTable", "RawFence", "TextMode"]

# Fences whose body is a call, explicitly, and fences that may hold one (a known tool's name).
TOOL_FENCES = frozenset(
    {
        "tool_call",
        "tool_calls",
        "tool_code",
        "tool",
        "tools",
        "tool_use",
        "function_call",
        "function_calls",
        "functions",
    }
)
NEUTRAL_FENCES = frozenset({"", "json", "json5", "jsonc", "xml"})
_MAX_BACKTICKS = 32
_INFO = re.compile(r"[ \t]*([A-Za-z0-9_+\-.:]*)")
_BACKTICKS = re.compile(r"`+")
_CODE_END = re.compile(r"[`\n]")


class _Ticks:
    """Backtick runs, read whole: a run shorter than `_MAX_BACKTICKS` is waited for until it
    ends; a longer one is plain text, taken as it comes and continued across chunks, so that no
    chunk boundary can split it into a fence or a code span."""

    def __init__(self) -> None:
        self.long = False

    def run(self, m: Machine, buf: str, i: int) -> tuple[int, bool] | None:
        """(end of the run at `i`, whether it is plain text), or None to wait for more."""
        match = _BACKTICKS.match(buf, i)
        assert match is not None
        end = match.end()
        at_end = end == len(buf) and not m.final
        if self.long or end - i >= _MAX_BACKTICKS:
            self.long = at_end
            return end, True
        if at_end:
            return None
        return end, False

    def settle(self, buf: str, i: int) -> None:
        if self.long and i < len(buf) and buf[i] != "`":
            self.long = False


class Action(Protocol):
    """What a marker does where it is found: returns the index to resume at, or -1 to decline
    (the marker is then plain text)."""

    def __call__(
        self, m: Machine, owner: Owner, buf: str, i: int, marker: str, reasoning: bool
    ) -> int: ...


class MarkerTable:
    def __init__(self, entries: Sequence[tuple[str, Action]]) -> None:
        by_first: dict[str, list[tuple[str, Action]]] = {}
        for marker, action in sorted(entries, key=lambda e: -len(e[0])):
            by_first.setdefault(marker[0], []).append((marker, action))
        self._by_first = by_first
        self.first_chars = frozenset(by_first)
        self._prefixes = {m[:k] for m, _ in entries for k in range(1, len(m))}
        self._longest = max(len(m) for m, _ in entries)

    def match(self, buf: str, i: int, final: bool) -> tuple[str, Action] | int:
        """(marker, action) at `buf[i:]`, or PARTIAL / NO."""
        for marker, action in self._by_first.get(buf[i], ()):
            if buf.startswith(marker, i):
                return marker, action
        if not final and len(buf) - i < self._longest and buf[i:] in self._prefixes:
            return PARTIAL
        return NO


class TextMode:
    """Content or reasoning until one of `closers` (consumed) or `stops` (left for the parent).
    With `calls`, markers start calls; with `at_start` (the reply's own content), so may a
    marker-less call at the very beginning (a known tool's name is then required)."""

    def __init__(
        self,
        *,
        reasoning: bool = False,
        closers: Sequence[str] = (),
        stops: Sequence[str] = (),
        calls: bool = True,
        at_start: bool = False,
    ) -> None:
        self.reasoning = reasoning
        self.closers = tuple(closers)
        self.stops = tuple(stops)
        self.calls = calls
        self.at_start = at_start
        self._bare = False  # the item being read is a marker-less call
        self._after_bare_call = False  # `;` or `,` may separate marker-less calls
        self._ticks = _Ticks()
        self._interesting: re.Pattern[str] | None = None

    def _pattern(self, m: Machine) -> re.Pattern[str]:
        if self._interesting is None:
            chars = {t[0] for t in self.closers + self.stops}
            if self.calls:
                chars |= m.markers.first_chars | {"`"}
            self._interesting = re.compile("[" + re.escape("".join(sorted(chars))) + "]")
        return self._interesting

    def emit(self, m: Machine, text: str) -> None:
        if self.reasoning:
            m.reasoning(text)
        else:
            m.content(text)

    def step(self, m: Machine, buf: str, i: int) -> int:
        if i >= len(buf):
            return i
        self._ticks.settle(buf, i)
        if self.at_start and self.calls and not m.content_started:
            j = skip_space(buf, i)
            if j > i:
                self.emit(m, buf[i:j])
                return j
            return self._special(m, buf, i, at_start=True)
        found = self._pattern(m).search(buf, i)
        j = found.start() if found else len(buf)
        if j > i:
            self.emit(m, buf[i:j])
            return j
        return self._special(m, buf, i, at_start=False)

    def _special(self, m: Machine, buf: str, i: int, *, at_start: bool) -> int:
        length, _ = match_token(buf, i, self.closers, m.final)
        if length > 0:
            m.pop(self)
            return i + length
        stop, _ = match_token(buf, i, self.stops, m.final)
        if stop > 0:
            m.pop(self)
            return i
        if length == PARTIAL or stop == PARTIAL:
            return i
        if self.calls:
            if buf[i] == "`":
                return self._backticks(m, buf, i)
            found = m.markers.match(buf, i, m.final)
            if found == PARTIAL:
                return i
            if isinstance(found, tuple):
                marker, action = found
                j = action(m, self, buf, i, marker, self.reasoning)
                if j >= 0:
                    self._bare = self._after_bare_call = False
                    return j
            if at_start:
                return self._marker_less(m, buf, i)
        self.emit(m, buf[i])
        return i + 1

    def _marker_less(self, m: Machine, buf: str, i: int) -> int:
        # Imported here: the readers build on this module's modes.
        from ._blocks import ListReader
        from ._readers import JsonCallReader, NamedCallReader

        char = buf[i]
        if m.profile.functionary:
            length, _ = match_token(buf, i, ("all\n",), m.final)
            if length == PARTIAL:
                return i
            if length > 0:  # Functionary: "all" opens plain text
                return i + length
        if char in ";," and self._after_bare_call:  # `{...}; {...}`
            self._after_bare_call = False
            return i + 1
        if char not in "{[" and char not in IDENT_START:
            self.emit(m, char)
            return i + 1
        m.begin_candidate(i)  # first: the reader's own records belong to the candidate
        reader: Mode
        if char == "{":
            reader = JsonCallReader(m, self, i)
        elif char == "[":
            reader = ListReader(m, self, i)
        else:
            reader = NamedCallReader(m, self, i, explicit=False, json_args=True)
        m.push(reader)
        self._bare = True
        return i

    def _backticks(self, m: Machine, buf: str, i: int) -> int:
        run = self._ticks.run(m, buf, i)
        if run is None:
            return i  # the run may go on
        end, plain = run
        if not plain and end - i >= 3:
            m.push(FenceOpen(end - i, self.reasoning))
            return i
        self.emit(m, buf[i:end])
        if not plain:
            m.push(InlineCode(end - i, self.reasoning))
        return end

    # As the owner of marker-less items: nothing to close.
    def item_done(self, m: Machine, outcome: Outcome) -> None:
        self._after_bare_call = self._bare and outcome == "ok"
        self._bare = False

    def closer_at(self, m: Machine, buf: str, i: int) -> int:
        return NO

    def eof(self, m: Machine) -> None:
        pass


def _emit(m: Machine, text: str, reasoning: bool) -> None:
    if reasoning:
        m.reasoning(text)
    else:
        m.content(text)


class InlineCode:
    """`code`: text until the same run of backticks, or the end of the line."""

    def __init__(self, ticks: int, reasoning: bool) -> None:
        self.ticks = ticks
        self.reasoning = reasoning
        self._ticks = _Ticks()

    def step(self, m: Machine, buf: str, i: int) -> int:
        self._ticks.settle(buf, i)
        found = _CODE_END.search(buf, i)
        j = found.start() if found else len(buf)
        if j > i:
            _emit(m, buf[i:j], self.reasoning)
            return j
        if i >= len(buf):
            return i
        if buf[i] == "\n":
            _emit(m, "\n", self.reasoning)
            m.pop(self)
            return i + 1
        run = self._ticks.run(m, buf, i)
        if run is None:
            return i
        end, plain = run
        _emit(m, buf[i:end], self.reasoning)
        if not plain and end - i == self.ticks:
            m.pop(self)
        return end

    def eof(self, m: Machine) -> None:
        pass


class RawFence:
    """The body of a fence that is not a tool's: text, closer included."""

    def __init__(self, ticks: int, reasoning: bool) -> None:
        self.ticks = ticks
        self.reasoning = reasoning
        self._ticks = _Ticks()

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._ticks.long and i < len(buf) and buf[i] != "`":
            m.pop(self)  # a long closing run has ended
            return i
        j = buf.find("`", i)
        if j < 0:
            j = len(buf)
        if j > i:
            _emit(m, buf[i:j], self.reasoning)
            return j
        if i >= len(buf):
            return i
        run = self._ticks.run(m, buf, i)
        if run is None:
            return i
        end, _ = run
        _emit(m, buf[i:end], self.reasoning)
        if end - i >= self.ticks and not self._ticks.long:
            m.pop(self)
        return end

    def eof(self, m: Machine) -> None:
        pass


class FenceOpen:
    """At a run of three or more backticks: read the info string and open the right fence."""

    def __init__(self, ticks: int, reasoning: bool) -> None:
        self.ticks = ticks
        self.reasoning = reasoning

    def step(self, m: Machine, buf: str, i: int) -> int:
        from ._blocks import Block, BlockSpec

        info = _INFO.match(buf, i + self.ticks)
        assert info is not None
        end = info.end()
        if end == len(buf) and not m.final and end - i < 64:
            return i
        language = info.group(1).lower()
        m.pop(self)
        ticks, reasoning = self.ticks, self.reasoning
        if language in TOOL_FENCES or language in NEUTRAL_FENCES:
            explicit = language in TOOL_FENCES
            m.begin_candidate(
                i,
                on_reject=_raw_fence(ticks, reasoning),
                reasoning=reasoning,
            )
            m.push(Block(BlockSpec(closers=("`" * ticks,), explicit=explicit, fence=True)))
            return end
        _emit(m, buf[i:end], reasoning)
        m.push(RawFence(ticks, reasoning))
        return end

    def eof(self, m: Machine) -> None:
        pass


def _raw_fence(ticks: int, reasoning: bool) -> Callable[[Machine], None]:
    def push(m: Machine) -> None:
        m.push(RawFence(ticks, reasoning))

    return push
