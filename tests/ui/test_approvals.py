"""Calls waiting for a person through the log: asked by a run, answered over HTTP."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import run_with_fake_clock
from tests.ui.conftest import Served, delete
from toolwire import Agent, Limits, RunResult, ScriptedModel, Turn
from toolwire.log import RunLog, _approvals, log_approver
from toolwire.models import ScriptedCall


def _agent(log: RunLog, arguments: dict[str, Any], **limits: Any) -> Agent:
    # A provider's call id may hold a slash; the page's addresses must carry it.
    call = ScriptedCall(name="delete", arguments=arguments, id="calls/1")
    turns = [Turn(tool_calls=[call]), "finished"]
    return Agent(
        ScriptedModel(turns), [delete], log=log, approver=log_approver(log), limits=Limits(**limits)
    )


class _Background:
    """A run waiting for its approval in another thread, as it would in another process."""

    def __init__(self, path: Path, arguments: dict[str, Any]) -> None:
        self.log = RunLog(path)
        self.result: RunResult | None = None
        agent = _agent(self.log, arguments)
        self.thread = threading.Thread(target=self._run, args=(agent,), daemon=True)
        self.thread.start()

    def _run(self, agent: Agent) -> None:
        self.result = agent.run_sync("tidy up")

    def finish(self) -> RunResult:
        self.thread.join(timeout=10)
        assert self.result is not None
        self.log.close()
        return self.result


def _wait_for(check: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + 10
    while not (found := check()):
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)
    return found


def _waiting(served: Served) -> dict[str, Any]:
    [waiting] = _wait_for(lambda: served.json("/api/approvals"))
    return waiting  # type: ignore[no-any-return]


def test_a_waiting_call_is_listed_and_approved(served: Served) -> None:
    run = _Background(served.log_path, {"path": "a.txt"})
    waiting = _waiting(served)
    assert (waiting["name"], waiting["arguments"], waiting["side_effect"]) == (
        "delete",
        {"path": "a.txt", "force": False},  # what it would run with, defaults filled in
        "destructive",
    )
    assert waiting["parameters"]["required"] == ["path"]
    detail = served.json(f"/api/runs/{waiting['run_id']}")
    assert detail["running"] and detail["timeline"][0]["calls"][0]["state"] == "waiting"
    url = f"/api/runs/{waiting['run_id']}/approvals/{waiting['call_id']}"
    assert served.post(url, {"answer": "approve"}) == (200, {"answered": "approve"})
    result = run.finish()
    [call] = result.calls
    assert call.result.content == "deleted a.txt" and call.decided_by == "web:user"
    assert served.post(url, {"answer": "decline"})[0] == 409
    assert served.json("/api/approvals") == []


def test_declined_with_a_message(served: Served) -> None:
    run = _Background(served.log_path, {"path": "b.txt"})
    waiting = _waiting(served)
    url = f"/api/runs/{waiting['run_id']}/approvals/{waiting['call_id']}"
    assert served.post(url, {"answer": "decline", "message": "keep it"})[0] == 200
    [call] = run.finish().calls
    assert call.result.is_error and "keep it" in call.result.content


def test_edited_arguments_are_checked_against_the_tool_s_schema(served: Served) -> None:
    run = _Background(served.log_path, {"path": "c.txt"})
    waiting = _waiting(served)
    url = f"/api/runs/{waiting['run_id']}/approvals/{waiting['call_id']}"
    status, reply = served.post(url, {"answer": "edit", "arguments": {"path": 3, "extra": 1}})
    assert status == 400
    assert "path: 3 is not of type 'string'" in reply["error"]
    assert "extra: unexpected property" in reply["error"]
    assert served.post(url, {"answer": "edit", "arguments": "c.txt"})[0] == 400
    assert served.post(url, {"answer": "maybe"})[0] == 400
    assert served.post(url, ["approve"])[0] == 400
    assert served.json("/api/approvals"), "a refused answer leaves the call waiting"
    edited = {"path": "c.txt", "force": True}
    assert served.post(url, {"answer": "edit", "arguments": edited})[0] == 200
    [call] = run.finish().calls
    assert call.result.content == "deleted c.txt (forced)" and call.edited_arguments == edited


def test_a_wait_cut_short_is_withdrawn_and_refuses_late_answers(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")

    async def run() -> RunResult:
        return await _agent(log, {"path": "d.txt"}, approval_timeout=30).run("tidy")

    result = run_with_fake_clock(run)
    [call] = result.calls
    assert call.decided_by == "policy:approval-timeout" and call.result.is_error
    assert log.pending_approvals() == []
    assert not log.answer_approval(result.run_id, call.call.id, _approve())


def test_a_request_not_kept_alive_is_no_longer_offered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = RunLog(tmp_path / "runs.db")
    clock = [1000.0]
    monkeypatch.setattr(_approvals.time, "time", lambda: clock[0])
    # As a killed process leaves it: asked, kept alive for a while, then never again.
    log.post_approval(_request())
    assert [w.call_id for w in log.pending_approvals()] == ["call-1"]
    clock[0] += _approvals.STALE_AFTER - 1
    log.keep_approval_alive("run-1", "call-1")
    clock[0] += _approvals.STALE_AFTER - 1
    assert [w.call_id for w in log.pending_approvals("run-1")] == ["call-1"]
    assert log.pending_approvals("run-2") == []
    clock[0] += 2
    assert log.pending_approvals() == []


def _approve() -> Any:
    from toolwire.approval import Approve

    return Approve(by="late")


def _request() -> Any:
    from toolwire.approval import ApprovalRequest
    from toolwire.messages import ToolCall

    call = ToolCall(id="call-1", name="delete", arguments={"path": "e.txt"})
    return ApprovalRequest(
        call=call,
        tool=delete.definition,
        arguments={"path": "e.txt"},
        side_effect="destructive",
        run_id="run-1",
    )
