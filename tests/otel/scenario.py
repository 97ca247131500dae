"""One scripted run with everything a trace must tell apart: a retried model request, parallel
calls, a failing call, a call that waits for approval, and a secret injected into a tool."""

from __future__ import annotations

from typing import Annotated

import anyio

from toolwire import (
    Agent,
    ApprovalRequest,
    Approve,
    Injected,
    Limits,
    ProviderError,
    RunResult,
    ScriptedModel,
    ToolError,
    Turn,
    Usage,
    tool,
)
from toolwire.models import ScriptedCall
from toolwire.otel import OpenTelemetry

MODEL = "anthropic:claude-test"
PROMPT = "Weather in Paris and Oslo, then tell Ana."
APPROVER = "test:approver"
FIRST = Usage(input_tokens=120, output_tokens=30, requests=1)
SECOND = Usage(input_tokens=200, output_tokens=15, requests=1)
THIRD = Usage(input_tokens=260, output_tokens=9, requests=1)


@tool(side_effect="read_only")
async def weather(city: str) -> str:
    """The weather in a city."""
    await anyio.sleep(0.05)  # long enough for the two calls to overlap visibly
    return f"{city}: sunny"


@tool(side_effect="read_only")
def forecast(days: int) -> str:
    """A forecast."""
    raise ToolError(f"no forecast for {days} days")


@tool(side_effect="destructive")
def send(to: str, text: str, api_key: Annotated[str, Injected()]) -> str:
    """Send a message."""
    return f"sent to {to} using {api_key}"


def script() -> list[Turn | str | ProviderError]:
    return [
        ProviderError("overloaded, try again", retryable=True, status=529),
        Turn(
            tool_calls=[
                ScriptedCall(name="weather", arguments={"city": "Paris"}),
                ScriptedCall(name="weather", arguments={"city": "Oslo"}),
                ScriptedCall(name="forecast", arguments={"days": 30}),
            ],
            usage=FIRST,
        ),
        Turn(
            tool_calls=[ScriptedCall(name="send", arguments={"to": "Ana", "text": "sunny"})],
            usage=SECOND,
        ),
        Turn(text="Both sunny; Ana knows.", usage=THIRD),
    ]


def approve(request: ApprovalRequest) -> Approve:
    return Approve(by=APPROVER)


def run(telemetry: OpenTelemetry, secret: str, prompt: str = PROMPT) -> RunResult:
    agent = Agent(
        ScriptedModel(script(), name=MODEL),
        [weather, forecast, send],
        approver=approve,
        limits=Limits(retry_base_delay=0.01),
        telemetry=telemetry,
    )
    return agent.run_sync(prompt, deps={"api_key": secret})
