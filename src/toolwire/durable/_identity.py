"""Which worker a process is, and whether another worker is still alive.

DBOS hands a crashed process's runs only to a process with the same executor id. So each worker
holds a lock on a numbered identity (`w0`, `w1`, ...) for as long as it lives: a new worker takes
the first free one, and so inherits the runs of a worker that died there; a lock another worker
can take means the worker that held it is dead, and its runs may be taken over. The lock is a
file lock beside a SQLite database (one machine) or a PostgreSQL advisory lock (any machine),
both released by the operating system or the server when the process dies.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
from pathlib import Path
from typing import Any, Protocol

__all__ = ["IdentityLock", "claim_identity", "identity_lock"]

MAX_WORKERS = 1024


class IdentityLock(Protocol):
    def try_lock(self, executor_id: str) -> bool: ...

    def unlock(self, executor_id: str) -> None: ...

    def close(self) -> None: ...


class _FileLocks:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        self._directory = directory
        self._held: dict[str, int] = {}

    def try_lock(self, executor_id: str) -> bool:
        fd = os.open(self._directory / f"{executor_id}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        self._held[executor_id] = fd
        return True

    def unlock(self, executor_id: str) -> None:
        fd = self._held.pop(executor_id, None)
        if fd is not None:
            os.close(fd)  # closing the descriptor releases its lock

    def close(self) -> None:
        for executor_id in list(self._held):
            self.unlock(executor_id)


class _AdvisoryLocks:
    """Session-level advisory locks on one connection kept open for the worker's life."""

    def __init__(self, url: str) -> None:
        import psycopg

        self._db: Any = psycopg.connect(_libpq_url(url), autocommit=True)

    def try_lock(self, executor_id: str) -> bool:
        row = self._db.execute("SELECT pg_try_advisory_lock(%s)", (_key(executor_id),)).fetchone()
        return bool(row[0])

    def unlock(self, executor_id: str) -> None:
        self._db.execute("SELECT pg_advisory_unlock(%s)", (_key(executor_id),))

    def close(self) -> None:
        self._db.close()


def _key(executor_id: str) -> int:
    digest = hashlib.sha256(f"toolwire.worker:{executor_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def _libpq_url(url: str) -> str:
    scheme, _, rest = url.partition("://")
    return f"postgresql://{rest}" if scheme.startswith("postgres") else url


def identity_lock(database_url: str) -> IdentityLock:
    if database_url.startswith("sqlite"):
        path = Path(database_url.removeprefix("sqlite:///"))
        return _FileLocks(path.with_name(path.name + ".workers"))
    return _AdvisoryLocks(database_url)


def claim_identity(locks: IdentityLock) -> str:
    """The first identity no living worker holds, held until `locks` closes."""
    for number in range(MAX_WORKERS):
        executor_id = f"w{number}"
        if locks.try_lock(executor_id):
            return executor_id
    raise RuntimeError(f"{MAX_WORKERS} workers are already running on this database")
