from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

import anyio
import pytest

from tests.conftest import run_with_fake_clock
from toolwire import (
    Agent,
    ApprovalRequest,
    Approve,
    Decline,
    Edit,
    Injected,
    Limits,
    Message,
    ProviderError,
    RunEvent,
    ScriptedModel,
    ToolError,
    Turn,
    Usage,
    UsageError,
    tool,
)
from toolwire.events import (
    ApprovalDecided,
    ResponseCompleted,
    RetryScheduled,
    RunFinished,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    ToolResultReady,
)
from toolwire.models import ModelRequest, NamedToolChoice, ScriptedCall


def call(
    name: str, arguments: dict[str, Any] | str | None = None, id: str | None = None
) -> ScriptedCall:
    return ScriptedCall(name=name, arguments={} if arguments is None else arguments, id=id)


def calls(*scripted: ScriptedCall) -> Turn:
    return Turn(tool_calls=scripted)


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(side_effect="read_only")
async def slow(seconds: float) -> str:
    await anyio.sleep(seconds)
    return f"slept {seconds:g}"


@tool(side_effect="read_only")
async def add_async(a: int, b: int) -> int:
    return a + b


def results(messages: tuple[Message, ...]) -> list[tuple[str, str, bool]]:
    return [(r.name, r.content, r.is_error) for m in messages for r in m.tool_results]


def assert_one_result_per_call(messages: tuple[Message, ...]) -> None:
    for index, message in enumerate(messages):
        if message.role == "assistant" and message.tool_calls:
            answer = messages[index + 1]
            assert answer.role == "tool"
            assert [r.call_id for r in answer.tool_results] == [c.id for c in message.tool_calls]


def test_answer_after_tool_calls() -> None:
    model = ScriptedModel([calls(call("add", {"a": 1, "b": 2})), "It is 3."])
    result = Agent(model, [add], instructions="Be brief.").run_sync("1+2?")
    assert (result.stop_reason, result.output, result.steps) == ("answer", "It is 3.", 2)
    assert [m.role for m in result.messages] == ["system", "user", "assistant", "tool", "assistant"]
    assert results(result.messages) == [("add", "3", False)]
    assert result.usage.requests == 2
    second = model.requests[1]
    assert [t.name for t in second.tools] == ["add"]
    assert second.messages[-1].tool_results[0].call_id == result.messages[2].tool_calls[0].id


def test_tool_failures_become_informative_results() -> None:
    @tool(side_effect="read_only")
    def fail(kind: str) -> str:
        if kind == "tool":
            raise ToolError("no such city")
        raise RuntimeError(
            "db at postgres://admin:hunter2@db failed, api_key=sk-abcdefghijklmnopqrstuvwx"
        )

    model = ScriptedModel(
        [
            calls(
                call("nope"),
                call("add", {"a": "x"}),
                call("add", '{"a": 1,'),
                call("add", "[1, 2]"),
                call("fail", {"kind": "tool"}),
                call("fail", {"kind": "crash"}),
            ),
            "done",
        ]
    )
    result = Agent(model, [add, fail]).run_sync("go")
    contents = [content for _, content, _ in results(result.messages)]
    assert all(error for *_, error in results(result.messages))
    assert contents[0] == "Unknown tool 'nope'. Available tools: add, fail."
    assert "- a: Input should be a valid integer" in contents[1]
    assert "- b: Field required" in contents[1]
    assert "not valid JSON" in contents[2]
    assert "must be a JSON object" in contents[3]
    assert contents[4] == "no such city"
    assert contents[5].startswith("RuntimeError: db at postgres://admin:[REDACTED]@db")
    assert "hunter2" not in contents[5] and "sk-abc" not in contents[5]


def test_secrets_in_deps_are_redacted_from_errors() -> None:
    @tool(side_effect="read_only")
    def leak(token: Annotated[str, Injected()]) -> str:
        raise ValueError(f"bad token {token}")

    model = ScriptedModel([calls(call("leak")), "ok"])
    result = Agent(model, [leak]).run_sync("go", deps={"token": "tok-12345678"})
    assert results(result.messages)[0][1] == "ValueError: bad token [REDACTED]"


