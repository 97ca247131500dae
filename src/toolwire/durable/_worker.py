"""A process that runs durable runs: in-process ones, and those waiting on the queue."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from typing import Any

from dbos import DBOS, SetWorkflowID

from ..agent import Agent, EventHandler
from ..clock import new_run_id
from ..run import RunResult
from ._database import database_url, prepare_database
from ._identity import IdentityLock, claim_identity, identity_lock
from ._workflow import REGISTRY, run_workflow

__all__ = ["APP_NAME", "APP_VERSION", "QUEUE", "Worker"]

APP_NAME = "toolwire"
APP_VERSION = "toolwire-durable-1"
"""Compatibility data: DBOS resumes a run only in a process of the version that started it, so
this names the recorded format, not the code (whose hash DBOS would otherwise use, stranding
every pending run at each upgrade)."""
QUEUE = "toolwire"


class Worker:
    """Runs durable runs of `agents` (one agent, named "default", or agents by name) and, from
    `launch` to `close`, resumes this database's runs whose worker died. Use as a context manager.

    `resolve(name)` makes the agent of a run submitted under a name not in `agents` (the CLI
    describes its agents by their options). `concurrency` caps the queued runs this worker runs
    at once.
    """

    def __init__(
        self,
        agents: Agent | Mapping[str, Agent],
        *,
        resolve: Callable[[str], Agent | None] | None = None,
        database: str | None = None,
        concurrency: int | None = None,
        poll_interval: float = 0.2,
        takeover_interval: float = 2.0,
    ) -> None:
        REGISTRY.add(agents)
        if resolve is not None:
            REGISTRY.resolve = resolve
        self.database_url = database_url(database)
        self.concurrency = concurrency
        self.poll_interval = poll_interval
        self.takeover_interval = takeover_interval
        self.executor_id = ""
        self._locks: IdentityLock | None = None
        self._stop = threading.Event()
        self._takeover: threading.Thread | None = None

    def launch(self) -> Worker:
        """Start serving (from synchronous code: `toolwire worker`)."""
        self._start_engine()
        DBOS.register_queue(QUEUE, **self._queue_options())
        return self._start_takeover()

    async def launch_async(self) -> Worker:
        """Start serving (from async code: DBOS refuses its blocking calls on an event loop)."""
        self._start_engine()
        await DBOS.register_queue_async(QUEUE, **self._queue_options())
        return self._start_takeover()

    def _start_engine(self) -> None:
        prepare_database(self.database_url)
        self._locks = identity_lock(self.database_url)
        self.executor_id = claim_identity(self._locks)
        DBOS(config=_config(self.database_url, self.executor_id, self.poll_interval))
        DBOS.launch()  # resumes the runs this identity's previous holder left unfinished

    def _queue_options(self) -> dict[str, Any]:
        return {"worker_concurrency": self.concurrency, "polling_interval_sec": self.poll_interval}

    def _start_takeover(self) -> Worker:
        self._takeover = threading.Thread(target=self._take_over, daemon=True)
        self._takeover.start()
        return self

    def close(self) -> None:
        self._stop.set()
        if self._takeover is not None:
            self._takeover.join()
        DBOS.destroy()
        if self._locks is not None:
            self._locks.close()

    def __enter__(self) -> Worker:
        return self.launch()

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    async def __aenter__(self) -> Worker:
        return await self.launch_async()

    async def __aexit__(self, *exc_info: object) -> None:
        self.close()

    async def run(
        self,
        prompt: str,
        *,
        agent: str = "default",
        run_id: str | None = None,
        on_event: EventHandler | None = None,
    ) -> RunResult:
        """Run durably in this process; a run id already recorded resumes that run (or returns
        its result, if it finished). `on_event` sees the events of the steps run here."""
        run_id = run_id or new_run_id()
        if on_event is not None:
            REGISTRY.listeners[run_id] = on_event
        try:
            if await DBOS.get_workflow_status_async(run_id) is not None:
                # Recorded already: its worker's recovery (or a takeover) runs it; starting it
                # here too would run its next step twice at once.
                handle: Any = await DBOS.retrieve_workflow_async(run_id)
            else:
                with SetWorkflowID(run_id):
                    handle = await DBOS.start_workflow_async(run_workflow, agent, prompt)
            result: RunResult = await handle.get_result()
            return result
        finally:
            REGISTRY.listeners.pop(run_id, None)

    def serve(self) -> None:
        """Run queued runs until `stop` (from another thread or a signal handler)."""
        self._stop.wait()

    def stop(self) -> None:
        self._stop.set()

    def _take_over(self) -> None:
        while not self._stop.wait(self.takeover_interval):
            take_over_dead_workers(self._locks, self.executor_id)


def take_over_dead_workers(locks: IdentityLock | None, own_id: str) -> list[str]:
    """Hand the unfinished runs of every dead worker back to the queue, where a living worker
    picks each up once (DBOS dequeues atomically). Returns the dead workers' ids."""
    assert locks is not None
    pending = DBOS.list_workflows(status="PENDING", load_input=False, load_output=False)
    owners = sorted({w.executor_id for w in pending if w.executor_id and w.executor_id != own_id})
    dead = []
    for executor_id in owners:
        if locks.try_lock(executor_id):
            try:
                DBOS._recover_pending_workflows([executor_id])
            finally:
                locks.unlock(executor_id)
            dead.append(executor_id)
    return dead


def _config(url: str, executor_id: str, poll_interval: float) -> Any:
    return {
        "name": APP_NAME,
        "system_database_url": url,
        "application_version": APP_VERSION,
        "executor_id": executor_id,
        "log_level": "WARNING",
        "notification_listener_polling_interval_sec": min(poll_interval, 1.0),
    }
