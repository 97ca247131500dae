"""Loop detection: the same call, or the same error, over and over."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal


def canonical_arguments(arguments: Mapping[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), default=str)


class LoopGuard:
    """Counts repeats. At `threshold` the model gets a warning instead of a result; past it, the
    run stops. Same call = same tool and same canonical arguments; same error = same text."""

    def __init__(self, threshold: int | None) -> None:
        self.threshold = threshold
        self._calls: Counter[tuple[str, str]] = Counter()
        self._errors: Counter[str] = Counter()
        self.last_result: dict[tuple[str, str], str] = {}
        self.tripped = False

    def check_call(
        self, name: str, arguments: Mapping[str, Any]
    ) -> tuple[Literal["ok", "warn", "stop"], tuple[str, str]]:
        key = (name, canonical_arguments(arguments))
        self._calls[key] += 1
        return self._verdict(self._calls[key]), key

    def check_error(self, text: str) -> Literal["ok", "warn", "stop"]:
        self._errors[text] += 1
        return self._verdict(self._errors[text])

    def _verdict(self, count: int) -> Literal["ok", "warn", "stop"]:
        if self.threshold is None or count < self.threshold:
            return "ok"
        if count == self.threshold:
            return "warn"
        self.tripped = True
        return "stop"
