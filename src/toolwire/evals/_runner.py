"""Running a model over a dataset: one request per item, one prediction line per item.

Predictions are appended and flushed as they are made, so a long run can be stopped and resumed:
items already in the output file are not asked again. A line cut short by a kill is dropped and
its item asked again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from .._untrusted import load_json, safe_text
from ..errors import ProviderError, UsageError
from ..events import (
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    UsageReported,
)
from ..models import Model, ModelRequest, ModelSettings
from ._dataset import EvalItem
from ._scoring import PredictedCall, score_item

__all__ = [
    "CategoryScore",
    "Prediction",
    "Predictor",
    "Report",
    "format_report",
    "model_predictor",
    "read_predictions",
    "run_eval",
    "score",
    "select_items",
]


@dataclass(frozen=True, kw_only=True, slots=True)
class Prediction:
    id: str
    category: str
    calls: tuple[PredictedCall, ...] = ()
    raw_arguments: tuple[str, ...] = ()
    text: str = ""
    seconds: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "category": self.category,
            "calls": [{"name": c.name, "arguments": c.arguments} for c in self.calls],
            "raw_arguments": list(self.raw_arguments),
            "text": self.text,
            "time": round(self.seconds, 3),
            "tokens": {
                "input": self.input_tokens,
                "output": self.output_tokens,
                "cached": self.cached_tokens,
            },
            "error": self.error,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Prediction:
        tokens = data.get("tokens") or {}
        return cls(
            id=data["id"],
            category=data["category"],
            calls=tuple(
                PredictedCall(name=c["name"], arguments=c.get("arguments")) for c in data["calls"]
            ),
            raw_arguments=tuple(data.get("raw_arguments", ())),
            text=data.get("text", ""),
            seconds=float(data.get("time", 0.0)),
            input_tokens=int(tokens.get("input", 0)),
            output_tokens=int(tokens.get("output", 0)),
            cached_tokens=int(tokens.get("cached", 0)),
            error=data.get("error"),
        )


Predictor = Callable[[EvalItem], Awaitable[Prediction]]


def select_items(
    items: Sequence[EvalItem], *, categories: Iterable[str] | None = None, limit: int | None = None
) -> list[EvalItem]:
    """The items of the chosen categories, at most `limit` of each (the first ones, so a
    limited run is a stable subset that a longer run extends)."""
    chosen = list(categories) if categories else None
    if chosen:
        present = {item.category for item in items}
        unknown = [c for c in chosen if c not in present]
        if unknown:
            raise UsageError(
                f"no items in categories {unknown}; the dataset has {', '.join(sorted(present))}"
            )
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    taken: dict[str, int] = {}
    selected = []
    for item in items:
        if chosen and item.category not in chosen:
            continue
        if limit is not None and taken.get(item.category, 0) >= limit:
            continue
        taken[item.category] = taken.get(item.category, 0) + 1
        selected.append(item)
    return selected


def read_predictions(path: Path) -> dict[str, Prediction]:
    """The complete prediction lines of `path` by id (a torn last line is left out)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except FileNotFoundError:
        return {}
    found: dict[str, Prediction] = {}
    for number, line in enumerate(lines, start=1):
        if not line.endswith("\n"):
            break
        try:
            prediction = Prediction.from_json(load_json(line))
        except (ValueError, KeyError, TypeError) as error:
            raise UsageError(f"{path}:{number}: not a prediction ({error})") from None
        found[prediction.id] = prediction
    return found


async def run_eval(
    items: Sequence[EvalItem],
    predictor: Predictor,
    out: str | Path,
    *,
    resume: bool = True,
    on_prediction: Callable[[EvalItem, Prediction], None] | None = None,
) -> list[Prediction]:
    """Predict every item not yet in `out`, appending each prediction as it is made. Returns the
    predictions of all `items`, in their order."""
    out = Path(out)
    done = read_predictions(out) if resume else {}
    if resume:
        _drop_torn_tail(out)
    async with await anyio.open_file(out, "a" if resume else "w", encoding="utf-8") as file:
        for item in items:
            if item.id in done:
                continue
            prediction = await predictor(item)
            await file.write(json.dumps(prediction.to_json(), ensure_ascii=False) + "\n")
            await file.flush()
            done[item.id] = prediction
            if on_prediction is not None:
                on_prediction(item, prediction)
    return [done[item.id] for item in items]


def _drop_torn_tail(path: Path) -> None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return
    if data and not data.endswith(b"\n"):
        path.write_bytes(data[: data.rfind(b"\n") + 1])