def test_missing_injected_value_is_a_developer_error() -> None:
    @tool(side_effect="read_only")
    def needs(user: Annotated[str, Injected()]) -> str:
        return user

    with pytest.raises(UsageError, match="needs user injected"):
        Agent(ScriptedModel(["hi"]), [needs]).run_sync("go")


def test_hidden_tool_is_answered_like_an_unknown_one() -> None:
    @tool
    def remember(note: str) -> str:
        return note

    from toolwire.tools import FunctionToolset

    toolset = FunctionToolset([add, remember]).hidden("remember")
    model = ScriptedModel([calls(call("remember", {"note": "x"}), call("ghost")), "ok"])
    result = Agent(model, [toolset]).run_sync("go")
    hidden, unknown = results(result.messages)
    assert hidden[1] == unknown[1].replace("ghost", "remember")
    assert [t.name for t in model.requests[0].tools] == ["add"]


def test_read_only_calls_run_concurrently_and_others_in_order() -> None:
    order: list[str] = []

    @tool(side_effect="destructive", requires_approval=False)
    async def write(name: str) -> str:
        order.append(f"start {name}")
        await anyio.sleep(1)
        order.append(f"end {name}")
        return name

    async def scenario() -> tuple[float, Any]:
        model = ScriptedModel(
            [
                calls(*(call("slow", {"seconds": 50}) for _ in range(4))),
                calls(call("write", {"name": "a"}), call("write", {"name": "b"})),
                "done",
            ]
        )
        start = anyio.current_time()
        result = await Agent(model, [slow, write]).run("go")
        return anyio.current_time() - start, result

    elapsed, result = run_with_fake_clock(scenario)
    assert elapsed == pytest.approx(52)  # 4 × 50 s together, then 2 × 1 s one after the other
    assert order == ["start a", "end a", "start b", "end b"]
    assert_one_result_per_call(result.messages)


def test_concurrency_cap() -> None:
    async def scenario() -> float:
        model = ScriptedModel([calls(*(call("slow", {"seconds": 10}) for _ in range(5))), "ok"])
        start = anyio.current_time()
        await Agent(model, [slow], limits=Limits(max_concurrency=2)).run("go")
        return anyio.current_time() - start

    assert run_with_fake_clock(scenario) == pytest.approx(30)


def test_per_tool_timeouts() -> None:
    @tool(side_effect="read_only", timeout=5)
    async def quick(seconds: float) -> str:
        await anyio.sleep(seconds)
        return "done"

    async def scenario() -> Any:
        model = ScriptedModel(
            [calls(call("slow", {"seconds": 100}), call("quick", {"seconds": 30})), "ok"]
        )
        return await Agent(model, [slow, quick], limits=Limits(tool_timeout=20)).run("go")

    result = run_with_fake_clock(scenario)
    assert results(result.messages) == [
        ("slow", "Timed out after 20 s; the call did not finish.", True),
        ("quick", "Timed out after 5 s; the call did not finish.", True),
    ]
    per_name = Limits(tool_timeout=20, tool_timeouts={"slow": 200})

    async def overridden() -> Any:
        model = ScriptedModel([calls(call("slow", {"seconds": 100})), "ok"])
        return await Agent(model, [slow], limits=per_name).run("go")

    assert results(run_with_fake_clock(overridden).messages) == [("slow", "slept 100", False)]


def test_max_steps_stops_with_a_partial_result() -> None:
    model = ScriptedModel(
        lambda request: Turn(
            text="thinking", tool_calls=[call("add", {"a": 1, "b": len(request.messages)})]
        )
    )
    result = Agent(model, [add], limits=Limits(max_steps=3, loop_threshold=None)).run_sync("go")
    assert (result.stop_reason, result.steps, result.output) == ("max_steps", 3, "thinking")
    assert len(result.calls) == 3
    assert_one_result_per_call(result.messages)


