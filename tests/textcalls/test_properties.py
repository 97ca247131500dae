"""Properties over generated replies: the scanner never raises, streaming equals non-streaming
for any chunking, content is neither lost nor duplicated, every format reads back exactly the
call written, and a truncated reply never yields a call the whole reply does not have."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.textcalls import parse_calls

from .formats import WRITERS, XML_WRITERS, ds
from .helpers import assert_invariants, events_for, result_for

TOOLS = ["get_weather", "get_time"]
FAST = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))

# Fragments of every format's markers, so that random text meets them often.
PIECES = [
    "<tool_call>",
    "</tool_call>",
    "{",
    "}",
    "[",
    "]",
    '"name": ',
    '"arguments": ',
    ",",
    ":",
    '"get_weather"',
    "get_weather(",
    "city=",
    '"x"',
    "'y'",
    "```",
    "```tool_call\n",
    "```json\n",
    "`",
    "<think>",
    "</think>",
    "\n",
    " ",
    "[TOOL_CALLS]",
    "[ARGS]",
    "<function=get_weather>",
    "<parameter=city>",
    "</parameter>",
    "</function>",
    "<|python_tag|>",
    "functools",
    ds("tool call begin"),
    ds("tool sep"),
    ds("tool calls begin"),
    "<|tool_call_begin|>",
    "<|tool_call_argument_begin|>",
    "<|channel|>",
    "<|message|>",
    "to=functions.get_weather",
    ">>>",
    "call:",
    "<escape>",
    '<|"|>',
    "<|tool_call>",
    "True",
    "\\",
    "<arg_key>",
    "<arg_value>",
    "<code>",
    ";",
    "all\n",
    "<|start|>",
    '<invoke name="get_weather">',
    '"""',
    "\\u00e9",
]
PROFILES = st.sampled_from([None, "functionary", "qwen3.5", "deepseek-r1"])

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**9), 10**9)
    | st.text(max_size=8)
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=8,
)
keys = st.from_regex(r"[a-z_][a-z0-9_]{0,6}", fullmatch=True)
arguments = st.dictionaries(keys, json_values, max_size=3)
# XML values are raw text: no closing tags inside, no layout newlines at the ends.
xml_values = st.text(st.characters(exclude_categories=("Cs",)), max_size=12).filter(
    lambda v: (
        "</" not in v
        and "<parameter" not in v
        and "<arg_" not in v
        and not v.startswith("\n")
        and not v.endswith("\n")
    )
)
xml_arguments = st.dictionaries(keys, xml_values, max_size=3)
calls = st.one_of(
    st.tuples(st.sampled_from(sorted(WRITERS)), st.sampled_from(TOOLS), arguments),
    st.tuples(st.sampled_from(sorted(XML_WRITERS)), st.sampled_from(TOOLS), xml_arguments),
)
# Prose with no marker characters at all.
prose = st.text(st.sampled_from("abcdeXYZ 0123\n.,!?-"), max_size=12)


def write(call: tuple[str, str, dict[str, Any]]) -> str:
    form, name, args = call
    return (WRITERS.get(form) or XML_WRITERS[form])(name, args)


def chunked(text: str, sizes: list[int]) -> list[str]:
    chunks, i, k = [], 0, 0
    while i < len(text):
        chunks.append(text[i : i + sizes[k % len(sizes)]])
        i += sizes[k % len(sizes)]
        k += 1
    return chunks


noisy_replies = st.lists(
    st.one_of(calls.map(write), st.sampled_from(PIECES), st.text(max_size=4), prose), max_size=8
).map("".join)
sizes = st.lists(st.integers(1, 8), min_size=1, max_size=20)


@FAST
@given(noisy_replies, sizes, PROFILES)
def test_streaming_equals_whole_for_any_text_and_chunking(
    text: str, chunk_sizes: list[int], profile: str | None
) -> None:
    whole = parse_calls(text, TOOLS, profile=profile)
    events = events_for(chunked(text, chunk_sizes), TOOLS, profile)
    assert_invariants(events)
    assert result_for(chunked(text, chunk_sizes), TOOLS, profile) == whole
    assert result_for(list(text), TOOLS, profile) == whole


@FAST
@given(st.text(), sizes)
def test_arbitrary_unicode_never_raises(text: str, chunk_sizes: list[int]) -> None:
    events = events_for(chunked(text, chunk_sizes), TOOLS)
    assert_invariants(events)


@FAST
@given(st.lists(st.tuples(prose, calls), max_size=4), prose, sizes)
def test_content_and_calls_account_for_all_the_text(
    pieces: list[tuple[str, tuple[str, str, dict[str, Any]]]], last: str, chunk_sizes: list[int]
) -> None:
    # Marker-less formats only count at the start; here every call is behind a marker (and
    # `functools` is no marker when glued to the word before it).
    pieces = [
        (f"{text} " if call[0] == "phi4" else text, call)
        for text, call in pieces
        if call[0] != "pythonic"
    ]
    reply = "".join(text + write(call) for text, call in pieces) + last
    result = result_for(chunked(reply, chunk_sizes), TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [(c[1], c[2]) for _, c in pieces]
    assert result.content == "".join([*(text for text, _ in pieces), last]).strip(" \t\r\n")
    assert result.invalid == []


@FAST
@given(calls, st.sampled_from(["", "Let me check.\n", "\n\n"]))
def test_every_format_reads_back_the_call_written(
    call: tuple[str, str, dict[str, Any]], prefix: str
) -> None:
    if call[0] == "pythonic":  # marker-less: prose before it would make it prose
        prefix = ""
    result = parse_calls(prefix + write(call), TOOLS)
    assert [(c.name, c.arguments) for c in result.calls] == [(call[1], call[2])]
    assert result.content == prefix.strip()
    assert json.loads(result.calls[0].raw_arguments) == call[2]


@FAST
@given(st.lists(calls, min_size=1, max_size=3), st.floats(0, 1))
def test_a_truncated_reply_never_yields_a_call_the_whole_one_lacks(
    written: list[tuple[str, str, dict[str, Any]]], cut: float
) -> None:
    reply = "\n".join(write(call) for call in written)
    full = parse_calls(reply, TOOLS).calls
    truncated = parse_calls(reply[: int(len(reply) * cut)], TOOLS).calls
    assert truncated == full[: len(truncated)]
