"""The public surface: tools in any form, profiles, the scanner's contract and its errors."""

from __future__ import annotations

from typing import Any

import pytest

import toolwire.textcalls as textcalls
from toolwire import UsageError, tool
from toolwire.textcalls import (
    PROFILES,
    ArgumentsDelta,
    CallCompleted,
    CallStarted,
    ContentText,
    Profile,
    Scanner,
    ToolSpec,
    get_profile,
    parse_calls,
    profile_for_model,
    tool_specs,
)
from toolwire.tools import ToolDefinition


@tool
def search(query: str, limit: int = 5) -> str:
    """Search the notes."""
    return query


def test_every_public_name_is_exported() -> None:
    for name in textcalls.__all__:
        assert getattr(textcalls, name) is not None


def test_tools_in_every_form_mix() -> None:
    specs = tool_specs(
        [
            "ping",
            {"name": "a", "description": "A.", "parameters": {"type": "object"}},
            {"type": "function", "function": {"name": "b", "parameters": {"type": "object"}}},
            {"name": "c", "input_schema": {"type": "object", "properties": {"x": {}}}},
            ToolDefinition(name="d", description="D.", parameters={}),
            search,
        ]
    )
    assert [s.name for s in specs] == ["ping", "a", "b", "c", "d", "search"]
    assert specs[3].parameter_names == ("x",)
    assert specs[5].parameter_names == ("query", "limit")
    assert parse_calls('search("dogs", 3)', [search]).calls[0].arguments == {
        "query": "dogs",
        "limit": 3,
    }


@pytest.mark.parametrize(
    ("tools", "message"),
    [
        ("get_weather", "a list of tools"),
        ([{"description": "no name"}], "needs a non-empty string 'name'"),
        ([{"name": "x", "parameters": "object"}], "'parameters' an object"),
        ([42], "cannot use 42 as a tool"),
    ],
)
def test_bad_tools_are_a_clear_usage_error(tools: Any, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        Scanner(tools)


@pytest.mark.parametrize(
    ("schema", "raw", "value"),
    [
        ({"type": "integer"}, " 42 ", 42),
        ({"type": "number"}, "2.5", 2.5),
        ({"type": "boolean"}, "FALSE", False),
        ({"type": "null"}, "None", None),
        ({"type": "object"}, "{'a': 1}", {"a": 1}),
        ({"type": "array"}, "[1, 2]", [1, 2]),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "7", 7),
        ({"type": ["string", "integer"]}, "7", "7"),
        ({"type": "integer"}, "seven", "seven"),
        ({"type": "object"}, "[1]", "[1]"),
        ({}, "7", "7"),
    ],
)
def test_raw_values_are_typed_only_by_the_schema(schema: Any, raw: str, value: Any) -> None:
    spec = ToolSpec(name="t", parameters={"type": "object", "properties": {"p": schema}})
    assert spec.typed_value("p", raw) == value
    assert ToolSpec(name="t").typed_value("p", raw) == raw


def test_profiles() -> None:
    assert get_profile(None) == PROFILES["generic"]
    assert get_profile("deepseek-r1").reasoning_open
    custom = Profile(name="mine", calls_in_reasoning=True)
    assert get_profile(custom) is custom
    with pytest.raises(UsageError, match="unknown text tool-call profile 'nope'"):
        get_profile("nope")
    assert get_profile("qwen3_coder").name == "qwen3-coder"  # vLLM's parser name
    assert get_profile("openai").name == "gpt-oss"
    assert get_profile("deepseek-ai/DeepSeek-R1").name == "deepseek-r1"  # a model name
    assert profile_for_model("Qwen/Qwen3-Coder-30B-A3B").name == "qwen3-coder"
    assert profile_for_model("meta-llama/Llama-3.1-8B-Instruct").name == "llama3"
    assert profile_for_model("deepseek-ai/DeepSeek-R1-Distill-Qwen-7B").name == "deepseek-r1"
    assert profile_for_model("openai/gpt-oss-20b").name == "gpt-oss"
    assert profile_for_model("some-model").name == "generic"


def test_scanner_contract() -> None:
    scanner = Scanner(["get_weather"])
    events = scanner.feed('Hi <tool_call>{"name": "get_weather", "arguments": {"city": "P')
    assert events == [
        ContentText(text="Hi"),
        CallStarted(index=0, name="get_weather"),
        ArgumentsDelta(index=0, delta='{"city": "P'),
    ]
    events = scanner.feed('aris"}}</tool_call>')
    assert events[0] == ArgumentsDelta(index=0, delta='aris"}')  # one feed's deltas are merged
    assert isinstance(events[1], CallCompleted) and events[1].arguments == {"city": "Paris"}
    assert scanner.close() == []
    assert scanner.close() == []
    with pytest.raises(UsageError, match="closed"):
        scanner.feed("more")
    with pytest.raises(UsageError, match="takes text"):
        Scanner().feed(b"bytes")  # type: ignore[arg-type]


def test_only_a_possible_partial_token_is_ever_held_back() -> None:
    scanner = Scanner(["write_file"])
    scanner.feed('<tool_call>{"name": "write_file", "arguments": {"content": "')
    for _ in range(20_000):
        scanner.feed("abcd")
        assert len(scanner._machine._buf) < 64  # only a possible partial token is held back
    done = scanner.feed('"}}</tool_call>')
    assert isinstance(done[-1], CallCompleted)
    assert len(done[-1].arguments["content"]) == 80_000
    assert scanner.close() == []
