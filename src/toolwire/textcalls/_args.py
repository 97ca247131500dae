"""The arguments of a call whose name is already known: a JSON object, or a Python argument list.

The argument text streams out as the transducer writes it; the call completes when the value
closes. Formats that close a call with a token after the arguments name it as a trailer (each
trailer is optional and may be spelled several ways).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ._json import LenientJson, ValueKind
from ._util import PARTIAL, match_token, skip_space

if TYPE_CHECKING:
    from ._machine import Machine, Owner, Recorder

__all__ = ["ArgsReader"]


class ArgsReader:
    def __init__(
        self,
        owner: Owner,
        index: int | None,
        *,
        tentative: tuple[str, Recorder] | None = None,
        trailers: Sequence[Sequence[str]] = (),
        call_args: bool = False,
        positional: Sequence[str] = (),
    ) -> None:
        """`index` of the call, started; or None with `tentative` (its name and item) for a
        call with no marker, which only starts once its arguments are whole."""
        self.owner = owner
        self.index = index
        self._tentative = tentative
        self._chunks: list[str] = []
        self._json = LenientJson(self, call_args=call_args, positional=positional)
        self._json.sink = self._chunks
        self._trailers = list(trailers)
        self._done = False

    # The whole value is the arguments: the structure needs no attention.
    def on_key(self, key: str) -> bool:
        return True

    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool:
        return True

    def on_end(self) -> bool:
        return True

    def step(self, m: Machine, buf: str, i: int) -> int:
        if self._done:
            return self._trail(m, buf, i)
        j = self._json.feed(buf, i)
        if self.index is None:
            if self._json.error is not None:
                return m.reject(j)
            if not self._json.done:
                return j
            assert self._tentative is not None
            m.confirm()
            self.index = m.start_call(*self._tentative)
        if self._chunks:
            m.arguments(self.index, "".join(self._chunks))
            self._chunks.clear()
        if self._json.error is not None:
            m.invalid_call(self.index, f"invalid arguments: {self._json.error}", j)
            m.pop(self)
            self.owner.item_done(m, "failed")
        elif self._json.done:
            m.complete_call(self.index, upto=j)
            self._done = True
            if not self._trailers:
                m.pop(self)
                self.owner.item_done(m, "ok")
        return j

    def _trail(self, m: Machine, buf: str, i: int) -> int:
        while self._trailers:
            i = skip_space(buf, i)
            if i >= len(buf) and not m.final:
                return i
            length, _ = match_token(buf, i, self._trailers[0], m.final)
            if length == PARTIAL:
                return i
            self._trailers.pop(0)
            i += max(length, 0)
        m.pop(self)
        self.owner.item_done(m, "ok")
        return i

    def eof(self, m: Machine) -> None:
        if not self._done and self.index is not None:
            m.invalid_call(self.index, "the text ended inside the arguments (truncated)")