def test_wall_clock_timeout_cuts_a_running_tool() -> None:
    async def scenario() -> tuple[Any, float]:
        model = ScriptedModel([calls(call("slow", {"seconds": 100})), "ok"])
        start = anyio.current_time()
        result = await Agent(model, [slow], limits=Limits(timeout=30)).run("go")
        return result, anyio.current_time() - start

    result, elapsed = run_with_fake_clock(scenario)
    assert result.stop_reason == "timeout"
    assert elapsed == pytest.approx(30)
    assert results(result.messages) == [
        ("slow", "Stopped: the run's time limit was reached before the call finished.", True)
    ]


def test_wall_clock_timeout_during_a_model_request() -> None:
    class Stalling:
        name = "stalling"

        async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
            yield TextDelta(text="partial")
            await anyio.sleep(1000)
            yield ResponseCompleted(finish_reason="stop")

    async def scenario() -> Any:
        return await Agent(Stalling(), limits=Limits(timeout=10)).run("go")

    result = run_with_fake_clock(scenario)
    assert result.stop_reason == "timeout"
    assert [m.role for m in result.messages] == ["user"]


def test_token_budget() -> None:
    turn = Turn(
        tool_calls=[call("add", {"a": 1, "b": 1})],
        usage=Usage(input_tokens=60, output_tokens=10, requests=1),
    )
    model = ScriptedModel([turn, turn, turn])
    result = Agent(model, [add], limits=Limits(max_total_tokens=100, loop_threshold=None)).run_sync(
        "go"
    )
    assert (result.stop_reason, result.steps, result.usage.total_tokens) == ("token_budget", 2, 140)
    for limit in ("max_input_tokens", "max_output_tokens"):
        model = ScriptedModel([turn, turn, turn])
        limits = Limits(**{limit: 15}, loop_threshold=None)  # type: ignore[arg-type]
        assert Agent(model, [add], limits=limits).run_sync("go").stop_reason == "token_budget"


def test_loop_detection_warns_then_stops() -> None:
    model = ScriptedModel(lambda request: calls(call("add", {"b": 2, "a": 1})))
    result = Agent(model, [add], limits=Limits(loop_threshold=3)).run_sync("go")
    assert (result.stop_reason, result.steps) == ("loop_detected", 4)
    contents = [content for _, content, _ in results(result.messages)]
    assert contents[:2] == ["3", "3"]
    assert contents[2].startswith("Not run: you already called add with exactly these arguments")
    assert "The last result was:\n3" in contents[2]
    assert contents[3].startswith("Not run: this exact call was repeated too often")


def test_the_same_error_repeated_stops_the_run() -> None:
    @tool(side_effect="read_only")
    def flaky(n: int) -> str:
        raise ToolError("service unavailable")

    model = ScriptedModel(lambda request: calls(call("flaky", {"n": len(request.messages)})))
    result = Agent(model, [flaky], limits=Limits(loop_threshold=2)).run_sync("go")
    assert result.stop_reason == "loop_detected"
    contents = [content for _, content, _ in results(result.messages)]
    assert contents[0] == "service unavailable"
    assert "occurred several times" in contents[1]
    assert len(contents) == 3


def test_large_results_keep_head_and_tail() -> None:
    @tool(side_effect="read_only")
    def big() -> str:
        return "H" * 500 + "M" * 5000 + "T" * 500

    seen: list[ToolResultReady] = []
    model = ScriptedModel([calls(call("big")), "ok"])
    result = Agent(model, [big], limits=Limits(max_result_chars=1000)).run_sync(
        "go", on_event=lambda e: seen.append(e) if isinstance(e, ToolResultReady) else None
    )
    content = results(result.messages)[0][1]
    assert content.startswith("H" * 500) and content.endswith("T" * 333)
    assert "5000 characters omitted" in content
    assert seen[0].full_content is not None and len(seen[0].full_content) == 6000


