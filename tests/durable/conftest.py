"""Databases for durable runs: SQLite in the test's data directory, and a real PostgreSQL server
this session starts on 127.0.0.1 in a temporary directory (skipped, saying why, only where the
PostgreSQL binaries are not installed: scripts/test installs them)."""

from __future__ import annotations

import glob
import logging
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def _pg_bin() -> Path | None:
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(versions[-1]).parent if versions else None


def _as_server_user(command: list[str]) -> list[str]:
    # PostgreSQL refuses to run as root; a root test run starts it as the postgres user.
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *command]
    return command


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A base URL (no database name) of a PostgreSQL server for this session."""
    bin_dir = _pg_bin()
    if bin_dir is None:
        pytest.skip("PostgreSQL is not installed (pg_ctl not found): apt-get install postgresql")
    root = Path(tempfile.mkdtemp(prefix="toolwire-pg-"))
    if os.geteuid() == 0:
        shutil.chown(root, "postgres")
    data, port = root / "data", _free_port()
    initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust"]
    subprocess.run(
        _as_server_user([*initdb, "--no-sync"]),
        check=True,
        capture_output=True,
    )
    options = f"-c listen_addresses=127.0.0.1 -p {port} -c unix_socket_directories={root} -F"
    start = [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-o", options]
    subprocess.run(_as_server_user([*start, "-w", "start"]), check=True, capture_output=True)
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        stop = [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]
        subprocess.run(_as_server_user(stop), capture_output=True)
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(autouse=True)
def _default_database(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test's own SQLite database, whatever the environment points at."""
    monkeypatch.delenv("TOOLWIRE_DATABASE_URL", raising=False)


@pytest.fixture(autouse=True)
def _dbos_logs_to_this_tests_stderr() -> None:
    """DBOS gives its console handler the stderr of the test that first starts it, which pytest
    closes after that test; a later test's DBOS would then fail flushing it."""
    for handler in logging.getLogger("dbos").handlers:
        if type(handler) is logging.StreamHandler:  # not pytest's own capturing handlers
            handler.stream = sys.stderr  # not setStream: that flushes the closed stream first


@pytest.fixture(params=["sqlite", "postgres"])
def database_env(request: pytest.FixtureRequest, tmp_path: Path) -> dict[str, str]:
    """The environment a process needs to find this test's own durable database."""
    env = {"TOOLWIRE_DATA_DIR": str(tmp_path / "data"), "TOOLWIRE_DATABASE_URL": ""}
    if request.param == "postgres":
        server = request.getfixturevalue("postgres_server")
        env["TOOLWIRE_DATABASE_URL"] = f"{server}/t{uuid.uuid4().hex[:12]}"
    return env


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {condition}")
        time.sleep(0.05)
