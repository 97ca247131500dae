"""Several worker processes on one database serve many durable runs; one is SIGKILLed halfway.

    python examples/durable_fleet/fleet.py [--db postgresql://...] [--runs 200] [--workers 3]

Each run asks a scripted model, calls `deliver` (a tool with an effect: a file per delivery in a
ledger directory, created only if its idempotency key is new, as a service honouring keys would),
and answers. When half the runs are done, one worker is killed with SIGKILL; the others take over
its runs. Prints the counts: every run completes, every delivery happens exactly once.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

from toolwire import Agent, Injected, ScriptedModel, Turn, tool
from toolwire.models import ScriptedCall

LEDGER = Path(os.environ.get("FLEET_LEDGER", "."))


@tool(side_effect="destructive", requires_approval=False)
def deliver(parcel: str, key: Annotated[str, Injected("idempotency_key")]) -> str:
    """Deliver a parcel."""
    with open(LEDGER / "attempts", "a") as attempts:
        attempts.write(f"{key}\n")
    try:
        with open(LEDGER / f"delivered-{key}", "x") as delivered:
            delivered.write(parcel)
    except FileExistsError:
        return f"{parcel} was already delivered"
    time.sleep(0.05)  # the delivery's round trip: a window to be killed in
    return f"{parcel} delivered"


def turn(request: Any) -> Turn | str:
    """Chosen from the conversation, so any worker plays the same turn of a resumed run."""
    if any(message.role == "tool" for message in request.messages):
        return "Delivered."
    parcel = request.messages[-1].text
    return Turn(tool_calls=[ScriptedCall(name="deliver", arguments={"parcel": parcel})])


def serve(database: str | None) -> None:
    from toolwire.durable import Worker

    # A few runs at a time per worker, so runs flow in waves and one can be killed mid-run.
    worker = Worker(Agent(ScriptedModel(turn), [deliver]), database=database, concurrency=5)
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    with worker:
        print(worker.executor_id, flush=True)
        worker.serve()


def main(database: str | None, runs: int, workers: int) -> None:
    from toolwire.durable import Client

    command = [sys.executable, __file__, "--serve"] + (["--db", database] if database else [])
    processes = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(workers)
    ]
    try:
        identities = {p.stdout.readline().strip(): p for p in processes if p.stdout}
        started = time.perf_counter()
        with Client(database) as client:
            ids = [client.submit(f"parcel {n}") for n in range(runs)]
            victim, done = None, 0
            while victim is None and done < runs:
                listed = client.runs(limit=runs)
                busy = {run.worker for run in listed if run.status == "running"}
                done = sum(run.status == "done" for run in listed)
                if done >= runs // 2 and busy:
                    victim = sorted(busy)[-1]
                time.sleep(0.05)
            if victim is None:
                raise SystemExit("every run finished before a worker could be killed mid-run")
            identities[victim].send_signal(signal.SIGKILL)
            print(f"killed worker {victim} (SIGKILL) mid-run, {done} of {runs} runs done")
            results = [client.result(i) for i in ids]
            finished_by = Counter(client.status(i).worker for i in ids)
        elapsed = time.perf_counter() - started
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            process.wait()
    attempts = (LEDGER / "attempts").read_text().split()
    delivered = len(list(LEDGER.glob("delivered-*")))
    print(f"runs: {runs}, completed: {sum(r.output == 'Delivered.' for r in results)}")
    print(
        f"deliveries: {delivered} (one per run: {delivered == runs}); tool executions: "
        f"{len(attempts)} ({len(attempts) - len(set(attempts))} repeated, caught by the key)"
    )
    print(f"finished by: {dict(sorted(finished_by.items()))}; {runs / elapsed:.1f} runs/s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="a PostgreSQL URL (default: SQLite in the data directory)")
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.db)
    else:
        with tempfile.TemporaryDirectory() as ledger:
            os.environ["FLEET_LEDGER"] = ledger  # the workers' ledger too
            LEDGER = Path(ledger)
            main(args.db, args.runs, args.workers)
