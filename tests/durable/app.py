"""A durable toolwire application for crash tests, run as its own process.

    python app.py run RUN_ID     run (or resume) one durable run here, print its result as JSON
    python app.py serve          serve the queue until SIGTERM

The state directory (STATE) holds what happened: `model.log` (one line per model request),
`attempts.log` (one line per execution of the tool), `effects.log` (one line per effect: with
DEDUPE=1 the tool dedupes on its idempotency key, as a mail server honouring one would).
KILL names where the process SIGKILLs itself, once per state directory:
`stream:N` (while request N streams), `tool:N` (response N recorded, its tool not yet run),
`effect:N` (call N's effect done, its step not yet recorded), `between:N` (before request N),
`waiting` (while waiting for an approval); several may be given, comma-separated. TOOL_DELAY
holds each call open after its effect, so a worker can be killed from outside mid-call.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any

import anyio

from toolwire import Agent, Injected, ScriptedModel, Turn, tool
from toolwire.events import ApprovalRequested, RunEvent, StepStarted
from toolwire.log import RunLog
from toolwire.models import ModelRequest, ScriptedCall

STATE = Path(os.environ["STATE"])
STEPS = int(os.environ.get("STEPS", "3"))
KILLS = set(filter(None, os.environ.get("KILL", "").split(",")))


def append(name: str, line: str) -> None:
    with open(STATE / name, "a") as file:
        file.write(line + "\n")
        file.flush()
        os.fsync(file.fileno())


def lines(name: str) -> list[str]:
    path = STATE / name
    return path.read_text().splitlines() if path.exists() else []


def kill_point(point: str) -> None:
    """SIGKILL this process the first time it reaches `point`, if asked to."""
    if point not in KILLS:
        return
    try:
        os.close(os.open(STATE / f"killed-{point}", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    os.kill(os.getpid(), signal.SIGKILL)


def turn_for(request: ModelRequest) -> Turn | str:
    """Step N (counted from the conversation, so any process plays the same turn) sends one
    message; after STEPS of them, the answer."""
    n = sum(m.role == "assistant" for m in request.messages) + 1
    if n > STEPS:
        return f"sent {STEPS} messages"
    return Turn(text=f"step {n}. ", tool_calls=[ScriptedCall(name="send", arguments={"n": n})])


class LoggedModel:
    """The scripted model, counting its requests and dying mid-stream when told to."""

    name = "scripted"

    def __init__(self) -> None:
        self.inner = ScriptedModel(turn_for, chunk_size=2)

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        n = sum(m.role == "assistant" for m in request.messages) + 1
        append("model.log", str(n))
        sent = 0
        async for event in self.inner.stream(request):
            yield event
            sent += 1
            if sent == 3:
                kill_point(f"stream:{n}")


@tool(side_effect="destructive", requires_approval=os.environ.get("APPROVE") == "1")
def send(n: int, key: Annotated[str, Injected("idempotency_key")]) -> str:
    """Send message number n."""
    kill_point(f"tool:{n}")
    append("attempts.log", f"{n} {key}")
    if os.environ.get("DEDUPE") == "1" and any(e.endswith(key) for e in lines("effects.log")):
        return f"message {n} already sent"
    append("effects.log", f"{n} {key}")
    time.sleep(float(os.environ.get("TOOL_DELAY", "0")))  # a window to be killed in
    kill_point(f"effect:{n}")
    return f"message {n} sent"


class KillingLog(RunLog):
    """The run log, with the kill points that sit between steps."""

    def record(self, run_id: str, event: RunEvent) -> None:
        super().record(run_id, event)
        if isinstance(event, StepStarted) and event.step > 1:
            kill_point(f"between:{event.step}")
        if isinstance(event, ApprovalRequested) and "waiting" in KILLS:
            # Dies once the wait is recorded: the run then waits with no process at all.
            threading.Timer(1.0, kill_point, ["waiting"]).start()


def agent() -> Agent:
    return Agent(LoggedModel(), [send], log=KillingLog())


async def run(run_id: str) -> None:
    from toolwire.durable import Worker

    async with Worker(agent(), poll_interval=0.05, takeover_interval=0.5) as worker:
        result = await worker.run("send the messages", run_id=run_id)
    summary = {
        "output": result.output,
        "stop_reason": result.stop_reason,
        "calls": [(c.call.id, c.result.content, c.decided_by) for c in result.calls],
        "messages": [m.text for m in result.messages],
    }
    print(json.dumps(summary))


def serve() -> None:
    from toolwire.durable import Worker

    concurrency = int(os.environ.get("CONCURRENCY", "4"))
    worker = Worker(agent(), poll_interval=0.05, takeover_interval=0.5, concurrency=concurrency)
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    with worker:
        append("workers.log", f"{worker.executor_id} {os.getpid()}")
        worker.serve()


if __name__ == "__main__":
    if sys.argv[1] == "run":
        anyio.run(run, sys.argv[2])
    else:
        serve()