def model_predictor(
    model: Model,
    settings: ModelSettings | None = None,
    *,
    attempts: int = 3,
    clock: Callable[[], float] = time.perf_counter,
) -> Predictor:
    """Ask `model` once per item (tool choice auto, parallel calls allowed). Retryable provider
    errors are retried; an item that still fails is recorded with its error and scored wrong."""
    settings = settings or ModelSettings(temperature=0.0)

    async def predict(item: EvalItem) -> Prediction:
        request = ModelRequest(messages=item.messages, tools=item.tools, settings=settings)
        started = clock()
        for attempt in range(1, attempts + 1):
            try:
                return await _ask(model, request, item, started, clock)
            except ProviderError as error:
                if not error.retryable or attempt == attempts:
                    return Prediction(
                        id=item.id, category=item.category, seconds=clock() - started,
                        error=str(error),
                    )  # fmt: skip
                await anyio.sleep(error.retry_after or 2.0**attempt)
        raise AssertionError("unreachable")

    return predict


@dataclass(slots=True)
class _Call:
    name: str
    chunks: list[str] = field(default_factory=list)


async def _ask(
    model: Model,
    request: ModelRequest,
    item: EvalItem,
    started: float,
    clock: Callable[[], float],
) -> Prediction:
    text: list[str] = []
    calls: dict[int, _Call] = {}
    usage = None
    completed = False
    async for event in model.stream(request):
        # Text is made writable as it comes: the prediction is written to a UTF-8 file.
        if isinstance(event, TextDelta):
            text.append(safe_text(event.text))
        elif isinstance(event, ToolCallStarted):
            calls[event.index] = _Call(safe_text(event.name))
        elif isinstance(event, ToolCallArgumentsDelta) and event.index in calls:
            calls[event.index].chunks.append(safe_text(event.delta))
        elif isinstance(event, UsageReported):
            usage = event.usage
        elif isinstance(event, ResponseCompleted):
            completed = True
    if not completed:
        raise ProviderError("the response stream ended early", retryable=True)
    raws = tuple("".join(c.chunks) for c in calls.values())
    return Prediction(
        id=item.id,
        category=item.category,
        calls=tuple(
            PredictedCall(name=c.name, arguments=_parse(raw))
            for c, raw in zip(calls.values(), raws, strict=True)
        ),
        raw_arguments=raws,
        text="".join(text),
        seconds=clock() - started,
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        cached_tokens=usage.cached_input_tokens if usage else 0,
    )


def _parse(raw: str) -> dict[str, Any] | None:
    if not raw.strip():
        return {}
    try:
        value = load_json(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


@dataclass(frozen=True, slots=True)
class CategoryScore:
    category: str
    correct: int
    total: int
    seconds: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0


@dataclass(frozen=True, slots=True)
class Report:
    categories: tuple[CategoryScore, ...]

    @property
    def correct(self) -> int:
        return sum(c.correct for c in self.categories)

    @property
    def total(self) -> int:
        return sum(c.total for c in self.categories)

    @property
    def mean_accuracy(self) -> float:
        """The unweighted mean of the category accuracies (how BFCL averages)."""
        if not self.categories:
            return 0.0
        return sum(c.accuracy for c in self.categories) / len(self.categories)


def score(items: Sequence[EvalItem], predictions: Sequence[Prediction]) -> Report:
    by_id = {p.id: p for p in predictions}
    totals: dict[str, list[float]] = {}
    for item in items:
        prediction = by_id.get(item.id)
        if prediction is None:
            continue
        correct = prediction.error is None and score_item(item, prediction.calls).correct
        entry = totals.setdefault(item.category, [0, 0, 0.0])
        entry[0] += int(correct)
        entry[1] += 1
        entry[2] += prediction.seconds
    return Report(
        tuple(CategoryScore(name, int(c), int(t), s) for name, (c, t, s) in totals.items())
    )


def format_report(report: Report) -> str:
    rows = [f"{'category':<20} {'accuracy':>9} {'correct':>9} {'s/item':>7}"]
    for c in report.categories:
        rows.append(
            f"{c.category:<20} {c.accuracy:>8.1%} {c.correct:>4}/{c.total:<4} "
            f"{c.seconds / max(c.total, 1):>7.2f}"
        )
    rows.append(
        f"{'mean of categories':<20} {report.mean_accuracy:>8.1%} "
        f"{report.correct:>4}/{report.total:<4}"
    )
    return "\n".join(rows)
