"""The run log: every run, message, call and token in SQLite, written as events happen.

A killed process keeps everything that completed. Rows are keyed by run id + step / message index /
call id (unique within a run: the loop re-ids a call whose id the provider repeated), so a step
recorded twice (a durable run replaying it) overwrites instead of duplicating.
"""

from __future__ import annotations

import os
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pydantic_core

from .._untrusted import load_json
from ..approval import ApprovalRequest, Approve, Decision, Edit
from ..events import (
    CallCorrected,
    ElicitationAnswered,
    MessageAdded,
    RunEvent,
    RunFinished,
    RunStarted,
    SamplingAnswered,
    StepStarted,
    ToolResultReady,
    UsageReported,
)
from ..messages import Usage
from . import _approvals, _rows
from ._approvals import ApprovalRow, log_approver

__all__ = [
    "ApprovalRow",
    "CallRow",
    "CorrectionRow",
    "ElicitationRow",
    "MessageRow",
    "RunLog",
    "RunRow",
    "SamplingRow",
    "StepRow",
    "default_log_path",
    "log_approver",
]

DATA_DIR_ENV = "TOOLWIRE_DATA_DIR"
BUSY_TIMEOUT = 5.0
"""Seconds a connection waits for another process's write (or migration) to finish."""

# Append only: each entry upgrades the schema by one version (PRAGMA user_version), one statement
# at a time inside the transaction that checked the version.
MIGRATIONS: list[tuple[str, ...]] = [
    (
        """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY, model TEXT NOT NULL, prompt TEXT, started_at REAL NOT NULL,
        finished_at REAL, stop_reason TEXT, output TEXT, steps INTEGER, error TEXT,
        input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0
    )""",
        """
    CREATE TABLE messages (
        run_id TEXT NOT NULL REFERENCES runs(id), idx INTEGER NOT NULL, step INTEGER NOT NULL,
        role TEXT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, idx)
    )""",
        """
    CREATE TABLE tool_calls (
        run_id TEXT NOT NULL REFERENCES runs(id), call_id TEXT NOT NULL, step INTEGER NOT NULL,
        name TEXT NOT NULL, arguments TEXT NOT NULL, result TEXT NOT NULL,
        is_error INTEGER NOT NULL, truncated INTEGER NOT NULL, finished_at REAL NOT NULL,
        duration REAL NOT NULL, decided_by TEXT, PRIMARY KEY (run_id, call_id)
    )""",
        """
    CREATE TABLE usage (
        run_id TEXT NOT NULL REFERENCES runs(id), step INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL,
        PRIMARY KEY (run_id, step)
    )""",
        "CREATE INDEX runs_started ON runs(started_at)",
    ),
    # `arguments` stays what the model wrote; an approver's edit, which ran instead, beside it.
    ("ALTER TABLE tool_calls ADD COLUMN edited_arguments TEXT",),
    # What a model adapter changed in a call before it ran (`CallCorrected`); call_id is NULL
    # for a call it dropped. Keyed by the step and the correction's place in it, as a replayed
    # step writes the same rows again.
    (
        """
    CREATE TABLE corrections (
        run_id TEXT NOT NULL REFERENCES runs(id), step INTEGER NOT NULL, seq INTEGER NOT NULL,
        call_id TEXT, name TEXT NOT NULL, written TEXT NOT NULL, changes TEXT NOT NULL,
        PRIMARY KEY (run_id, step, seq)
    )""",
    ),
    # A call cut off after it started (it may have taken effect), and the wait for its approval.
    (
        "ALTER TABLE tool_calls ADD COLUMN interrupted INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE tool_calls ADD COLUMN decision_time REAL",
    ),
    # What tools asked of the run during a call (MCP): the person for input (elicitation) and
    # who answered; the run's model for a completion (sampling) and who allowed it.
    (
        """
    CREATE TABLE elicitations (
        run_id TEXT NOT NULL REFERENCES runs(id), call_id TEXT NOT NULL, seq INTEGER NOT NULL,
        step INTEGER NOT NULL, server TEXT NOT NULL, mode TEXT NOT NULL, message TEXT NOT NULL,
        url TEXT, action TEXT NOT NULL, content TEXT, answered_by TEXT NOT NULL,
        seconds REAL NOT NULL, answered_at REAL NOT NULL, PRIMARY KEY (run_id, call_id, seq)
    )""",
        """
    CREATE TABLE samplings (
        run_id TEXT NOT NULL REFERENCES runs(id), call_id TEXT NOT NULL, seq INTEGER NOT NULL,
        step INTEGER NOT NULL, server TEXT NOT NULL, request TEXT NOT NULL,
        decided_by TEXT NOT NULL, refused TEXT, output TEXT, model TEXT,
        input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, seconds REAL NOT NULL,
        answered_at REAL NOT NULL, PRIMARY KEY (run_id, call_id, seq)
    )""",
    ),
    # When each step began (for the time a step took), and the calls a run waits on a person
    # for through the log (`log_approver`): asked by the run's process, answered by another.
    (
        """
    CREATE TABLE step_times (
        run_id TEXT NOT NULL REFERENCES runs(id), step INTEGER NOT NULL,
        started_at REAL NOT NULL, PRIMARY KEY (run_id, step)
    )""",
        """
    CREATE TABLE approvals (
        run_id TEXT NOT NULL, call_id TEXT NOT NULL, name TEXT NOT NULL,
        arguments TEXT NOT NULL, side_effect TEXT NOT NULL, parameters TEXT NOT NULL,
        asked_at REAL NOT NULL, alive_at REAL NOT NULL, answer TEXT, message TEXT,
        edited_arguments TEXT, decided_by TEXT, decided_at REAL, PRIMARY KEY (run_id, call_id)
    )""",
    ),
]


