"""Parts of the local adapter that need no model: call formats, stop strings, templates, the
call gate's arithmetic."""

from __future__ import annotations

import dataclasses
import json
import math
import re
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolwire import UsageError
from toolwire.events import (
    CallCorrected,
    ModelEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
)
from toolwire.messages import Message, TextPart, ToolCall, ToolResult
from toolwire.models.local import LocalModel
from toolwire.models.local._calls import default_scanner
from toolwire.models.local._engine import (
    _LONGEST_RUN,
    LOOP_REPEATS,
    Contrast,
    Engine,
    EngineFinish,
    Gate,
    Generation,
    GenerationRequest,
    _looping,
    _StopMatcher,
)
from toolwire.models.local._formats import HERMES, PROMPTED, call_key, detect_format
from toolwire.models.local._grounding import Grounding
from toolwire.models.local._records import RecordsNamed
from toolwire.models.local._relevance import RELEVANCE_MAX_TOKENS, request_contrast
from toolwire.models.local._reply import Plan, Reply, Steering, _other_record_why
from toolwire.models.local._sampling import ValueTokens
from toolwire.models.local._template import ChatTemplate, template_messages
from toolwire.textcalls import ModelEventReader
from toolwire.tools import ToolDefinition


@pytest.mark.parametrize(
    ("text", "verdict"),
    [
        ("", None),
        ("  \n", None),
        ("<tool", None),
        ("<tool_call>", True),
        ("{", True),
        ("[", None),
        ('[{"name"', True),
        ("`", None),
        ("```", None),
        ("```js", None),
        ("```json\n{", True),
        ("```tool_call\n{", True),
        ("```python", False),
        ("The answer", False),
        ("<b>", False),
    ],
)
def test_how_a_reply_opens(text: str, verdict: bool | None) -> None:
    assert HERMES.opens_call(text) is verdict


def test_call_text_and_detection() -> None:
    assert HERMES.call_text("f") == ('<tool_call>\n{"name": "f", "arguments": ', "}\n</tool_call>")
    assert PROMPTED.call_text("g")[0].startswith("```tool_call\n")
    assert detect_format("... <tool_call> ...") is HERMES
    assert detect_format("{{ messages }}").profile is None
    assert (
        PROMPTED.may_open_call("``")
        and PROMPTED.may_open_call(" {")
        and not PROMPTED.may_open_call("Hi")
    )


def feed_all(stops: list[str], chunks: list[str]) -> tuple[str, bool]:
    matcher = _StopMatcher(stops)
    out = []
    for chunk in chunks:
        text, hit = matcher.feed(chunk)
        out.append(text)
        if hit:
            return "".join(out), True
    return "".join(out) + matcher.flush(""), False


def test_stop_strings_cut_the_output_and_never_leak_a_prefix() -> None:
    assert feed_all(["STOP"], ["abc S", "TO", "P more"]) == ("abc ", True)
    assert feed_all(["STOP"], ["abc ST", "ART"]) == ("abc START", False)
    assert feed_all([], ["a", "b"]) == ("ab", False)


@given(
    st.lists(st.text(alphabet="abS", max_size=6), max_size=8), st.sampled_from(["S", "ab", "bSa"])
)
def test_stop_strings_any_chunking(chunks: list[str], stop: str) -> None:
    text = "".join(chunks)
    out, hit = feed_all([stop], chunks)
    if stop in text:
        assert hit and out == text[: text.index(stop)]
    else:
        assert not hit and out == text


def test_templates_run_sandboxed() -> None:
    with pytest.raises(UsageError, match="failed"):
        ChatTemplate("{{ ''.__class__.__mro__[1].__subclasses__() }}").render([])
    with pytest.raises(UsageError, match="refused the conversation: no system"):
        ChatTemplate("{{ raise_exception('no system') }}").render([])
    with pytest.raises(UsageError, match="does not compile"):
        ChatTemplate("{% for %}")


SYSTEM_OR_DEFAULT = (
    "{% if messages[0].role != 'system' %}<system>You are a helpful assistant.</system>{% endif %}"
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}</{{ m.role }}>{% endfor %}"
)


