"""Loop detection: the same call, or the same error, over and over."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)


Verdict = Literal["ok", "warn", "stop"]


class LoopGuard:
    """Counts repeats across turns. At `threshold` the model gets a warning instead of a result;
    past it, the run stops. Same call = same tool and same canonical arguments; same error = same
    text. Repeats within one turn count once: a model may fan out identical calls on purpose."""

    def __init__(self, threshold: int | None) -> None:
        self.threshold = threshold
        self._counts: Counter[object] = Counter()
        self._this_turn: set[object] = set()
        self.last_result: dict[tuple[str, str], str] = {}
        self.tripped = False

    def begin_turn(self) -> None:
        self._this_turn.clear()

    def check_call(
        self, name: str, arguments: Mapping[str, Any]
    ) -> tuple[Verdict, tuple[str, str]]:
        key = (name, canonical_arguments(arguments))
        return self._count(key), key

    def check_error(self, text: str) -> Verdict:
        return self._count(("error", text))

    def repeats(self, key: tuple[str, str]) -> int:
        return self._counts[key]

    def _count(self, key: object) -> Verdict:
        if key in self._this_turn:
            return "ok"
        self._this_turn.add(key)
        self._counts[key] += 1
        return self._verdict(self._counts[key])

    def _verdict(self, count: int) -> Verdict:
        if self.threshold is None or count < self.threshold:
            return "ok"
        if count == self.threshold:
            return "warn"
        self.tripped = True
        return "stop"
