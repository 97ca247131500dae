"""What a real OTLP backend (Arize Phoenix) stores for toolwire's runs: the span tree, the names,
the GenAI attributes, and no content or secret unless content was asked for."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from opentelemetry import trace

from toolwire.otel import OpenTelemetry

from . import scenario
from .conftest import PROJECT_ATTRIBUTE, Phoenix

SECRET = "tw-secret-0123456789abcdef"


def at(span: dict[str, Any], edge: str) -> datetime:
    return datetime.fromisoformat(span[f"{edge}_time"])


def by_name(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    named: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        named.setdefault(span["name"], []).append(span)
    return named


def test_a_run_is_stored_as_a_genai_span_tree(phoenix: Phoenix) -> None:
    provider = phoenix.provider("tree")
    with trace.get_tracer("app", tracer_provider=provider).start_as_current_span("request") as app:
        result = scenario.run(OpenTelemetry(tracer_provider=provider), SECRET)
    provider.shutdown()
    assert result.stop_reason == "answer"

    spans = phoenix.spans("tree", count=10)
    named = by_name(spans)
    assert sorted((name, len(group)) for name, group in named.items()) == [
        ("chat claude-test", 4),
        ("execute_tool forecast", 1),
        ("execute_tool send", 1),
        ("execute_tool weather", 2),
        ("invoke_agent", 1),
        ("request", 1),
    ]
    # The tree: the application's span > the run > every request and call, in one trace.
    (agent,) = named["invoke_agent"]
    app_id = format(app.get_span_context().span_id, "016x")
    assert agent["parent_id"] == app_id
    children = [s for s in spans if s["name"] not in ("request", "invoke_agent")]
    assert {s["parent_id"] for s in children} == {agent["context"]["span_id"]}
    assert len({s["context"]["trace_id"] for s in spans}) == 1
    # Phoenix reads the GenAI operation of each span as its kind.
    kinds = {s["name"].split()[0]: s["span_kind"] for s in [*children, agent]}
    assert kinds == {"invoke_agent": "AGENT", "chat": "LLM", "execute_tool": "TOOL"}

    attributes = agent["attributes"]
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.provider.name"] == "anthropic"
    assert attributes["gen_ai.request.model"] == "claude-test"
    assert attributes["gen_ai.usage.input_tokens"] == result.usage.input_tokens == 580
    assert attributes["gen_ai.usage.output_tokens"] == result.usage.output_tokens == 54
    assert attributes["gen_ai.response.finish_reasons"] == ["stop"]
    assert attributes["toolwire.stop_reason"] == "answer"
    assert attributes["toolwire.run.id"] == result.run_id
    assert agent["status_code"] != "ERROR"

    check_requests(named["chat claude-test"])
    check_calls(named, result.calls)
    # Content is off by default: no message, argument or result, nor the secret, is stored.
    stored = json.dumps(spans)
    for content in ("Paris", "sunny", "Ana", "no forecast", SECRET, scenario.PROMPT):
        assert content not in stored


def check_requests(chats: list[dict[str, Any]]) -> None:
    failed, retried, second, third = chats
    assert failed["status_code"] == "ERROR"
    assert failed["attributes"]["error.type"] == "ProviderError"
    assert failed["status_message"] == "overloaded, try again"
    assert retried["attributes"]["toolwire.retry.attempt"] == 1
    assert at(retried, "start") >= at(failed, "end")
    expected = [
        (1, scenario.FIRST, "tool_calls"),
        (2, scenario.SECOND, "tool_calls"),
        (3, scenario.THIRD, "stop"),
    ]
    for chat, (step, usage, finish) in zip((retried, second, third), expected, strict=True):
        attributes = chat["attributes"]
        assert chat["status_code"] != "ERROR"
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.provider.name"] == "anthropic"
        assert attributes["gen_ai.request.model"] == "claude-test"
        assert attributes["toolwire.step"] == step
        assert attributes["gen_ai.usage.input_tokens"] == usage.input_tokens
        assert attributes["gen_ai.usage.output_tokens"] == usage.output_tokens
        assert attributes["gen_ai.response.finish_reasons"] == [finish]


def check_calls(named: dict[str, list[dict[str, Any]]], calls: Any) -> None:
    tools = [s for name, group in named.items() if name.startswith("execute_tool") for s in group]
    by_id = {s["attributes"]["gen_ai.tool.call.id"]: s for s in tools}
    assert set(by_id) == {record.call.id for record in calls}
    for record in calls:
        attributes = by_id[record.call.id]["attributes"]
        assert attributes["gen_ai.operation.name"] == "execute_tool"
        assert attributes["gen_ai.tool.name"] == record.call.name
        assert attributes["gen_ai.tool.type"] == "function"
    # The two read-only calls ran at once.
    first, second = named["execute_tool weather"]
    assert at(first, "start") < at(second, "end") and at(second, "start") < at(first, "end")
    assert all(s["status_code"] != "ERROR" for s in (first, second))
    (failed,) = named["execute_tool forecast"]
    assert failed["status_code"] == "ERROR"
    assert failed["attributes"]["error.type"] == "tool_error"
    (sent,) = named["execute_tool send"]
    assert sent["status_code"] != "ERROR"
    assert sent["attributes"]["toolwire.tool.side_effect"] == "destructive"
    assert sent["attributes"]["toolwire.approval.approved"] is True
    assert sent["attributes"]["toolwire.approval.decided_by"] == scenario.APPROVER
    assert [e["name"] for e in sent["events"]] == [
        "toolwire.approval.requested",
        "toolwire.approval.decided",
    ]


def test_content_is_stored_when_asked_for_with_the_secrets_redacted(phoenix: Phoenix) -> None:
    provider = phoenix.provider("content")
    telemetry = OpenTelemetry(tracer_provider=provider, capture_content=True)
    scenario.run(telemetry, SECRET, prompt=f"{scenario.PROMPT} (key {SECRET})")
    provider.shutdown()

    spans = phoenix.spans("content", count=9)
    assert SECRET not in json.dumps(spans)
    named = by_name(spans)
    (sent,) = named["execute_tool send"]
    assert json.loads(sent["attributes"]["gen_ai.tool.call.arguments"]) == {
        "to": "Ana",
        "text": "sunny",
    }
    assert sent["attributes"]["gen_ai.tool.call.result"] == "sent to Ana using [REDACTED]"
    last = named["chat claude-test"][-1]["attributes"]
    sent_messages = json.loads(last["gen_ai.input.messages"])
    assert sent_messages[0] == {
        "role": "user",
        "parts": [{"type": "text", "content": f"{scenario.PROMPT} (key [REDACTED])"}],
    }
    assert json.loads(last["gen_ai.output.messages"]) == [
        {
            "role": "assistant",
            "parts": [{"type": "text", "content": "Both sunny; Ana knows."}],
            "finish_reason": "stop",
        }
    ]


@pytest.mark.parametrize(
    ("variable", "path"),
    [("OTEL_EXPORTER_OTLP_ENDPOINT", ""), ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "/v1/traces")],
)
def test_the_cli_exports_where_the_standard_variables_say(
    variable: str, path: str, phoenix: Phoenix, tmp_path: Path
) -> None:
    project = variable.lower().replace("_", "-")
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {"tool_calls": [{"name": "calculate", "arguments": {"expression": "6*7"}}]},
                {"text": "42"},
            ]
        )
    )
    env = {
        **os.environ,
        variable: phoenix.url + path,
        "OTEL_RESOURCE_ATTRIBUTES": f"{PROJECT_ATTRIBUTE}={project}",
    }
    command = [sys.executable, "-m", "toolwire", "run", "what is 6*7?", "--otel", "--json"]
    done = subprocess.run(
        [*command, "--model", f"scripted:{script}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["answer"] == "42"

    spans = phoenix.spans(project, count=4)
    assert sorted(s["name"] for s in spans) == [
        f"chat {script}",
        f"chat {script}",
        "execute_tool calculate",
        "invoke_agent",
    ]
    (agent,) = (s for s in spans if s["name"] == "invoke_agent")
    assert agent["attributes"]["gen_ai.provider.name"] == "scripted"
    assert "6*7" not in json.dumps(spans)