@pytest.mark.parametrize(
    ("source", "default"),
    [
        (SYSTEM_OR_DEFAULT, "You are a helpful assistant."),
        # No default; a system message folded into the first user turn; one that is refused.
        ("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}", ""),
        (
            "{% for m in messages %}{% if m.role == 'system' %}{% set s = m.content %}"
            "{% else %}[INST] {{ s ~ ' ' if s }}{{ m.content }} [/INST]{% endif %}{% endfor %}",
            "",
        ),
        ("{% if messages[0].role == 'system' %}{{ raise_exception('no system') }}{% endif %}", ""),
    ],
)
def test_the_system_message_a_template_writes_when_there_is_none(source: str, default: str) -> None:
    assert ChatTemplate(source).default_system() == default


def test_tojson_keeps_text_and_order_as_hugging_face_does() -> None:
    template = ChatTemplate(
        "{% set value = {'z': 'é<', 'a': 1} %}{{ value | tojson }}|{{ value | tojson(indent=1) }}"
    )
    assert template.render([]) == '{"z": "é<", "a": 1}|{\n "z": "é<",\n "a": 1\n}'


def test_messages_for_templates() -> None:
    call = ToolCall(id="c1", name="f", arguments={"x": 1}, raw_arguments='{"x": 1}')
    messages = template_messages(
        [
            Message.system("s"),
            Message.user("u"),
            Message(role="assistant", parts=(TextPart(text="let me see"), call)),
            Message(role="tool", parts=(ToolResult(call_id="c1", name="f", content="2"),)),
        ]
    )
    assert messages[2] == {
        "role": "assistant",
        "content": "let me see",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "f", "arguments": {"x": 1}}}
        ],
    }
    assert messages[3] == {"role": "tool", "tool_call_id": "c1", "name": "f", "content": "2"}


def test_whole_calls_are_cut_where_the_grammar_ends_them() -> None:
    call = '<tool_call>\n{"name": "f", "arguments": {"x": 1, "y": "}"}}\n</tool_call>'
    again = '\n<tool_call>\n{"name": "f", "arguments": {"y": "}", "x": 1}}\n</tool_call>'
    text = call + again
    for cut in range(len(call)):
        assert HERMES.whole_call(text[:cut], 0, first=True) is None
    end, written = HERMES.whole_call(text, 0, first=True) or (0, {})
    assert (end, written) == (len(call), {"name": "f", "arguments": {"x": 1, "y": "}"}})
    assert HERMES.whole_call(text, end, first=False) == (len(text), written)  # any order
    assert HERMES.whole_call(text, end, first=True) is None  # a later call needs its separator
    assert HERMES.write("f", {"x": 1, "y": "}"}, first=True) == call
    assert HERMES.write("f", {"y": "}", "x": 1}, first=False) == again
    assert call_key("f", {"x": 1, "y": "}"}) == call_key("f", {"y": "}", "x": 1})
    assert call_key("f", {"x": [100, {"y": 2}]}) == call_key("f", {"x": [100.0, {"y": 2.0}]})
    assert call_key("f", {"x": 1}) != call_key("f", {"x": 1.5})
    assert call_key("f", {"x": 1}) != call_key("f", {"x": True})


def test_the_call_gate_adds_the_requests_evidence_to_the_models_log_odds() -> None:
    alone = Gate((1, 2), threshold=0.75)
    assert alone.opens(0.75, None) and not alone.opens(0.7, None)
    weighed = Gate((1, 2), threshold=0.75, contrast=CONTRAST, weight=0.2, neutral=15.0)
    assert weighed.opens(0.7, None) is alone.opens(0.7, None)  # no evidence: as alone
    assert weighed.opens(0.7, 15.0) is alone.opens(0.7, None)  # neutral evidence: the same
    # log-odds 0.85 + 0.2 * 2 >= 1.10; 1.39 - 0.2 * 3 < 1.10
    assert weighed.opens(0.7, 17.0) and not weighed.opens(0.8, 12.0)
    assert weighed.opens(0.05, 40.0) and not weighed.opens(0.99, -20.0)
    assert weighed.opens(0.0, 1e9) and not weighed.opens(1.0, -1e9)  # finite at the ends
    never = Gate((1, 2), threshold=math.inf, contrast=CONTRAST, weight=0.2, neutral=15.0)
    assert not never.opens(1.0, 1e9)


CONTRAST = Contrast(span=(1, 2), baseline=(0, 5), baseline_span=(1, 2))


def characters(text: str) -> list[int]:
    return [ord(c) for c in text]


def words(text: str) -> list[int]:
    return [zlib.crc32(piece.encode()) for piece in re.findall(r"\w+|\W", text)]