@tool
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        (True, ("delete", "deleted a.txt", False)),
        (Approve(by="alice"), ("delete", "deleted a.txt", False)),
        (False, ("delete", "The user declined this call; do not retry it.", True)),
        (
            Decline(message="too risky", by="bob"),
            (
                "delete",
                "The user declined this call; do not retry it. Their reason: too risky",
                True,
            ),
        ),
        (Edit(arguments={"path": "b.txt"}), ("delete", "deleted b.txt", False)),
        (Edit(arguments={"wrong": 1}), None),
    ],
)
def test_approvals(decision: Any, expected: Any) -> None:
    requests: list[ApprovalRequest] = []

    async def approver(request: ApprovalRequest) -> Any:
        requests.append(request)
        return decision

    model = ScriptedModel([calls(call("delete", {"path": "a.txt"})), "ok"])
    decided: list[ApprovalDecided] = []
    result = Agent(model, [delete, add], approver=approver).run_sync(
        "go", on_event=lambda e: decided.append(e) if isinstance(e, ApprovalDecided) else None
    )
    assert requests[0].side_effect == "destructive"
    assert requests[0].arguments == {"path": "a.txt"}
    if expected is None:
        assert "edited arguments are invalid" in results(result.messages)[0][1]
    else:
        assert results(result.messages) == [expected]
    by = getattr(decision, "by", "approver")
    assert decided[0].decided_by == by
    assert result.calls[0].decided_by == by


def test_without_an_approver_destructive_calls_are_declined() -> None:
    model = ScriptedModel(
        [calls(call("delete", {"path": "a"}), call("add", {"a": 1, "b": 1})), "ok"]
    )
    result = Agent(model, [delete, add]).run_sync("go")
    (_, declined, is_error), (_, added, _) = results(result.messages)
    assert is_error and "no approver is configured" in declined and added == "2"
    assert result.calls[0].decided_by == "policy:no-approver"


def test_approval_wait_is_bounded() -> None:
    async def never(request: ApprovalRequest) -> bool:
        await anyio.sleep(10_000)
        return True

    async def scenario() -> Any:
        model = ScriptedModel([calls(call("delete", {"path": "a"})), "ok"])
        return await Agent(model, [delete], approver=never, limits=Limits(approval_timeout=60)).run(
            "go"
        )

    result = run_with_fake_clock(scenario)
    assert result.calls[0].decided_by == "policy:approval-timeout"
    assert results(result.messages)[0][2] is True


def test_tool_choice_and_parallel_reach_the_request_and_reset_after_a_call() -> None:
    model = ScriptedModel([calls(call("add", {"a": 1, "b": 1})), "ok"])
    Agent(model, [add], tool_choice="add", parallel_tool_calls=False).run_sync("go")
    assert model.requests[0].tool_choice == NamedToolChoice("add")
    assert model.requests[1].tool_choice == "auto"
    assert not model.requests[0].parallel_tool_calls
    none_model = ScriptedModel(["ok"])
    Agent(none_model, [add], tool_choice="none").run_sync("go")
    assert none_model.requests[0].tool_choice == "none"
    with pytest.raises(UsageError, match="not a tool"):
        Agent(ScriptedModel(["ok"]), [add], tool_choice="missing").run_sync("go")


def test_provider_failures_are_retried_with_backoff_and_retry_after() -> None:
    async def scenario() -> tuple[Any, list[RetryScheduled], float]:
        model = ScriptedModel(
            [
                ProviderError("rate limited", retryable=True, status=429, retry_after=7),
                ProviderError("server error", retryable=True, status=500),
                "ok",
            ]
        )
        retries: list[RetryScheduled] = []
        start = anyio.current_time()
        result = await Agent(model, limits=Limits(retry_base_delay=2)).run(
            "go", on_event=lambda e: retries.append(e) if isinstance(e, RetryScheduled) else None
        )
        return result, retries, anyio.current_time() - start

    result, retries, elapsed = run_with_fake_clock(scenario)
    assert (result.stop_reason, result.output, result.steps) == ("answer", "ok", 1)
    assert retries[0].delay >= 7
    assert 2 <= retries[1].delay <= 4  # second attempt: 4 s with jitter in [50%, 100%]
    assert elapsed == pytest.approx(retries[0].delay + retries[1].delay)


