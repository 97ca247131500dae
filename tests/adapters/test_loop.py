"""Multi-step tool runs through the full loop (`toolwire.Agent`, and `toolwire run`) for every
adapter, each against its local wire-format server."""

from __future__ import annotations

import gc
import json
import warnings
from pathlib import Path

import pytest

from toolwire import Agent, Limits
from toolwire.cli import main
from toolwire.events import RetryScheduled, RunEvent
from toolwire.models import get_model
from toolwire.tools import tool

from .script import Call, Driver, Say, ask, respond
from .wire import WireServer

pytestmark = pytest.mark.anyio


@tool(side_effect="read_only")
def weather(city: str, unit: str = "celsius") -> str:
    """The weather in a city.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
    """
    return f"sunny in {city}, 21 {unit}"


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


FAST_RETRIES = Limits(max_steps=6, retry_base_delay=0.01, retry_max_delay=0.05)


async def test_multi_step_run(server: WireServer, driver: Driver) -> None:
    second_turn = [Call("teleport", {"to": "Mars"}, id="call_4")]
    if driver.streams_raw_arguments:
        second_turn.insert(0, Call("add", '{"a": 1,', id="call_3"))
    server.script(
        driver.error(429, "rate limited", {"retry-after": "0"}),
        driver.reply(
            Say(
                reasoning="Two lookups.",
                text="Checking both.",
                calls=(
                    Call("weather", {"city": "Oslo"}, id="call_1"),
                    Call("add", {"a": 2, "b": 3}, id="call_2"),
                ),
            )
        ),
        driver.reply(Say(calls=tuple(second_turn))),
        driver.reply(Say(text="Oslo is sunny; 2 + 3 = 5.")),
    )
    model = driver.model(server.url)
    agent = Agent(model, [weather, add], instructions="Use the tools.", limits=FAST_RETRIES)
    events: list[RunEvent] = []
    try:
        result = await agent.run("Weather in Oslo, and 2 + 3?", on_event=events.append)
    finally:
        await model.aclose()  # type: ignore[attr-defined]

    assert (result.stop_reason, result.output, result.steps) == (
        "answer",
        "Oslo is sunny; 2 + 3 = 5.",
        3,
    )
    assert [e.attempt for e in events if isinstance(e, RetryScheduled)] == [1]
    assert result.usage.requests == 3
    assert result.usage.input_tokens == 3 * 11
    assert server.pending == 0
    bodies = [r.json for r in server.requests]
    assert len(bodies) == 4
    assert all(driver.tool_names(body) == ["weather", "add"] for body in bodies)
    assert driver.results(bodies[2]) == [("call_1", "sunny in Oslo, 21 celsius"), ("call_2", "5")]
    later = driver.results(bodies[3])
    assert later[:2] == driver.results(bodies[2]), "earlier results stay in the history"
    fresh = dict(later[2:])
    assert "Unknown tool 'teleport'. Available tools: add, weather." in fresh["call_4"]
    if driver.streams_raw_arguments:
        assert "not valid JSON" in fresh["call_3"]
        assert list(fresh) == ["call_3", "call_4"]
    assert [record.call.name for record in result.calls][:2] == ["weather", "add"]


def test_toolwire_run_cli(
    server: WireServer, driver: Driver, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tools = tmp_path / "tools.py"
    tools.write_text(
        "from toolwire.tools import tool\n\n"
        "@tool(side_effect='read_only')\n"
        "def add(a: int, b: int) -> int:\n"
        '    """Add two integers."""\n'
        "    return a + b\n"
    )
    server.script(
        driver.reply(Say(calls=(Call("add", {"a": 20, "b": 22}, id="call_1"),))),
        driver.reply(Say(calls=(Call("add", {"a": 42, "b": 1}, id="call_2"),))),
        driver.reply(Say(text="It is 43.")),
    )
    argv = ["run", "What is 20 + 22 + 1?", "--model", driver.spec(server.url)]
    code = main([*argv, "--tools", str(tools), "--json", "--no-log"])
    # The CLI leaves the model's HTTP client to process exit; collect it here, quietly, rather
    # than in whichever test runs next.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()
    output = json.loads(capsys.readouterr().out)
    assert (code, output["answer"], output["stop_reason"], output["steps"]) == (
        0,
        "It is 43.",
        "answer",
        3,
    )
    assert [c["result"] for c in output["calls"]] == ["42", "43"]
    assert driver.results(server.requests[2].json) == [("call_1", "42"), ("call_2", "43")]


ENVIRONMENT = {
    # prefix: (variables pointing at the server, header the key must arrive in, expected value)
    "openai": ({"OPENAI_BASE_URL": "{url}/v1", "OPENAI_API_KEY": "sk-env"}, "authorization", "Bearer sk-env"),
    "openai-chat": ({"OPENAI_BASE_URL": "{url}/v1", "OPENAI_API_KEY": "sk-env"}, "authorization", "Bearer sk-env"),
    "anthropic": ({"ANTHROPIC_BASE_URL": "{url}", "ANTHROPIC_API_KEY": "sk-ant-env"}, "authorization", "Bearer sk-ant-env"),
    "gemini": ({"GOOGLE_GEMINI_BASE_URL": "{url}", "GEMINI_API_KEY": "gm-env"}, "x-goog-api-key", "gm-env"),
    "bedrock": ({"AWS_ENDPOINT_URL_BEDROCK_RUNTIME": "{url}"}, "authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/"),
}  # fmt: skip


async def test_keys_and_base_urls_from_the_environment(
    server: WireServer, driver: Driver, monkeypatch: pytest.MonkeyPatch
) -> None:
    variables, header, value = ENVIRONMENT[driver.prefix]
    for name, template in variables.items():
        monkeypatch.setenv(name, template.format(url=server.url))
    model_id = "anthropic.claude-env-v1:0" if driver.prefix == "bedrock" else "env-model"
    model = get_model(f"{driver.prefix}:{model_id}")
    server.script(driver.reply(Say(text="from the environment")))
    try:
        response = await respond(model, ask())
    finally:
        await model.aclose()  # type: ignore[attr-defined]
    assert response.message.text == "from the environment"
    (recorded,) = server.requests
    assert recorded.headers[header].startswith(value)
    assert model_id.replace(":", "%3A") in recorded.path or model_id in recorded.body.decode()