def test_the_contrast_scores_the_last_user_request_in_both_prompts() -> None:
    ask = Message.user("Convert 3 km")
    prompt = "<sys>tools: convert_units</sys><user>Convert 3 km</user><assistant>"
    baseline = "<sys>helpful</sys><user>Convert 3 km</user><assistant>"
    contrast = request_contrast((ask,), prompt, characters(prompt), lambda: baseline, characters)
    assert contrast is not None
    start, end = contrast.span
    assert prompt[start:end] == "Convert 3 km"
    assert contrast.baseline == tuple(characters(baseline))
    assert baseline[slice(*contrast.baseline_span)] == "Convert 3 km"


def test_the_contrast_caps_a_long_request() -> None:
    ask = Message.user("x" * 1000)
    prompt = f"<user>{ask.text}</user>"
    contrast = request_contrast((ask,), prompt, characters(prompt), lambda: prompt, characters)
    assert contrast is not None
    assert contrast.span == (6, 6 + RELEVANCE_MAX_TOKENS) == contrast.baseline_span


def unrendered() -> str:
    raise AssertionError("the prompt without the tools is rendered only for a request to score")


def test_no_contrast_where_there_is_no_request_to_score() -> None:
    result = Message(role="tool", parts=(ToolResult(call_id="c1", name="t", content="3"),))
    prompt = "<user>Convert 3 km</user><tool>3</tool>"
    for messages in ((), (Message.user("Convert 3 km"), result), (Message.user("  "),)):
        contrast = request_contrast(messages, prompt, characters(prompt), unrendered, characters)
        assert contrast is None
    # The request's first word merges with the template's text before it: no token boundary.
    ask = Message.user("Convert 3 km")
    glued = "<user>xConvert 3 km</user>"
    assert request_contrast((ask,), glued, words(glued), unrendered, words) is None
    # The prompt's tokens are not what tokenizing its text gives.
    prompt = "<user>Convert 3 km</user>"
    tokens = [0, *characters(prompt)]
    assert request_contrast((ask,), prompt, tokens, unrendered, characters) is None


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("call_threshold", 1.5, "call_threshold is a probability"),
        ("after_results_threshold", -0.5, "after_results_threshold is a probability"),
        ("relevance_weight", -0.1, "relevance_weight is 0"),
        ("relevance_weight", math.inf, "relevance_weight is 0"),
        ("relevance_weight", math.nan, "relevance_weight is 0"),
    ],
)
def test_gate_options_out_of_range_are_refused(option: str, value: float, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        LocalModel(lambda: Path("unused.gguf"), **{option: value})


def test_value_tokens_are_classed_by_how_their_text_begins_and_ends() -> None:
    texts = ["", ",", "}\n", "]]", '"', '",', "15", " 2", "a1", ".", "x", ".5", " ."]
    tokens = ValueTokens.of(texts)
    assert tokens.enders == (1, 2, 3)
    assert tokens.points == (9, 11)
    assert tokens.quotes == (4, 5)
    assert tokens.digit_final == {6, 7, 8, 11}


def test_a_stretch_written_over_and_over_is_a_loop() -> None:
    assert _looping("[" + "0, " * LOOP_REPEATS)
    assert not _looping("[" + "0, " * (LOOP_REPEATS - 1))
    four = '"Breakfast", "Gym", "Wi-Fi", "Parking", '
    assert _looping('{"amenities": [' + four * LOOP_REPEATS)
    assert not _looping(four * (LOOP_REPEATS - 1) + '"Breakfast", "Gym"')
    # A run of one character is a number, a rule or padding, unless it runs on past them all.
    assert not _looping('{"address": "0x' + "0" * 40)
    assert not _looping("-" * 200)
    assert not _looping('{"expression": "5570 * 11.5 / 1' + "0" * (_LONGEST_RUN - 1))
    assert _looping('{"expression": "5570 * 11.5 / 1' + "0" * _LONGEST_RUN)


@given(st.text(min_size=2, max_size=8), st.integers(0, 3 * LOOP_REPEATS))
def test_only_a_stretch_written_loop_repeats_times_or_more_is_a_loop(
    stretch: str, times: int
) -> None:
    text = "{" + stretch * times
    if len(set(stretch)) > 1 and not _looping("{" + stretch * (LOOP_REPEATS - 1)):
        assert _looping(text) is (times >= LOOP_REPEATS)


class _ScriptedEngine:
    """Answers each generation with the next of `replies`, as its text and finish."""

    def __init__(self, *replies: tuple[str, EngineFinish]) -> None:
        self.replies = list(replies)
        self.asked: list[GenerationRequest] = []

    def generate(
        self, request: GenerationRequest, emit: Callable[[str], None], _: Callable[[], bool]
    ) -> Generation:
        self.asked.append(request)
        text, finish = self.replies.pop(0)
        emit(text)
        return Generation(
            text=text, prompt_tokens=1, cached_tokens=0, output_tokens=len(text), finish=finish
        )


STEERING = Steering(
    call_openers=(), call_threshold=None, answer_openers_banned=(), prose_only=(),
    another_call_threshold=0.001,
)  # fmt: skip


def _scripted_reply(
    plan: Plan,
    *replies: tuple[str, EngineFinish],
    ask_prompt: Callable[[str, str], tuple[Sequence[int], str]] | None = None,
) -> tuple[str, str]:
    """The text and finish reason of a reply whose generations are `replies`."""
    engine = _ScriptedEngine(*replies)
    request = GenerationRequest(tokens=[1], max_tokens=512)
    reply = Reply(
        cast(Engine, engine), HERMES, plan, request, None, STEERING, ask_prompt=ask_prompt
    )
    events = reply.events()

    async def collect() -> tuple[str, str]:
        texts, finish = [], ""
        async for event in events:
            if isinstance(event, TextDelta):
                texts.append(event.text)
            elif isinstance(event, ResponseCompleted):
                finish = event.finish_reason
        return "".join(texts), finish

    return anyio.run(collect)


def test_a_call_the_model_loops_in_is_dropped() -> None:
    whole = HERMES.write("hotel_find", {"location": "Paris"}, first=True)
    looping = '\n<tool_call>\n{"name": "hotel_find", "arguments": {"amenities": [' + (
        '"Gym", "Spa", ' * LOOP_REPEATS
    )
    forced, decide = (Plan(mode, grammar="root ::= call") for mode in ("forced", "decide"))
    # The calls before it stand, and the reply ends there, not at the token limit.
    assert _scripted_reply(forced, (whole + looping, "looping")) == (whole, "stop")
    # Left with no call, a reply the model chose to open with a call is written as text.
    assert _scripted_reply(
        decide, ("<tool_call>", "stop"), (looping.lstrip("\n"), "looping"), ("No idea.", "stop")
    ) == ("No idea.", "stop")


def test_a_call_going_on_past_the_request_is_dropped_while_the_model_writes_on() -> None:
    beliefs = ToolDefinition(
        name="core_beliefs",
        description="The core beliefs of a religion.",
        parameters={
            "type": "object",
            "properties": {"religion": {"type": "string"}},
            "required": ["religion"],
        },
    )
    asked = [Message.user("The core beliefs of Buddhism and of Hinduism, please.")]
    calls = [
        HERMES.write(beliefs.name, {"religion": religion}, first=not at)
        for at, religion in enumerate(["Buddhism", "Judaism", "Hinduism"])
    ]
    grounded = Plan("forced", grammar="root ::= call", grounding=Grounding.of(asked, [beliefs]))
    assert _scripted_reply(grounded, ("".join(calls), "stop")) == (calls[0] + calls[2], "stop")
    # Without grounding, every call the model writes goes on.
    ungrounded = Plan("forced", grammar="root ::= call")
    assert _scripted_reply(ungrounded, ("".join(calls), "stop")) == ("".join(calls), "stop")


def test_every_change_to_a_call_is_an_event_with_what_the_model_wrote() -> None:
    asked = [Message.user("The core beliefs of Buddhism and of Hinduism, please.")]
    beliefs = ToolDefinition(
        name="core_beliefs",
        description="The core beliefs of a religion.",
        parameters={
            "type": "object",
            "properties": {
                "religion": {"type": "string"},
                "depth": {"type": "string", "enum": ["short", "long"]},
            },
            "required": ["religion"],
        },
    )
    written = [
        {"religion": "Buddhism", "depth": "long"},  # an option nobody mentioned
        {"religion": "Judaism"},  # past what the request asks
        {"religion": "Hinduism"},
    ]
    text = "".join(
        HERMES.write(beliefs.name, arguments, first=not at) for at, arguments in enumerate(written)
    )
    plan = Plan("forced", grammar="root ::= call", grounding=Grounding.of(asked, [beliefs]))
    reader = ModelEventReader(default_scanner([beliefs], "hermes"))
    engine = cast(Engine, _ScriptedEngine((text, "stop")))
    request = GenerationRequest(tokens=[1], max_tokens=512)

    async def collect() -> list[ModelEvent]:
        reply = Reply(engine, HERMES, plan, request, reader, STEERING)
        return [event async for event in reply.events()]

    events = anyio.run(collect)
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [e.index for e in started] == [0, 1]
    assert [e for e in events if isinstance(e, CallCorrected)] == [
        CallCorrected(
            name="core_beliefs",
            written=written[0],
            index=0,
            changes=(
                "depth='long' left out: the conversation never gave it, so the tool's default "
                "applies",
            ),
        ),
        CallCorrected(
            name="core_beliefs",
            written=written[1],
            index=None,
            changes=("dropped: it goes on past what the conversation asks",),
        ),
    ]


def _taking_one(name: str, description: str, parameter: str, documented: str) -> ToolDefinition:
    """A tool taking one required string, `parameter`, described as `documented`."""
    return ToolDefinition(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {parameter: {"type": "string", "description": documented}},
            "required": [parameter],
        },
    )


