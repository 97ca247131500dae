"""Every adapter, through its official SDK, against a local server speaking its wire format:
assembly under adversarial chunking, parallel calls, malformed and cut-off calls, failures."""

from __future__ import annotations

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire._assemble import ModelResponse
from toolwire.errors import ProviderError
from toolwire.events import ResponseCompleted, ToolCallStarted, UsageReported
from toolwire.messages import ReasoningPart, TextPart, ToolCall
from toolwire.models import Model
from toolwire.tools import tool

from .conftest import DRIVERS
from .script import Call, Driver, Say, ask, events_of, respond
from .wire import WireServer, every_byte, split_at

pytestmark = pytest.mark.anyio


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(side_effect="read_only")
def weather(city: str, unit: str = "celsius") -> str:
    """The weather in a city."""
    return f"sunny in {city}"


TOOLS = (add.definition, weather.definition)
FULL = Say(
    reasoning="The user wants a sum; ünïcode thinking.",
    text="Let me add — “quoted” 🙂.",
    calls=(Call("add", {"a": 2, "b": 3}, id="call_a"),),
)


async def test_every_byte_boundary(server: WireServer, driver: Driver, model: Model) -> None:
    """The whole response arrives one byte at a time: every SSE line / event-stream frame is split
    at every possible position, multi-byte characters included."""
    server.script(driver.reply(FULL, chunks=every_byte))
    response = await respond(model, ask(tools=TOOLS))
    parts = response.message.parts
    assert [type(p) for p in parts] == [ReasoningPart, TextPart, ToolCall]
    assert parts[0].text == FULL.reasoning
    assert parts[1].text == FULL.text
    call = parts[2]
    assert isinstance(call, ToolCall)
    assert (call.name, call.id, dict(call.arguments), call.error) == (
        "add",
        "call_a",
        {"a": 2, "b": 3},
        None,
    )
    assert response.finish_reason == "tool_calls"
    assert response.usage.input_tokens == FULL.input_tokens
    assert response.usage.output_tokens == FULL.output_tokens
    assert response.usage.requests == 1


@pytest.mark.parametrize("driver", DRIVERS, ids=lambda d: d.prefix)
@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cuts=st.lists(st.floats(0, 1), max_size=12))
def test_random_chunking(driver: Driver, cuts: list[float]) -> None:
    say = Say(
        text="two calls follow",
        calls=(Call("add", {"a": 1, "b": 2}), Call("weather", {"city": "Oslo"}, id="call_w")),
    )
    size = len(driver.reply(say).body)
    with WireServer() as server:
        server.script(driver.reply(say, chunks=split_at(*(int(c * size) for c in cuts))))
        response = anyio.run(_respond_once, driver, server.url)
    assert response.message.text == say.text
    calls = response.message.tool_calls
    assert [(c.name, dict(c.arguments)) for c in calls] == [
        ("add", {"a": 1, "b": 2}),
        ("weather", {"city": "Oslo"}),
    ]


async def _respond_once(driver: Driver, url: str) -> ModelResponse:
    model = driver.model(url)
    try:
        return await respond(model, ask(tools=TOOLS))
    finally:
        await model.aclose()  # type: ignore[attr-defined]


async def test_parallel_calls_keep_their_ids_and_order(
    server: WireServer, driver: Driver, model: Model
) -> None:
    say = Say(
        calls=(
            Call("weather", {"city": "Oslo"}, id="call_1"),
            Call("weather", {"city": "Lima", "unit": "kelvin"}, id="call_2"),
            Call("add", {"a": 1, "b": 1}, id="call_3"),
        )
    )
    server.script(driver.reply(say))
    events = await events_of(model, ask(tools=TOOLS))
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.index, e.name, e.id) for e in started] == [
        (0, "weather", "call_1"),
        (1, "weather", "call_2"),
        (2, "add", "call_3"),
    ]
    server.script(driver.reply(say))
    response = await respond(model, ask(tools=TOOLS))
    assert [dict(c.arguments) for c in response.message.tool_calls] == [
        {"city": "Oslo"},
        {"city": "Lima", "unit": "kelvin"},
        {"a": 1, "b": 1},
    ]
    assert isinstance(events[-1], ResponseCompleted)
    assert sum(isinstance(e, UsageReported) for e in events) == 1


