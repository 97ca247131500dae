"""The whole reply at once: exactly what the scanner reports when fed any chunking of it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ._events import ArgumentsDelta, CallCompleted, CallInvalid, ContentText, ReasoningText
from ._profiles import Profile
from ._scanner import Scanner
from ._tools import ToolLike

__all__ = ["InvalidCall", "ParseResult", "ParsedCall", "collect", "parse_calls"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ParsedCall:
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    """Strict JSON of the arguments (the concatenated argument deltas)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class InvalidCall:
    """A call attempt that must not run: truncated, unparsable, or nameless."""

    name: str
    reason: str
    text: str


@dataclass(frozen=True, kw_only=True, slots=True)
class ParseResult:
    calls: list[ParsedCall] = field(default_factory=list)
    """Calls to run, in order. A name may be unknown: an explicit marker makes it a call, and
    the runtime answers it with "unknown tool"."""
    content: str = ""
    reasoning: str = ""
    invalid: list[InvalidCall] = field(default_factory=list)


def parse_calls(
    text: str, tools: Iterable[ToolLike] = (), *, profile: Profile | str | None = None
) -> ParseResult:
    """Read the calls, content and reasoning in a complete reply."""
    scanner = Scanner(tools, profile=profile)
    return collect([*scanner.feed(text), *scanner.close()])


def collect(events: Iterable[object]) -> ParseResult:
    """Fold scanner events into a result (order kept)."""
    content: list[str] = []
    reasoning: list[str] = []
    finished: list[tuple[int, ParsedCall | InvalidCall]] = []
    deltas: dict[int, list[str]] = {}
    for event in events:
        if isinstance(event, ContentText):
            content.append(event.text)
        elif isinstance(event, ReasoningText):
            reasoning.append(event.text)
        elif isinstance(event, ArgumentsDelta):
            deltas.setdefault(event.index, []).append(event.delta)
        elif isinstance(event, CallCompleted):
            finished.append(
                (
                    event.index,
                    ParsedCall(
                        name=event.name,
                        arguments=dict(event.arguments),
                        raw_arguments=event.raw_arguments,
                    ),
                )
            )
        elif isinstance(event, CallInvalid):
            finished.append(
                (event.index, InvalidCall(name=event.name, reason=event.reason, text=event.text))
            )
    finished.sort(key=lambda pair: pair[0])
    return ParseResult(
        calls=[call for _, call in finished if isinstance(call, ParsedCall)],
        content="".join(content),
        reasoning="".join(reasoning),
        invalid=[call for _, call in finished if isinstance(call, InvalidCall)],
    )