def default_log_path() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    if override:
        return Path(override) / "runs.db"
    import platformdirs

    return Path(platformdirs.user_data_dir("toolwire")) / "runs.db"


@dataclass(frozen=True, kw_only=True, slots=True)
class RunRow:
    id: str
    model: str
    prompt: str | None
    started_at: float
    finished_at: float | None
    stop_reason: str | None
    output: str | None
    steps: int | None
    error: str | None
    input_tokens: int
    output_tokens: int


@dataclass(frozen=True, kw_only=True, slots=True)
class CallRow:
    call_id: str
    step: int
    name: str
    arguments: Any
    result: str
    is_error: bool
    truncated: bool
    finished_at: float
    duration: float
    decided_by: str | None
    edited_arguments: Any | None
    """As in `toolwire.CallRecord`: what the tool ran with instead of `arguments`."""
    interrupted: bool
    """As in `toolwire.CallRecord`: the call started and was cut off; it may have taken effect."""
    decision_time: float | None


@dataclass(frozen=True, kw_only=True, slots=True)
class CorrectionRow:
    step: int
    call_id: str | None
    """The call that ran with the change; None when the call was dropped."""
    name: str
    written: Any
    """The arguments the model wrote."""
    changes: list[str]


@dataclass(frozen=True, kw_only=True, slots=True)
class ElicitationRow:
    """A tool's question to the person during a call, and the answer that went back."""

    call_id: str
    step: int
    server: str
    mode: str
    message: str
    url: str | None
    action: str
    content: Any | None
    answered_by: str
    seconds: float


@dataclass(frozen=True, kw_only=True, slots=True)
class SamplingRow:
    """A tool's request for a completion from the run's model during a call, and its outcome."""

    call_id: str
    step: int
    server: str
    request: Any
    """What the approver was shown: the messages, system prompt and token limit."""
    decided_by: str
    refused: str | None
    output: str | None
    model: str | None
    input_tokens: int
    output_tokens: int
    seconds: float


