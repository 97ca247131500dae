"""Tracing in process (spans kept in memory): turning it on and off, what a failed or cut-off run
leaves, that tracing never breaks a run, and that no secret is exported in any form."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
from opentelemetry.trace import StatusCode

import toolwire.otel
from toolwire import Agent, Decline, Edit, Limits, ProviderError, ScriptedModel, Turn, UsageError
from toolwire.cli import main
from toolwire.models import ScriptedCall
from toolwire.otel import CAPTURE_CONTENT_ENV, OpenTelemetry
from toolwire.otel._spans import provider_and_model

from ..conftest import run_with_fake_clock
from . import scenario

Memory = tuple[TracerProvider, InMemorySpanExporter]


def names(exporter: InMemorySpanExporter) -> list[str]:
    return [span.name for span in exporter.get_finished_spans()]


def one(exporter: InMemorySpanExporter, name: str) -> ReadableSpan:
    (span,) = (s for s in exporter.get_finished_spans() if s.name == name)
    return span


def test_importing_toolwire_loads_no_opentelemetry() -> None:
    code = (
        "import sys, toolwire, toolwire.otel, toolwire.cli, toolwire.log;"
        "print(sorted(m for m in sys.modules if m.startswith('opentelemetry')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_instrument_traces_every_agent_until_uninstrumented(memory: Memory) -> None:
    provider, exporter = memory
    agent = Agent(ScriptedModel(["one", "two", "three"]))
    agent.run_sync("hi")
    assert names(exporter) == []
    toolwire.otel.instrument(tracer_provider=provider)
    try:
        agent.run_sync("hi")
        assert names(exporter) == ["chat scripted", "invoke_agent"]
    finally:
        toolwire.otel.uninstrument()
    agent.run_sync("hi")
    assert len(names(exporter)) == 2


def test_an_agents_own_telemetry_wins_over_the_installed_one(memory: Memory) -> None:
    provider, exporter = memory
    other = InMemorySpanExporter()
    toolwire.otel.instrument(tracer_provider=provider)
    try:
        own = TracerProvider()
        own.add_span_processor(_simple(other))
        agent = Agent(ScriptedModel(["ok"]), telemetry=OpenTelemetry(tracer_provider=own))
        agent.run_sync("hi")
    finally:
        toolwire.otel.uninstrument()
    assert names(exporter) == []
    assert names(other) == ["chat scripted", "invoke_agent"]


def _simple(exporter: InMemorySpanExporter) -> Any:
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor

    return SimpleSpanProcessor(exporter)


@pytest.mark.parametrize(
    ("value", "captured"),
    [("true", True), ("SPAN_ONLY", True), ("1", True), ("false", False), ("", False)],
)
def test_content_capture_follows_the_standard_variable(
    value: str, captured: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CAPTURE_CONTENT_ENV, value)
    assert OpenTelemetry().capture_content is captured
    assert OpenTelemetry(capture_content=not captured).capture_content is not captured


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("openai:gpt-5", ("openai", "gpt-5")),
        ("openai-chat:llama3", ("openai", "llama3")),
        ("gemini:gemini-2.5-flash", ("gcp.gemini", "gemini-2.5-flash")),
        ("bedrock:us.anthropic.claude:0", ("aws.bedrock", "us.anthropic.claude:0")),
        ("prompted:local:qwen", ("llama_cpp", "qwen")),
        ("myplugin:m", ("myplugin", "m")),
        ("scripted", ("scripted", "scripted")),
    ],
)
def test_providers_are_named_as_the_conventions_name_them(
    name: str, expected: tuple[str, str]
) -> None:
    assert provider_and_model(name) == expected


def test_a_request_that_fails_for_good_fails_its_span_and_the_run(memory: Memory) -> None:
    provider, exporter = memory
    model = ScriptedModel([ProviderError("bad request: no such model", status=400)])
    agent = Agent(model, telemetry=OpenTelemetry(tracer_provider=provider))
    result = agent.run_sync("hi")
    assert result.stop_reason == "error"
    chat, run = one(exporter, "chat scripted"), one(exporter, "invoke_agent")
    for span in (chat, run):
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes is not None
        assert span.attributes["error.type"] == "ProviderError"
    assert run.attributes is not None and run.attributes["toolwire.stop_reason"] == "error"


def test_a_request_cut_off_by_the_time_limit_is_closed_as_a_timeout(memory: Memory) -> None:
    provider, exporter = memory

    async def never(request: Any) -> str:
        await anyio.sleep(3600)
        return "late"

    agent = Agent(
        ScriptedModel(never),
        limits=Limits(timeout=5),
        telemetry=OpenTelemetry(tracer_provider=provider),
    )
    result = run_with_fake_clock(lambda: agent.run("hi"))
    assert result.stop_reason == "timeout"
    assert names(exporter) == ["chat scripted", "invoke_agent"]
    for span in exporter.get_finished_spans():
        assert span.status.status_code is StatusCode.ERROR
        assert span.attributes is not None and span.attributes["error.type"] == "timeout"


def test_a_budget_stop_is_not_an_error(memory: Memory) -> None:
    provider, exporter = memory
    agent = Agent(
        ScriptedModel(scenario.script()[1:]),
        [scenario.weather, scenario.forecast, scenario.send],
        limits=Limits(max_steps=1),
        telemetry=OpenTelemetry(tracer_provider=provider),
    )
    assert agent.run_sync("hi", deps={"api_key": "k"}).stop_reason == "max_steps"
    run = one(exporter, "invoke_agent")
    assert run.status.status_code is not StatusCode.ERROR
    assert run.attributes is not None and run.attributes["toolwire.stop_reason"] == "max_steps"


def wrapping(wrap: Callable[[Callable[..., Any]], Any], **options: Any) -> TracerProvider:
    """A tracer provider whose tracers' `start_span` is `wrap(the real one)`."""

    class Wrapped(TracerProvider):
        def get_tracer(self, *args: Any, **kwargs: Any) -> Any:
            tracer = super().get_tracer(*args, **kwargs)
            tracer.start_span = wrap(tracer.start_span)  # type: ignore[method-assign]
            return tracer

    return Wrapped(**options)


