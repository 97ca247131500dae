"""What following runs live in `toolwire ui` costs: the watcher idle, a change reaching a page,
and the change marker a page's feed reads on a large log.

    python bench/ui_feed.py

Needs the ui extra. Starts `toolwire ui` on a free port over a throwaway log.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from toolwire.events import RunStarted, StepStarted
from toolwire.log import RunLog

IDLE_SECONDS = 10
CHANGES = 30
LARGE_LOG_RUNS = 10_000


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def start_ui(data: Path) -> tuple[subprocess.Popen[str], str]:
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable
    server = subprocess.Popen(
        [executable, "ui", "--no-open", "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TOOLWIRE_DATA_DIR": str(data)},
    )
    assert server.stdout is not None
    return server, server.stdout.readline().split()[2]


def idle_and_latency(data: Path) -> None:
    log = RunLog(data / "runs.db")
    log.record("run-1", RunStarted(run_id="run-1", model="m", prompt="p", started_at=time.time()))
    server, url = start_ui(data)
    try:
        feed = urllib.request.urlopen(f"{url}api/runs/run-1/events", timeout=30)
        feed.readline(), feed.readline(), feed.readline()  # the first event
        before = cpu_seconds(server.pid)
        time.sleep(IDLE_SECONDS)
        idle = (cpu_seconds(server.pid) - before) / IDLE_SECONDS
        print(f"idle with one page following a run: {100 * idle:.2f}% of one core")
        delays = []
        for step in range(CHANGES):
            written = time.perf_counter()
            log.record("run-1", StepStarted(step=step + 1))
            while feed.readline() != b"event: change\n":
                pass
            delays.append(time.perf_counter() - written)
            feed.readline(), feed.readline()
            time.sleep(0.05)
        print(
            f"a step written by another process reaches the page's feed in {1000 * statistics.median(delays):.0f} ms"
            f" (median of {CHANGES}; max {1000 * max(delays):.0f} ms)"
        )
        feed.close()
    finally:
        server.terminate()
        server.wait()
        log.close()


def marker_on_a_large_log(data: Path) -> None:
    log = RunLog(data / "large.db")
    for n in range(LARGE_LOG_RUNS):
        run_id = f"run-{n}"
        log.record(run_id, RunStarted(run_id=run_id, model="m", prompt="p", started_at=n))
        log.record(run_id, StepStarted(step=1))
    for scope, run_id in (("the list", None), ("one run", "run-5000")):
        timings = []
        for _ in range(50):
            began = time.perf_counter()
            log.changes(run_id)
            timings.append(time.perf_counter() - began)
        print(
            f"change marker for {scope} on a log of {LARGE_LOG_RUNS:,} runs:"
            f" {1e6 * statistics.median(timings):.0f} us"
        )
    log.close()


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as directory:
        idle_and_latency(Path(directory))
        marker_on_a_large_log(Path(directory))
