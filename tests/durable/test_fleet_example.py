"""examples/durable_fleet runs end to end on a real PostgreSQL server: three workers, one
SIGKILLed mid-run, every run completed and every delivery made once."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from .harness import SRC

EXAMPLE = Path(__file__).parents[2] / "examples" / "durable_fleet" / "fleet.py"


def test_the_fleet_demo_completes_every_run_exactly_once(
    postgres_server: str, tmp_path: Path
) -> None:
    env = {**os.environ, "PYTHONPATH": str(SRC), "TOOLWIRE_DATA_DIR": str(tmp_path)}
    command = [sys.executable, str(EXAMPLE), "--runs", "60", "--db", f"{postgres_server}/fleet"]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    assert re.search(r"killed worker w\d \(SIGKILL\) mid-run", done.stdout), done.stdout
    assert "runs: 60, completed: 60" in done.stdout
    assert "deliveries: 60 (one per run: True)" in done.stdout
