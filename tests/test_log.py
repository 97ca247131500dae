from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from pathlib import Path

from toolwire import Agent, Limits, RunEvent, ScriptedModel, Turn, tool
from toolwire.events import CallCorrected, ModelEvent, ResponseCompleted
from toolwire.log import MIGRATIONS, CorrectionRow, RunLog, default_log_path
from toolwire.models import ModelRequest, ScriptedCall


@tool(side_effect="read_only")
def echo(text: str) -> str:
    return text


def test_a_run_is_recorded_with_calls_messages_and_usage(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")
    model = ScriptedModel(
        [Turn(tool_calls=[ScriptedCall(name="echo", arguments={"text": "x" * 500})]), "done"]
    )
    result = Agent(model, [echo], log=log, limits=Limits(max_result_chars=100)).run_sync("hello")
    [run] = log.runs()
    assert (run.id, run.prompt, run.stop_reason, run.output, run.steps) == (
        result.run_id,
        "hello",
        "answer",
        "done",
        2,
    )
    assert run.input_tokens == result.usage.input_tokens > 0
    [call] = log.calls(run.id)
    assert (call.name, call.arguments, call.result, call.truncated) == (
        "echo",
        {"text": "x" * 500},
        "x" * 500,
        True,
    )
    db = sqlite3.connect(tmp_path / "runs.db")
    roles = [
        r[0]
        for r in db.execute("SELECT role FROM messages WHERE run_id = ? ORDER BY idx", (run.id,))
    ]
    assert roles == ["user", "assistant", "tool", "assistant"]
    steps = db.execute(
        "SELECT step, input_tokens FROM usage WHERE run_id = ? ORDER BY step", (run.id,)
    ).fetchall()
    assert [s for s, _ in steps] == [1, 2]
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert log.find_run(run.id[:6]) == run and log.find_run("zzz") is None


def test_a_step_recorded_twice_is_not_duplicated(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")
    model = ScriptedModel(
        [Turn(tool_calls=[ScriptedCall(name="echo", arguments={"text": "a"}, id="c1")]), "ok"]
    )
    for _ in range(2):  # a durable engine replaying the same run id
        model = ScriptedModel(
            [Turn(tool_calls=[ScriptedCall(name="echo", arguments={"text": "a"}, id="c1")]), "ok"]
        )
        Agent(model, [echo], log=log).run_sync("hi", run_id="run-1")
    assert len(log.runs()) == 1 and len(log.calls("run-1")) == 1


def test_migrations_run_once_and_the_env_var_moves_the_log(
    tmp_path: Path, monkeypatch: object
) -> None:
    RunLog(tmp_path / "a.db").close()
    RunLog(tmp_path / "a.db").close()
    version = sqlite3.connect(tmp_path / "a.db").execute("PRAGMA user_version").fetchone()[0]
    assert version == len(MIGRATIONS)
    assert default_log_path() == Path(os.environ["TOOLWIRE_DATA_DIR"]) / "runs.db"


def test_a_killed_process_keeps_every_completed_call(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    script = textwrap.dedent(f"""
        import time
        from toolwire import Agent, ScriptedModel, Turn, tool
        from toolwire.log import RunLog
        from toolwire.models import ScriptedCall

        @tool(side_effect="read_only")
        def step(n: int) -> str:
            if n == 3:
                print("ready", flush=True)
                time.sleep(600)
            return f"done {{n}}"

        turns = [Turn(tool_calls=[ScriptedCall(name="step", arguments={{"n": n}})]) for n in (1, 2, 3)]
        Agent(ScriptedModel(turns + ["end"]), [step], log=RunLog({str(db)!r})).run_sync("go")
    """)
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGKILL)
    process.wait()
    process.stdout.close()
    time.sleep(0.1)
    log = RunLog(db)
    [run] = log.runs()
    assert run.stop_reason is None
    assert [c.result for c in log.calls(run.id)] == ["done 1", "done 2"]


class _Correcting:
    """Writes a call as the model wrote it, then corrects it as the embedded model does."""

    name = "correcting"

    def __init__(self) -> None:
        self.inner = ScriptedModel(
            [Turn(tool_calls=[ScriptedCall(name="echo", arguments={"text": "ran"})]), "done"]
        )

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        async for event in self.inner.stream(request):
            if isinstance(event, ResponseCompleted) and request.messages[-1].role == "user":
                yield CallCorrected(
                    name="echo", written={"text": "wrote"}, index=0, changes=("text: fixed",)
                )
                yield CallCorrected(
                    name="echo", written={"text": "more"}, index=None, changes=("dropped",)
                )
            yield event


def test_what_the_model_wrote_and_what_ran_are_both_recorded(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")
    events: list[RunEvent] = []
    result = Agent(_Correcting(), [echo], log=log).run_sync("hello", on_event=events.append)
    [call] = result.calls
    # The loop names the call the correction belongs to.
    [corrected, dropped] = [e for e in events if isinstance(e, CallCorrected)]
    assert (corrected.id, dropped.id) == (call.call.id, None)
    assert log.corrections(result.run_id) == [
        CorrectionRow(
            step=1, call_id=call.call.id, name="echo", written={"text": "wrote"},
            changes=["text: fixed"],
        ),
        CorrectionRow(step=1, call_id=None, name="echo", written={"text": "more"}, changes=["dropped"]),
    ]  # fmt: skip
    assert log.calls(result.run_id)[0].arguments == {"text": "ran"}
