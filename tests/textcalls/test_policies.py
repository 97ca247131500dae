"""The policies of the research notes (section 3), each checked under every chunking."""

from __future__ import annotations

import json
from typing import Any

import pytest

from toolwire.textcalls import ArgumentsDelta, CallCompleted, ContentText, Scanner, parse_calls

from .helpers import assert_same_everywhere, events_for

TOOLS: list[Any] = [
    "get_weather",
    "get_time",
    "write_file",
    {
        "name": "search_my_content",
        "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
    },
    {
        "name": "set_timer",
        "parameters": {
            "type": "object",
            "properties": {
                "minutes": {"type": "integer"},
                "label": {"type": "string"},
                "loud": {"type": "boolean"},
                "tags": {"type": "array"},
                "ratio": {"type": ["number", "null"]},
            },
        },
    },
]
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'
PARIS = ("get_weather", {"city": "Paris"})


def calls_in(text: str, profile: str | None = None) -> list[tuple[str, dict[str, Any]]]:
    result = assert_same_everywhere(text, TOOLS, profile)
    return [(call.name, call.arguments) for call in result.calls]


# --- 1. Explicit markers win, even with an unknown name ------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "launch_rocket", "arguments": {"to": "moon"}}</tool_call>',
        '```tool_call\n{"name": "launch_rocket", "arguments": {"to": "moon"}}\n```',
        '[TOOL_CALLS]launch_rocket[ARGS]{"to": "moon"}',
        "<function=launch_rocket>\n<parameter=to>\nmoon\n</parameter>\n</function>",
    ],
)
def test_explicit_markers_make_calls_of_unknown_names(text: str) -> None:
    assert calls_in(text) == [("launch_rocket", {"to": "moon"})]


def test_a_list_confirmed_by_its_first_call_keeps_unknown_names() -> None:
    assert calls_in('[get_weather(city="Paris"), fly(to="moon")]') == [
        PARIS,
        ("fly", {"to": "moon"}),
    ]


# --- 2. Marker-less calls need a known name and must start the message ---------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "Bingo", "age": 30}',
        '{"name": "Bingo", "arguments": {}}',
        'print("hello")',
        "[launch_rocket(to='moon')]",
        '{"location": "Paris"} is a dict',
        "[1] See the reference.",
        "[]",
        '{"response": "It is sunny."}',
    ],
)
def test_marker_less_text_without_a_known_tool_is_content(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.invalid, result.content) == ([], [], text)


@pytest.mark.parametrize(
    "text",
    [
        f"Here you go: {CALL}",
        'Let me check. get_weather(city="Paris")',
        "Sure!\n[get_weather(city='Paris')]",
    ],
)
def test_marker_less_calls_after_prose_are_content(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.content) == ([], text)


