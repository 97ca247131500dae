"""What the pages show, as JSON-ready dicts: the pages render them and `/api/...` returns them,
so the two never disagree. Everything here was read from the run log; nothing is trusted."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from ..errors import UsageError
from ..log import ApprovalRow, CallRow, CorrectionRow, MessageRow, RunLog, RunRow, StepRow

STOP_REASONS = (
    "running",
    "answer",
    "max_steps",
    "timeout",
    "token_budget",
    "loop_detected",
    "cancelled",
    "error",
)
LIST_LIMIT = 200


@dataclass(frozen=True, kw_only=True, slots=True)
class RunFilter:
    model: str | None = None
    stop_reason: str | None = None
    since: date | None = None
    until: date | None = None
    """Inclusive: runs started on this (local) day are listed."""
    text: str | None = None

    @classmethod
    def from_query(cls, query: Mapping[str, str]) -> RunFilter:
        """From a page's query string; an unusable value is a `UsageError` naming it."""

        def given(name: str) -> str | None:
            value = query.get(name, "").strip()
            return value or None

        stop_reason = given("stop_reason")
        if stop_reason is not None and stop_reason not in STOP_REASONS:
            raise UsageError(f"stop_reason must be one of {', '.join(STOP_REASONS)}")
        return cls(
            model=given("model"),
            stop_reason=stop_reason,
            since=_day(given("since"), "since"),
            until=_day(given("until"), "until"),
            text=given("q"),
        )

    def as_query(self) -> dict[str, str]:
        values = {
            "model": self.model,
            "stop_reason": self.stop_reason,
            "since": self.since and self.since.isoformat(),
            "until": self.until and self.until.isoformat(),
            "q": self.text,
        }
        return {name: value for name, value in values.items() if value}


def _day(text: str | None, name: str) -> date | None:
    if text is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise UsageError(f"{name} must be a date like 2026-01-31, not {text!r}") from None


def _timestamp(day: date) -> float:
    return datetime(day.year, day.month, day.day).timestamp()


def run_list(log: RunLog, chosen: RunFilter) -> list[dict[str, Any]]:
    rows = log.runs(
        LIST_LIMIT,
        model=chosen.model,
        stop_reason=chosen.stop_reason,
        since=None if chosen.since is None else _timestamp(chosen.since),
        until=None if chosen.until is None else _timestamp(chosen.until + timedelta(days=1)),
        text=chosen.text,
    )
    return [_run_summary(row) for row in rows]


def _run_summary(run: RunRow) -> dict[str, Any]:
    end = run.finished_at if run.finished_at is not None else time.time()
    return {
        **dataclasses.asdict(run),
        "running": run.finished_at is None,
        "seconds": max(0.0, end - run.started_at),
    }


def approval_list(log: RunLog, run_id: str | None = None) -> list[dict[str, Any]]:
    return [dataclasses.asdict(row) for row in log.pending_approvals(run_id)]


def run_detail(log: RunLog, run_id: str) -> dict[str, Any] | None:
    run = log.find_run(run_id)
    if run is None or run.id != run_id:
        return None
    messages = log.messages(run_id)
    calls = {call.call_id: call for call in log.calls(run_id)}
    corrections = log.corrections(run_id)
    waiting = {row.call_id: row for row in log.pending_approvals(run_id)}
    end = run.finished_at if run.finished_at is not None else time.time()
    steps = _steps(log.steps(run_id), messages, end)
    for step in steps:
        step["calls"] = [
            _call(part, calls.get(part["id"]), corrections, waiting.get(part["id"]))
            for part in step.pop("call_parts")
        ]
    return {
        **_run_summary(run),
        "history": [_history(m) for m in messages if m.step == 0],
        "timeline": steps,
        "dropped": [dataclasses.asdict(c) for c in corrections if c.call_id is None],
        "waiting": [dataclasses.asdict(row) for row in waiting.values()],
    }


def _steps(rows: list[StepRow], messages: list[MessageRow], end: float) -> list[dict[str, Any]]:
    replies = {m.step: _parts(m.body) for m in messages if m.role == "assistant" and m.step}
    steps = []
    for i, row in enumerate(rows):
        finished = rows[i + 1].started_at if i + 1 < len(rows) else end
        took = None
        if row.started_at is not None and finished is not None:
            took = max(0.0, finished - row.started_at)
        parts = replies.get(row.step, [])
        steps.append(
            {
                **dataclasses.asdict(row),
                "seconds": took,
                "replied": row.step in replies,
                "text": "".join(p.get("text", "") for p in parts if p.get("kind") == "text"),
                "reasoning": "".join(
                    p.get("text", "") for p in parts if p.get("kind") == "reasoning"
                ),
                "call_parts": [p for p in parts if p.get("kind") == "tool_call"],
            }
        )
    return steps


def _parts(body: Any) -> list[dict[str, Any]]:
    parts = body.get("parts") if isinstance(body, dict) else None
    return [p for p in parts if isinstance(p, dict)] if isinstance(parts, list) else []


def _history(message: MessageRow) -> dict[str, Any]:
    parts = _parts(message.body)
    return {
        "role": message.role,
        "text": "".join(str(p.get("text", "")) for p in parts if p.get("kind") == "text"),
        "calls": [
            {"name": p.get("name"), "arguments": p.get("arguments")}
            for p in parts
            if p.get("kind") == "tool_call"
        ],
    }


def _call(
    part: dict[str, Any],
    row: CallRow | None,
    corrections: list[CorrectionRow],
    waiting: ApprovalRow | None,
) -> dict[str, Any]:
    """A call the model wrote, with what became of it: finished (its logged row), waiting for a
    person, or still running."""
    state = "done" if row is not None else "waiting" if waiting is not None else "running"
    shown: dict[str, Any] = {
        "call_id": part.get("id"),
        "name": part.get("name"),
        # A call whose arguments did not parse is shown as the model wrote it.
        "arguments": part.get("raw_arguments") if part.get("error") else part.get("arguments"),
        "state": state,
        "corrections": [dataclasses.asdict(c) for c in corrections if c.call_id == part.get("id")],
    }
    if row is not None:
        shown.update(dataclasses.asdict(row))
        shown["result_chars"] = len(row.result)
    if waiting is not None:
        shown["side_effect"] = waiting.side_effect
        shown["parameters"] = waiting.parameters
    return shown


def call_detail(log: RunLog, run_id: str, call_id: str) -> dict[str, Any] | None:
    for call in log.calls(run_id):
        if call.call_id == call_id:
            return dataclasses.asdict(call)
    return None