def test_a_call_copying_the_tools_documented_identifier_is_dropped_and_reported() -> None:
    refund = _taking_one(
        "refund_order", "Refund a delivered order.", "order_id", 'the id, e.g. "ORD-10517"'
    )
    asked = [Message.user("I want to refund an order")]
    copied = HERMES.write(refund.name, {"order_id": "ORD-10517"}, first=True)
    plan = Plan("decide", grammar="root ::= call", grounding=Grounding.of(asked, [refund]))
    replies = [("<tool_call>", "stop"), (copied, "stop"), ("Which order?", "stop")]
    # Left with no call, the reply is written as text.
    assert _scripted_reply(plan, *replies) == ("Which order?", "stop")
    engine = cast(Engine, _ScriptedEngine(*replies))
    request = GenerationRequest(tokens=[1], max_tokens=512)

    async def corrections() -> list[ModelEvent]:
        reply = Reply(engine, HERMES, plan, request, None, STEERING)
        return [event async for event in reply.events() if isinstance(event, CallCorrected)]

    assert anyio.run(corrections) == [
        CallCorrected(
            name="refund_order",
            written={"order_id": "ORD-10517"},
            index=None,
            changes=(
                "dropped: 'ORD-10517' copies the tools' documented example, not the user's value",
            ),
        )
    ]