@pytest.mark.parametrize(
    ("text", "content"),
    [
        (
            'get_weather(city="Paris")\nI have asked for the weather.',
            "I have asked for the weather.",
        ),
        ('{"name": "get_weather", "parameters": {"city": "Paris"}}\nLet me know.', "Let me know."),
        ("[get_weather(city='Paris')] Checking now.", "Checking now."),
    ],
)
def test_a_marker_less_call_first_then_prose(text: str, content: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [PARIS]
    assert result.content == content


def test_marker_less_calls_after_reasoning_still_start_the_message() -> None:
    text = '<think>The user wants weather.</think>\n\nget_weather(city="Paris")'
    result = assert_same_everywhere(text, TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [PARIS]
    assert result.reasoning == "The user wants weather."


def test_arguments_may_come_before_the_name() -> None:
    text = '{"arguments": {"city": "Paris"}, "name": "get_weather"}'
    assert calls_in(text) == [PARIS]


# --- 3. Reasoning is never executed (switchable per model) ---------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"<think>Maybe <tool_call>{CALL}</tool_call>? No.</think>The answer is 42.",
        f"<think>Drafting: <tool_call>{CALL}</tool_call>",
        f"<think>unclosed ```tool_call\n{CALL}\n```",
        "[THINK]get_weather(city='Paris')[/THINK]The answer is 42.",
        f"<|START_THINKING|><tool_call>{CALL}</tool_call><|END_THINKING|>The answer is 42.",
        f"<|channel|>analysis<|message|><tool_call>{CALL}</tool_call><|end|>",
    ],
)
def test_calls_inside_reasoning_are_not_executed(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert result.calls == [] and result.invalid == []
    assert "tool_call" in result.reasoning or "get_weather" in result.reasoning


def test_only_the_call_after_reasoning_runs() -> None:
    text = (
        f"<think>I could call <tool_call>{CALL}</tool_call></think>\n"
        '<tool_call>{"name": "get_time", "arguments": {"timezone": "UTC"}}</tool_call>'
    )
    assert calls_in(text) == [("get_time", {"timezone": "UTC"})]


def test_a_profile_can_make_calls_in_reasoning_real() -> None:
    text = f"<think>Let me call it. <tool_call>{CALL}</tool_call></think>"
    assert calls_in(text, "qwen3.5") == [PARIS]
    assert calls_in(text) == []


def test_a_profile_can_start_the_reply_inside_reasoning() -> None:
    text = f"The user wants weather. <tool_call>{CALL}</tool_call></think>\n\nIt is sunny."
    result = assert_same_everywhere(text, TOOLS, "deepseek-r1")
    assert (result.calls, result.content) == ([], "It is sunny.")
    assert result.reasoning.startswith("The user wants weather.")


# --- 4. Inline code and non-tool fences are not calls -------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        'Use `get_weather(city="Paris")` to check the weather.',
        "Wrap each call in `<tool_call>` tags.",
        '```python\nget_weather(city="Paris")\n```',
        f"```bash\necho '<tool_call>{CALL}</tool_call>'\n```",
        f"````markdown\n```tool_call\n{CALL}\n```\n````",
        '`get_weather(city="Paris")`',
    ],
)
def test_code_is_not_a_call(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.invalid, result.content) == ([], [], text)


def test_an_explicit_marker_in_prose_that_holds_no_call_is_content() -> None:
    text = "I will wrap calls in <tool_call> tags, or [TOOL_CALLS] markers."
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.invalid, result.content) == ([], [], text)


def test_a_repl_prompt_is_not_a_functionary_call() -> None:
    text = '>>> print("hi")\nhi'
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.content) == ([], text)


# --- 5. Lenient recovery where intent is clear ---------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        f"```tool_call\n{CALL}\n",  # no closing fence at the end
        f"<tool_call>\n{CALL}\n",  # no closing tag at the end
        f"<tool_call>{CALL[:-1]}</tool_call>",  # the object's own closing brace is missing
        "<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Paris'}}</tool_call>",
        "```tool_call\n{'name': 'get_weather', 'arguments': {'city': 'Paris',},}\n```",
        '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris",},}</tool_call>',
        '<tool_call>{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}</tool_call>',
        f"<tool_call>\n```json\n{CALL}\n```\n</tool_call>",
        f"<response>{CALL}</response>",
        '<tool_call>{"name": "functions.get_weather", "arguments": {"city": "Paris"}}</tool_call>',
        "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n</function>",
        '<tool_call>{"name": "get_weather", "arguments": {city: "Paris"}}</tool_call>',
    ],
)
def test_lenient_recovery(text: str) -> None:
    assert calls_in(text) == [PARIS]


def test_a_missing_parameter_closer_is_forgiven_before_the_next_one() -> None:
    text = "<function=get_weather>\n<parameter=city>\nParis\n<parameter=unit>\nC\n</function>"
    assert calls_in(text) == [("get_weather", {"city": "Paris", "unit": "C"})]


