"""Driving the crash-test application (`app.py`) as real processes, and reading what it did."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
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