def test_a_call_passing_another_record_than_the_one_named_is_written_again_held_to_it() -> None:
    read = _taking_one("read_email", "The text of one email.", "email_id", "the message's id")
    listed = '[{"id": "msg_301", "from": "Dana"}, {"id": "msg_304", "from": "Jonas Berg"}]'
    found = ToolResult(call_id="c1", name="search_emails", content=listed)
    conversation = [
        Message(role="assistant", parts=(ToolCall(id="c1", name="search_emails", arguments={}),)),
        Message(role="tool", parts=(found,)),
        Message.user("open the one from Jonas"),
    ]
    plan = Plan(
        "decide",
        grammar="root ::= call",
        grounding=Grounding.of(conversation, [read]),
        tools=(read,),
    )
    first, again = (
        HERMES.write(read.name, {"email_id": found}, first=True) for found in ("msg_301", "msg_304")
    )
    engine = _ScriptedEngine(("<tool_call>", "stop"), (first, "stop"), (again, "stop"))
    held: list[Sequence[ToolDefinition]] = []

    def grammar_of(tools: Sequence[ToolDefinition]) -> str:
        held.append(tools)
        return "root ::= held"

    async def collect() -> list[ModelEvent]:
        reply = Reply(
            cast(Engine, engine),
            HERMES,
            plan,
            GenerationRequest(tokens=[1], max_tokens=512),
            ModelEventReader(default_scanner([read], "hermes")),
            dataclasses.replace(STEERING, calls_on_trial=True),
            grammar_of=grammar_of,
        )
        return [event async for event in reply.events()]

    events = anyio.run(collect)
    assert [e for e in events if isinstance(e, CallCorrected)] == [
        CallCorrected(
            name="read_email",
            written={"email_id": "msg_301"},
            index=None,
            changes=(
                "dropped: the request names 'jonas', which the record of 'msg_301' does not "
                "hold and that of 'msg_304' does",
            ),
        )
    ]
    written = "".join(e.delta for e in events if isinstance(e, ToolCallArgumentsDelta))
    assert json.loads(written) == {"email_id": "msg_304"}
    # Written again under the grammar of the tool held to the record named.
    [[tool]] = held
    assert re.fullmatch(tool.parameters["properties"]["email_id"]["pattern"], "msg_304")
    assert engine.asked[-1].grammar == "root ::= held"