@pytest.mark.parametrize(
    ("text", "content"),
    [
        ('<minimax:tool_call>\n<invoke name="get_w', '<minimax:tool_call>\n<invoke name="get_w'),
        (f"<|START_ACTION|>[{CALL}]<", "<"),
        ("<tool_call>" + CALL + "\nnot a call</tool_call>", "not a call"),
    ],
)
def test_text_left_in_or_after_a_block_is_content(text: str, content: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert result.content == content


@pytest.mark.parametrize(
    "text",
    [
        f"<tool_call>[{CALL}{CALL}]</tool_call>",  # glued `}{`
        f"<tool_call>{CALL}{CALL}</tool_call>",
        f"```tool_call\n[{CALL}, {CALL}]\n```",
        f"```tool_call\n{CALL}\n{CALL}\n```",
    ],
)
def test_several_calls_in_one_block(text: str) -> None:
    assert calls_in(text) == [PARIS, PARIS]


def test_python_literals_are_json_values() -> None:
    text = "```tool_call\nset_timer(minutes=5, loud=True, ratio=None, tags=('a', 'b'), label='it\\'s')\n```"
    assert calls_in(text) == [
        (
            "set_timer",
            {"minutes": 5, "loud": True, "ratio": None, "tags": ["a", "b"], "label": "it's"},
        )
    ]


def test_apostrophes_survive_python_strings() -> None:
    text = """<tool_call>{'name': 'search_my_content', 'arguments': {'query': "what's up"}}</tool_call>"""
    assert calls_in(text) == [("search_my_content", {"query": "what's up"})]


def test_an_argument_holding_the_closing_tag_is_kept_whole() -> None:
    content = 'print("</tool_call>")\n```\n'
    call = json.dumps({"name": "write_file", "arguments": {"path": "a.py", "content": content}})
    assert calls_in(f"<tool_call>{call}</tool_call>") == [
        ("write_file", {"path": "a.py", "content": content})
    ]
    xml = (
        "<tool_call>\n<function=write_file>\n<parameter=content>\n"
        f"{content}\n</parameter>\n</function>\n</tool_call>"
    )
    assert calls_in(xml) == [("write_file", {"content": content})]


# --- 6. Never heal a truncated value into a call; keep the complete calls before it -----------


@pytest.mark.parametrize(
    "text",
    [
        '```tool_call\n{"name": "get_weather", "arguments": {"city": "Par',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}',
        '<tool_call>{"name": "set_timer", "arguments": {"minutes": 1',
        '<tool_call>{"name": "set_timer", "arguments": {"loud": tr',
        "<function=get_weather>\n<parameter=city>\nPar",
        "<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n",
        "<tool_call>get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n",
        '[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"',
    ],
)
def test_a_truncated_call_is_never_a_call(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert result.calls == []
    assert [call.name for call in result.invalid] in (["get_weather"], ["set_timer"])
    assert "truncated" in result.invalid[0].reason


def test_complete_calls_before_a_truncated_one_are_kept() -> None:
    text = f'<tool_call>{CALL}</tool_call>\n<tool_call>{{"name": "get_time", "arguments": {{"tim'
    result = assert_same_everywhere(text, TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [PARIS]
    assert [c.name for c in result.invalid] == ["get_time"]
    pythonic = "[get_weather(city='Paris'), get_time(timezone='Eur"
    assert calls_in(pythonic) == [PARIS]


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "get_wea',
        '{"name": "get_weather", "arguments": {"city": "Paris"',
        "get_weather(city='Par",
        "[get_weather(city='Par",
        '```json\n{"name": "get_weather", "arguments": {"city": "Par',
    ],
)
def test_a_truncated_call_with_no_marker_is_text(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.invalid, result.content) == ([], [], text)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "get_weather", "description": "Weather.", "parameters": {}}\n```',
        '{"name": "get_weather", "parameters": {"city": "Paris"}, "description": "x"}',
        "get_weather(city) returns the weather.",
        '{"name": "get_weather", "arguments": "not json"}',
    ],
)
def test_with_no_marker_only_a_whole_well_formed_call_is_a_call(text: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert (result.calls, result.invalid, result.content) == ([], [], text)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ('<tool_call>{"name": "get_weather", "arguments": [1, 2]}</tool_call>', "not an object"),
        ('<tool_call>{"city": "Paris"}</tool_call>Done.', "no tool name"),
        ("<tool_call>{oops}</tool_call>Done.", "invalid JSON"),
        ('<tool_call>{"name": "get_weather", "arguments": "nope"}</tool_call>', "does not hold"),
        ("```tool_call\nget_weather('Paris')\n```", "positional"),
    ],
)
def test_broken_explicit_calls_are_reported_not_dropped(text: str, reason: str) -> None:
    result = assert_same_everywhere(text, TOOLS)
    assert result.calls == []
    assert len(result.invalid) == 1 and reason in result.invalid[0].reason
    assert result.content in ("", "Done.")


# --- 7. Positional Python arguments map to the schema's property order ---------------------------


def test_positional_arguments_take_their_names_from_the_schema() -> None:
    assert calls_in('search_my_content("dogs")') == [("search_my_content", {"query": "dogs"})]
    assert calls_in("set_timer(5, 'tea', loud=True)") == [
        ("set_timer", {"minutes": 5, "label": "tea", "loud": True})
    ]


# --- 8. Raw XML values stay strings unless the schema says otherwise ----------------------------


def test_xml_values_are_raw_strings_without_a_schema() -> None:
    text = (
        "<function=get_weather>\n<parameter=days>\n5\n</parameter>\n"
        "<parameter=query>\na < b && c > d &amp; e\n</parameter>\n"
        "<parameter=code>\nline 1\n\nline 3\n</parameter>\n</function>"
    )
    assert calls_in(text) == [
        (
            "get_weather",
            {"days": "5", "query": "a < b && c > d &amp; e", "code": "line 1\n\nline 3"},
        )
    ]


def test_xml_values_are_typed_by_the_schema() -> None:
    text = (
        "<tool_call>set_timer<arg_key>minutes</arg_key><arg_value>5</arg_value>"
        "<arg_key>loud</arg_key><arg_value>True</arg_value>"
        "<arg_key>tags</arg_key><arg_value>['a', 'b']</arg_value>"
        "<arg_key>ratio</arg_key><arg_value>0.5</arg_value>"
        "<arg_key>label</arg_key><arg_value>007</arg_value></tool_call>"
    )
    assert calls_in(text) == [
        (
            "set_timer",
            {"minutes": 5, "loud": True, "tags": ["a", "b"], "ratio": 0.5, "label": "007"},
        )
    ]


def test_a_value_the_schema_cannot_type_stays_a_string() -> None:
    text = "<function=set_timer>\n<parameter=minutes>\nfive\n</parameter>\n</function>"
    assert calls_in(text) == [("set_timer", {"minutes": "five"})]


# --- Streaming: held-back markers, raw argument text, incremental deltas ----------------------


def test_a_partial_marker_is_held_back_not_leaked() -> None:
    scanner = Scanner(TOOLS)
    assert scanner.feed("Checking. <tool_") == [ContentText(text="Checking.")]
    later = scanner.feed(f"call>{CALL}</tool_call>") + scanner.close()
    assert not any(isinstance(e, ContentText) for e in later)
    assert [e.name for e in later if isinstance(e, CallCompleted)] == ["get_weather"]


def test_a_held_back_prefix_that_is_no_marker_is_content_at_the_end() -> None:
    result = assert_same_everywhere("Compare a <tool", TOOLS)
    assert result.content == "Compare a <tool"


def test_argument_deltas_are_the_models_own_text() -> None:
    arguments = '{ "city" :"Paris",  "days": 3.50, "note": "caf\\u00e9 \\"x\\"" }'
    text = f'<tool_call>{{"name": "get_weather", "arguments": {arguments}}}</tool_call>'
    for chunks in ([text], list(text)):
        deltas = "".join(
            e.delta for e in events_for(chunks, TOOLS) if isinstance(e, ArgumentsDelta)
        )
        assert deltas == arguments


def test_arguments_stream_before_the_call_completes() -> None:
    content = "x" * 4000
    call = json.dumps({"name": "write_file", "arguments": {"path": "a", "content": content}})
    text = f"```tool_call\n{call}\n```"
    scanner = Scanner(TOOLS)
    seen = 0
    for start in range(0, len(text) - 100, 100):
        for event in scanner.feed(text[start : start + 100]):
            assert not isinstance(event, CallCompleted)
            if isinstance(event, ArgumentsDelta):
                seen += len(event.delta)
    assert seen > 3800


def test_a_call_with_no_marker_starts_only_once_whole() -> None:
    scanner = Scanner(TOOLS)
    assert scanner.feed('{"name": "get_weather", "arguments": {"city": "Paris"}') == []
    events = scanner.feed("}")
    assert [e.kind for e in events] == ["call_started", "arguments_delta", "call_completed"]


def test_special_tokens_that_leak_are_not_content() -> None:
    result = assert_same_everywhere("Hello!<|im_end|>", TOOLS)
    assert result.content == "Hello!"
    assert parse_calls("Bye.</s>", TOOLS).content == "Bye."


def test_functionary_all_opens_plain_text() -> None:
    result = assert_same_everywhere("all\nIt is sunny in Paris.", TOOLS, "functionary")
    assert (result.calls, result.content) == ([], "It is sunny in Paris.")
    generic = assert_same_everywhere("all\nIt is sunny.", TOOLS)
    assert generic.content == "all\nIt is sunny."
