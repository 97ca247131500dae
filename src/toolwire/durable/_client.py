"""Talking to durable runs from any process: submit, approve, list, cancel, resume."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from dbos import DBOSClient

from .._approve import approval_topic
from .._durability import decision_message
from ..approval import Approve, Decision, Decline
from ..clock import new_run_id
from ..errors import RunError, UsageError
from ..run import RunResult
from ._database import database_url, prepare_database
from ._engine import WAITING_EVENT
from ._worker import APP_NAME, APP_VERSION, QUEUE
from ._workflow import WORKFLOW_NAME

__all__ = ["Client", "DurableRun", "RunStatus"]

RunStatus = Literal["pending", "running", "waiting", "done", "failed", "cancelled"]
"""`pending`: queued, no worker yet; `waiting`: for an approval (see `DurableRun.waiting`)."""

_STATUSES: dict[str, RunStatus] = {
    "ENQUEUED": "pending",
    "DELAYED": "pending",
    "PENDING": "running",
    "SUCCESS": "done",
    "ERROR": "failed",
    "MAX_RECOVERY_ATTEMPTS_EXCEEDED": "failed",
    "CANCELLED": "cancelled",
}


@dataclass(frozen=True, kw_only=True, slots=True)
class DurableRun:
    run_id: str
    status: RunStatus
    agent: str | None
    created_at: float | None
    """Seconds since the epoch."""
    worker: str | None
    """The identity of the worker that last ran it."""
    waiting: Mapping[str, Any] | None = None
    """What a `waiting` run waits for: the call (`call_id`, `tool`, `arguments`)."""


class Client:
    """Submit durable runs and answer their approvals from any process, no worker needed.

    The database defaults as for `Worker`. A database that does not answer is an error at once.
    """

    def __init__(self, database: str | None = None) -> None:
        self.database_url = database_url(database)
        prepare_database(self.database_url)
        try:
            self._dbos = DBOSClient(
                system_database_url=self.database_url,
                application_name=APP_NAME,
                retry_connection_errors=False,
            )
        except Exception as failure:
            raise RunError(f"the database {self.database_url} does not answer: {failure}") from None

    def close(self) -> None:
        self._dbos.destroy()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def submit(self, prompt: str, *, agent: str = "default", run_id: str | None = None) -> str:
        """Queue a durable run for any worker; returns its run id."""
        run_id = run_id or new_run_id()
        options: Any = {
            "queue_name": QUEUE,
            "workflow_name": WORKFLOW_NAME,
            "workflow_id": run_id,
            "app_version": APP_VERSION,
        }
        self._dbos.enqueue(options, agent, prompt)
        return run_id

    def status(self, run_id: str) -> DurableRun:
        found = self._dbos.list_workflows(workflow_ids=[run_id], load_output=False)
        if not found:
            raise UsageError(f"no durable run has the id {run_id!r}")
        return self._describe(found[0])

    def runs(self, limit: int = 50) -> list[DurableRun]:
        """The latest runs first."""
        found = self._dbos.list_workflows(
            name=WORKFLOW_NAME, limit=limit, sort_desc=True, load_output=False
        )
        return [self._describe(status) for status in found]

    def _describe(self, status: Any) -> DurableRun:
        state = _STATUSES.get(status.status, "running")
        waiting = None
        if state == "running":
            waiting = self._dbos.get_event(status.workflow_id, WAITING_EVENT, timeout_seconds=0)
        inputs = status.input
        agent = inputs["args"][0] if inputs and inputs.get("args") else None
        return DurableRun(
            run_id=status.workflow_id,
            status="waiting" if waiting else state,
            agent=agent,
            created_at=None if status.created_at is None else status.created_at / 1000,
            worker=status.executor_id,
            waiting=waiting or None,
        )

    def approve(self, run_id: str, call_id: str, decision: Decision | bool = True) -> None:
        """Answer the approval a run waits for, from any process."""
        run = self.status(run_id)
        waiting_for = run.waiting.get("call_id") if run.waiting else None
        if waiting_for != call_id:
            now = f"it waits for call {waiting_for}" if waiting_for else f"it is {run.status}"
            raise UsageError(f"run {run_id} is not waiting for an approval of {call_id}: {now}")
        if isinstance(decision, bool):
            decision = Approve() if decision else Decline()
        self._dbos.send(run_id, decision_message(decision), topic=approval_topic(call_id))

    def result(self, run_id: str) -> RunResult:
        """Wait for the run to finish and return its result."""
        self.status(run_id)
        result: RunResult = self._dbos.retrieve_workflow(run_id).get_result(
            polling_interval_sec=0.1
        )
        return result

    def cancel(self, run_id: str) -> None:
        self.status(run_id)
        self._dbos.cancel_workflow(run_id)

    def resume(self, run_id: str) -> None:
        """Put a cancelled or failed run back on the queue, to continue from its last step."""
        self.status(run_id)
        self._dbos.resume_workflow(run_id)
