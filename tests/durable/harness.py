"""Driving the crash-test application (`app.py`) as real processes, and reading what it did."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

APP = Path(__file__).with_name("app.py")
SRC = Path(__file__).parents[2] / "src"


def app_env(state: Path, database_env: dict[str, str], **settings: str) -> dict[str, str]:
    state.mkdir(parents=True, exist_ok=True)
    pythonpath = os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")]))
    return {**os.environ, **database_env, "STATE": str(state), "PYTHONPATH": pythonpath, **settings}


def start(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(APP), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(process: subprocess.Popen[str], timeout: float = 90) -> tuple[int, str, str]:
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(f"the app hung:\n{err[-3000:]}") from None
    return process.returncode, out, err


def run_through_crashes(env: dict[str, str], run_id: str, max_processes: int = 12) -> Any:
    """Run the run, starting a new process each time one is killed, until it finishes; returns
    the result the last process printed, and how many processes died."""
    for deaths in range(max_processes):
        code, out, err = finish(start(env, "run", run_id))
        if code == -signal.SIGKILL:
            continue
        assert code == 0, err[-3000:]
        return json.loads(out.splitlines()[-1]), deaths
    raise AssertionError(f"still not finished after {max_processes} processes")


@dataclass
class Ledgers:
    """What the app's processes did, from its ledger files."""

    state: Path

    def lines(self, name: str) -> list[str]:
        path = self.state / name
        return path.read_text().splitlines() if path.exists() else []

    def model_requests(self) -> Counter[int]:
        return Counter(int(line) for line in self.lines("model.log"))

    def tool_runs(self) -> Counter[int]:
        return Counter(int(line.split()[0]) for line in self.lines("attempts.log"))

    def effects(self) -> Counter[int]:
        return Counter(int(line.split()[0]) for line in self.lines("effects.log"))

    def keys(self) -> dict[int, set[str]]:
        keys: dict[int, set[str]] = {}
        for line in self.lines("attempts.log"):
            n, key = line.split()
            keys.setdefault(int(n), set()).add(key)
        return keys


def run_answering_approvals(
    env: dict[str, str], run_id: str, answer: Any, max_processes: int = 6
) -> tuple[Any, int, list[str]]:
    """Like `run_through_crashes`, answering each approval the run waits for from this process
    (`answer(client, run_id, call_id)`): until a worker has died (the app kills itself while
    waiting), only while no worker is alive. Returns the result, the deaths, and the calls
    answered while the run had no process."""
    from toolwire.durable import Client

    from .conftest import wait_until

    answered_alone: list[str] = []
    answered: set[str] = set()
    database = env.get("TOOLWIRE_DATABASE_URL")
    with Client(database or f"sqlite:///{env['TOOLWIRE_DATA_DIR']}/durable.db") as client:
        for deaths in range(max_processes):
            process = start(env, "run", run_id)
            try:
                while process.poll() is None:
                    # A new worker replaying an approval answered while no worker lived still
                    # shows the dead worker's wait until it reads the answer: never answer twice.
                    waiting = _waiting_call(client, run_id) if deaths else None
                    if waiting is not None and waiting not in answered:
                        answer(client, run_id, waiting)
                        answered.add(waiting)
                        wait_until(functools.partial(_answered, client, run_id, waiting))
                    time.sleep(0.05)
            except BaseException:
                process.kill()
                process.communicate()
                raise
            code, out, err = finish(process)
            if code != -signal.SIGKILL:
                assert code == 0, err[-3000:]
                return json.loads(out.splitlines()[-1]), deaths, answered_alone
            waiting = _waiting_call(client, run_id)
            if waiting is not None and waiting not in answered:
                answer(client, run_id, waiting)  # the worker died while the run waited
                answered.add(waiting)
                answered_alone.append(waiting)
    raise AssertionError(f"still not finished after {max_processes} processes")


def _waiting_call(client: Any, run_id: str) -> str | None:
    try:
        run = client.status(run_id)
    except Exception:  # not recorded yet: the worker is starting
        return None
    return run.waiting["call_id"] if run.waiting else None


def _answered(client: Any, run_id: str, call_id: str) -> bool:
    return _waiting_call(client, run_id) != call_id