def test_a_call_passing_another_record_says_which_records_the_request_names() -> None:
    named = RecordsNamed("email_id", "msg_301", ("msg_308", "msg_304"), ("weekly", "jonas"))
    assert _other_record_why(named) == (
        "the request names 'weekly', 'jonas', which the record of 'msg_301' does not hold and "
        "those of 'msg_308', 'msg_304' do"
    )


def test_a_question_for_a_missing_value_opens_as_its_prompt_says() -> None:
    refund = _taking_one("refund_order", "Refund a delivered order.", "order_id", "the order's id")
    asked = [Message.user("I want to refund an order")]
    made_up = HERMES.write(refund.name, {"order_id": "ORD-555"}, first=True)
    plan = Plan("decide", grammar="root ::= call", grounding=Grounding.of(asked, [refund]))
    prompts: list[tuple[str, str]] = []

    def ask_prompt(tool: str, parameter: str) -> tuple[list[int], str]:
        prompts.append((tool, parameter))
        return [7, 8], "Which order"

    replies = [("<tool_call>", "stop"), (made_up, "stop"), (" do you want to refund?", "stop")]
    reply = _scripted_reply(plan, *replies, ask_prompt=ask_prompt)
    assert reply == ("Which order do you want to refund?", "stop")
    assert prompts == [("refund_order", "order_id")]


def test_a_call_behind_prose_is_checked_for_copied_identifiers_too() -> None:
    cancel = _taking_one("cancel_event", "Cancel an event.", "event_id", 'e.g. "evt_204"')
    asked = [Message.user("cancel the dentist on thursday")]
    plan = Plan("decide", grammar="root ::= call", grounding=Grounding.of(asked, [cancel]))

    def calls(*event_ids: str) -> str:
        return "".join(HERMES.write(cancel.name, {"event_id": e}, first=True) for e in event_ids)

    def reply(*generations: str) -> list[ModelEvent]:
        engine = cast(Engine, _ScriptedEngine(*((text, "stop") for text in generations)))
        reader = ModelEventReader(default_scanner([cancel], "hermes"))
        prose = ModelEventReader(default_scanner((), "hermes"))
        request = GenerationRequest(tokens=[1], max_tokens=512)

        async def collect() -> list[ModelEvent]:
            made = Reply(engine, HERMES, plan, request, reader, STEERING, prose_reader=prose)
            return [event async for event in made.events()]

        return anyio.run(collect)

    events = reply(f"To cancel it:\n{calls('evt_204', 'evt_777')}\nDone.")
    dropped = [e for e in events if isinstance(e, CallCorrected)]
    assert [(e.written, e.index) for e in dropped] == [({"event_id": "evt_204"}, None)]
    # The call that stays is numbered from 0, as if the dropped one had never been written.
    started = [e for e in events if isinstance(e, ToolCallStarted)]
    assert [(e.name, e.index) for e in started] == [("cancel_event", 0)]
    assert "To cancel it:" in "".join(e.text for e in events if isinstance(e, TextDelta))
    assert not [e for e in reply(f"Sure.\n{calls('evt_777')}") if isinstance(e, CallCorrected)]
    # Arguments no JSON reader takes (nested past any limit) are passed on for the loop to
    # report, not a failure of the reply.
    nested = '{"event_id": ' + "[" * 100_000 + "]" * 100_000 + "}"
    events = reply(
        f'Sure.\n<tool_call>\n{{"name": "cancel_event", "arguments": {nested}}}\n</tool_call>'
    )
    assert [e.name for e in events if isinstance(e, ToolCallStarted)] == ["cancel_event"]
    # A reply whose call was dropped is written again as text, whose calls are checked too;
    # with every call dropped, the reply ends as an answer.
    events = reply("<tool_call>", calls("evt_204"), f"Use this call:\n{calls('evt_204')}")
    assert len([e for e in events if isinstance(e, CallCorrected)]) == 2
    assert not [e for e in events if isinstance(e, ToolCallStarted)]
    assert [e.finish_reason for e in events if isinstance(e, ResponseCompleted)] == ["stop"]
