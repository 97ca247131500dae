"""Durable runs on DBOS in this process (SQLite in the test's data directory)."""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

import anyio
import pytest

from toolwire import Agent, Edit, Injected, Limits, RunError, ScriptedModel, Turn, UsageError, tool
from toolwire.clock import EventLoopClock, IdSource
from toolwire.events import RunEvent, TextDelta
from toolwire.log import RunLog
from toolwire.models import ScriptedCall

durable = pytest.importorskip("toolwire.durable", reason="needs the durable extra")

keys: list[str] = []


@tool(side_effect="destructive", requires_approval=False)
def send(to: str, key: Annotated[str, Injected("idempotency_key")]) -> str:
    """Send a message."""
    keys.append(key)
    return f"sent to {to}"


def script(request: Any) -> Turn | str:
    if any(m.role == "tool" for m in request.messages):
        return "all sent"
    return Turn(text="sending", tool_calls=[ScriptedCall(name="send", arguments={"to": "bob"})])


@pytest.fixture
def model() -> ScriptedModel:
    keys.clear()
    return ScriptedModel(script)


def durable_run(agent: Agent, run_id: str, events: list[RunEvent] | None = None) -> Any:
    async def main() -> Any:
        async with durable.Worker(agent, poll_interval=0.05) as worker:
            on_event = None if events is None else events.append
            return await worker.run("send it", run_id=run_id, on_event=on_event)

    return anyio.run(main)


def test_a_durable_run_answers_as_a_plain_run_and_streams_live(model: ScriptedModel) -> None:
    plain = anyio.run(lambda: Agent(ScriptedModel(script), [send]).run("send it", run_id="r1"))
    events: list[RunEvent] = []
    result = durable_run(Agent(model, [send], log=RunLog()), "r1", events)
    assert result.output == plain.output == "all sent"
    assert result.messages == plain.messages
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "sendingall sent"
    assert keys == [IdSource("r1").idempotency_key("call_r1_1")] * 2


def test_a_finished_run_id_returns_its_record_and_runs_nothing(model: ScriptedModel) -> None:
    agent = Agent(model, [send], log=RunLog())
    first = durable_run(agent, "r2")
    again = durable_run(agent, "r2")
    assert again.messages == first.messages
    assert len(model.requests) == 2
    assert len(keys) == 1
    log = RunLog()
    assert [run.id for run in log.runs()] == ["r2"]
    assert len(log.calls("r2")) == 1


def test_the_durable_loop_reads_time_only_from_the_record(
    model: ScriptedModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    def forbidden(*args: object) -> Any:
        raise AssertionError("the workflow side read the event loop's clock")

    for name in ("now", "timestamp", "sleep"):
        monkeypatch.setattr(EventLoopClock, name, forbidden)
    result = durable_run(Agent(model, [send]), "r3")
    assert result.output == "all sent"
    assert result.calls[0].duration >= 0


deleted: list[str] = []


@tool(side_effect="destructive")
def delete(path: str) -> str:
    """Delete a file."""
    deleted.append(path)
    return f"deleted {path}"


def deleting(request: Any) -> Turn | str:
    if any(m.role == "tool" for m in request.messages):
        return "finished"
    return Turn(tool_calls=[ScriptedCall(name="delete", arguments={"path": "a.txt"})])


def test_an_unanswered_approval_times_out_durably_into_a_decline() -> None:
    agent = Agent(ScriptedModel(deleting), [delete], limits=Limits(approval_timeout=0.3))
    result = durable_run(agent, "r4")
    [call] = result.calls
    assert call.decided_by == "policy:approval-timeout"
    assert call.result.is_error and "not approved" in call.result.content
    assert call.decision_time >= 0.3


def test_an_approval_answered_by_a_client_runs_the_edited_call() -> None:
    agent = Agent(ScriptedModel(deleting), [delete])

    async def main() -> Any:
        worker = durable.Worker(agent, poll_interval=0.05)
        async with worker, anyio.create_task_group() as group:
            group.start_soon(answer_when_waiting, "r5")
            return await worker.run("delete it", run_id="r5")

    result = anyio.run(main)
    [call] = result.calls
    assert call.result.content == "deleted b.txt"
    assert (call.decided_by, call.edited_arguments) == ("ann", {"path": "b.txt"})


async def until(status: str, client: Any, run_id: str, wanted: bool = True) -> None:
    while True:
        with contextlib.suppress(UsageError):  # not recorded yet
            if (client.status(run_id).status == status) == wanted:
                return
        await anyio.sleep(0.05)


async def answer_when_waiting(run_id: str) -> None:
    with durable.Client() as client:
        await until("waiting", client, run_id)
        with pytest.raises(UsageError, match="not waiting for an approval of call_x"):
            client.approve(run_id, "call_x")
        client.approve(run_id, f"call_{run_id}_1", Edit(arguments={"path": "b.txt"}, by="ann"))
        await until("waiting", client, run_id, wanted=False)
        with pytest.raises(UsageError, match="not waiting"):
            client.approve(run_id, f"call_{run_id}_1")


def test_bad_input_to_a_client_is_a_clear_error() -> None:
    with durable.Client() as client:
        with pytest.raises(UsageError, match="no durable run has the id 'nope'"):
            client.approve("nope", "call_1")
        for act in (client.cancel, client.resume, client.status):
            with pytest.raises(UsageError, match="no durable run"):
                act("nope")
    with pytest.raises(RunError, match="does not answer"):
        durable.Client("postgresql://nobody@127.0.0.1:1/none")
    with pytest.raises(UsageError, match="expected sqlite"):
        durable.Client("mysql://localhost/x")


def test_a_run_cancelled_while_it_waits_stops_waiting(
    caplog: pytest.LogCaptureFixture, capfd: pytest.CaptureFixture[str]
) -> None:
    # Blocked in the wait, the execution would never see the cancel: it notices it itself, and
    # DBOS says so as it parks it (through logging, or on the stream its handler was given).
    async def main() -> None:
        said = ""
        async with durable.Worker(Agent(ScriptedModel(deleting), [delete]), poll_interval=0.05):
            with durable.Client() as client:
                run_id = client.submit("delete it", run_id="r7")
                await until("waiting", client, run_id)
                client.cancel(run_id)
                with anyio.fail_after(10):
                    while True:
                        said += capfd.readouterr().err + caplog.text
                        if "r7 was cancelled during execution" in said:
                            return
                        await anyio.sleep(0.05)

    anyio.run(main)


def test_a_cancelled_run_resumes_where_it_was() -> None:
    """The execution cancelled while it waited stops: it neither takes the approval meant for
    the resumed one nor runs the tool or the model a second time."""
    model = ScriptedModel(deleting)
    deleted.clear()

    async def main() -> Any:
        async with durable.Worker(Agent(model, [delete]), poll_interval=0.05):
            with durable.Client() as client:
                run_id = client.submit("delete it", run_id="r6")
                await until("waiting", client, run_id)
                client.cancel(run_id)
                await until("cancelled", client, run_id)
                client.resume(run_id)
                await until("waiting", client, run_id)
                client.approve(run_id, "call_r6_1")
                await until("done", client, run_id)
                return client.result(run_id)

    result = anyio.run(main)
    assert result.output == "finished"
    assert result.calls[0].result.content == "deleted a.txt"
    assert len(model.requests) == 2  # the first response came from the record after resume
    assert deleted == ["a.txt"]
