"""The public scanner: text in, in any chunks; content, reasoning and calls out."""

from __future__ import annotations

from collections.abc import Iterable

from ..errors import UsageError
from ._events import ScanEvent
from ._machine import Machine
from ._markers import MARKERS, REASONING_CLOSERS
from ._profiles import Profile, get_profile
from ._text import TextMode
from ._tools import ToolLike, tool_specs

__all__ = ["Scanner"]


class Scanner:
    """Reads a model's reply as it streams and reports content, reasoning and tool calls.

    `feed(chunk)` returns the events the chunk settles; `close()` ends the reply and returns the
    rest. One pass, no I/O: each character is examined a bounded number of times, and only a
    possible partial marker is held back. The events do not depend on how the text was chunked.

    `tools` are the tools the model was offered (names, dicts with a JSON Schema, or toolwire
    tools). Behind an explicit marker (`<tool_call>`, a ```` ```tool_call ```` fence,
    `[TOOL_CALLS]`, special tokens...) a call is a call whatever its name, and its arguments
    stream as written.
    Without one (bare JSON, `f(x=1)` at the start of the reply), or behind a weak one
    (```` ```json ````, `<code>`), it must name a known tool and be whole and well-formed before
    it counts. Positional arguments and XML-style values are read by the tool's schema.
    `profile` is a `Profile`, a profile's name (see `PROFILES`), a vLLM tool-parser name or a
    model's name.
    """

    def __init__(
        self, tools: Iterable[ToolLike] = (), *, profile: Profile | str | None = None
    ) -> None:
        specs = tool_specs(tools)
        self.profile = get_profile(profile)
        self._machine = Machine(
            {spec.name: spec for spec in specs}, self.profile, MARKERS, TextMode(at_start=True)
        )
        if self.profile.reasoning_open:
            self._machine.push(
                TextMode(
                    reasoning=True,
                    closers=REASONING_CLOSERS,
                    calls=self.profile.calls_in_reasoning,
                )
            )
        self._closed = False

    def feed(self, chunk: str) -> list[ScanEvent]:
        if self._closed:
            raise UsageError("this scanner is closed: make a new one for the next reply")
        if not isinstance(chunk, str):
            raise UsageError(f"Scanner.feed takes text, not {type(chunk).__name__}")
        return self._machine.feed(chunk)

    def close(self) -> list[ScanEvent]:
        """End of the reply: settle what was held back. Calling it again returns nothing."""
        if self._closed:
            return []
        self._closed = True
        return self._machine.close()
