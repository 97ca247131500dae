"""The one-result-per-call invariant under random mixes of everything that can go wrong."""

from __future__ import annotations

from typing import Any

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import run_with_fake_clock
from toolwire import Agent, Limits, ScriptedModel, ToolError, Turn, tool
from toolwire.events import RunFinished
from toolwire.models import ScriptedCall


@tool(side_effect="read_only")
async def ok(n: int) -> str:
    await anyio.sleep(n % 3)
    return f"ok {n}"


@tool(side_effect="read_only")
async def hang(n: int) -> str:
    await anyio.sleep(10**6)
    return "never"


@tool(side_effect="read_only")
async def crash(n: int) -> str:
    raise RuntimeError(f"boom {n}")


@tool(side_effect="read_only")
async def refuse(n: int) -> str:
    raise ToolError(f"refused {n}")


@tool(requires_approval=False)
async def write(n: int) -> str:
    await anyio.sleep(1)
    return f"wrote {n}"


CALLS = {
    "ok": lambda n: ScriptedCall(name="ok", arguments={"n": n}),
    "hang": lambda n: ScriptedCall(name="hang", arguments={"n": n}),
    "crash": lambda n: ScriptedCall(name="crash", arguments={"n": n}),
    "refuse": lambda n: ScriptedCall(name="refuse", arguments={"n": n}),
    "write": lambda n: ScriptedCall(name="write", arguments={"n": n}),
    "invalid": lambda n: ScriptedCall(name="ok", arguments={"n": "not a number"}),
    "unknown": lambda n: ScriptedCall(name="missing", arguments={"n": n}),
    "bad_json": lambda n: ScriptedCall(name="ok", arguments='{"n": '),
}

turns = st.lists(
    st.lists(st.tuples(st.sampled_from(sorted(CALLS)), st.integers(0, 5)), min_size=1, max_size=5),
    max_size=5,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=turns, cancel_after=st.none() | st.floats(0, 40), max_steps=st.integers(1, 7))
def test_every_call_gets_exactly_one_result(
    turns: list[list[tuple[str, int]]], cancel_after: float | None, max_steps: int
) -> None:
    script: list[Any] = [Turn(tool_calls=[CALLS[k](n) for k, n in turn]) for turn in turns]
    script.append("final answer")
    finished: list[RunFinished] = []

    async def scenario() -> None:
        agent = Agent(
            ScriptedModel(script),
            [ok, hang, crash, refuse, write],
            limits=Limits(tool_timeout=10, max_steps=max_steps, loop_threshold=2),
        )
        with anyio.move_on_after(cancel_after if cancel_after is not None else float("inf")):
            await agent.run(
                "go", on_event=lambda e: finished.append(e) if isinstance(e, RunFinished) else None
            )

    run_with_fake_clock(scenario)
    assert len(finished) == 1
    result = finished[0].result
    messages = result.messages
    issued = [c.id for m in messages for c in m.tool_calls]
    answered = [r.call_id for m in messages for r in m.tool_results]
    assert sorted(issued) == sorted(answered)
    assert len(set(issued)) == len(issued)
    for index, message in enumerate(messages):
        if message.tool_calls:
            follower = messages[index + 1]
            assert follower.role == "tool"
            assert [r.call_id for r in follower.tool_results] == [c.id for c in message.tool_calls]
    assert {r.call.id for r in result.calls} <= set(issued)
    if result.stop_reason == "answer":
        assert result.output == "final answer"
    if cancel_after is None:
        assert result.stop_reason != "cancelled"