def test_non_retryable_and_exhausted_failures_stop_with_error() -> None:
    model = ScriptedModel([ProviderError("bad request: no such model", status=400)])
    result = Agent(model).run_sync("go")
    assert result.stop_reason == "error"
    assert result.error == "model request failed: bad request: no such model"

    async def exhausted() -> Any:
        failing = ScriptedModel(
            lambda request: (_ for _ in ()).throw(ProviderError("down", retryable=True))
        )
        return await Agent(failing, limits=Limits(max_retries=2)).run("go")

    result = run_with_fake_clock(exhausted)
    assert result.stop_reason == "error" and "after 2 retries" in (result.error or "")


def test_a_retry_wait_never_overshoots_the_wall_clock() -> None:
    async def scenario() -> tuple[Any, float]:
        model = ScriptedModel([ProviderError("busy", retryable=True, retry_after=120), "ok"])
        start = anyio.current_time()
        result = await Agent(model, limits=Limits(timeout=60)).run("go")
        return result, anyio.current_time() - start

    result, elapsed = run_with_fake_clock(scenario)
    assert result.stop_reason == "timeout" and elapsed < 1


class Streams:
    """A model whose responses are given as raw event lists."""

    def __init__(self, *responses: list[Any]) -> None:
        self.responses = list(responses)
        self.name = "streams"

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        for event in self.responses.pop(0):
            yield event


def test_a_dropped_stream_is_retried_without_spending_a_step() -> None:
    dropped = [TextDelta(text="par")]
    whole = [TextDelta(text="all good"), ResponseCompleted(finish_reason="stop")]
    retries: list[RunEvent] = []
    result = Agent(Streams(dropped, whole), limits=Limits(retry_base_delay=0)).run_sync(
        "go", on_event=lambda e: retries.append(e) if isinstance(e, RetryScheduled) else None
    )
    assert (result.output, result.steps, len(retries)) == ("all good", 1, 1)


def test_a_call_cut_off_by_the_length_limit_never_runs() -> None:
    ran: list[str] = []

    @tool(side_effect="read_only")
    def write_note(text: str) -> str:
        ran.append(text)
        return "ok"

    cut = [
        ToolCallStarted(index=0, name="write_note", id="c1"),
        ToolCallArgumentsDelta(index=0, delta='{"text": "complete"}'),
        ToolCallStarted(index=1, name="write_note", id="c2"),
        ToolCallArgumentsDelta(index=1, delta='{"text": "half wri'),
        ResponseCompleted(finish_reason="length"),
    ]
    answer = [TextDelta(text="done"), ResponseCompleted(finish_reason="stop")]
    result = Agent(Streams(cut, answer), [write_note]).run_sync("go")
    assert ran == ["complete"]
    assert results(result.messages)[1][1].startswith("The reply was cut off (length limit)")


def test_cancellation_leaves_every_call_answered() -> None:
    finished: list[RunFinished] = []

    async def scenario() -> None:
        model = ScriptedModel(
            [
                calls(
                    call("add_async", {"a": 1, "b": 2}),
                    call("slow", {"seconds": 100}),
                    call("slow", {"seconds": 5}),
                )
            ]
        )
        with anyio.move_on_after(50):
            await Agent(model, [add_async, slow]).run(
                "go", on_event=lambda e: finished.append(e) if isinstance(e, RunFinished) else None
            )

    run_with_fake_clock(scenario)
    result = finished[0].result
    assert result.stop_reason == "cancelled"
    assert_one_result_per_call(result.messages)
    assert results(result.messages) == [
        ("add_async", "3", False),
        ("slow", "Interrupted: the call started and was cut off; it may have taken effect.", True),
        ("slow", "slept 5", False),
    ]


