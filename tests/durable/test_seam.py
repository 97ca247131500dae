"""The engine-neutral seam, driven by an in-memory engine: what a durable engine records, and
that a replay takes every recorded step from the record instead of running it again."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Annotated, Any, TypeVar

import anyio
import pytest

from toolwire import Agent, Injected, Limits, ProviderError, ScriptedModel, Turn, tool
from toolwire._durability import decision_from_message, decision_message
from toolwire.approval import Approve, Decline, Edit
from toolwire.clock import IdSource
from toolwire.models import ScriptedCall

T = TypeVar("T")


class MemoryClock:
    def __init__(self) -> None:
        self.at = 1000.0

    def now(self) -> float:
        return self.at

    def timestamp(self) -> float:
        return self.at

    async def sleep(self, seconds: float) -> None:
        self.at += seconds


class MemoryEngine:
    """Records each step's outcome by name; a second run of the same record replays it."""

    def __init__(self, record: dict[str, Any] | None = None, answers: Mapping[str, Any] = {}):
        self.record: dict[str, Any] = {} if record is None else record
        self.ran: list[str] = []
        self.waits: list[tuple[str, float | None, Mapping[str, Any]]] = []
        self.answers = answers
        self.clock = MemoryClock()

    async def step(self, name: str, run: Callable[[], Awaitable[T]]) -> T:
        if name not in self.record:
            self.ran.append(name)
            try:
                self.record[name] = ("ok", await run())
            except ProviderError as failure:
                self.record[name] = ("failed", failure)
        self.clock.at += 1.0
        kind, value = self.record[name]
        if kind == "failed":
            raise value
        result: T = value
        return result

    async def wait(
        self, topic: str, within: float | None, about: Mapping[str, Any]
    ) -> Mapping[str, Any] | None:
        self.waits.append((topic, within, about))
        self.clock.at += 3600.0  # a person takes an hour
        answer: Mapping[str, Any] | None = self.answers.get(topic)
        return answer


effects: list[str] = []


@tool(side_effect="destructive", requires_approval=False)
def send(to: str, key: Annotated[str, Injected("idempotency_key")]) -> str:
    """Send a message."""
    effects.append(key)
    return f"sent to {to}"


def script(request: Any) -> Turn | str:
    turns: list[Turn | str] = [
        Turn(tool_calls=[ScriptedCall(name="send", arguments={"to": "bob"})]),
        Turn(tool_calls=[ScriptedCall(name="send", arguments={"to": "eve"})]),
        "done",
    ]
    return turns[sum(m.role == "assistant" for m in request.messages)]


def run(engine: MemoryEngine, model: ScriptedModel) -> Any:
    agent = Agent(model, [send])
    return anyio.run(lambda: agent.run("go", run_id="run-1", durability=engine))


def test_each_model_request_and_tool_call_is_one_named_step() -> None:
    # The names are compatibility data: a run recorded under them resumes only under them.
    effects.clear()
    engine = MemoryEngine()
    result = run(engine, ScriptedModel(script))
    assert result.output == "done"
    assert engine.ran == [
        "model:1.0",
        "tool:call_run-1_1",
        "model:2.0",
        "tool:call_run-1_2",
        "model:3.0",
    ]
    ids = IdSource("run-1")
    assert effects == [ids.idempotency_key("call_run-1_1"), ids.idempotency_key("call_run-1_2")]


def test_a_replay_requests_nothing_recorded_and_reruns_no_completed_call() -> None:
    effects.clear()
    first = MemoryEngine()
    expected = run(first, ScriptedModel(script))
    # A crash after the first tool call: the record holds its first two steps.
    record = {name: first.record[name] for name in ("model:1.0", "tool:call_run-1_1")}
    effects.clear()
    model = ScriptedModel(script)
    replay = MemoryEngine(record)
    result = run(replay, model)
    assert replay.ran == ["model:2.0", "tool:call_run-1_2", "model:3.0"]
    assert len(model.requests) == 2
    assert effects == [IdSource("run-1").idempotency_key("call_run-1_2")]
    assert result.messages == expected.messages
    assert [c.call.id for c in result.calls] == [c.call.id for c in expected.calls]


def test_a_provider_failure_is_recorded_and_the_retry_is_a_step_of_its_own() -> None:
    failures = iter([ProviderError("busy", retryable=True, retry_after=2.0)])

    def flaky(request: Any) -> Turn | str:
        failure = next(failures, None)
        if failure is not None:
            raise failure
        return "done"

    engine = MemoryEngine()
    result = run(engine, ScriptedModel(flaky))
    assert result.output == "done"
    assert engine.ran == ["model:1.0", "model:1.1"]
    kind, failure = engine.record["model:1.0"]
    assert kind == "failed" and failure.retry_after == 2.0


def test_a_durable_approval_waits_on_the_engine_and_not_on_the_run_budget() -> None:
    @tool(side_effect="destructive")
    def delete(path: str) -> str:
        """Delete a file."""
        return f"deleted {path}"

    def deleting(request: Any) -> Turn | str:
        if any(m.role == "tool" for m in request.messages):
            return "done"
        return Turn(tool_calls=[ScriptedCall(name="delete", arguments={"path": "a"})])

    answers = {"approval:call_run-1_1": decision_message(Approve(by="ann"))}
    engine = MemoryEngine(answers=answers)
    agent = Agent(ScriptedModel(deleting), [delete], limits=Limits(timeout=60, approval_timeout=7))
    result = anyio.run(lambda: agent.run("go", run_id="run-1", durability=engine))
    # The person took an hour; the run's one-minute budget did not count it.
    assert result.stop_reason == "answer"
    assert result.calls[0].result.content == "deleted a"
    assert result.calls[0].decided_by == "ann"
    assert result.calls[0].decision_time == 3600.0
    topic, timeout, about = engine.waits[0]
    assert (topic, timeout) == ("approval:call_run-1_1", 7)
    assert about == {
        "call_id": "call_run-1_1",
        "tool": "delete",
        "arguments": {"path": "a"},
        "side_effect": "destructive",
    }


@pytest.mark.parametrize(
    "decision", [Approve(by="ann"), Decline(message="no", by="bo"), Edit(arguments={"x": 1})]
)
def test_a_decision_survives_its_message(decision: Any) -> None:
    assert decision_from_message(decision_message(decision)) == decision


@pytest.mark.parametrize(
    "message", [None, {}, {"decision": "maybe"}, {"decision": "edit", "arguments": "x"}]
)
def test_no_answer_or_an_unreadable_one_declines(message: Any) -> None:
    assert isinstance(decision_from_message(message), Decline)