async def test_malformed_arguments_are_kept_raw(
    server: WireServer, driver: Driver, model: Model
) -> None:
    if not driver.streams_raw_arguments:
        pytest.skip("this API sends arguments as a JSON object, never as text")
    server.script(driver.reply(Say(calls=(Call("add", '{"a": 1, "b": ]'),))))
    response = await respond(model, ask(tools=TOOLS))
    (call,) = response.message.tool_calls
    assert call.raw_arguments == '{"a": 1, "b": ]'
    assert call.error is not None
    assert "not valid JSON" in call.error


async def test_unknown_tool_name_passes_through(
    server: WireServer, driver: Driver, model: Model
) -> None:
    server.script(driver.reply(Say(calls=(Call("delete_everything", {"really": True}),))))
    response = await respond(model, ask(tools=TOOLS))
    (call,) = response.message.tool_calls
    assert call.name == "delete_everything"
    assert dict(call.arguments) == {"really": True}


async def test_cut_off_reply(server: WireServer, driver: Driver, model: Model) -> None:
    if not driver.streams_raw_arguments:
        server.script(driver.reply(Say(text="It was a long", cut_off=True)))
        response = await respond(model, ask())
        assert (response.finish_reason, response.message.text) == ("length", "It was a long")
        return
    server.script(driver.reply(Say(calls=(Call("add", '{"a": 1, "b'),), cut_off=True)))
    response = await respond(model, ask(tools=TOOLS))
    assert response.finish_reason == "length"
    (call,) = response.message.tool_calls
    assert call.error is not None
    assert "cut off" in call.error


async def test_429_honours_retry_after(server: WireServer, driver: Driver, model: Model) -> None:
    server.script(driver.error(429, "slow down please", {"retry-after": "7"}))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask())
    error = caught.value
    assert (error.retryable, error.status, error.retry_after) == (True, 429, 7.0)
    assert "slow down please" in str(error)
    assert len(server.requests) == 1, "the SDK must not retry on its own"


async def test_429_honours_retry_after_ms(server: WireServer, driver: Driver, model: Model) -> None:
    server.script(driver.error(429, "slow down", {"retry-after-ms": "1500", "retry-after": "9"}))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask())
    assert caught.value.retry_after == 1.5


async def test_500_is_retryable(server: WireServer, driver: Driver, model: Model) -> None:
    server.script(driver.error(500, "the server broke"))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask())
    assert (caught.value.retryable, caught.value.status) == (True, 500)
    assert len(server.requests) == 1


async def test_400_is_final_with_the_api_message(
    server: WireServer, driver: Driver, model: Model
) -> None:
    server.script(driver.error(400, "messages: roles must alternate"))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask())
    assert (caught.value.retryable, caught.value.status) == (False, 400)
    assert "messages: roles must alternate" in str(caught.value)


@pytest.mark.parametrize("fraction", [0.3, 0.7, 0.97])
async def test_dropped_stream_is_retryable(
    server: WireServer, driver: Driver, model: Model, fraction: float
) -> None:
    reply = driver.reply(FULL)
    server.script(driver.reply(FULL, drop_after=int(len(reply.body) * fraction)))
    with pytest.raises(ProviderError) as caught:
        await respond(model, ask(tools=TOOLS))
    assert caught.value.retryable


async def test_connection_refused_is_retryable(driver: Driver) -> None:
    with WireServer() as closed:
        url = closed.url
    with pytest.raises(ProviderError) as caught:
        await _respond_once(driver, url)
    assert caught.value.retryable
