"""Durable runs on DBOS: a run survives a crash, waits days for an approval, and spreads over
many workers. `pip install 'toolwire[durable]'`.

A `Worker` runs durable runs (in its own process, and those queued by any process); a `Client`
submits runs, answers approvals and lists runs from any process. The database is SQLite in the
user data directory, or PostgreSQL (`TOOLWIRE_DATABASE_URL`, or `database=`) to share one queue
between workers on many machines.
"""

from __future__ import annotations

try:
    import dbos  # noqa: F401
except ImportError as missing:  # pragma: no cover - depends on the installation
    raise ImportError(
        "durable runs need the durable extra: pip install 'toolwire[durable]'"
    ) from missing

from ._client import Client, DurableRun, RunStatus
from ._database import DATABASE_URL_ENV
from ._worker import Worker

__all__ = ["DATABASE_URL_ENV", "Client", "DurableRun", "RunStatus", "Worker"]
