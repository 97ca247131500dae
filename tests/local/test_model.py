from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import anyio.to_thread
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolwire import ProviderError, UsageError
from toolwire.builtin import TOOLS
from toolwire.events import (
    ModelEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallFailed,
    ToolCallStarted,
    UsageReported,
)
from toolwire.messages import Message, ToolCall, ToolResult
from toolwire.models import ModelRequest, ModelSettings, NamedToolChoice, get_model
from toolwire.models.local import LocalModel
from toolwire.models.local import _model as local_model
from toolwire.models.local._engine import (
    LOOP_REPEATS,
    Contrast,
    Gate,
    Generation,
    GenerationRequest,
    GoOn,
)
from toolwire.models.local._sampling import ValueTokens
from toolwire.tools import ToolDefinition

DEFINITIONS = tuple(t.definition for t in TOOLS)
LONG_SYSTEM = "You are a careful assistant. " + " ".join(
    f"Rule {i}: answer briefly and politely." for i in range(40)
)


def request(*messages: Message, **options: Any) -> ModelRequest:
    settings = ModelSettings(max_output_tokens=options.pop("max_output_tokens", 24))
    return ModelRequest(messages=messages, settings=settings, **options)


def collect(model: LocalModel, req: ModelRequest) -> list[ModelEvent]:
    async def run() -> list[ModelEvent]:
        return [event async for event in model.stream(req)]

    return anyio.run(run)


