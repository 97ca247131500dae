"""What durability costs: a toolwire durable step against a bare DBOS step, and runs per second
through the queue with 1, 2 and 4 worker processes (SQLite, or TOOLWIRE_DATABASE_URL).

    python bench/durable_overhead.py

The model is the scripted model and the tool a no-op, so what is measured is the engine and
toolwire around it. Durability off is the ordinary loop: `bench/loop_overhead.py` measures it.
Prints ratios; absolute times on a shared 2-core machine are only for orientation.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio

STEPS = 100
RUNS = 40


def agent(steps: int) -> Any:
    from toolwire import Agent, Limits, ScriptedModel, Turn, tool
    from toolwire.models import ScriptedCall

    @tool(side_effect="read_only")
    async def noop(n: int) -> int:
        """Return n."""
        return n

    def turn(request: Any) -> Turn | str:
        done = sum(m.role == "assistant" for m in request.messages)
        if done >= steps:
            return "done"
        return Turn(tool_calls=[ScriptedCall(name="noop", arguments={"n": done})])

    return Agent(ScriptedModel(turn), [noop], limits=Limits(max_steps=None))


def per_step_costs() -> tuple[float, float]:
    """Milliseconds per recorded step: a bare DBOS step, and a toolwire durable run's (each
    model request and each tool call one step), both best of 3 in the same process."""
    from dbos import DBOS

    from toolwire.durable import Worker

    @DBOS.workflow(name="bench.bare")
    async def bare(n: int) -> int:
        async def step() -> int:
            return 1

        return sum([await DBOS.run_step_async({"name": f"s{i}"}, step) for i in range(n)])

    async def measure() -> tuple[float, float]:
        bare_ms, toolwire_ms = [], []
        async with Worker(agent(STEPS)) as worker:
            for attempt in range(3):
                start = time.perf_counter()
                await bare(2 * STEPS + 1)
                bare_ms.append((time.perf_counter() - start) * 1000 / (2 * STEPS + 1))
                start = time.perf_counter()
                result = await worker.run("go", run_id=f"bench-{os.getpid()}-{attempt}")
                elapsed = time.perf_counter() - start
                # Its recorded steps: one per request and call, and the clock's first reading.
                recorded = result.steps + len(result.calls) + 1
                assert recorded == 2 * STEPS + 2, result.stop_reason
                toolwire_ms.append(elapsed * 1000 / recorded)
        return min(bare_ms), min(toolwire_ms)

    return anyio.run(measure)


WORKER = """
import signal, sys, threading
sys.path.insert(0, {bench!r})
from durable_overhead import agent
from toolwire.durable import Worker
worker = Worker(agent(2), poll_interval=0.05, concurrency=20)
signal.signal(signal.SIGTERM, lambda *_: worker.stop())
with worker:
    print("ready", flush=True)
    worker.serve()
"""


def runs_per_second(workers: int) -> float:
    """RUNS runs of 2 steps (2 model requests, 2 tool calls) through the queue."""
    from toolwire.durable import Client

    code = WORKER.format(bench=str(Path(__file__).parent))
    processes = [
        subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
        for _ in range(workers)
    ]
    try:
        for process in processes:
            assert process.stdout is not None
            if process.stdout.readline() != "ready\n":
                raise RuntimeError("a worker failed to start")
        with Client() as client:
            start = time.perf_counter()
            ids = [client.submit("go") for _ in range(RUNS)]
            for run_id in ids:
                client.result(run_id)
            return RUNS / (time.perf_counter() - start)
    finally:
        for process in processes:
            process.send_signal(signal.SIGTERM)
            process.wait()


def main() -> None:
    with tempfile.TemporaryDirectory() as data:
        os.environ["TOOLWIRE_DATA_DIR"] = data
        bare, durable = per_step_costs()
        database = os.environ.get("TOOLWIRE_DATABASE_URL", "SQLite")
        print(f"database: {database.split('@')[-1]}")
        print(
            f"per recorded step: bare DBOS {bare:.2f} ms, toolwire durable {durable:.2f} ms "
            f"(ratio {durable / bare:.2f}; includes the loop's own work)"
        )
        for workers in (1, 2, 4):
            rates = [runs_per_second(workers) for _ in range(2)]
            print(
                f"queue, {workers} worker(s): {statistics.median(rates):.1f} runs/s ({RUNS} runs)"
            )


if __name__ == "__main__":
    main()
