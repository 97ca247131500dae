"""Many runs over several worker processes sharing one queue; a worker SIGKILLed mid-flight has
its runs taken over by the living, with no process restarted under its identity."""

from __future__ import annotations

import signal
from collections import Counter
from pathlib import Path

from toolwire.durable import Client

from .conftest import wait_until
from .harness import Ledgers, app_env, finish, start


def test_the_runs_of_a_killed_worker_finish_on_the_others_exactly_once(
    tmp_path: Path, database_env: dict[str, str]
) -> None:
    runs, steps = 16, 2
    state = tmp_path / "state"
    env = app_env(state, database_env, DEDUPE="1", STEPS=str(steps), TOOL_DELAY="0.2")
    ledgers = Ledgers(state)
    workers = [start(env, "serve") for _ in range(2)]
    try:
        wait_until(lambda: len(ledgers.lines("workers.log")) == 2)
        database = env.get("TOOLWIRE_DATABASE_URL")
        with Client(database or f"sqlite:///{env['TOOLWIRE_DATA_DIR']}/durable.db") as client:
            ids = [client.submit("send the messages", run_id=f"fleet{i}") for i in range(runs)]
            identities = dict(line.split() for line in ledgers.lines("workers.log"))
            victim_id, survivor_id = sorted(identities)[::-1]

            def victim_is_mid_run() -> bool:
                return (
                    any(
                        run.status == "running" and run.worker == victim_id
                        for run in map(client.status, ids)
                    )
                    and len(ledgers.lines("effects.log")) >= 4
                )

            wait_until(victim_is_mid_run)
            victim = next(w for w in workers if str(w.pid) == identities[victim_id])
            victim.send_signal(signal.SIGKILL)
            assert finish(victim)[0] == -signal.SIGKILL
            wait_until(lambda: all(client.status(i).status == "done" for i in ids), timeout=120)
            results = [client.result(i) for i in ids]
            finishers = Counter(client.status(i).worker for i in ids)
    finally:
        for worker in workers:
            if worker.poll() is None:
                worker.send_signal(signal.SIGTERM)
                finish(worker)
    assert all(r.output == f"sent {steps} messages" for r in results)
    keys = Counter(line.split()[1] for line in ledgers.lines("effects.log"))
    assert len(keys) == runs * steps and set(keys.values()) == {1}
    # Every run ended on the worker that lived, the killed one's too.
    assert finishers == {survivor_id: runs}
