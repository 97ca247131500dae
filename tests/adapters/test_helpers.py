"""What every adapter shares: names, Retry-After, model strings, the tool cache, call streams."""

from __future__ import annotations

import email.utils
import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire.errors import UsageError
from toolwire.events import ToolCallArgumentsDelta, ToolCallStarted
from toolwire.models import get_model
from toolwire.models._connect import parse_spec
from toolwire.models._http_errors import is_retryable_status, is_transient_code, retry_after
from toolwire.models._names import wire_id, wire_name
from toolwire.models._tools import CallStream, ToolTranslator, WireTool
from toolwire.models.anthropic import AnthropicModel
from toolwire.models.bedrock import BedrockModel
from toolwire.models.gemini import GeminiModel
from toolwire.models.openai_chat import OpenAIChatModel
from toolwire.models.openai_responses import OpenAIResponsesModel
from toolwire.tools import ToolDefinition, tool

NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


@given(st.text(min_size=1, max_size=120))
def test_wire_names_are_valid_stable_and_distinct(name: str) -> None:
    mapped = wire_name(name)
    assert NAME.fullmatch(mapped)
    assert wire_name(name) == mapped
    gemini = wire_name(name, letter_first=True)
    assert NAME.fullmatch(gemini)
    assert gemini[0] == "_" or (gemini[0].isascii() and gemini[0].isalpha())
    if NAME.fullmatch(name):
        assert mapped == name
    else:
        assert wire_name(name + "x") != mapped


def test_wire_names_keep_valid_names_and_rewrite_the_rest() -> None:
    assert wire_name("get_weather-2") == "get_weather-2"
    assert wire_name("github.create_issue").startswith("github_create_issue_")
    assert wire_name("github.create_issue") != wire_name("github/create_issue")
    assert wire_name("2fa", letter_first=True).startswith("_2fa_")
    assert len(wire_name("x" * 200)) == 64


@given(st.text(min_size=1, max_size=80))
def test_wire_ids(call_id: str) -> None:
    assert re.fullmatch(r"[A-Za-z0-9_-]+", wire_id(call_id))
    assert wire_id(call_id) == wire_id(call_id)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "0.5"}, 0.5),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after-ms": "soon", "retry-after": "3"}, 3.0),
        ({"retry-after": "-4"}, None),
        ({"retry-after": "whenever"}, None),
        ({}, None),
        (None, None),
    ],
)
def test_retry_after(headers: dict[str, str] | None, seconds: float | None) -> None:
    assert retry_after(headers) == seconds


def test_retry_after_http_date() -> None:
    date = email.utils.formatdate(1_000_030.0, usegmt=True)
    assert retry_after({"Retry-After": date}, now=1_000_000.0) == 30.0
    assert retry_after({"Retry-After": date}, now=2_000_000.0) == 0.0


def test_retryable_statuses_and_codes() -> None:
    assert [
        s
        for s in (400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 503, 529)
        if is_retryable_status(s)
    ] == [408, 409, 429, 500, 503, 529]
    assert is_transient_code("overloaded_error")
    assert is_transient_code("throttlingException")
    assert not is_transient_code("invalid_request_error")
    assert not is_transient_code(None)


@pytest.mark.parametrize(
    ("spec", "model", "url"),
    [
        ("gpt-4.1", "gpt-4.1", None),
        ("llama@http://127.0.0.1:8080/v1", "llama", "http://127.0.0.1:8080/v1"),
        ("claude@3@https://proxy.example/x", "claude@3", "https://proxy.example/x"),
        ("anthropic.claude-3:0", "anthropic.claude-3:0", None),
        ("vertex-model@20240620", "vertex-model@20240620", None),
    ],
)
def test_model_specs(spec: str, model: str, url: str | None) -> None:
    parsed = parse_spec("p", spec)
    assert (parsed.model, parsed.base_url) == (model, url)


_MODELS = st.one_of(
    st.text(max_size=30),
    st.builds(lambda a, b: f"{a}@http://{b}", st.text(max_size=10), st.text(max_size=10)),
)


@given(_MODELS, st.sampled_from(["@http://127.0.0.1:8080/v1", "@https://gateway.example/x"]))
def test_model_specs_with_a_base_url_lose_nothing(model: str, suffix: str) -> None:
    if not model.strip():
        with pytest.raises(UsageError, match="needs a model name"):
            parse_spec("p", model + suffix)
        return
    parsed = parse_spec("p", model + suffix)
    assert (parsed.model, parsed.base_url) == (model.strip(), suffix[1:])


@given(st.text(max_size=30).filter(lambda m: "@http" not in m and m.strip()))
def test_model_specs_without_a_base_url_lose_nothing(model: str) -> None:
    parsed = parse_spec("p", model)
    assert (parsed.model, parsed.base_url) == (model.strip(), None)


@pytest.mark.parametrize("spec", ["", "  ", "@http://127.0.0.1:1"])
def test_model_spec_without_a_model(spec: str) -> None:
    with pytest.raises(UsageError, match="needs a model name"):
        parse_spec("openai", spec)


