"""Where durable runs are recorded: SQLite in the user data directory, or a PostgreSQL URL."""

from __future__ import annotations

import os
from pathlib import Path

from ..errors import RunError, UsageError
from ..log import default_log_path

__all__ = ["DATABASE_URL_ENV", "database_url", "prepare_database"]

DATABASE_URL_ENV = "TOOLWIRE_DATABASE_URL"


def database_url(url: str | None = None) -> str:
    """`url`, else `TOOLWIRE_DATABASE_URL`, else a SQLite file beside the run log (a file of its
    own: the engine's writes and the log's do not wait for each other)."""
    url = url or os.environ.get(DATABASE_URL_ENV)
    if not url:
        return f"sqlite:///{default_log_path().with_name('durable.db')}"
    scheme = url.partition(":")[0]
    if scheme not in ("sqlite", "postgresql", "postgres", "postgresql+psycopg"):
        raise UsageError(
            f"database URL {url!r}: expected sqlite:///PATH or postgresql://USER@HOST:PORT/DB"
        )
    return url


def prepare_database(url: str) -> None:
    """Create the database and its tables if they are missing (any process may come first);
    a database that does not answer is an error at once, not a wait."""
    from dbos import DBOS

    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    try:
        DBOS.migrate(url)
    except Exception as failure:
        raise RunError(f"the database {url} does not answer: {failure}") from None
