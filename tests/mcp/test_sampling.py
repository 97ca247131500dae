"""A server asking the host's model for a completion mid-call (sampling): off unless the
application allows it; then shown to the approver like a call, run through the agent's own model
within the run's limits, counted in its usage and recorded in the run log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toolwire import Agent, ApprovalRequest, Approve, Decline, Edit, Limits, ScriptedModel
from toolwire.cli import main
from toolwire.log import RunLog
from toolwire.mcp import MCPServer

from .conftest import node_server, python_server
from .test_agent import turn

pytestmark = pytest.mark.timeout(60)

SUMMARISE = turn(("summarise", {"text": "a long story about a cat"}))


def run(approver: Any, *, sampling: bool = True, **options: Any) -> tuple[Any, ScriptedModel]:
    model = ScriptedModel([SUMMARISE, "A cat story.", "done"])
    server = python_server("asking_server.py", trusted=True, sampling=sampling)
    result = Agent(model, [server], approver=approver, **options).run_sync("summarise it")
    return result, model


def test_off_unless_allowed_so_the_model_is_never_asked() -> None:
    result, model = run(lambda request: Approve(), sampling=False)
    assert result.calls[0].result.is_error
    assert "did not declare the sampling capability" in result.calls[0].result.content
    assert len(model.requests) == 2


def test_an_approved_request_runs_through_the_agents_model_and_is_logged(
    capsys: pytest.CaptureFixture[str],
) -> None:
    shown: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> Approve:
        shown.append(request)
        return Approve(by="test:person")

    log = RunLog()  # where `toolwire logs` reads
    result, model = run(approver, log=log)
    assert result.calls[0].result.content == "summary by scripted: A cat story."
    sampled = model.requests[1]
    assert [m.role for m in sampled.messages] == ["system", "user"]
    assert sampled.messages[0].text == "Be brief."
    assert sampled.messages[1].text == "Summarise: a long story about a cat"
    assert sampled.tools == () and sampled.settings.max_output_tokens == 50
    # Shown like a call, with what the model would be sent.
    asked = [r for r in shown if r.tool.name == "sampling"]
    assert len(asked) == 1 and asked[0].side_effect == "read_only"
    assert asked[0].arguments["messages"] == [
        {"role": "user", "text": "Summarise: a long story about a cat"}
    ]
    assert "asking_server" in asked[0].tool.description
    # Its tokens count in the run's usage: three model requests.
    assert result.usage.requests == 3
    (row,) = log.samplings(result.run_id)
    assert (row.decided_by, row.refused, row.output) == ("test:person", None, "A cat story.")
    assert row.server == "asking_server" and row.output_tokens > 0
    assert row.call_id == result.calls[0].call.id
    assert main(["logs", result.run_id]) == 0
    assert (
        "? asking_server sampled the model [test:person]: A cat story." in capsys.readouterr().out
    )


def test_a_declined_request_never_reaches_the_model(tmp_path: Path) -> None:
    def approver(request: ApprovalRequest) -> Approve | Decline:
        if request.tool.name == "sampling":
            return Decline(message="not with my tokens", by="test:person")
        return Approve()

    log = RunLog(tmp_path / "runs.db")
    result, model = run(approver, log=log)
    assert result.calls[0].result.is_error
    assert "server error -1: not with my tokens" in result.calls[0].result.content
    assert len(model.requests) == 2
    (row,) = log.samplings(result.run_id)
    assert (row.decided_by, row.refused, row.output) == ("test:person", "not with my tokens", None)


def test_without_an_approver_it_is_declined() -> None:
    model = ScriptedModel([SUMMARISE, "A cat story.", "done"])
    # The tool itself needs no approval; the completion does, and nobody can give it.
    server = python_server("asking_server.py", trusted=True, sampling=True, requires_approval=False)
    result = Agent(model, [server]).run_sync("summarise")
    assert result.calls[0].result.is_error and len(model.requests) == 2


def test_the_approver_may_edit_the_request_but_not_raise_its_token_limit() -> None:
    def approver(request: ApprovalRequest) -> Approve | Edit:
        if request.tool.name != "sampling":
            return Approve()
        edited = dict(request.arguments, max_tokens=500, system_prompt=None)
        return Edit(arguments=edited)

    result, model = run(approver)
    assert result.calls[0].result.content == "summary by scripted: A cat story."
    assert [m.role for m in model.requests[1].messages] == ["user"]
    assert model.requests[1].settings.max_output_tokens == 50


def test_the_runs_token_budget_bounds_the_completion() -> None:
    result, model = run(lambda request: Approve(), limits=Limits(max_output_tokens=30))
    used = model.requests[1].settings.max_output_tokens
    assert used is not None and used < 30
    assert result.calls[0].result.content == "summary by scripted: A cat story."


def test_a_legacy_server_request_is_answered_the_same_way() -> None:
    # server-everything speaks 2025-11-25: `sampling/createMessage` is a request of its own.
    model = ScriptedModel([turn(("trigger-sampling-request", {"prompt": "Hi"})), "Hello!", "ok"])
    server = MCPServer.stdio(
        "node", [node_server("server-everything"), "stdio"], trusted=True, sampling=True
    )
    result = Agent(model, [server], approver=lambda r: Approve()).run_sync("sample")
    assert "Hello!" in result.calls[0].result.content
    assert model.requests[1].messages[-1].text.endswith("Hi")