@pytest.mark.parametrize(
    ("string", "kind", "name"),
    [
        ("openai:gpt-4.1@http://127.0.0.1:9/v1", OpenAIResponsesModel, "openai:gpt-4.1"),
        ("openai-chat:llama@http://127.0.0.1:9/v1", OpenAIChatModel, "openai-chat:llama"),
        ("anthropic:claude-x@http://127.0.0.1:9", AnthropicModel, "anthropic:claude-x"),
        ("gemini:gemini-x@http://127.0.0.1:9", GeminiModel, "gemini:gemini-x"),
        (
            "bedrock:amazon.nova-pro-v1:0@http://127.0.0.1:9",
            BedrockModel,
            "bedrock:amazon.nova-pro-v1:0",
        ),
    ],
)
@pytest.mark.anyio
async def test_model_strings(string: str, kind: type, name: str) -> None:
    model = get_model(string)
    assert isinstance(model, kind)
    assert model.name == name
    await model.aclose()  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("string", "variable"),
    [
        ("openai:gpt-4.1", "OPENAI_API_KEY"),
        ("openai-chat:gpt-4.1", "OPENAI_API_KEY"),
        ("anthropic:claude-x", "ANTHROPIC_API_KEY"),
        ("gemini:gemini-x", "GEMINI_API_KEY"),
    ],
)
def test_missing_keys_are_usage_errors(string: str, variable: str) -> None:
    with pytest.raises(UsageError, match=variable):
        get_model(string)


def test_bedrock_without_a_region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AWS_REGION")
    monkeypatch.delenv("AWS_DEFAULT_REGION", raising=False)
    with pytest.raises(UsageError, match="AWS_REGION"):
        get_model("bedrock:amazon.nova-pro-v1:0")


@pytest.mark.parametrize(
    ("string", "module", "extra"),
    [
        ("openai:gpt-4.1@http://127.0.0.1:9", "openai", "openai"),
        ("openai-chat:m@http://127.0.0.1:9", "openai", "openai"),
        ("anthropic:c@http://127.0.0.1:9", "anthropic", "anthropic"),
        ("gemini:g@http://127.0.0.1:9", "google", "gemini"),
        ("bedrock:amazon.nova-pro-v1:0", "boto3", "bedrock"),
    ],
)
def test_a_missing_sdk_names_its_extra(
    monkeypatch: pytest.MonkeyPatch, string: str, module: str, extra: str
) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # makes `import module` fail
    with pytest.raises(UsageError, match=re.escape(f"pip install 'toolwire[{extra}]'")):
        get_model(string)


def _render(tool: WireTool) -> dict[str, object]:
    return {"name": tool.wire_name, "schema": tool.schema}


@tool
def lookup(city: str, unit: str = "c") -> str:
    """Look up."""
    return city


def test_tool_translation_is_cached_per_schema_object() -> None:
    translator = ToolTranslator("openai-strict", _render)
    first = translator.translate([lookup.definition])
    again = translator.translate([lookup.definition])  # a new ToolDefinition, same parameters
    assert again.payload[0] is first.payload[0]
    changed = ToolDefinition(
        name="lookup", description="Look up.", parameters=dict(lookup.parameters)
    )
    assert translator.translate([changed]).payload[0] is not first.payload[0]


def test_tool_names_colliding_on_the_wire() -> None:
    translator = ToolTranslator("json-schema", _render)
    twins = [
        ToolDefinition(name="a.b", description="", parameters={"type": "object"}),
        ToolDefinition(name=wire_name("a.b"), description="", parameters={"type": "object"}),
    ]
    with pytest.raises(UsageError, match="same name on the wire"):
        translator.translate(twins)


def test_call_stream_maps_names_back_and_cleans_strict_nulls() -> None:
    odd = ToolDefinition(name="svc.lookup", description="", parameters=lookup.parameters)
    tools = ToolTranslator("openai-strict", _render).translate([odd])
    (wire,) = tools.by_wire_name
    calls = CallStream(tools)
    events = calls.start("k", wire, "id-1")
    for piece in ['{"city": "Os', 'lo", "unit"', ": null}"]:
        events += calls.arguments("k", piece)
    events += calls.end_all()
    assert events == [
        ToolCallStarted(index=0, name="svc.lookup", id="id-1"),
        ToolCallArgumentsDelta(index=0, delta='{"city": "Oslo"}'),
    ]


def test_call_stream_leaves_unparsable_strict_arguments_as_written() -> None:
    tools = ToolTranslator("openai-strict", _render).translate([lookup.definition])
    calls = CallStream(tools)
    calls.start(0, "lookup", None)
    calls.arguments(0, '{"city": nul')
    assert calls.end(0) == [ToolCallArgumentsDelta(index=0, delta='{"city": nul')]


def test_call_stream_streams_non_strict_arguments_through() -> None:
    tools = ToolTranslator("json-schema", _render).translate([lookup.definition])
    calls = CallStream(tools)
    calls.start(7, "lookup", "x")
    assert calls.arguments(7, '{"ci') == [ToolCallArgumentsDelta(index=0, delta='{"ci')]
    assert calls.end(7, '{"city": "ignored, already streamed"}') == []


def test_call_stream_uses_whole_arguments_sent_at_the_end() -> None:
    tools = ToolTranslator("json-schema", _render).translate([lookup.definition])
    calls = CallStream(tools)
    calls.start("item", "lookup", "x")
    assert calls.end("item", '{"city": "Oslo"}') == [
        ToolCallArgumentsDelta(index=0, delta='{"city": "Oslo"}')
    ]