def test_a_failing_tracer_never_breaks_the_run(caplog: pytest.LogCaptureFixture) -> None:
    def broken(start_span: Callable[..., Any]) -> Callable[..., Any]:
        def start(*args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("exporter on fire")

        return start

    provider = wrapping(broken)
    agent = Agent(ScriptedModel(["fine"]), telemetry=OpenTelemetry(tracer_provider=provider))
    with caplog.at_level(logging.ERROR, logger="toolwire.otel"):
        result = agent.run_sync("hi")
    assert (result.stop_reason, result.output) == ("answer", "fine")
    (record,) = caplog.records
    assert "could not trace a run_started event" in record.getMessage()


# Secrets with the characters JSON escapes, and others: a redaction of the JSON text would miss
# the escaped ones. "Zq" marks them, so finding the marker anywhere means a leak.
secrets = st.text(alphabet=st.sampled_from('abcXYZ019"\\/\n\t é€🙂'), min_size=6, max_size=20).map(
    lambda text: "Zq" + text
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(injected=secrets, environment=secrets)
def test_no_secret_is_exported_even_with_content_on(
    injected: str, environment: str, memory: Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider, exporter = memory
    exporter.clear()
    monkeypatch.setenv("SERVICE_API_TOKEN", environment)
    telemetry = OpenTelemetry(tracer_provider=provider, capture_content=True)
    result = scenario.run(telemetry, injected, prompt=f"use {injected} and {environment}")
    assert result.stop_reason == "answer"
    exported = json.dumps(
        [dict(span.attributes or {}) for span in exporter.get_finished_spans()]
        + [
            [dict(e.attributes or {}) for e in span.events]
            for span in exporter.get_finished_spans()
        ]
        + [span.status.description for span in exporter.get_finished_spans()],
        ensure_ascii=False,
    )
    assert "Zq" not in exported
    assert "[REDACTED]" in exported


def test_a_run_sampled_out_makes_no_further_span() -> None:
    started: list[str] = []

    def counting(start_span: Callable[..., Any]) -> Callable[..., Any]:
        def start(name: str, *args: Any, **kwargs: Any) -> Any:
            started.append(name)
            return start_span(name, *args, **kwargs)

        return start

    exporter = InMemorySpanExporter()
    provider = wrapping(counting, sampler=ALWAYS_OFF)
    provider.add_span_processor(_simple(exporter))
    result = scenario.run(OpenTelemetry(tracer_provider=provider), "secret-value")
    assert result.stop_reason == "answer" and len(result.calls) == 4
    assert started == ["invoke_agent"]
    assert names(exporter) == []


def test_declined_and_edited_calls_say_so(memory: Memory) -> None:
    provider, exporter = memory
    decisions = iter(
        [Decline(message="not Ana", by="ops"), Edit(arguments={"to": "Bo", "text": "hi"})]
    )
    model = ScriptedModel(
        [
            Turn(tool_calls=[ScriptedCall(name="send", arguments={"to": "Ana", "text": "hi"})]),
            Turn(tool_calls=[ScriptedCall(name="send", arguments={"to": "Al", "text": "hi"})]),
            "done",
        ]
    )
    agent = Agent(
        model,
        [scenario.send],
        approver=lambda request: next(decisions),
        telemetry=OpenTelemetry(tracer_provider=provider, capture_content=True),
    )
    assert agent.run_sync("go", deps={"api_key": "key-0123456789"}).stop_reason == "answer"
    declined, edited = (s for s in exporter.get_finished_spans() if s.name == "execute_tool send")
    assert declined.status.status_code is StatusCode.ERROR
    assert (
        dict(declined.attributes or {}).items()
        >= {
            "error.type": "declined",
            "toolwire.approval.approved": False,
            "toolwire.approval.decided_by": "ops",
            "toolwire.approval.message": "not Ana",
        }.items()
    )
    assert edited.status.status_code is not StatusCode.ERROR
    attributes = dict(edited.attributes or {})
    assert attributes["toolwire.approval.edited"] is True
    assert json.loads(attributes["toolwire.approval.edited_arguments"]) == {
        "to": "Bo",
        "text": "hi",
    }
    assert attributes["gen_ai.tool.call.result"] == "sent to Bo using [REDACTED]"


def test_without_the_extra_tracing_is_refused_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("opentelemetry", "opentelemetry.sdk.trace"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(UsageError, match=r"pip install 'toolwire\[otel\]'"):
        OpenTelemetry()
    assert main(["run", "hi", "--model", "scripted:x.json", "--otel", "--no-log"]) == 2
    assert "--otel needs OpenTelemetry: pip install 'toolwire[otel]'" in capsys.readouterr().err
