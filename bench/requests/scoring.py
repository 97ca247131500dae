"""Scoring a conversation the loop ran against its item, and the suite's target metrics.

Per turn:
- an expected call is matched by a call of that turn with its name, arguments passing its checks
  (an argument left out counts as the schema's default; arguments the item does not check are
  free) and a result that is no error and passes its result checks; expected calls match calls in
  any order, each call serving one expected call at most (a maximum matching);
- the turn's calls are right when every expected call is matched and every other call either
  failed (an error result: nothing happened, the model may correct itself) or is to a tool the
  turn allows (`also_ok`); a repeated or made-up extra call is wrong;
- the answer is right when the run stopped with an answer, wrote something, and every answer
  check passes (a `from_result` check reads the result of the call matched to its expected call).
An item is right on a count when all its turns are.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .checks import MISSING
from .suite import KINDS, ExpectedCall, Item, Kind, UserTurn

__all__ = [
    "METRICS",
    "ItemScore",
    "Metric",
    "RanCall",
    "RanTurn",
    "TurnScore",
    "call_matches",
    "match_calls",
    "score_item",
    "tally",
]


@dataclass(frozen=True, slots=True)
class RanCall:
    name: str
    arguments: Mapping[str, Any] | None
    """None when the model's argument text did not parse."""
    result: str
    is_error: bool = False


@dataclass(frozen=True, slots=True)
class RanTurn:
    calls: tuple[RanCall, ...]
    answer: str
    stop_reason: str


def call_matches(expected: ExpectedCall, call: RanCall, defaults: Mapping[str, Any]) -> bool:
    if call.name != expected.name or call.is_error or call.arguments is None:
        return False
    for name, check in expected.arguments.items():
        default = defaults.get(name, MISSING)
        if not check.passes(call.arguments.get(name, default), default):
            return False
    return all(check.passes(call.result) for check in expected.result)


def match_calls(
    expected: Sequence[ExpectedCall], calls: Sequence[RanCall], defaults: Mapping[str, Any]
) -> list[int | None]:
    """For each expected call, the index of the call matched to it (None: unmatched), with as
    many matched as possible (Kuhn's augmenting paths; a turn has a handful of calls)."""
    fits = [
        [j for j, call in enumerate(calls) if call_matches(e, call, defaults.get(e.name, {}))]
        for e in expected
    ]
    owner: dict[int, int] = {}

    def assign(i: int, visited: set[int]) -> bool:
        for j in fits[i]:
            if j not in visited:
                visited.add(j)
                if j not in owner or assign(owner[j], visited):
                    owner[j] = i
                    return True
        return False

    for i in range(len(expected)):
        assign(i, set())
    matched: list[int | None] = [None] * len(expected)
    for j, i in owner.items():
        matched[i] = j
    return matched


@dataclass(frozen=True, slots=True)
class TurnScore:
    matched: tuple[int | None, ...]
    unexpected: tuple[RanCall, ...]
    answer_failures: tuple[str, ...]

    @property
    def parts_called(self) -> bool:
        return all(m is not None for m in self.matched)

    @property
    def calls_right(self) -> bool:
        return self.parts_called and not self.unexpected

    @property
    def answer_right(self) -> bool:
        return not self.answer_failures


def score_turn(
    turn: UserTurn, ran: RanTurn, defaults: Mapping[str, Mapping[str, Any]]
) -> TurnScore:
    matched = match_calls(turn.calls, ran.calls, defaults)
    used = {j for j in matched if j is not None}
    unexpected = tuple(
        call
        for j, call in enumerate(ran.calls)
        if j not in used and not call.is_error and call.name not in turn.also_ok
    )
    results = [None if j is None else ran.calls[j].result for j in matched]
    failures = []
    if ran.stop_reason != "answer":
        failures.append(f"stopped: {ran.stop_reason}")
    elif not ran.answer.strip():
        failures.append("empty answer")
    else:
        failures.extend(repr(c) for c in turn.answer if not c.passes(ran.answer, results))
    return TurnScore(tuple(matched), unexpected, tuple(failures))


@dataclass(frozen=True, slots=True)
class ItemScore:
    turns: tuple[TurnScore, ...]
    complete: bool
    """False when the run ended before the item's last turn (an error)."""

    @property
    def parts_called(self) -> bool:
        return self.complete and all(t.parts_called for t in self.turns)

    @property
    def calls_right(self) -> bool:
        return self.complete and all(t.calls_right for t in self.turns)

    @property
    def answer_right(self) -> bool:
        return self.complete and all(t.answer_right for t in self.turns)

    def reasons(self, item: Item) -> list[str]:
        """What went wrong, turn by turn, for reading a run's results."""
        reasons = [] if self.complete else ["the run ended early"]
        for number, (turn, score) in enumerate(zip(item.turns, self.turns, strict=False), 1):
            for expected, m in zip(turn.calls, score.matched, strict=True):
                if m is None:
                    reasons.append(f"turn {number}: no right {expected.name} call")
            for call in score.unexpected:
                reasons.append(
                    f"turn {number}: unexpected {call.name}({dict(call.arguments or {})})"
                )
            reasons.extend(f"turn {number}: answer: {f}" for f in score.answer_failures)
        return reasons


def score_item(
    item: Item, ran: Sequence[RanTurn], defaults: Mapping[str, Mapping[str, Any]]
) -> ItemScore:
    """`defaults`: tool name -> parameter -> default (`Toolset.defaults()`)."""
    turns = tuple(score_turn(t, r, defaults) for t, r in zip(item.turns, ran, strict=False))
    return ItemScore(turns=turns, complete=len(ran) >= len(item.turns))


@dataclass(frozen=True, slots=True)
class Metric:
    name: str
    label: str
    kinds: tuple[Kind, ...]
    passes: Callable[[ItemScore], bool]
    target: float | None


METRICS = (
    Metric(
        "tool_calls",
        "needs a tool: the right call(s)",
        ("single", "multi", "followup"),
        lambda s: s.calls_right,
        0.90,
    ),
    Metric("no_call", "no tool fits: no call", ("none",), lambda s: s.calls_right, 0.90),
    Metric(
        "all_parts", "multi-part: every part called", ("multi",), lambda s: s.parts_called, 0.80
    ),
    Metric("answer", "final answer right", KINDS, lambda s: s.answer_right, 0.85),
    Metric(
        "ask",
        "value missing: asks, no call",
        ("ask",),
        lambda s: s.calls_right and s.answer_right,
        None,
    ),
)


def tally(scored: Iterable[tuple[Item, ItemScore]]) -> dict[str, tuple[int, int]]:
    """Each metric's (right, counted) over the items it applies to."""
    counts = {m.name: [0, 0] for m in METRICS}
    for item, score in scored:
        for metric in METRICS:
            if item.kind in metric.kinds:
                counts[metric.name][0] += metric.passes(score)
                counts[metric.name][1] += 1
    return {name: (right, total) for name, (right, total) in counts.items()}