def text_of(events: list[ModelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def calls_of(events: list[ModelEvent]) -> list[tuple[str, dict[str, Any]]]:
    names: dict[int, str] = {}
    raw: dict[int, list[str]] = {}
    for event in events:
        if isinstance(event, ToolCallStarted):
            names[event.index] = event.name
            raw[event.index] = []
        elif isinstance(event, ToolCallArgumentsDelta):
            raw[event.index].append(event.delta)
    return [(names[i], json.loads("".join(raw[i]) or "{}")) for i in sorted(names)]


def usage_of(events: list[ModelEvent]) -> Any:
    (usage,) = [e.usage for e in events if isinstance(e, UsageReported)]
    return usage


def test_model_strings_resolve_to_local_models(smol: LocalModel) -> None:
    assert get_model("local:smollm2-135m").name == "local:smollm2-135m"
    assert get_model("local").name == "local:qwen2.5-coder-0.5b"
    path = smol.engine.path
    assert get_model(f"local:{path}").name == f"local:{path}"
    with pytest.raises(UsageError, match="no GGUF model file"):
        get_model("local:/nowhere/model.gguf")
    with pytest.raises(UsageError, match="unknown local model 'no such'"):
        get_model("local:no such")


def test_text_streams_with_usage_and_the_cache_serves_the_next_step(smol: LocalModel) -> None:
    first = request(Message.system(LONG_SYSTEM), Message.user("Say hello."))
    events = collect(smol, first)
    assert isinstance(events[-1], ResponseCompleted)
    answer = text_of(events)
    assert answer and usage_of(events).output_tokens <= 24
    follow = request(*first.messages, Message.assistant(answer), Message.user("Again, please."))
    usage = usage_of(collect(smol, follow))
    assert usage.cached_input_tokens / usage.input_tokens >= 0.9


def test_history_after_the_models_output_keeps_the_tokens_it_wrote(smol: LocalModel) -> None:
    engine = smol.engine
    prompt = engine.tokenize("<|im_start|>user\nCall it.<|im_end|>\n<|im_start|>assistant\n")
    # Written a piece at a time, as a model may write them; tokenized whole, they merge.
    wrote = [
        token for piece in ('{"a": {"b": 1', "}", "}", "\n") for token in engine.tokenize(piece)
    ]
    assert wrote != engine.tokenize('{"a": {"b": 1}}\n')
    engine._prompt, engine._written = prompt, wrote
    history = '<|im_start|>user\nCall it.<|im_end|>\n<|im_start|>assistant\n{"a": {"b": 1}}\n'
    history += "<|im_end|>\n<|im_start|>user\nAgain.<|im_end|>\n"
    tokens = engine.tokenize_after_output(history)
    assert tokens[: len(prompt) + len(wrote)] == [*prompt, *wrote]
    assert engine.llm.detokenize(tokens, special=True) == history.encode()
    # A text that does not go on from the last prompt is tokenized as it is.
    assert engine.tokenize_after_output("Hello there.") == engine.tokenize("Hello there.")


def test_the_length_limit_and_stop_strings(smol: LocalModel) -> None:
    events = collect(smol, request(Message.user("Count from 1 to 50."), max_output_tokens=5))
    assert usage_of(events).output_tokens == 5
    assert events[-1] == ResponseCompleted(finish_reason="length")
    counted = text_of(collect(smol, request(Message.user("Count from 1 to 50."))))
    stop = counted.strip()[2:4]
    settings = ModelSettings(max_output_tokens=24, stop=(stop,))
    req = ModelRequest(messages=(Message.user("Count from 1 to 50."),), settings=settings)
    cut = text_of(collect(smol, req))
    assert stop not in cut and counted.startswith(cut)


def test_cancelling_stops_generation_within_a_token(smol: LocalModel) -> None:
    engine = smol.engine

    async def run() -> int:
        stream = smol.stream(request(Message.user("Write a long story."), max_output_tokens=400))
        assert isinstance(stream, AsyncIterator)
        seen = 0
        async for event in stream:
            seen += isinstance(event, TextDelta)
            if seen == 3:
                break
        await stream.aclose()  # type: ignore[attr-defined]
        # The worker gives the engine back as soon as it sees the stop, before its next token.
        with anyio.fail_after(5):
            await anyio.to_thread.run_sync(engine._lock.acquire, abandon_on_cancel=True)
        engine._lock.release()
        return len(engine._written)

    written = anyio.run(run)
    assert written < 20
    # What it wrote past the stop depends on timing, so the cache keeps none of it.
    prompt = engine.tokenize(smol.render(request(Message.user("Write a long story."))))
    assert list(engine.llm.input_ids[: engine.llm.n_tokens]) == prompt


def test_a_prompt_longer_than_the_context_is_a_clear_error(smol: LocalModel) -> None:
    small = LocalModel(smol.engine.path, n_ctx=128)
    with pytest.raises(ProviderError, match="context window"):
        collect(small, request(Message.user("word " * 300)))


def test_prompted_mode_forced_calls_match_the_schema(smol: LocalModel) -> None:
    ask = Message.user("Convert 100 km to miles.")
    tools = {t.name: t for t in TOOLS}
    for choice in ("required", NamedToolChoice("convert_units")):
        events = collect(
            smol,
            request(
                ask,
                tools=DEFINITIONS,
                tool_choice=choice,
                parallel_tool_calls=False,
                max_output_tokens=120,
            ),
        )
        assert events[-1] == ResponseCompleted(finish_reason="tool_calls")
        ((name, arguments),) = calls_of(events)
        assert name == "convert_units"
        tools[name].validate(arguments)  # raises if the arguments break the schema
        # The unit a 135M model picks moves with the CPU's kernels ("mi" on AVX2, "m" on
        # AVX-512); the schema check above is what strict mode promises.
        assert arguments["value"] == 100


def test_the_engine_goes_on_after_a_checkpoint_only_if_the_model_would(smol: LocalModel) -> None:
    engine = smol.engine
    letters = engine.tokens_where(lambda text: text == "a")
    base = GenerationRequest(
        tokens=engine.tokenize(smol.render(request(Message.user("Write the letter a.")))),
        max_tokens=30,
        grammar='root ::= "a" "\\n" "a" "\\n" "a"',
    )

    def text(threshold: float, evidence: Callable[[str], float] | None = None) -> str:
        go_on = dataclasses.replace(base, go_on=GoOn("\n", letters, threshold, evidence))
        return engine.generate(go_on, lambda piece: None, lambda: False).text

    assert text(1.01) == "a\n"  # no probability reaches it: the output ends at the first
    assert text(0.0) == "a\na\na"
    # Evidence from the output so far moves the check: here it pushes the second one past any
    # probability, so the output goes on once and ends at the next.
    seen: list[str] = []

    def evidence(output: str) -> float:
        seen.append(output)
        return 100.0 if output == "a\n" else -100.0

    assert text(0.5, evidence) == "a\na\n"
    assert seen == ["a\n", "a\na\n"]


def test_output_the_model_would_not_go_on_to_is_kept_only_if_its_trial_passes(
    smol: LocalModel,
) -> None:
    engine = smol.engine
    letters = engine.tokens_where(lambda text: text == "a")
    base = GenerationRequest(
        tokens=engine.tokenize(smol.render(request(Message.user("Write the letter a.")))),
        max_tokens=30,
        grammar='root ::= "a" "\\n" "a" "\\n" "a"',
    )
    trials: list[tuple[str, str]] = []

    def generate(keep: Callable[[str, str], bool], max_tokens: int = 30) -> tuple[str, str, str]:
        trials.clear()

        def judged(before: str, attempt: str) -> bool:
            trials.append((before, attempt))
            return keep(before, attempt)

        on_trial = dataclasses.replace(
            base, max_tokens=max_tokens, go_on=GoOn("\n", letters, 1.01, trial=judged)
        )
        emitted: list[str] = []
        generation = engine.generate(on_trial, emitted.append, lambda: False)
        return generation.text, "".join(emitted), generation.finish

    # Each stretch is judged once whole (the last one at the end of the reply); what fails its
    # trial is never emitted, and the output ends where it began.
    assert generate(lambda before, attempt: True) == ("a\na\na", "a\na\na", "stop")
    assert trials == [("a\n", "a\n"), ("a\na\n", "a")]
    assert generate(lambda before, attempt: before == "a\n") == ("a\na\n", "a\na\n", "stop")
    assert generate(lambda before, attempt: False) == ("a\n", "a\n", "stop")
    assert trials == [("a\n", "a\n")]
    # Cut off by the token limit, a stretch on trial is unfinished: dropped without a trial, and
    # the output it leaves is whole.
    assert generate(lambda before, attempt: True, max_tokens=3) == ("a\n", "a\n", "stop")
    assert trials == []


def test_output_under_a_grammar_that_loops_is_cut_there(smol: LocalModel) -> None:
    engine = smol.engine

    def generated(grammar: str) -> Generation:
        asked = GenerationRequest(
            tokens=engine.tokenize(smol.render(request(Message.user("Write ab.")))),
            max_tokens=200,
            grammar=grammar,
        )
        return engine.generate(asked, lambda piece: None, lambda: False)

    # A grammar that never ends: left alone, the model writes "ab, " up to the token limit.
    looped = generated('root ::= "ab, " root')
    assert looped.finish == "looping" and looped.output_tokens < 100
    assert looped.text.startswith("ab, " * LOOP_REPEATS)
    assert len(looped.text) < len("ab, ") * (LOOP_REPEATS + 1)
    # Fewer times over, and it is no loop.
    once_less = generated(f'root ::= ("ab, "){{{LOOP_REPEATS - 1}}} "end"')
    assert (once_less.text, once_less.finish) == ("ab, " * (LOOP_REPEATS - 1) + "end", "stop")


def test_text_that_loops_is_cut_there_too(smol: LocalModel) -> None:
    engine = smol.engine
    # Begun as a run of "ab, ", the reply goes on repeating itself (without the cut, to the
    # token limit).
    prompt = smol.render(request(Message.user("Say ab, forever."))) + "ab, ab, ab, ab, "
    asked = GenerationRequest(tokens=engine.tokenize(prompt), max_tokens=300)
    looped = engine.generate(asked, lambda piece: None, lambda: False)
    assert looped.finish == "looping" and looped.output_tokens < 100


def test_the_gate_decides_how_the_reply_starts(smol: LocalModel) -> None:
    engine = smol.engine
    letters = engine.tokens_where(lambda text: text in ("a", "A", " a", " A"))
    asked = GenerationRequest(
        tokens=engine.tokenize(smol.render(request(Message.user("Say hello.")))), max_tokens=4
    )

    def reply(threshold: float) -> str:
        gated = dataclasses.replace(asked, gate=Gate(letters, threshold))
        return engine.generate(gated, lambda piece: None, lambda: False).text

    left_alone = engine.generate(asked, lambda piece: None, lambda: False).text
    assert not left_alone.strip().lower().startswith("a")
    # Open (any probability reaches 0), the reply starts with the likeliest of the tokens,
    # though the model left alone would not; shut, it cannot.
    assert reply(0.0).strip().lower().startswith("a")
    assert not reply(math.inf).strip().lower().startswith("a")
    # Shut, the reply is text: where the model would end it at once, it says something first.
    prompt = smol.render(request(Message.user("Say hello.")))
    said = dataclasses.replace(
        asked, tokens=engine.tokenize(f"{prompt}Hello! How can I help you today?")
    )
    assert engine.generate(said, lambda piece: None, lambda: False).text == ""
    shut = dataclasses.replace(said, gate=Gate(letters, math.inf))
    assert engine.generate(shut, lambda piece: None, lambda: False).text.strip()


def test_a_number_the_grammar_will_not_let_go_on_ends_or_takes_its_fraction(
    smol: LocalModel,
) -> None:
    engine = smol.engine

    def copied(seen: str, grammar: str) -> str:
        prompt = engine.tokenize(f"Copy: {seen}\nCopy: {seen}\nCopy: ")
        asked = GenerationRequest(tokens=prompt, max_tokens=8, grammar=grammar)
        return engine.generate(asked, lambda piece: None, lambda: False).text

    # The model, copying "15,20", wants a comma after 15 where the grammar allows only digits or
    # the end: the likeliest digit would make the number 1520 and beyond.
    integer = 'root ::= [0-9]+ ("}" | "]")'
    # Copying "15}" where the number must have a fraction (a JSON Schema number, as 15.0), it
    # wants the brace: the likeliest digit would make it 150.
    decimal = 'root ::= [0-9]+ "." [0-9]+ ("}" | "]")'
    assert copied("15,20", integer) == "15}"
    assert copied("15}", decimal).startswith("15.")
    # Without the tokens that tell it the output is inside a number, it takes the digit.
    engine._value_token_sets = ValueTokens(enders=(), points=(), quotes=(), digit_final=frozenset())
    try:
        assert copied("15,20", integer).startswith("1520")
        assert copied("15}", decimal).startswith("150")
    finally:
        engine._value_token_sets = None


def test_a_reply_stops_at_a_call_it_already_made(
    smol: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Left alone, SmolLM2 writes this call four times over and is cut off inside a fifth. The
    # call grammar allows more calls; with every one let through, the repeat is what stops it.
    monkeypatch.setattr(local_model, "ANOTHER_CALL_THRESHOLD", 0.0)
    ask = Message.user("What time is it in Tokyo?")
    asked = request(ask, tools=DEFINITIONS, tool_choice="required", max_output_tokens=120)
    events = collect(smol, asked)
    # The model's "UTC" for Tokyo stays as it wrote it: free text is never dropped.
    assert calls_of(events) == [("current_time", {"timezone": "UTC"})]
    assert events[-1] == ResponseCompleted(finish_reason="tool_calls")
    assert not [e for e in events if isinstance(e, ToolCallFailed)]
    # Asked before a second call (a threshold no probability reaches: the answer is no), the
    # reply ends after the first; with no second call written on trial, not a token more.
    monkeypatch.setattr(local_model, "ANOTHER_CALL_THRESHOLD", 1.01)
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    asked_first = collect(smol, asked)
    assert calls_of(asked_first) == calls_of(events)
    assert usage_of(asked_first).output_tokens < usage_of(events).output_tokens


def test_tool_choice_none_never_calls(smol: LocalModel) -> None:
    events = collect(
        smol,
        request(Message.user("Convert 100 km to miles."), tools=DEFINITIONS, tool_choice="none"),
    )
    assert not calls_of(events) and text_of(events)


def test_native_calls_render_back_byte_for_byte(qwen: LocalModel) -> None:
    from toolwire.messages import TextPart

    call = ToolCall(
        id="c1", name="convert_units", arguments={"value": 100, "from_unit": "km", "to_unit": "mi"}
    )
    history = request(
        Message.user("Convert 100 km to miles."),
        Message(role="assistant", parts=(call,)),
        Message(
            role="tool", parts=(ToolResult(call_id="c1", name="convert_units", content="62.1 mi"),)
        ),
        tools=DEFINITIONS,
    )
    prompt = qwen.render(history)
    written = '<tool_call>\n{"name": "convert_units", "arguments": {"value": 100, "from_unit": "km", "to_unit": "mi"}}\n</tool_call>'
    assert f"<|im_start|>assistant\n{written}<|im_end|>" in prompt
    assert "<tool_response>\n62.1 mi\n</tool_response>" in prompt
    # The guidance follows the template's own default system message, which a system message
    # of ours would otherwise replace: the model was trained with it there.
    assert qwen.guidance is not None
    default = "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."
    assert f"<|im_start|>system\n{default}\n\n{qwen.guidance}\n\n# Tools" in prompt
    assert isinstance(history.messages[1].parts[0], TextPart | ToolCall)


def test_native_strict_calls_and_none(qwen: LocalModel) -> None:
    ask = Message.user("What time is it in Tokyo?")
    assert qwen.strict  # the default
    events = collect(
        qwen, request(ask, tools=DEFINITIONS, tool_choice="required", max_output_tokens=60)
    )
    assert calls_of(events) == [("current_time", {"timezone": "Asia/Tokyo"})]
    none = collect(qwen, request(ask, tools=DEFINITIONS, tool_choice="none"))
    assert not calls_of(none) and "<tool_call>" not in text_of(none)


def test_a_call_marker_that_is_a_special_token_is_written_as_that_token(qwen: LocalModel) -> None:
    # As the model was trained to, and as the template renders it back: a grammar's string
    # literal would make the model spell it out in ordinary tokens.
    marker = qwen.engine.special_token("<tool_call>")
    assert marker is not None and qwen.engine.special_token("tool") is None
    events = collect(
        qwen,
        request(
            Message.user("Convert 100 km to miles."),
            tools=DEFINITIONS,
            tool_choice="required",
            max_output_tokens=60,
        ),
    )
    (name, arguments), *_ = calls_of(events)
    assert name == "convert_units"
    # The schema's `number`, written as one (100.0): Python would read 100 as an int.
    assert type(arguments["value"]) is float
    llm = qwen.engine.llm
    written = list(llm.input_ids[usage_of(events).input_tokens : llm.n_tokens])
    assert written[0] == marker


CONVERTED = (
    Message.user("Convert 100 km to miles."),
    Message(
        role="assistant",
        parts=(
            ToolCall(
                id="c1",
                name="convert_units",
                arguments={"value": 100, "from_unit": "km", "to_unit": "mi"},
            ),
        ),
    ),
    Message(
        role="tool",
        parts=(ToolResult(call_id="c1", name="convert_units", content="100 km = 62.1371 mi"),),
    ),
)
"""A conversation whose one call has its result, after which the default model calls again."""


def test_a_call_the_conversation_has_the_result_of_becomes_the_answer(qwen: LocalModel) -> None:
    # Qwen2.5-Coder-0.5B calls convert_units again here (even with tool_choice none it writes
    # the call as bare JSON); the adapter drops the repeat and the reply is the answer.
    events = collect(qwen, request(*CONVERTED, tools=DEFINITIONS, max_output_tokens=60))
    assert not calls_of(events)
    assert "62.1371" in text_of(events) and "{" not in text_of(events)
    assert events[-1] == ResponseCompleted(finish_reason="stop")


def never() -> bool:
    return False


def test_scored_prompt_tokens_get_the_models_own_log_probabilities(smol: LocalModel) -> None:
    engine = smol.engine
    tokens = engine.tokenize(smol.render(request(Message.user("Name three colours."))))
    scored = range(len(tokens) - 10, len(tokens) - 3)
    evaluated = engine._evaluate_prompt(tokens, never, scored)
    assert evaluated is not None
    _, scores = evaluated
    assert len(scores) == len(scored)
    for position, score in zip(scored, scores, strict=True):
        engine._evaluate_prompt(tokens[:position], never)  # its last logits predict `position`
        expected = math.log(engine._probability([tokens[position]]))
        # Batches and single tokens go through different kernels, which round differently
        # (up to 0.1 nats on AVX-512); a score off by one position is off by nats.
        assert score == pytest.approx(expected, rel=0.03, abs=0.03)


def test_the_contrast_baseline_runs_beside_the_conversation(smol: LocalModel) -> None:
    engine, llm = smol.engine, smol.engine.llm
    ask = Message.user("Name three colours.")
    tokens = engine.tokenize(smol.render(request(Message.system("Be brief."), ask)))
    plain = engine.tokenize(smol.render(request(ask)))
    n = len(engine.tokenize(ask.text))
    span = (len(tokens) - n - 5, len(tokens) - 5)  # the request, before the turn's end
    baseline_span = (len(plain) - n - 5, len(plain) - 5)
    assert tokens[slice(*span)] == plain[slice(*baseline_span)]
    evaluated = engine._evaluate_prompt(tokens, never, range(*span))
    assert evaluated is not None
    next_token = engine._probability([tokens[0]])

    def nats(baseline: list[int], where: tuple[int, int]) -> float | None:
        contrast = Contrast(span=span, baseline=tuple(baseline), baseline_span=where)
        return engine._contrast_nats(contrast, evaluated[1], never)

    assert nats(tokens, span) == pytest.approx(0.0, abs=0.01)
    assert nats(plain, baseline_span) != pytest.approx(0.0, abs=0.01)
    # The main context still holds the prompt, its last logits untouched.
    assert list(llm.input_ids[: llm.n_tokens]) == tokens
    assert engine._probability([tokens[0]]) == next_token


def integers_tool(name: str, description: str, **parameters: str) -> ToolDefinition:
    """A tool whose parameters are all required integers, described as given."""
    return ToolDefinition(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {
                key: {"type": "integer", "description": text} for key, text in parameters.items()
            },
            "required": list(parameters),
        },
    )


SOLVE_QUADRATIC = integers_tool(  # BFCL simple_python_6
    "solve_quadratic",
    "Find the roots of a quadratic equation. Returns both roots.",
    a="Coefficient of x².",
    b="Coefficient of x.",
    c="Constant term.",
)


def test_the_call_gate_weighs_how_much_the_tools_explain_the_request(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The tool makes this request about 21.7 nats likelier than it is without it, well past the
    # neutral point: at the default weight that adds 2.5 to the log-odds of opening a call. The threshold
    # is set just out of reach of the probability alone (about 0.72; it varies with the CPU's
    # kernels), within reach of it weighed.
    ask = request(
        Message.user("What are the roots of the quadratic equation where a=2, b=5 and c=3 ?"),
        tools=(SOLVE_QUADRATIC,),
        max_output_tokens=60,
    )
    engine = qwen.engine
    assert not engine.adds_bos()
    assert engine._evaluate_prompt(engine.tokenize(qwen.render(ask)), never) is not None
    opening = engine._probability(qwen.load().call_openers)
    odds = math.exp(0.75) * opening / (1 - opening)
    monkeypatch.setattr(qwen, "call_threshold", odds / (1 + odds))
    assert calls_of(collect(qwen, ask)) == [("solve_quadratic", {"a": 2, "b": 5, "c": 3})]
    monkeypatch.setattr(qwen, "relevance_weight", 0.0)
    assert calls_of(collect(qwen, ask)) == []


MATH_GCD = integers_tool(  # BFCL parallel_76
    "math_gcd",
    "Compute the greatest common divisor of two numbers",
    num1="The first number.",
    num2="The second number.",
)


def test_values_no_call_has_used_ask_for_another_call(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the first call the model gives a second one about 0.0003: alone, the reply ends
    # there. 81 and 27 are left unused, which lifts the odds past the go-on threshold; without
    # that, the second call is still written on trial, and kept for the values it uses.
    ask = request(
        Message.user(
            "What is the greatest common divisor (GCD) of the two pairs of numbers "
            "(45, 60) and (81, 27)?"
        ),
        tools=(MATH_GCD,),
        max_output_tokens=120,
    )
    both = [("math_gcd", {"num1": 45, "num2": 60}), ("math_gcd", {"num1": 81, "num2": 27})]
    assert calls_of(collect(qwen, ask)) == both
    monkeypatch.setattr(local_model, "UNUSED_VALUE_WEIGHT", 0.0)
    assert calls_of(collect(qwen, ask)) == both
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_of(collect(qwen, ask)) == both[:1]


CAPITAL_GAINS_TAX = ToolDefinition(  # BFCL parallel_15
    name="calculate_capital_gains_tax",
    description="Calculate the capital gains tax for a given gains type and amount",
    parameters={
        "type": "object",
        "properties": {
            "short_term_gain": {"type": "integer", "description": "The short term gain."},
            "long_term_gain": {"type": "integer", "description": "The long term gain."},
            "state": {"type": "string", "description": "The state.", "default": "federal"},
        },
        "required": ["short_term_gain", "long_term_gain"],
    },
)


def test_a_second_call_the_model_gives_a_few_in_a_thousand_is_made(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the first call the model gives another about 0.0001; the two amounts no call has
    # used lift that to about 0.005: past the go-on threshold, short of the 0.01 it once was.
    ask = request(
        Message.user(
            "What will be the capital gains tax for a short term capital gains of $15000, long "
            "term gains of $25000 in the state of California and $20000 short term, $50000 long "
            "term in Florida?"
        ),
        tools=(CAPITAL_GAINS_TAX,),
        max_output_tokens=160,
    )
    calls = calls_of(collect(qwen, ask))
    assert calls == [
        (
            "calculate_capital_gains_tax",
            {"short_term_gain": 15000, "long_term_gain": 25000, "state": "California"},
        ),
        (
            "calculate_capital_gains_tax",
            {"short_term_gain": 20000, "long_term_gain": 50000, "state": "Florida"},
        ),
    ]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    monkeypatch.setattr(local_model, "ANOTHER_CALL_THRESHOLD", 0.01)
    assert calls_of(collect(qwen, ask)) == calls[:1]


CALCULATE_RESISTANCE = ToolDefinition(  # BFCL parallel_2
    name="calculate_resistance",
    description="Calculate the resistance of a wire using resistivity, length, and "
    "cross-sectional area.",
    parameters={
        "type": "object",
        "properties": {
            "length": {"type": "integer", "description": "The length of the wire in meters."},
            "area": {
                "type": "number",
                "description": "The cross-sectional area of the wire in square meters.",
            },
            "resistivity": {
                "type": "string",
                "description": "Resistivity of the material (Default: 'copper'). Allowed "
                "values: 'copper', 'aluminum'",
            },
        },
        "required": ["length", "area"],
    },
)
RETURN_ON_INVESTMENT = integers_tool(  # BFCL parallel_16
    "calculate_return_on_investment",
    "Calculate the return on investment given an initial investment and a gain or loss.",
    initial_investment="The initial amount of money invested.",
    gain_loss="The amount gained or lost. If lose, provide as negative value.",
)


def test_a_call_on_trial_is_kept_only_for_a_value_no_call_has_used(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the copper call the model gives another about 2e-05, with no number or quoted
    # string left unused to lift it: the reply ends there but for the trial, where it writes
    # the aluminum call, and again the copper one (dropped: nothing new).
    wire = request(
        Message.user(
            "Calculate the resistance of a wire with a length of 5m and cross sectional area "
            "0.01m² with resistivity of copper and aluminum"
        ),
        tools=(CALCULATE_RESISTANCE,),
        max_output_tokens=200,
    )
    both = [
        ("calculate_resistance", {"length": 5, "area": 0.01, "resistivity": metal})
        for metal in ("copper", "aluminum")
    ]
    assert calls_of(collect(qwen, wire)) == both
    # After the two calls asked for, the third it writes on trial invests the $1000 of the
    # second's loss, and has a gain nobody named: nothing the request gives that is new.
    investments = request(
        Message.user(
            "Calculate return on investment for an initial investment of $2000 with a gain of "
            "$500. Do the same calculation for an initial investment of $5000 with a loss of "
            "$1000."
        ),
        tools=(RETURN_ON_INVESTMENT,),
        max_output_tokens=200,
    )
    assert calls_of(collect(qwen, investments)) == [
        ("calculate_return_on_investment", {"initial_investment": 2000, "gain_loss": 500}),
        ("calculate_return_on_investment", {"initial_investment": 5000, "gain_loss": -1000}),
    ]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_of(collect(qwen, wire)) == both[:1]


CURRENCY_CONVERSION = ToolDefinition(  # BFCL parallel_multiple_18
    name="currency_conversion",
    description="Convert a specific amount from one currency to another",
    parameters={
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "Amount to convert."},
            "from_currency": {"type": "string", "description": "Source currency."},
            "to_currency": {"type": "string", "description": "Target currency."},
        },
        "required": ["amount", "from_currency", "to_currency"],
    },
)
BANKING_SERVICE = ToolDefinition(
    name="banking_service",
    description="Make a deposit to a given bank account",
    parameters={
        "type": "object",
        "properties": {
            "account_id": {"type": "string", "description": "Target account to make deposit to."},
            "amount": {"type": "number", "description": "Amount to deposit."},
        },
        "required": ["account_id", "amount"],
    },
)


def test_a_call_on_trial_to_another_tool_is_kept_when_the_request_writes_its_values(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # After the conversion the go-on check ends the reply; on trial the model writes the
    # deposit, every value of it in the request and the account number used by no call.
    ask = request(
        Message.user(
            "I need to convert 10 dollars to Euros and make a 10 dollar deposit in my local bank "
            "account with account number - 987654."
        ),
        tools=(BANKING_SERVICE, CURRENCY_CONVERSION),
        max_output_tokens=200,
    )
    conversion = (
        "currency_conversion",
        {"amount": 10.0, "from_currency": "USD", "to_currency": "EUR"},
    )
    deposit = ("banking_service", {"account_id": "987654", "amount": 10.0})
    assert calls_of(collect(qwen, ask)) == [conversion, deposit]
    monkeypatch.setattr(local_model, "CALLS_ON_TRIAL", False)
    assert calls_of(collect(qwen, ask)) == [conversion]


SEARCH_LAWYER = ToolDefinition(  # BFCL irrelevance_92
    name="search_lawyer",
    description="Find a list of lawyers in a specific area, sorted by the number of cases they have won.",
    parameters={
        "type": "object",
        "properties": {
            "area": {
                "type": "string",
                "description": "The city and state where you need a lawyer.",
            },
            "specialization": {
                "type": "string",
                "description": "The field in which the lawyer should be specialized.",
            },
            "min_experience": {
                "type": "integer",
                "description": "The minimum years of experience required for the lawyer.",
                "default": 0,
            },
        },
        "required": ["area", "specialization"],
    },
)


def test_a_reply_the_gate_began_as_text_shows_json_without_calling(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # With the gate held shut here, the model answers in prose and shows the call it would
    # have made in a ```json fence, naming the tool. That is an answer, not a call.
    monkeypatch.setattr(qwen, "call_threshold", 0.87)
    ask = request(
        Message.user("I need a security guard, where can I find the most popular one in New York?"),
        tools=(SEARCH_LAWYER,),
        max_output_tokens=120,
    )
    events = collect(qwen, ask)
    assert calls_of(events) == []
    assert "search_lawyer" in text_of(events)


def test_the_day_words_of_a_request_are_rendered_with_their_dates(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    today = Message.system("You are Sam's assistant. Today is Tuesday 2026-03-10.")
    asked = request(today, Message.user("Anything tomorrow?"), tools=[t.definition for t in TOOLS])
    assert "Anything tomorrow?\n\n(tomorrow: Wednesday 2026-03-11)" in qwen.render(asked)
    assert "(tomorrow:" not in qwen.render(asked, dated=False)
    monkeypatch.setattr(qwen, "resolve_dates", False)
    assert "(tomorrow:" not in qwen.render(asked)
    # Without tools no call needs a date.
    monkeypatch.setattr(qwen, "resolve_dates", True)
    assert "(tomorrow:" not in qwen.render(dataclasses.replace(asked, tools=()))


def test_a_search_that_found_nothing_is_asked_again_with_fewer_of_its_words(
    qwen: LocalModel,
) -> None:
    from toolwire import tool

    @tool(side_effect="read_only")
    def search_contacts(query: str) -> str:
        """Find people in the address book.

        Args:
            query: a name or part of one
        """
        return "[]"

    # Words a pattern must escape, or hold in a class of one, for llama.cpp's grammar parser.
    searched = "Chloe's portfolio v1.2 ($15)"
    call = ToolCall(id="c1", name="search_contacts", arguments={"query": searched})
    conversation = (
        Message.user(f"is chloe in my contacts? she sent {searched}"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(ToolResult(call_id="c1", name=call.name, content="[]"),)),
    )
    asked = request(*conversation, tools=[search_contacts.definition], max_output_tokens=60)
    ((name, arguments),) = calls_of(collect(qwen, asked))
    # The possessive is held to the word alone, so all the words may be asked again.
    words = ["Chloe", "portfolio", "v1.2", "$15"]
    runs = {" ".join(words[start:end]) for start in range(4) for end in range(start + 1, 5)}
    assert name == "search_contacts"
    assert arguments["query"] in runs


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.text(min_size=1, max_size=6), min_size=2, max_size=4))
@example(words=["0", "\x00"])
@example(words=["v1.2", "$15", "a[b]", "(c)", "d|e", "f*+?", "x^y", 'q"', "\\", "{z}"])
def test_fewer_of_any_words_is_a_grammar_llama_cpp_reads(
    qwen: LocalModel, words: list[str]
) -> None:
    from toolwire import tool
    from toolwire.models.local._grounding import Grounding

    @tool(side_effect="read_only")
    def search(query: str) -> str:
        """Search.

        Args:
            query: words to find
        """
        return "[]"

    call = ToolCall(id="c1", name="search", arguments={"query": " ".join(words)})
    conversation = (
        Message.user("find it"),
        Message(role="assistant", parts=(call,)),
        Message(role="tool", parts=(ToolResult(call_id="c1", name="search", content="[]"),)),
    )
    definition = search.definition
    for held in Grounding.of(conversation, [definition]).fewer_words([definition]):
        forced = request(Message.user("find it"), tools=[held], tool_choice="required")
        events = collect(
            qwen, dataclasses.replace(forced, settings=ModelSettings(max_output_tokens=2))
        )
        assert events  # llama.cpp took the grammar (it raises UsageError where it does not)


def test_each_result_is_answered_from_the_part_of_the_request_its_call_took_up() -> None:
    from toolwire.models.local._formats import HERMES
    from toolwire.models.local._grounding import Grounding

    def each_folded(conversation: list[Message]) -> tuple[tuple[Message, ...], ...]:
        tools = tuple(TOOLS)
        request = ModelRequest(messages=tuple(conversation), tools=tools)
        grounding = Grounding.of(conversation, tools)
        return local_model._each_result_folded(request, 1, HERMES, grounding)

    calls = [
        ToolCall(id=f"c{n}", name="get_order", arguments={"order_id": order})
        for n, order in enumerate(["ORD-1", "ORD-2", "ORD-1", "ORD-X"])
    ]
    contents = ["ORD-1 shipped", "ORD-2 pending", "ORD-1 shipped", "no order ORD-X"]
    results = [
        ToolResult(call_id=c.id, name=c.name, content=text, is_error=text.startswith("no"))
        for c, text in zip(calls, contents, strict=True)
    ]
    asked = "Status of ORD-1, ORD-2 and ORD-X?"
    conversation = [
        Message.system("Be brief."),
        Message.user(asked),
        Message(role="assistant", parts=tuple(calls)),
        Message(role="tool", parts=tuple(results)),
    ]
    each = each_folded(conversation)
    # The error is left out beside results that succeeded; the same result counts once.
    assert [folded[-1].text.count("<tool_response>") for folded in each] == [1, 1]
    assert "ORD-1 shipped" in each[0][-1].text and "ORD-2" not in each[0][-1].text[len(asked) :]
    assert "ORD-2 pending" in each[1][-1].text
    # Each result is asked for a sentence; all the results at once, for their details.
    assert all(folded[-1].text.endswith(local_model.ANSWER_EACH_RESULT) for folded in each)
    whole = local_model._results_folded(conversation, 1, HERMES)
    assert whole is not None and whole[-1].text.endswith(local_model.ANSWER_FROM_RESULTS)
    assert whole[-1].text.count("<tool_response>") == 4
    # One clause: each result is answered from the whole request.
    assert all(
        folded[0] == conversation[0] and folded[-1].text.startswith(asked) for folded in each
    )
    # Only errors: each is answered.
    failed = [dataclasses.replace(result, is_error=True) for result in results]
    only_errors = [*conversation[:3], Message(role="tool", parts=tuple(failed))]
    assert len(each_folded(only_errors)) == 3
    # One result is answered as it is.
    one = [*conversation[:3], Message(role="tool", parts=(results[0], results[2]))]
    assert each_folded(one) == ()
    # A result that found nothing, where a later call of its tool found something, is no
    # part of the answer: the one left is answered alone.
    searches = [
        ToolCall(id="s1", name="search_orders", arguments={"query": "mugs chipped"}),
        ToolCall(id="s2", name="search_orders", arguments={"query": "mugs"}),
    ]
    found = [
        ToolResult(call_id="s1", name="search_orders", content=" [] "),
        ToolResult(call_id="s2", name="search_orders", content="ORD-3: 2 mugs"),
    ]
    searched = [
        *conversation[:2],
        Message(role="assistant", parts=tuple(searches)),
        Message(role="tool", parts=tuple(found)),
    ]
    (alone,) = each_folded(searched)
    assert alone[-1].text.count("<tool_response>") == 1 and "ORD-3: 2 mugs" in alone[-1].text
    # Found first and nothing after: both are the answer.
    assert len(each_folded([*searched[:3], Message(role="tool", parts=found[::-1])])) == 2
    # Only what found nothing: answered from it all the same, not from the conversation.
    nothing = [*searched[:3], Message(role="tool", parts=(found[0],))]
    (empty,) = each_folded(nothing)
    assert empty[-1].text.count("<tool_response>") == 1 and "[]" in empty[-1].text
    # Each result of a request in two parts is answered from the part its call took up.
    tokyo = ToolCall(id="t", name="current_time", arguments={"timezone": "Asia/Tokyo"})
    percent = ToolCall(id="p", name="calculate", arguments={"expression": "80 * 15 / 100"})
    two_parts = [
        Message.system("Be brief."),
        Message.user("What time is it in Tokyo, and what is 15% of 80?"),
        Message(role="assistant", parts=(tokyo, percent)),
        Message(
            role="tool",
            parts=(
                ToolResult(call_id="t", name="current_time", content="03:07 in Asia/Tokyo"),
                ToolResult(call_id="p", name="calculate", content="80 * 15 / 100 = 12"),
            ),
        ),
    ]
    time_part, percent_part = (folded[-1].text for folded in each_folded(two_parts))
    assert time_part.startswith("What time is it in Tokyo\n") and "12" not in time_part
    assert percent_part.startswith("what is 15% of 80?\n") and "03:07" not in percent_part


@pytest.mark.parametrize(
    ("pieces", "passed", "ends"),
    [
        # After its answer, a small model lists the calls it did not make until the limit.
        (["12\n", '{"na', 'me": "calculate"'], "12", True),
        (["It is 14:25.", '\n{"name": "current_time", "arguments": {}}'], "It is 14:25.", True),
        # A call behind the family's marker is the reader's, one in a fence is shown on purpose.
        (
            ["Let me look.\n<tool_call>\n", '{"name": "x"'],
            'Let me look.\n<tool_call>\n{"name": "x"',
            False,
        ),
        (["```json\n", '{"name": "x"}\n```'], '```json\n{"name": "x"}\n```', False),
        # A line that only begins like a call is passed on once it is plainly not one.
        (["a\n{", '"n', "ope"], 'a\n{"nope', False),
    ],
)
def test_a_text_reply_ends_where_it_lists_calls_as_json(
    pieces: list[str], passed: str, ends: bool
) -> None:
    from toolwire.models.local._formats import HERMES
    from toolwire.models.local._reply import _ShownCalls

    shown = _ShownCalls(HERMES.start)
    text, ended = "", False
    for piece in pieces:
        more, ended = shown.feed(piece)
        text += more
        if ended:
            break
    else:
        text += shown.rest()
    assert (text, ended) == (passed, ends)


def scripted_once(
    monkeypatch: pytest.MonkeyPatch,
    model: LocalModel,
    text: str,
    where: Callable[[GenerationRequest], bool],
) -> list[GenerationRequest]:
    """The first of `model`'s generations that `where` picks writes `text` (in two pieces)
    instead of the model; every other generation is the model's. Returns every generation
    asked for, in order."""
    engine_type = type(model.engine)
    real = engine_type.generate
    asked: list[GenerationRequest] = []
    scripted: list[GenerationRequest] = []

    def generate(
        self: Any,
        generation: GenerationRequest,
        emit: Callable[[str], None],
        should_stop: Callable[[], bool],
    ) -> Generation:
        asked.append(generation)
        if scripted or not where(generation):
            return real(self, generation, emit, should_stop)
        scripted.append(generation)
        for piece in (text[:4], text[4:]):
            emit(piece)
        return Generation(
            text=text,
            prompt_tokens=len(generation.tokens),
            cached_tokens=0,
            output_tokens=2,
            finish="stop",
        )

    monkeypatch.setattr(engine_type, "generate", generate)
    return asked


@pytest.mark.parametrize(
    "written",
    ["calculate", 'name: calculate\narguments: expression: "17 * 23"', '>{"name": "calculate"}'],
)
def test_a_text_reply_that_is_only_a_call_is_written_as_a_call(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    # The default model, kept to text by the gate, writes the call it meant as text (these are
    # its own words from the everyday-requests suite). The first generation, the gated one, is
    # scripted to write that; the reply is then written again under the grammar by the model.
    asked = scripted_once(monkeypatch, qwen, written, lambda generation: True)
    ask = request(Message.user("What is 17 * 23?"), tools=DEFINITIONS, max_output_tokens=60)
    events = collect(qwen, ask)
    assert asked[1].grammar is not None
    assert calls_of(events) == [("calculate", {"expression": "17 * 23"})]
    assert text_of(events) == ""


SHOWN_IN_A_FENCE = (
    # How the 1.5B model, kept to text by its gate, writes the call it means.
    "To calculate 17 * 23, you can use the `calculate` function. Here's how you can call it:"
    '\n\n```json\n{\n  "name": "calculate",\n  "arguments": {"expression": "17 * 23"}\n}\n```'
)
SHOWN_AS_ARGUMENTS = (
    # Or only its arguments, after naming the tool.
    "To calculate 17 * 23, you can use the `calculate` function with the following parameters:"
    '\n\n```json\n{"expression": "17 * 23"}\n```'
)


@pytest.mark.parametrize("shown", [SHOWN_IN_A_FENCE, SHOWN_AS_ARGUMENTS])
@pytest.mark.parametrize("describes_calls", [True, False])
def test_a_call_shown_in_a_fence_is_made_only_by_a_model_that_means_it(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch, describes_calls: bool, shown: str
) -> None:
    monkeypatch.setattr(qwen, "describes_calls", describes_calls)
    asked = scripted_once(monkeypatch, qwen, shown, lambda generation: True)
    ask = request(Message.user("What is 17 * 23?"), tools=DEFINITIONS, max_output_tokens=60)
    events = collect(qwen, ask)
    if describes_calls:
        assert asked[1].grammar is not None
        assert calls_of(events) == [("calculate", {"expression": "17 * 23"})]
        assert text_of(events) == ""
    else:
        assert len(asked) == 1
        assert not calls_of(events)
        assert text_of(events) == shown


@pytest.mark.parametrize(
    "written",
    [
        # After the result, the 1.5B model shows the call again, or says which call it made.
        SHOWN_IN_A_FENCE.replace("calculate 17 * 23", "convert 100 km to miles")
        .replace("calculate", "convert_units")
        .replace('"expression": "17 * 23"', '"value": 100, "from_unit": "km", "to_unit": "mi"'),
        "To convert 100 km to miles, I called the `convert_units` function with value 100.",
    ],
)
def test_after_results_a_reply_about_the_call_is_answered_from_the_result(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch, written: str
) -> None:
    monkeypatch.setattr(qwen, "describes_calls", True)
    scripted_once(monkeypatch, qwen, written, lambda generation: True)
    events = collect(qwen, request(*CONVERTED, tools=DEFINITIONS, max_output_tokens=60))
    assert not calls_of(events)
    assert "convert_units" not in text_of(events) and "62.1371" in text_of(events)


def test_an_answer_that_is_only_a_tool_name_is_written_again(
    qwen: LocalModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The answer written instead of a repeated call (as in the test of the converted 100 km) is
    # scripted, the first time, to be the tool's name alone, as the default model wrote
    # "search_code" after a search; the next attempt, not opening as that one did, is the model's.
    def answers(generation: GenerationRequest) -> bool:
        return generation.gate is not None and generation.gate.threshold == math.inf

    asked = scripted_once(monkeypatch, qwen, "convert_units", answers)
    events = collect(qwen, request(*CONVERTED, tools=DEFINITIONS, max_output_tokens=60))
    assert sum(map(answers, asked)) == 2, "the answer was written as text, and once more"
    assert not calls_of(events)
    assert "convert_units" not in text_of(events) and "62.1371" in text_of(events)


def test_a_question_for_a_missing_identifier_or_file_names_the_thing_to_choose() -> None:
    assert local_model._question_opening("order_id", None) == "Which order"
    assert local_model._question_opening("eventId", None) == "Which event"
    assert local_model._question_opening("path", None) == "Which file"
    assert local_model._question_opening("file_name", None) == "Which file"
    # A number or free text is asked for in the model's own words, from the note.
    assert local_model._question_opening("amount", None) == ""
    assert local_model._question_opening("query", None) == ""