def test_history_continues_a_conversation() -> None:
    model = ScriptedModel(["first", "second"])
    agent = Agent(model, instructions="sys")
    first = agent.run_sync("one")
    second = agent.run_sync("two", history=first.messages)
    assert [m.role for m in second.messages] == ["system", "user", "assistant", "user", "assistant"]
    with pytest.raises(UsageError, match="nothing to answer"):
        agent.run_sync(history=second.messages)


def test_iter_streams_events_ending_with_the_result() -> None:
    async def scenario() -> list[RunEvent]:
        model = ScriptedModel([calls(call("add", {"a": 2, "b": 2})), "four"], chunk_size=2)
        async with Agent(model, [add]).iter("2+2") as events:
            return [event async for event in events]

    events = anyio.run(scenario)
    kinds = [e.kind for e in events]
    assert kinds[0] == "run_started" and kinds[-1] == "run_finished"
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "four"
    assert (
        "".join(e.delta for e in events if isinstance(e, ToolCallArgumentsDelta))
        == '{"a": 2, "b": 2}'
    )
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result.output == "four"


def test_a_scripted_model_run_past_its_end_is_a_clear_error_of_the_run() -> None:
    result = Agent(ScriptedModel([calls(call("add", {"a": 1, "b": 1}))]), [add]).run_sync("go")
    assert result.stop_reason == "error"
    assert result.error is not None and "has 1 turns and was asked for turn 2" in result.error
    assert [record.result.content for record in result.calls] == ["2"]


def test_two_toolsets_with_the_same_tool_name_need_a_prefix() -> None:
    from toolwire.tools import FunctionToolset

    with pytest.raises(UsageError, match="give one toolset a prefix"):
        Agent(ScriptedModel(["x"]), [FunctionToolset([add]), FunctionToolset([add])]).run_sync("go")
    ok = Agent(
        ScriptedModel(["x"]), [FunctionToolset([add]), FunctionToolset([add]).prefixed("b_")]
    )
    assert ok.run_sync("go").stop_reason == "answer"


def test_idempotency_key_is_stable_per_run_and_call() -> None:
    keys: list[str] = []

    @tool(requires_approval=False)
    def charge(amount: int, key: Annotated[str, Injected("idempotency_key")]) -> str:
        keys.append(key)
        return "charged"

    def run_once() -> None:
        model = ScriptedModel([calls(call("charge", {"amount": 5}, id="c-1")), "ok"])
        Agent(model, [charge]).run_sync("go", run_id="run-42")

    run_once()
    run_once()
    assert keys[0] == keys[1] and len(keys[0]) == 32


def test_a_call_the_adapter_could_not_read_never_runs_and_says_why() -> None:
    from toolwire.events import ToolCallFailed

    failed = [
        ToolCallStarted(index=0, name="add", id="c1"),
        ToolCallArgumentsDelta(index=0, delta='{"a": 1, "b": 2}'),
        ToolCallFailed(index=0, reason="a stray token inside the call"),
        ResponseCompleted(finish_reason="tool_calls"),
    ]
    answer = [TextDelta(text="sorry"), ResponseCompleted(finish_reason="stop")]
    result = Agent(Streams(failed, answer), [add]).run_sync("go")
    assert results(result.messages) == [
        (
            "add",
            "This call could not be read (a stray token inside the call), so it was not run.",
            True,
        )
    ]


def test_run_sync_keeps_one_event_loop_for_a_models_connections() -> None:
    import asyncio

    class LoopBound:
        """Like an HTTP client's pool: bound to the event loop it was first used on."""

        name = "loop-bound"

        def __init__(self) -> None:
            self.loop: asyncio.AbstractEventLoop | None = None

        async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
            running = asyncio.get_running_loop()
            assert self.loop in (None, running), "used from another event loop"
            self.loop = running
            yield TextDelta(text="ok")
            yield ResponseCompleted(finish_reason="stop")

    model = LoopBound()
    assert Agent(model).run_sync("one").output == "ok"
    assert Agent(model).run_sync("two").output == "ok"
