"""Feeding text to the scanner in different chunkings, and the invariants every run must keep."""

from __future__ import annotations

import json
import random
from collections.abc import Iterable, Sequence
from typing import Any

from toolwire.textcalls import (
    ArgumentsDelta,
    CallCompleted,
    CallInvalid,
    CallStarted,
    ParseResult,
    ScanEvent,
    Scanner,
    parse_calls,
)
from toolwire.textcalls._parse import collect

__all__ = [
    "assert_invariants",
    "assert_same_everywhere",
    "chunkings",
    "events_for",
    "marker_splits",
    "result_for",
]


def events_for(
    chunks: Iterable[str], tools: Sequence[Any] = (), profile: str | None = None
) -> list[ScanEvent]:
    scanner = Scanner(tools, profile=profile)
    events: list[ScanEvent] = []
    for chunk in chunks:
        events += scanner.feed(chunk)
    events += scanner.close()
    assert not scanner._machine._items, "a call attempt's text recorder outlived it"
    return events


def result_for(
    chunks: Iterable[str], tools: Sequence[Any] = (), profile: str | None = None
) -> ParseResult:
    return collect(events_for(chunks, tools, profile))


def random_chunks(text: str, seed: int, low: int = 1, high: int = 8) -> list[str]:
    rng = random.Random(seed)
    chunks, i = [], 0
    while i < len(text):
        size = rng.randint(low, high)
        chunks.append(text[i : i + size])
        i += size
    return chunks


# Where markers begin and end: a split at each of these is where a partial marker must be held.
_BOUNDARY_CHARS = "<>[]|｜`{}():=\n\"'"


def marker_splits(text: str) -> list[list[str]]:
    """The text split in two at every position next to a marker character."""
    cuts = sorted(
        {i for i, c in enumerate(text) if c in _BOUNDARY_CHARS}
        | {i + 1 for i, c in enumerate(text) if c in _BOUNDARY_CHARS}
    )
    return [[text[:cut], text[cut:]] for cut in cuts if 0 < cut < len(text)]


def chunkings(text: str) -> list[list[str]]:
    """Whole, one character at a time, random 1-8 character chunks, and every marker split."""
    return [
        [text],
        list(text),
        *(random_chunks(text, seed) for seed in range(3)),
        *marker_splits(text),
    ]


def assert_invariants(events: list[ScanEvent]) -> None:
    """Each call starts once, gets deltas only while open, and ends exactly once; the deltas of a
    completed call are its raw arguments and parse to its arguments; those of an invalid call
    never parse to an object (so the loop could never run it)."""
    open_calls: dict[int, list[str]] = {}
    ended: set[int] = set()
    for event in events:
        if isinstance(event, CallStarted):
            assert event.index not in open_calls and event.index not in ended
            open_calls[event.index] = []
        elif isinstance(event, ArgumentsDelta):
            assert event.delta
            open_calls[event.index].append(event.delta)
        elif isinstance(event, CallCompleted | CallInvalid):
            raw = "".join(open_calls.pop(event.index))
            ended.add(event.index)
            if isinstance(event, CallCompleted):
                assert raw == event.raw_arguments
                assert json.loads(raw) == event.arguments
            else:
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                assert not isinstance(parsed, dict), raw
    assert not open_calls, f"calls never ended: {sorted(open_calls)}"
    assert ended == set(range(len(ended))), "call indexes are 0, 1, 2... in order"


def assert_same_everywhere(
    text: str, tools: Sequence[Any] = (), profile: str | None = None
) -> ParseResult:
    """Every chunking gives what `parse_calls` gives, with the invariants kept."""
    whole = parse_calls(text, tools, profile=profile)
    for chunks in chunkings(text):
        events = events_for(chunks, tools, profile)
        assert_invariants(events)
        assert collect(events) == whole, (chunks, collect(events), whole)
    return whole
