"""Approvals answered through the run log, so a person in another process (the web page of
`toolwire ui`) can answer a run that waits for them.

The run's process writes the request as a row and polls it; whoever answers fills the row in once
(the update only succeeds while the row is unanswered, so an answer and the run giving up on its
wait cannot both win). While waiting, the run refreshes `alive_at`: a row whose run was killed
stops being refreshed and is no longer offered.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

import anyio

from ..approval import ApprovalRequest, Approve, Decision, Decline, Edit
from ._rows import read_rows

if TYPE_CHECKING:
    from . import RunLog

Answer: TypeAlias = Literal["approve", "decline", "edit", "withdrawn"]
"""`withdrawn`: the run stopped waiting (an approval timeout, a cancelled run)."""

POLL_INTERVAL = 0.2
"""Seconds between the waiting run's reads of its row: a read of one row by key, cheap."""
ALIVE_EVERY = 10
"""Polls between refreshes of `alive_at` (a write), so a person sees a waiting call within..."""
STALE_AFTER = 10.0
"""...seconds: a request not refreshed for this long belongs to a run that is gone."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ApprovalRow:
    run_id: str
    call_id: str
    name: str
    arguments: Any
    side_effect: str
    parameters: Any
    """The tool's JSON Schema, which an edit must satisfy."""
    asked_at: float


def post(db: sqlite3.Connection, request: ApprovalRequest, to_json: Callable[[Any], str]) -> None:
    now = time.time()
    db.execute(
        "INSERT OR REPLACE INTO approvals (run_id, call_id, name, arguments, side_effect,"
        " parameters, asked_at, alive_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            request.run_id,
            request.call.id,
            request.tool.name,
            to_json(dict(request.arguments)),
            request.side_effect,
            to_json(dict(request.tool.parameters)),
            now,
            now,
        ),
    )


def read_answer(
    db: sqlite3.Connection, run_id: str, call_id: str, parse: Callable[[str], Any]
) -> Decision | None:
    row = db.execute(
        "SELECT answer, message, edited_arguments, decided_by FROM approvals"
        " WHERE run_id = ? AND call_id = ?",
        (run_id, call_id),
    ).fetchone()
    if row is None or row[0] is None:
        return None
    answer, message, edited, by = row
    if answer == "approve":
        return Approve(by=by)
    if answer == "edit":
        return Edit(arguments=parse(edited), by=by)
    return Decline(message=message, by=by)


def keep_alive(db: sqlite3.Connection, run_id: str, call_id: str) -> None:
    db.execute(
        "UPDATE approvals SET alive_at = ? WHERE run_id = ? AND call_id = ?",
        (time.time(), run_id, call_id),
    )


def answer(
    db: sqlite3.Connection,
    run_id: str,
    call_id: str,
    given: Answer,
    *,
    by: str,
    message: str | None = None,
    edited_json: str | None = None,
) -> bool:
    """Fill in the row once; False when it was already answered (or never asked)."""
    cursor = db.execute(
        "UPDATE approvals SET answer = ?, message = ?, edited_arguments = ?, decided_by = ?,"
        " decided_at = ? WHERE run_id = ? AND call_id = ? AND answer IS NULL",
        (given, message, edited_json, by, time.time(), run_id, call_id),
    )
    return cursor.rowcount == 1


def pending(
    db: sqlite3.Connection, run_id: str | None, parse: Callable[[str], Any]
) -> list[ApprovalRow]:
    return read_rows(
        db,
        "SELECT run_id, call_id, name, arguments, side_effect, parameters, asked_at"
        " FROM approvals WHERE answer IS NULL AND alive_at > ? AND (? IS NULL OR run_id = ?)"
        " ORDER BY asked_at",
        (time.time() - STALE_AFTER, run_id, run_id),
        ApprovalRow,
        {"arguments": parse, "parameters": parse},
    )


def log_approver(
    log: RunLog, *, poll_interval: float = POLL_INTERVAL
) -> Callable[[ApprovalRequest], Awaitable[Decision]]:
    """An approver that asks through the run log and waits for the answer (`toolwire ui` gives
    it). `Limits.approval_timeout` bounds the wait; a wait cut short is withdrawn from the log,
    so a late answer is refused instead of being lost silently."""

    async def ask(request: ApprovalRequest) -> Decision:
        run_id, call_id = request.run_id, request.call.id
        log.post_approval(request)
        try:
            polls = 0
            while (decision := log.approval_answer(run_id, call_id)) is None:
                await anyio.sleep(poll_interval)
                polls += 1
                if polls % ALIVE_EVERY == 0:
                    log.keep_approval_alive(run_id, call_id)
            return decision
        finally:
            log.withdraw_approval(run_id, call_id)

    return ask
