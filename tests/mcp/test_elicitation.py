"""A server asking the person for input mid-call (elicitation), over `input_required` results:
answered by the application's elicitor, never by the model, and recorded in the run log."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import anyio.lowlevel
import pytest

from toolwire import Agent, Approve, Limits, ScriptedModel
from toolwire.cli import main
from toolwire.elicitation import ElicitationAnswer, ElicitationRequest
from toolwire.errors import UsageError
from toolwire.log import RunLog
from toolwire.mcp import MCPServer

from .conftest import node_server, python_server
from .test_agent import turn

pytestmark = pytest.mark.timeout(60)


def booking_agent(elicitor: Any, **options: Any) -> Agent:
    model = ScriptedModel([turn(("book_table", {"restaurant": "Chez Nous"})), "done"])
    server = python_server("asking_server.py", trusted=True)
    return Agent(model, [server], approver=lambda request: Approve(), elicitor=elicitor, **options)


def booked(agent: Agent) -> str:
    return agent.run_sync("book").calls[0].result.content


def test_the_form_goes_to_the_elicitor_and_missing_fields_get_the_schema_defaults() -> None:
    asked: list[ElicitationRequest] = []

    def elicitor(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action="accept", content={"date": "friday"}, by="test:person")

    assert booked(booking_agent(elicitor)) == "booked Chez Nous on friday for 2 (terrace: False)"
    (request,) = asked
    assert (request.server, request.mode, request.tool) == ("asking_server", "form", "book_table")
    assert request.message == "Book a table: which day, and how many seats?"
    assert request.defaults == {"seats": 2, "terrace": False}
    assert request.schema["required"] == ["date"]


async def async_elicitor(request: ElicitationRequest) -> ElicitationAnswer:
    await anyio.lowlevel.checkpoint()
    return ElicitationAnswer(action="accept", content={"date": "monday", "seats": 5})


def test_an_async_elicitor_answers_too() -> None:
    assert booked(booking_agent(async_elicitor)) == (
        "booked Chez Nous on monday for 5 (terrace: False)"
    )


@pytest.mark.parametrize("action", ["decline", "cancel"])
def test_decline_and_cancel_reach_the_server(action: str) -> None:
    agent = booking_agent(lambda request: ElicitationAnswer(action=action))  # type: ignore[arg-type]
    assert booked(agent) == f"not booked at Chez Nous: the user chose {action}"


def test_without_an_elicitor_the_question_is_declined_not_answered_by_the_model(
    tmp_path: Path,
) -> None:
    log = RunLog(tmp_path / "runs.db")
    agent = booking_agent(None, log=log)
    result = agent.run_sync("book")
    assert result.calls[0].result.content == "not booked at Chez Nous: the user chose decline"
    (row,) = log.elicitations(result.run_id)
    assert (row.action, row.answered_by, row.server) == (
        "decline",
        "policy:no-elicitor",
        "asking_server",
    )
    # The model saw the call and its result, never the question.
    assert all("which day" not in str(m) for m in result.messages)


def test_no_answer_in_time_cancels() -> None:
    async def slow(request: ElicitationRequest) -> ElicitationAnswer:
        await anyio.sleep(30)
        raise AssertionError("not reached")

    agent = booking_agent(slow, limits=Limits(approval_timeout=0.2))
    assert booked(agent) == "not booked at Chez Nous: the user chose cancel"


def test_an_answer_that_does_not_fit_the_form_is_cancelled_and_says_why(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")

    def wrong(request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer(action="accept", content={"date": "friday", "seats": 40}, by="app")

    result = booking_agent(wrong, log=log).run_sync("book")
    assert result.calls[0].result.content == "not booked at Chez Nous: the user chose cancel"
    (row,) = log.elicitations(result.run_id)
    assert row.action == "cancel"
    assert row.answered_by.startswith("app (invalid answer: seats: 40 is greater than")


def test_who_answered_what_is_in_the_run_log(capsys: pytest.CaptureFixture[str]) -> None:
    log = RunLog()  # where `toolwire logs` reads

    def person(request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer(action="accept", content={"date": "sunday"}, by="web:alice")

    result = booking_agent(person, log=log).run_sync("book")
    (row,) = log.elicitations(result.run_id)
    assert row.call_id == result.calls[0].call.id
    assert (row.mode, row.action, row.answered_by) == ("form", "accept", "web:alice")
    assert row.content == {"date": "sunday", "seats": 2, "terrace": False}
    assert row.seconds >= 0
    assert main(["logs", result.run_id]) == 0
    shown = capsys.readouterr().out
    assert (
        "? asking_server asked Book a table: which day, and how many seats?: accept by web:alice"
        in shown
    )


def test_a_url_is_shown_whole_and_only_consent_goes_back() -> None:
    asked: list[ElicitationRequest] = []

    def consent(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action="accept", content={"ignored": True})

    model = ScriptedModel([turn(("link_account", {"service": "git"})), "done"])
    server = python_server("asking_server.py", trusted=True)
    agent = Agent(model, [server], approver=lambda r: Approve(), elicitor=consent)
    result = agent.run_sync("link")
    # The retry carried the answer and echoed the server's request state.
    assert result.calls[0].result.content == "link git: accept, state state:git"
    (request,) = asked
    assert (request.mode, request.url) == ("url", "https://accounts.example/link/git")


def test_a_legacy_server_request_reaches_the_elicitor_of_the_call_waiting() -> None:
    # server-everything speaks 2025-11-25: it sends `elicitation/create` as a request of its own.
    asked: list[ElicitationRequest] = []

    def person(request: ElicitationRequest) -> ElicitationAnswer:
        asked.append(request)
        return ElicitationAnswer(action="accept", content={"name": "Ada", "check": True})

    model = ScriptedModel([turn(("trigger-elicitation-request", {})), "done"])
    server = MCPServer.stdio("node", [node_server("server-everything"), "stdio"], trusted=True)
    agent = Agent(model, [server], approver=lambda r: Approve(), elicitor=person)
    result = agent.run_sync("ask me")
    content = result.calls[0].result.content
    assert "- Name: Ada" in content and "- Agreed to terms: true" in content
    # Defaults filled in for what the person left out (SEP-1034).
    assert '"integer": 42' in content and '"untitledMultipleSelectEnum": [\n' in content
    (request,) = asked
    assert (request.tool, request.call_id) == (
        "trigger-elicitation-request",
        result.calls[0].call.id,
    )


async def slow_person(request: ElicitationRequest) -> ElicitationAnswer:
    await anyio.sleep(1.5)
    return ElicitationAnswer(action="accept", content={"date": "friday"})


def test_the_time_the_person_takes_is_not_the_tools() -> None:
    model = ScriptedModel([turn(("book_table", {"restaurant": "Chez Nous"})), "done"])
    server = python_server("asking_server.py", trusted=True, timeout=1.0)
    agent = Agent(
        model,
        [server],
        approver=lambda request: Approve(),
        elicitor=slow_person,
        limits=Limits(tool_timeout=1.0),
    )
    assert booked(agent) == "booked Chez Nous on friday for 2 (terrace: False)"


def test_the_runs_own_time_limit_still_holds_while_the_person_thinks() -> None:
    agent = booking_agent(slow_person, limits=Limits(timeout=0.8, tool_timeout=30))
    result = agent.run_sync("book")
    assert result.stop_reason == "timeout"
    assert result.calls[0].result.is_error


def test_an_elicitor_returning_something_else_is_the_applications_error() -> None:
    agent = booking_agent(lambda request: "yes")
    with pytest.raises(UsageError, match="an elicitor must return an ElicitationAnswer"):
        agent.run_sync("book")


def test_an_elicitor_that_raises_fails_the_call_with_its_own_error() -> None:
    def broken(request: ElicitationRequest) -> ElicitationAnswer:
        raise RuntimeError("the form service is down")

    result = booking_agent(broken).run_sync("book")
    assert result.calls[0].result.is_error
    assert result.calls[0].result.content == "RuntimeError: the form service is down"
