"""Every format family, as real models write it: each text is fed whole, one character at a time,
in random 1-8 character chunks and split at every marker boundary, and must give the same calls
and content every time (`assert_same_everywhere` also checks the argument deltas)."""

from __future__ import annotations

from typing import Any

import pytest

from .formats import ds
from .helpers import assert_same_everywhere

TOOLS: list[Any] = [
    "get_weather",
    "get_time",
    "write_file",
    "brave_search",
    {
        "name": "search_my_content",
        "description": "Search the user's notes.",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
]
W = "get_weather"
T = "get_time"
PARIS = {"city": "Paris"}
TZ = {"timezone": "Europe/Paris"}

# (id, text, expected calls as (name, arguments), expected content)
CASES: list[tuple[str, str, list[tuple[str, dict[str, Any]]], str]] = [
    # Seed convention: fenced tool_call blocks.
    (
        "fence",
        '```tool_call\n{"name": "search_my_content", "arguments": {"query": "dogs"}}\n```',
        [("search_my_content", {"query": "dogs"})],
        "",
    ),
    (
        "fence-two-blocks-with-prose",
        'Let me look.\n```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '```\n```tool_call\n{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n```',
        [(W, PARIS), (T, TZ)],
        "Let me look.",
    ),
    (
        "fence-array",
        '```tool_call\n[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]\n```',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "fence-json-lines",
        '```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n```',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "fence-python-call",
        '```tool_call\nsearch_my_content(query="dogs")\n```',
        [("search_my_content", {"query": "dogs"})],
        "",
    ),
    (
        "fence-json-language",
        '```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```',
        [(W, PARIS)],
        "",
    ),
    (
        "fence-inline-opener",
        'Sure! ```tool_call\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\nDone.',
        [(W, PARIS)],
        "Sure! \nDone.",
    ),
    (
        "seed-python-call",
        'search_my_content(query="dogs")',
        [("search_my_content", {"query": "dogs"})],
        "",
    ),
    (
        "seed-python-calls-per-line",
        'get_weather(city="Paris")\nget_time(timezone="Europe/Paris")',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    # Hermes / Qwen and the wrappers they drift to.
    (
        "hermes",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>',
        [(W, PARIS)],
        "",
    ),
    (
        "hermes-two",
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>\n'
        '<tool_call>\n{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n</tool_call>',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "hermes-function-call-tag",
        '<function_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</function_call>',
        [(W, PARIS)],
        "",
    ),
    (
        "hermes-in-json-fence",
        '```json\n<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>\n```',
        [(W, PARIS)],
        "",
    ),
    (
        "hermes-json-fence-inside",
        '<tool_call>\n```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```\n'
        "</tool_call>",
        [(W, PARIS)],
        "",
    ),
    (
        "hermes-wrong-tag-tools",
        '<tools>{"name": "get_weather", "arguments": {"city": "Paris"}}</tools>',
        [(W, PARIS)],
        "",
    ),
    (
        "functionary-v31",
        '<function=get_weather>{"city": "Paris"}</function><function=get_time>'
        '{"timezone": "Europe/Paris"}</function>',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "function-name-attribute",
        '<function name="get_weather">{"city": "Paris"}</function>',
        [(W, PARIS)],
        "",
    ),
    (
        "granite-4-string-arguments",
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}</tool_call>',
        [(W, PARIS)],
        "",
    ),
    (
        "openai-shaped",
        '<tool_call>{"type": "function", "function": {"name": "get_weather", '
        '"arguments": "{\\"city\\": \\"Paris\\"}"}}</tool_call>',
        [(W, PARIS)],
        "",
    ),
    # Llama 3.x JSON, built-in tools, Llama 4.
    ("llama3-bare", '{"name": "get_weather", "parameters": {"city": "Paris"}}', [(W, PARIS)], ""),
    (
        "llama3-semicolons",
        '{"name": "get_weather", "parameters": {"city": "Paris"}}; '
        '{"name": "get_time", "parameters": {"timezone": "Europe/Paris"}}',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "llama3-python-tag",
        '<|python_tag|>{"name": "get_weather", "parameters": {"city": "Paris"}}<|eom_id|>',
        [(W, PARIS)],
        "",
    ),
    (
        "llama31-builtin",
        '<|python_tag|>brave_search.call(query="current weather in Menlo Park")<|eom_id|>',
        [("brave_search", {"query": "current weather in Menlo Park"})],
        "",
    ),
    (
        "llama4-python-start",
        '<|python_start|>[get_weather(city="Boston"), get_time(timezone="America/New_York")]'
        "<|python_end|>",
        [(W, {"city": "Boston"}), (T, {"timezone": "America/New_York"})],
        "",
    ),
    # Pythonic family.
    (
        "pythonic-list",
        "[get_weather(city='San Francisco', metric='celsius'), "
        "get_weather(city='Seattle', metric='celsius')]",
        [
            (W, {"city": "San Francisco", "metric": "celsius"}),
            (W, {"city": "Seattle", "metric": "celsius"}),
        ],
        "",
    ),
    (
        "pythonic-literals",
        "[get_weather(city='Paris', days=3, hourly=True, units=None, spots=['a', 'b'])]",
        [(W, {"city": "Paris", "days": 3, "hourly": True, "units": None, "spots": ["a", "b"]})],
        "",
    ),
    (
        "lfm2",
        '<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>'
        '<|tool_call_start|>[get_weather(location="London")]<|tool_call_end|>',
        [(W, {"location": "Paris"}), (W, {"location": "London"})],
        "",
    ),
    (
        "olmo3",
        '<function_calls>get_weather(location="San Francisco")\n'
        'get_weather(location="New York")</function_calls>',
        [(W, {"location": "San Francisco"}), (W, {"location": "New York"})],
        "",
    ),
    (
        "smollm3-code",
        '<code>get_weather(city="Copenhagen")</code>',
        [(W, {"city": "Copenhagen"})],
        "",
    ),
    (
        "gemma3-tool-code",
        '```tool_code\nget_weather(city="London")\n```',
        [(W, {"city": "London"})],
        "",
    ),
    (
        "gemma3-tool-code-printed",
        '```tool_code\nprint(default_api.get_weather(city="London"))\n```',
        [(W, {"city": "London"})],
        "",
    ),
    # Mistral, both generations.
    (
        "mistral-pre-v11",
        '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "Paris"}}]',
        [(W, PARIS)],
        "",
    ),
    (
        "mistral-pre-v11-ids",
        '[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "a1B2c3D4e"}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}, "id": "Zz9Yy8Xx7"}]',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "mistral-v11",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_time[ARGS]'
        '{"timezone": "Europe/Paris"}',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    ("mistral-v11-no-args-token", '[TOOL_CALLS]get_weather{"city": "Paris"}', [(W, PARIS)], ""),
    (
        "mistral-v11-call-id",
        '[TOOL_CALLS]get_weather[CALL_ID]a1B2c3D4e[ARGS]{"city": "Paris"}',
        [(W, PARIS)],
        "",
    ),
    (
        "mistral-trailing-prose",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"} Estimating the weather...',
        [(W, PARIS)],
        "Estimating the weather...",
    ),
    # Granite, InternLM, Jamba, MiniMax-M1, xLAM, Phi-4, Command-R7B, SmolLM2.
    (
        "granite-30",
        '<|tool_call|>[{"name": "get_weather", "arguments": {"city": "Boston"}}]',
        [(W, {"city": "Boston"})],
        "",
    ),
    (
        "granite-31-no-closer",
        '<tool_call>[{"name": "get_weather", "arguments": {"city": "Boston"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]',
        [(W, {"city": "Boston"}), (T, TZ)],
        "",
    ),
    (
        "granite-20b-fc",
        '<function_call> {"name": "get_weather", "arguments": {"city": "Boston"}} '
        '<function_call> {"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}',
        [(W, {"city": "Boston"}), (T, TZ)],
        "",
    ),
    (
        "internlm",
        '<|action_start|><|plugin|>\n{"name": "get_weather", "parameters": {"city": "Shanghai"}}'
        "<|action_end|>",
        [(W, {"city": "Shanghai"})],
        "",
    ),
    (
        "jamba",
        '<tool_calls>[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]</tool_calls>',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "minimax-m1-lines",
        '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n'
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n</tool_calls>',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "xlam",
        '[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "phi4-functools",
        'functools[{"name": "get_weather", "arguments": {"city": "Paris"}}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}]',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "command-r7b",
        "<|START_THINKING|>I should check.<|END_THINKING|><|START_ACTION|>["
        '{"tool_call_id": "0", "tool_name": "get_weather", "parameters": {"city": "Paris"}}, '
        '{"tool_call_id": "1", "tool_name": "get_time", "parameters": {"timezone": "Europe/Paris"}}'
        "]<|END_ACTION|>",
        [(W, PARIS), (T, TZ)],
        "",
    ),
    (
        "smollm2",
        '<tool_call>[\n{"name": "get_weather", "arguments": {"city": "Paris"}},\n'
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}}\n]</tool_call>',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    ("smollm2-no-call", "<tool_call>[]</tool_call>", [], ""),
    # Functionary v3.2.
    (
        "functionary-v32",
        'get_weather\n{"city": "Paris"}\n>>>get_time\n{"timezone": "Europe/Paris"}',
        [(W, PARIS), (T, TZ)],
        "",
    ),
    # XML-style: Qwen3-Coder, Seed-OSS, GLM, MiniMax-M2.
    (
        "qwen3-coder",
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n"
        "</function>\n</tool_call>",
        [(W, PARIS)],
        "",
    ),
    (
        "qwen35-bare-function",
        "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>",
        [(W, PARIS)],
        "",
    ),
    (
        "seed-oss",
        "<seed:tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>"
        "\n</seed:tool_call>",
        [(W, PARIS)],
        "",
    ),
    (
        "glm45",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Beijing</arg_value>\n"
        "</tool_call>",
        [(W, {"city": "Beijing"})],
        "",
    ),
    (
        "glm47",
        "<tool_call>get_weather<arg_key>city</arg_key><arg_value>Beijing</arg_value></tool_call>",
        [(W, {"city": "Beijing"})],
        "",
    ),
    ("glm-no-arguments", "<tool_call>get_time</tool_call>", [(T, {})], ""),
    (
        "minimax-m2",
        '<minimax:tool_call>\n<invoke name="get_weather">\n<parameter name="city">Paris</parameter>'
        '\n</invoke>\n<invoke name="get_time">\n<parameter name="timezone">Europe/Paris</parameter>'
        "\n</invoke>\n</minimax:tool_call>",
        [(W, PARIS), (T, TZ)],
        "",
    ),
    # Special-token framing: DeepSeek, Kimi, Harmony, FunctionGemma, Gemma-4.
    (
        "deepseek-v3",
        f"{ds('tool calls begin')}{ds('tool call begin')}function{ds('tool sep')}get_weather\n"
        f'```json\n{{"city": "Tokyo"}}\n```{ds("tool call end")}{ds("tool calls end")}',
        [(W, {"city": "Tokyo"})],
        "",
    ),
    (
        "deepseek-v31",
        f'{ds("tool calls begin")}{ds("tool call begin")}get_weather{ds("tool sep")}{{"city":"Paris"}}'
        f"{ds('tool call end')}{ds('tool call begin')}get_weather{ds('tool sep')}"
        f'{{"city":"London"}}{ds("tool call end")}{ds("tool calls end")}',
        [(W, PARIS), (W, {"city": "London"})],
        "",
    ),
    (
        "deepseek-r1-distill-spelling",
        "<\uff5ctool_calls_begin\uff5c><\uff5ctool_call_begin\uff5c>function<\uff5ctool_sep\uff5c>"
        'get_weather\n```json\n{"city": "Tokyo"}\n```<\uff5ctool_call_end\uff5c>'
        "<\uff5ctool_calls_end\uff5c>",
        [(W, {"city": "Tokyo"})],
        "",
    ),
    (
        "kimi-k2",
        "<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0"
        '<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_call_begin|>'
        'functions.get_time:1<|tool_call_argument_begin|>{"timezone": "Asia/Shanghai"}'
        "<|tool_call_end|><|tool_calls_section_end|>",
        [(W, {"city": "Beijing"}), (T, {"timezone": "Asia/Shanghai"})],
        "",
    ),
    (
        "gpt-oss-harmony",
        "<|channel|>analysis<|message|>User wants weather.<|end|><|start|>assistant<|channel|>"
        'commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Paris"}<|call|>',
        [(W, PARIS)],
        "",
    ),
    (
        "gpt-oss-recipient-first",
        "<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>"
        '{"city":"Paris"}<|call|>',
        [(W, PARIS)],
        "",
    ),
    (
        "gpt-oss-final",
        "<|channel|>analysis<|message|>Easy.<|end|><|start|>assistant<|channel|>final<|message|>"
        "It is sunny.<|return|>",
        [],
        "It is sunny.",
    ),
    (
        "functiongemma",
        "<start_function_call>call:get_weather{location:<escape>London<escape>}<end_function_call>",
        [(W, {"location": "London"})],
        "",
    ),
    (
        "gemma4",
        '<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,units:<|"|>metric<|"|>,days:3,'
        "hourly:true,area:{lat:1.5},spots:[1,2]}<tool_call|>",
        [
            (
                W,
                {
                    "location": "Paris",
                    "units": "metric",
                    "days": 3,
                    "hourly": True,
                    "area": {"lat": 1.5},
                    "spots": [1, 2],
                },
            )
        ],
        "",
    ),
    # llama.cpp's grammar-forced generic format.
    (
        "llamacpp-generic",
        '{"tool_call": {"name": "get_weather", "arguments": {"city": "Paris"}}}',
        [(W, PARIS)],
        "",
    ),
    (
        "llamacpp-generic-parallel",
        '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}, "id": "call_1"}, '
        '{"name": "get_time", "arguments": {"timezone": "Europe/Paris"}, "id": "call_2"}]}',
        [(W, PARIS), (T, TZ)],
        "",
    ),
]


@pytest.mark.parametrize(
    ("text", "expected", "content"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_format(text: str, expected: list[tuple[str, dict[str, Any]]], content: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert [(call.name, call.arguments) for call in result.calls] == expected
    assert result.content == content
    assert result.invalid == []
