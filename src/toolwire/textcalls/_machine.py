"""The scanner's machinery: a stack of modes over one buffer, and everything modes report through.

Each mode reads from the unconsumed buffer and returns how far it got; returning the index it was
given, with itself still on top, means it needs more text to decide. Modes only stall on bounded
lookahead (a possible partial marker), so the held-back tail stays short and every character is
examined a bounded number of times. At the end of input (`final`) no mode may stall.

Marker-less and weak candidates (a bare JSON object, a ```` ```json ```` fence...) are recorded
while undecided: rejected, their text becomes content as it was written; confirmed, they are calls.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Protocol, TypeAlias

from ._events import (
    ArgumentsDelta,
    CallCompleted,
    CallInvalid,
    CallStarted,
    ContentText,
    ReasoningText,
    ScanEvent,
)
from ._tools import ToolSpec

if TYPE_CHECKING:
    from ._profiles import Profile
    from ._text import MarkerTable

__all__ = ["Machine", "Mode", "Outcome", "Owner", "Recorder"]

_SPACE = " \t\r\n"
# Name forms models write for a tool: `functions.get_weather` (Harmony, Kimi),
# `default_api.get_weather` (Gemma), `brave_search.call` (Llama built-ins).
_PATIENCE = 8  # steps without consuming before a mode counts as waiting

_NAMESPACES = ("functions.", "function.", "tools.", "tool.", "default_api.")


class Mode(Protocol):
    def step(self, m: Machine, buf: str, i: int) -> int: ...
    def eof(self, m: Machine) -> None: ...


Outcome: TypeAlias = Literal["ok", "failed", "text"]
"""How an item ended: a call (valid or not) was read; a call broke (skip to the closer); the
item was no call, its text given back as content."""


class Owner(Protocol):
    """A mode that reads calls through item readers: a tag block, a list, a fence."""

    def item_done(self, m: Machine, outcome: Outcome) -> None: ...

    def closer_at(self, m: Machine, buf: str, i: int) -> int:
        """Length of the owner's closer at `buf[i:]`; 0 when none; -1 when it may be one but
        the buffer ends first."""
        ...


class Recorder:
    __slots__ = ("mark", "parts")

    def __init__(self, mark: int) -> None:
        self.parts: list[str] = []
        self.mark = mark

    def take(self, buf: str, upto: int) -> None:
        if upto > self.mark:
            self.parts.append(buf[self.mark : upto])
            self.mark = upto

    def text(self) -> str:
        return "".join(self.parts)


@dataclass(slots=True)
class _Candidate:
    recorder: Recorder
    base: int
    items: int  # item recorders begun before it
    on_reject: Callable[[Machine], None] | None
    reasoning: bool


@dataclass(slots=True)
class _Call:
    name: str
    chunks: list[str] = field(default_factory=list)
    item: Recorder | None = None


class _TextStream:
    """Content or reasoning, whitespace-trimmed at both ends of the message; whitespace between
    two pieces of text (say, around a call) is kept."""

    __slots__ = ("pending", "started")

    def __init__(self) -> None:
        self.started = False
        self.pending = ""

    def take(self, text: str) -> str:
        core = text.rstrip(_SPACE)
        if not core:
            self.pending += text
            return ""
        out = self.pending + core if self.started else core.lstrip(_SPACE)
        self.pending = text[len(core) :]
        self.started = True
        return out


class Machine:
    def __init__(
        self,
        tools: Mapping[str, ToolSpec],
        profile: Profile,
        markers: MarkerTable,
        base: Mode,
    ) -> None:
        self.tools = tools
        self.profile = profile
        self.markers = markers
        self.final = False
        self.stack: list[Mode] = [base]
        self.events: list[ScanEvent] = []
        self.call_count = 0
        self._buf = ""
        self._current = ""
        self._content = _TextStream()
        self._reasoning = _TextStream()
        self._calls: dict[int, _Call] = {}
        self._candidate: _Candidate | None = None
        self._items: list[Recorder] = []

    # --- driving -----------------------------------------------------------------------------

    def feed(self, chunk: str) -> list[ScanEvent]:
        if self.final:
            return []
        self._buf += chunk
        self._run()
        return self._drain()

    def close(self) -> list[ScanEvent]:
        if self.final:
            return []
        self.final = True
        self._run()
        candidate = self._candidate
        if candidate is not None:  # undecided at the end: it was never a call
            self._candidate = None
            del self.stack[candidate.base :]
            del self._items[candidate.items :]
            self._text(candidate.recorder.text(), candidate.reasoning)
        while self.stack:
            self.stack.pop().eof(self)
        return self._drain()

    def _run(self) -> None:
        buf = self._current = self._buf
        i = 0
        idle = 0
        final = self.final
        size = len(buf)
        while self.stack:
            if i >= size and not final:
                break  # at the end of what arrived every mode would wait
            mode = self.stack[-1]
            j = mode.step(self, buf, i)
            if j > i:
                idle = 0
            else:
                # A mode may change state, or hand over to another, without consuming; one
                # that keeps not consuming is waiting for more text.
                idle += 1
                if idle > _PATIENCE:
                    if not final or i >= size:
                        break
                    # Waiting although no more text will come: a defect. Lose nothing.
                    self._text(buf[i], False)
                    j = i + 1
                    idle = 0
            i = j
        for recorder in self._items:
            recorder.take(buf, i)
            recorder.mark = 0
        if self._candidate is not None:
            self._candidate.recorder.take(buf, i)
            self._candidate.recorder.mark = 0
        self._buf = buf[i:] if i else buf
        self._current = self._buf

    def _drain(self) -> list[ScanEvent]:
        events, self.events = self.events, []
        if len(events) < 2:
            return events
        merged: list[ScanEvent] = []
        for event in events:
            last = merged[-1] if merged else None
            if isinstance(event, ContentText) and isinstance(last, ContentText):
                merged[-1] = ContentText(text=last.text + event.text)
            elif isinstance(event, ReasoningText) and isinstance(last, ReasoningText):
                merged[-1] = ReasoningText(text=last.text + event.text)
            elif (
                isinstance(event, ArgumentsDelta)
                and isinstance(last, ArgumentsDelta)
                and last.index == event.index
            ):
                merged[-1] = ArgumentsDelta(index=event.index, delta=last.delta + event.delta)
            else:
                merged.append(event)
        return merged

    def push(self, mode: Mode) -> None:
        self.stack.append(mode)

    def pop(self, mode: Mode) -> None:
        if self.stack and self.stack[-1] is mode:
            self.stack.pop()

    # --- text --------------------------------------------------------------------------------

    @property
    def content_started(self) -> bool:
        return self._content.started

    def content(self, text: str) -> None:
        self._text(text, False)

    def reasoning(self, text: str) -> None:
        self._text(text, True)

    def _text(self, text: str, reasoning: bool) -> None:
        if not text:
            return
        out = (self._reasoning if reasoning else self._content).take(text)
        if out:
            self.events.append(ReasoningText(text=out) if reasoning else ContentText(text=out))

    # --- candidates --------------------------------------------------------------------------

    @property
    def undecided(self) -> bool:
        return self._candidate is not None

    def begin_candidate(
        self,
        at: int,
        *,
        on_reject: Callable[[Machine], None] | None = None,
        reasoning: bool = False,
    ) -> None:
        """Record from `at` (call before pushing the candidate's mode). Inside an undecided
        candidate this does nothing: the outermost one decides for all."""
        if self._candidate is None:
            self._candidate = _Candidate(
                Recorder(at), len(self.stack), len(self._items), on_reject, reasoning
            )

    def confirm(self) -> None:
        self._candidate = None

    def reject(self, upto: int, *, resume: bool = True) -> int:
        """The candidate is not a call: its text so far is content; resume after it (in the mode
        the candidate asked for, unless the candidate's text is complete: `resume=False`)."""
        candidate = self._candidate
        assert candidate is not None
        self._candidate = None
        recorder = candidate.recorder
        if not recorder.parts and upto <= recorder.mark:
            upto = recorder.mark + 1  # give back at least a character, or it would start again
        recorder.take(self._current, upto)
        del self.stack[candidate.base :]
        del self._items[candidate.items :]
        self._text(candidate.recorder.text(), candidate.reasoning)
        if resume and candidate.on_reject is not None:
            candidate.on_reject(self)
        return upto

    # --- calls -------------------------------------------------------------------------------

    def known(self, name: str) -> bool:
        return name in self.tools

    def resolve(self, name: str) -> str:
        """The tool a written name means: itself, or a known tool it names in a namespace
        (`x.get_weather`) or with Llama's `.call`; else the name without those decorations."""
        if name in self.tools:
            return name
        bare = name.removesuffix(".call") or name
        if bare in self.tools:
            return bare
        last = bare.rsplit(".", 1)[-1]
        if last in self.tools:
            return last
        for namespace in _NAMESPACES:
            if bare.startswith(namespace) and len(bare) > len(namespace):
                return bare[len(namespace) :]
        return bare

    def spec(self, name: str) -> ToolSpec | None:
        return self.tools.get(name)

    def begin_item(self, at: int) -> Recorder:
        """Record a call attempt's own text from `at`, for the report if it proves invalid."""
        recorder = Recorder(at)
        self._items.append(recorder)
        return recorder

    def end_item(self, recorder: Recorder | None, upto: int | None = None) -> str:
        if recorder is None:
            return ""
        if upto is not None:
            recorder.take(self._current, upto)
        if recorder in self._items:
            self._items.remove(recorder)
        return recorder.text()

    def start_call(self, name: str, item: Recorder | None = None) -> int:
        index = self.call_count
        self.call_count += 1
        self._calls[index] = _Call(name=name, item=item)
        self.events.append(CallStarted(index=index, name=name))
        return index

    def arguments(self, index: int, text: str) -> None:
        if text:
            self._calls[index].chunks.append(text)
            self.events.append(ArgumentsDelta(index=index, delta=text))

    def complete_call(self, index: int, tail: str = "", upto: int | None = None) -> None:
        """Finish a call: `tail` is the held-back end of its argument text."""
        call = self._calls.pop(index)
        if tail:
            call.chunks.append(tail)
            self.events.append(ArgumentsDelta(index=index, delta=tail))
        raw = "".join(call.chunks)
        try:
            arguments = json.loads(raw)
        except (ValueError, RecursionError) as error:
            self._calls[index] = call
            self.invalid_call(index, f"the arguments do not parse: {error}", upto)
            return
        if not isinstance(arguments, dict):
            self._calls[index] = call
            self.invalid_call(index, "the arguments are not an object", upto)
            return
        self.end_item(call.item, upto)
        self.events.append(
            CallCompleted(index=index, name=call.name, arguments=arguments, raw_arguments=raw)
        )

    def invalid_call(
        self,
        index: int | None,
        reason: str,
        upto: int | None = None,
        item: Recorder | None = None,
    ) -> None:
        """Report an attempt that must not run; `index` None when it never got a name (then it
        starts here, named "")."""
        if index is None:
            index = self.start_call("", item)
        call = self._calls.pop(index)
        text = self.end_item(call.item, upto)
        self.events.append(CallInvalid(index=index, name=call.name, reason=reason, text=text))

    def drop_item(self, recorder: Recorder | None) -> None:
        if recorder is not None and recorder in self._items:
            self._items.remove(recorder)