@dataclass(frozen=True, kw_only=True, slots=True)
class MessageRow:
    index: int
    step: int
    role: str
    body: Any
    """The message as JSON (`role`, `parts`, each part with its `kind`)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class StepRow:
    step: int
    started_at: float | None
    input_tokens: int
    output_tokens: int


class RunLog:
    """Pass to `Agent(log=RunLog())`. One connection, used from the thread that runs the loop."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_log_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_TIMEOUT
        )
        self._use_wal()
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._migrate()
        self._steps: dict[str, int] = {}
        self._step_usage: dict[str, Usage] = {}
        self._step_corrections: dict[str, int] = {}

    def _use_wal(self) -> None:
        # Turning a new file to WAL needs it alone, and SQLite answers "locked" at once instead
        # of waiting out the busy timeout when another process holds it: wait here instead.
        deadline = time.monotonic() + BUSY_TIMEOUT
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as error:
                if error.sqlite_errorcode != sqlite3.SQLITE_BUSY or time.monotonic() > deadline:
                    raise
            time.sleep(0.005)

    def _migrate(self) -> None:
        if self._version() >= len(MIGRATIONS):
            return
        # Processes opening a new log at once: the write lock, taken before the version is read,
        # makes the first one migrate while the others wait, then find nothing left to do.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            version = self._version()
            for statement in (s for step in MIGRATIONS[version:] for s in step):
                self._db.execute(statement)
            self._db.execute(f"PRAGMA user_version = {max(version, len(MIGRATIONS))}")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _version(self) -> int:
        version: int = self._db.execute("PRAGMA user_version").fetchone()[0]
        return version

    def close(self) -> None:
        self._db.close()

    def record(self, run_id: str, event: RunEvent) -> None:
        if isinstance(event, ToolResultReady):
            self._record_call(run_id, event)
        elif isinstance(event, MessageAdded):
            self._db.execute(
                "INSERT OR REPLACE INTO messages VALUES (?, ?, ?, ?, ?)",
                (run_id, event.index, event.step, event.message.role, _json(event.message)),
            )
        elif isinstance(event, CallCorrected):
            self._record_correction(run_id, event)
        elif isinstance(event, ElicitationAnswered):
            self._record_elicitation(run_id, event)
        elif isinstance(event, SamplingAnswered):
            self._record_sampling(run_id, event)
        elif isinstance(event, StepStarted):
            self._db.execute(
                "INSERT OR REPLACE INTO step_times VALUES (?, ?, ?)",
                (run_id, event.step, time.time()),
            )
            self._steps[run_id] = event.step
            self._step_usage[run_id] = Usage()
            self._step_corrections[run_id] = 0
        elif isinstance(event, UsageReported):
            self._record_usage(run_id, event.usage)
        elif isinstance(event, RunStarted):
            self._db.execute(
                "INSERT OR REPLACE INTO runs (id, model, prompt, started_at) VALUES (?, ?, ?, ?)",
                (run_id, event.model, event.prompt, event.started_at),
            )
        elif isinstance(event, RunFinished):
            self._record_finish(run_id, event)

    def _record_call(self, run_id: str, event: ToolResultReady) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO tool_calls (run_id, call_id, step, name, arguments, result,"
            " is_error, truncated, finished_at, duration, decided_by, edited_arguments,"
            " interrupted, decision_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                event.call.id,
                event.step,
                event.call.name,
                _json(event.call.arguments)
                if event.call.error is None
                else event.call.raw_arguments,
                event.full_content if event.full_content is not None else event.result.content,
                event.result.is_error,
                event.full_content is not None,
                time.time(),
                event.duration,
                event.decided_by,
                None if event.edited_arguments is None else _json(event.edited_arguments),
                event.interrupted,
                event.decision_time,
            ),
        )

    def _record_correction(self, run_id: str, event: CallCorrected) -> None:
        seq = self._step_corrections.get(run_id, 0)
        self._step_corrections[run_id] = seq + 1
        self._db.execute(
            "INSERT OR REPLACE INTO corrections VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                self._steps.get(run_id, 0),
                seq,
                event.id,
                event.name,
                _json(event.written),
                _json(list(event.changes)),
            ),
        )

    def _record_elicitation(self, run_id: str, event: ElicitationAnswered) -> None:
        request, answer = event.request, event.answer
        self._db.execute(
            "INSERT INTO elicitations VALUES (?, ?, (SELECT COUNT(*) FROM elicitations"
            " WHERE run_id = ? AND call_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                request.call_id,
                run_id,
                request.call_id,
                event.step,
                request.server,
                request.mode,
                request.message,
                request.url,
                answer.action,
                None if answer.content is None else _json(answer.content),
                answer.by,
                event.seconds,
                time.time(),
            ),
        )

    def _record_sampling(self, run_id: str, event: SamplingAnswered) -> None:
        request = event.request
        self._db.execute(
            "INSERT INTO samplings VALUES (?, ?, (SELECT COUNT(*) FROM samplings"
            " WHERE run_id = ? AND call_id = ?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run_id,
                request.call_id,
                run_id,
                request.call_id,
                event.step,
                request.server,
                _json(request.arguments()),
                event.decided_by,
                event.refused,
                event.text,
                event.model,
                event.usage.input_tokens,
                event.usage.output_tokens,
                event.seconds,
                time.time(),
            ),
        )

    def _record_usage(self, run_id: str, usage: Usage) -> None:
        step_usage = self._step_usage.get(run_id, Usage()) + usage
        self._step_usage[run_id] = step_usage
        self._db.execute(
            "INSERT OR REPLACE INTO usage VALUES (?, ?, ?, ?)",
            (run_id, self._steps.get(run_id, 0), step_usage.input_tokens, step_usage.output_tokens),
        )

    def _record_finish(self, run_id: str, event: RunFinished) -> None:
        result = event.result
        self._db.execute(
            "UPDATE runs SET finished_at = ?, stop_reason = ?, output = ?, steps = ?, error = ?,"
            " input_tokens = ?, output_tokens = ? WHERE id = ?",
            (
                time.time(),
                result.stop_reason,
                result.output,
                result.steps,
                result.error,
                result.usage.input_tokens,
                result.usage.output_tokens,
                run_id,
            ),
        )
        self._steps.pop(run_id, None)
        self._step_usage.pop(run_id, None)
        self._step_corrections.pop(run_id, None)

    def runs(
        self,
        limit: int = 20,
        *,
        model: str | None = None,
        stop_reason: str | None = None,
        since: float | None = None,
        until: float | None = None,
        text: str | None = None,
    ) -> list[RunRow]:
        """The latest runs, newest first, matching every filter given: `stop_reason` "running"
        for runs not finished, `since`/`until` bound the start time, `text` is found
        (ignoring case) in the id, prompt, output or error."""
        # A run still going has no totals yet: its steps and tokens so far stand in.
        query = (
            f"SELECT {_LIVE_RUN_COLUMNS} FROM runs WHERE (?1 IS NULL OR model = ?1)"
            " AND (?2 IS NULL OR stop_reason = ?2 OR (?2 = 'running' AND finished_at IS NULL))"
            " AND (?3 IS NULL OR started_at >= ?3) AND (?4 IS NULL OR started_at < ?4)"
            " AND (?5 IS NULL OR instr(lower(id || char(10) || coalesce(prompt, '') || char(10)"
            " || coalesce(output, '') || char(10) || coalesce(error, '')), lower(?5)) > 0)"
            " ORDER BY started_at DESC LIMIT ?6"
        )
        return _rows.read_rows(
            self._db, query, (model, stop_reason, since, until, text, limit), RunRow
        )

    def models(self) -> list[str]:
        """Every model a logged run used, for choosing among them."""
        rows = self._db.execute("SELECT DISTINCT model FROM runs ORDER BY model")
        return [row[0] for row in rows]

    def find_run(self, run_id_prefix: str) -> RunRow | None:
        found = _rows.read_rows(
            self._db,
            f"SELECT {_LIVE_RUN_COLUMNS} FROM runs WHERE substr(id, 1, ?) = ?"
            " ORDER BY started_at DESC LIMIT 2",
            (len(run_id_prefix), run_id_prefix),
            RunRow,
        )
        return found[0] if len(found) == 1 else None

    def calls(self, run_id: str) -> list[CallRow]:
        return _rows.read_rows(
            self._db,
            "SELECT call_id, step, name, arguments, result, is_error, truncated, finished_at,"
            " duration, decided_by, edited_arguments, interrupted, decision_time FROM tool_calls"
            " WHERE run_id = ?"
            " ORDER BY step, finished_at",
            (run_id,),
            CallRow,
            {
                "arguments": _parse,
                "edited_arguments": _parse,
                "is_error": bool,
                "truncated": bool,
                "interrupted": bool,
            },
        )

    def corrections(self, run_id: str) -> list[CorrectionRow]:
        return _rows.read_rows(
            self._db,
            "SELECT step, call_id, name, written, changes FROM corrections WHERE run_id = ?"
            " ORDER BY step, seq",
            (run_id,),
            CorrectionRow,
            {"written": _parse, "changes": _parse},
        )

    def elicitations(self, run_id: str) -> list[ElicitationRow]:
        return _rows.read_rows(
            self._db,
            "SELECT call_id, step, server, mode, message, url, action, content, answered_by,"
            " seconds FROM elicitations WHERE run_id = ? ORDER BY answered_at, seq",
            (run_id,),
            ElicitationRow,
            {"content": _parse},
        )

    def samplings(self, run_id: str) -> list[SamplingRow]:
        return _rows.read_rows(
            self._db,
            "SELECT call_id, step, server, request, decided_by, refused, output, model,"
            " input_tokens, output_tokens, seconds FROM samplings WHERE run_id = ?"
            " ORDER BY answered_at, seq",
            (run_id,),
            SamplingRow,
            {"request": _parse},
        )

    def messages(self, run_id: str) -> list[MessageRow]:
        return _rows.read_rows(
            self._db,
            'SELECT idx AS "index", step, role, body FROM messages WHERE run_id = ? ORDER BY idx',
            (run_id,),
            MessageRow,
            {"body": _parse},
        )

    def steps(self, run_id: str) -> list[StepRow]:
        """Each step's start and tokens so far. A run logged before step times were kept has
        its steps, from its messages and usage, with no start."""
        return _rows.read_rows(
            self._db,
            "WITH s(step) AS (SELECT step FROM step_times WHERE run_id = ?1"
            " UNION SELECT step FROM usage WHERE run_id = ?1"
            " UNION SELECT step FROM messages WHERE run_id = ?1 AND step > 0)"
            " SELECT s.step AS step, t.started_at AS started_at,"
            " coalesce(u.input_tokens, 0) AS input_tokens,"
            " coalesce(u.output_tokens, 0) AS output_tokens FROM s"
            " LEFT JOIN step_times t ON t.run_id = ?1 AND t.step = s.step"
            " LEFT JOIN usage u ON u.run_id = ?1 AND u.step = s.step ORDER BY s.step",
            (run_id,),
            StepRow,
        )

    def changes(self, run_id: str | None = None) -> tuple[Any, ...]:
        """A marker that differs once a run (without `run_id`: any run) was written to, for a
        live view to compare before it redraws. Cheap: index seeks and counts of one run's
        rows, or of the runs and approvals still open."""
        tables = ("messages", "tool_calls", "usage", "step_times", "approvals")
        if run_id is None:
            latest = ", ".join(f"(SELECT max(rowid) FROM {t})" for t in ("runs", *tables))
            query = (
                f"SELECT {latest}, (SELECT count(*) FROM runs WHERE finished_at IS NULL),"
                " (SELECT count(*) FROM approvals WHERE answer IS NULL)"
            )
            return tuple(self._db.execute(query).fetchone())
        latest = ", ".join(f"(SELECT max(rowid) FROM {t} WHERE run_id = ?1)" for t in tables)
        query = (
            f"SELECT {latest}, (SELECT finished_at FROM runs WHERE id = ?1),"
            " (SELECT count(*) FROM approvals WHERE run_id = ?1 AND answer IS NULL)"
        )
        return tuple(self._db.execute(query, (run_id,)).fetchone())

    def post_approval(self, request: ApprovalRequest) -> None:
        _approvals.post(self._db, request, _json)

    def approval_answer(self, run_id: str, call_id: str) -> Decision | None:
        return _approvals.read_answer(self._db, run_id, call_id, _parse)

    def keep_approval_alive(self, run_id: str, call_id: str) -> None:
        _approvals.keep_alive(self._db, run_id, call_id)

    def withdraw_approval(self, run_id: str, call_id: str) -> None:
        _approvals.answer(self._db, run_id, call_id, "withdrawn", by="run")

    def pending_approvals(self, run_id: str | None = None) -> list[ApprovalRow]:
        """Calls waiting for a person through `log_approver`, oldest first."""
        return _approvals.pending(self._db, run_id, _parse)

    def answer_approval(self, run_id: str, call_id: str, decision: Decision) -> bool:
        """Answer a waiting call (once); False when it no longer waits."""
        if isinstance(decision, Approve):
            return _approvals.answer(self._db, run_id, call_id, "approve", by=decision.by)
        if isinstance(decision, Edit):
            edited = _json(dict(decision.arguments))
            return _approvals.answer(
                self._db, run_id, call_id, "edit", by=decision.by, edited_json=edited
            )
        return _approvals.answer(
            self._db, run_id, call_id, "decline", by=decision.by, message=decision.message
        )


_LIVE_RUN_COLUMNS = (
    "id, model, prompt, started_at, finished_at, stop_reason, output,"
    " coalesce(steps, (SELECT max(step) FROM step_times WHERE run_id = runs.id)) AS steps, error,"
    " iif(finished_at IS NULL, (SELECT coalesce(sum(input_tokens), 0) FROM usage"
    " WHERE run_id = runs.id), input_tokens) AS input_tokens,"
    " iif(finished_at IS NULL, (SELECT coalesce(sum(output_tokens), 0) FROM usage"
    " WHERE run_id = runs.id), output_tokens) AS output_tokens"
)


def _json(value: Any) -> str:
    return pydantic_core.to_json(value, serialize_unknown=True).decode()


def _parse(text: str) -> Any:
    """A stored value; text that is not JSON a reader can use (a model's unparseable or
    hostile arguments, kept as written) comes back as the text."""
    try:
        return load_json(text)
    except ValueError:
        return text
