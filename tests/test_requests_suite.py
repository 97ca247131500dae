"""The everyday-requests suite (bench/requests/): its items are well formed and satisfiable with
the real tools, its split holds every kind on both sides, its scorer says right and wrong where a
person would, and its runner runs a conversation end to end."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.local_answers import main as run_answers
from bench.local_requests import main as run_requests
from bench.requests.checks import (
    MISSING,
    Contains,
    EvaluatesTo,
    Exact,
    FromResult,
    HasAny,
    HasNone,
    HasNumber,
    IsDefault,
    Number,
    OneOf,
    ValueCheck,
    numbers_in,
    parse_text_check,
    parse_value_check,
)
from bench.requests.scoring import RanCall, RanTurn, match_calls, score_item, tally
from bench.requests.suite import (
    KINDS,
    SPLITS,
    TOOLSETS,
    ExpectedCall,
    Item,
    SuiteError,
    load_items,
    parse_item,
    split_of,
)
from toolwire import Tool, ToolContext

ITEMS = load_items()
BY_ID = {item.id: item for item in ITEMS}


# ---------------------------------------------------------------- the suite file


def test_the_suite_loads_with_enough_unique_items() -> None:
    assert len(ITEMS) >= 220
    assert len(BY_ID) == len(ITEMS)


def test_both_splits_hold_every_kind_and_every_toolset() -> None:
    for split in SPLITS:
        half = [item for item in ITEMS if item.split == split]
        assert {item.kind for item in half} == set(KINDS), split
        assert {item.toolset for item in half} == set(TOOLSETS), split


def test_the_split_is_the_parity_of_the_ids_hash() -> None:
    assert split_of("builtin-time-tokyo") == split_of("builtin-time-tokyo")
    for item in ITEMS:
        even = hashlib.sha256(item.id.encode()).digest()[0] % 2 == 0
        assert item.split == ("dev" if even else "test")


def test_the_issues_everyday_prompts_are_there_verbatim() -> None:
    conversations = {tuple(turn.user for turn in item.turns) for item in ITEMS}
    for prompts in [
        ("What time is it in Tokyo?",),
        ("What's the time in London?",),
        ("What time is it in Tokyo, and what is 15% of 80?",),
        ("What is 15% of 80 and what time is it in Tokyo?",),
        ("10 km to miles", "in feet"),
        ("12*12", "add 6"),
        ("How do I write a tool in toolwire?",),
        ("I weigh 165 pounds. What is that in kilograms?",),
    ]:
        assert prompts in conversations


def test_toolsets_have_documented_tools_with_honest_side_effects() -> None:
    for toolset in TOOLSETS.values():
        assert 4 <= len(toolset.tools) <= 7, toolset.name
        for tool in toolset.tools:
            assert tool.description, tool.name
            for name, schema in tool.parameters["properties"].items():
                assert schema.get("description"), f"{tool.name}.{name}"
    changes = {
        t.name for ts in TOOLSETS.values() for t in ts.tools if t.side_effect == "destructive"
    }
    assert {"send_email", "refund_order", "cancel_order", "write_file"} <= changes


def _example_value(check: ValueCheck, schema: Mapping[str, Any]) -> Any:
    """A value that passes `check`, of the parameter's type."""
    if isinstance(check, Exact):
        return check.value
    if isinstance(check, Number):
        whole = check.value.is_integer() and '"integer"' in json.dumps(schema)
        return int(check.value) if whole else check.value
    if isinstance(check, EvaluatesTo):
        return repr(check.value)
    if isinstance(check, Contains):
        return list(check.parts) if '"array"' in json.dumps(schema) else " ".join(check.parts)
    if isinstance(check, OneOf):
        return _example_value(check.options[0], schema)
    return MISSING


def example_arguments(call: ExpectedCall, tool: Tool) -> dict[str, Any]:
    """One right call's arguments: read off the checks, then the item's own `example`."""
    properties = tool.parameters["properties"]
    arguments = {
        name: value
        for name, check in call.arguments.items()
        if (value := _example_value(check, properties[name])) is not MISSING
    }
    return {**arguments, **(call.example or {})}


async def _run_expected_calls(item: Item) -> list[list[RanCall]]:
    toolset = TOOLSETS[item.toolset]
    toolset.reset()
    turns = []
    for t, turn in enumerate(item.turns):
        calls = []
        for c, call in enumerate(turn.calls):
            tool = toolset.tool(call.name)
            assert tool is not None
            arguments = example_arguments(call, tool)
            context = ToolContext(run_id="r", call_id=f"{t}.{c}", step=1, idempotency_key="k")
            result = await tool.invoke(tool.validate(arguments), context)
            calls.append(RanCall(call.name, arguments, result))
        turns.append(calls)
    return turns


@pytest.mark.parametrize("item", ITEMS, ids=[item.id for item in ITEMS])
def test_the_expected_calls_run_and_their_results_hold_the_answer(item: Item) -> None:
    """Each expected call, made with values its checks accept, validates against the tool's
    schema and runs; its result passes the item's result checks; and every fact the answer must
    state is in the turn's results (unless marked as worked out from them)."""
    turns = anyio.run(_run_expected_calls, item)
    defaults = TOOLSETS[item.toolset].defaults()
    for turn, calls in zip(item.turns, turns, strict=True):
        assert match_calls(turn.calls, calls, defaults) == list(range(len(calls)))
        results = [call.result for call in calls]
        for check in turn.answer:
            if isinstance(check, FromResult):
                assert check.value(results[check.call]) is not None, check
            elif calls and not isinstance(check, HasNone) and not check.computed:
                assert check.passes("\n".join(results)), (check, results)


# ---------------------------------------------------------------- checks


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("15% of 80 is 12.", [15, 80, 12]),
        ("It's 12:30 in Tokyo.", []),
        ("Total: $1,234.50 (ORD-10482)", [1234.5, 10482]),
        ("-17.78 °C, i.e. 0 F", [-17.78, 0]),
        ("on 2026-03-10", [2026, 3, 10]),
    ],
)
def test_numbers_in_text(text: str, numbers: list[float]) -> None:
    assert numbers_in(text) == numbers


@given(
    value=st.floats(min_value=-1e12, max_value=1e12).filter(lambda v: abs(v) >= 1),
    template=st.sampled_from(["{} ", "That is {}.", "about {} kg", "= {}\n", "({})", "{}%"]),
    style=st.sampled_from(["{:.6g}", "{:,.4f}", "{:.4f}", "{:,.3f}"]),
)
def test_a_number_written_any_usual_way_passes_and_a_far_one_fails(
    value: float, template: str, style: str
) -> None:
    text = template.format(style.format(value))
    assert HasNumber(value, rtol=1e-3).passes(text)
    assert not HasNumber(value * 1.1 + 1, rtol=1e-3).passes(text)


def test_value_checks() -> None:
    assert Exact("Asia/Tokyo").passes(" asia/tokyo", MISSING)
    assert Exact(10).passes(10.0, MISSING) and not Exact(True).passes(1, MISSING)
    assert not Exact("x").passes(MISSING, MISSING)
    assert Contains(("dana@x.io",)).passes(["Dana@X.io", "b@y"], MISSING)
    assert not Contains(("a", "z")).passes("abc", MISSING)
    assert Number(399.5).passes("399.5", MISSING) and not Number(399.5).passes(400, MISSING)
    assert EvaluatesTo(12).passes("80 * 15 / 100", MISSING)
    assert EvaluatesTo(12).passes("80 * 15%", MISSING)  # the calculator reads percentages
    assert not EvaluatesTo(12).passes("80 * 15", MISSING)
    assert not EvaluatesTo(12).passes("twelve", MISSING)
    assert IsDefault().passes(MISSING, 3) and IsDefault().passes(3, 3)
    assert not IsDefault().passes(4, 3)
    assert OneOf((IsDefault(), Exact("tests"))).passes("tests", ".")


def test_text_checks() -> None:
    assert HasAny(("buenos días",)).passes("¡Buenos dias!")
    assert HasNone(("sent",)).passes("I have not done it")
    assert not HasNone(("sent",)).passes("Sent.")
    time = FromResult(0, r"(\d\d:\d\d):\d\d", time=True)
    result = "Tuesday 2026-03-10 14:05:33 in Asia/Tokyo (UTC+09:00, JST)"
    assert time.passes("It's 14:05 in Tokyo.", [result])
    assert time.passes("It's 2:05 PM in Tokyo.", [result])
    assert not time.passes("It's 12:05 in Tokyo.", [result])
    assert not time.passes("It's 14:05.", [None])


@pytest.mark.parametrize(
    ("spec", "text_check"),
    [
        ({"exact": 1, "contains": "x"}, False),
        ({"number": "12"}, False),
        ({"one_of": []}, False),
        ({"bogus": 1}, False),
        ({"is_default": False}, False),
        ({"any": []}, True),
        ({"from_result": 0, "pattern": "("}, True),
        ({"number": 3, "tolerance": 1}, True),
        ("a plain string", True),
    ],
)
def test_malformed_checks_are_errors(spec: Any, text_check: bool) -> None:
    parse = parse_text_check if text_check else parse_value_check
    with pytest.raises(ValueError, match="where"):
        parse(spec, "where")


def test_a_malformed_item_is_an_error_naming_it() -> None:
    good = {"id": "x", "toolset": "builtin", "kind": "none", "turns": [{"user": "hi"}]}
    assert parse_item(good, "line 1").kind == "none"
    for bad in [
        {**good, "kind": "single"},
        {**good, "toolset": "nope"},
        {**good, "turns": [{"user": "hi", "calls": [{"name": "send_email"}]}]},
        {**good, "turns": [{"user": "x", "calls": [{"name": "calculate", "args": {"expr": 1}}]}]},
        {**good, "kind": "ask"},
        {**good, "extra": 1},
    ]:
        with pytest.raises(SuiteError, match="line 1"):
            parse_item(bad, "line 1")


# ---------------------------------------------------------------- scoring

TIME_ITEM = BY_ID["builtin-multi-tokyo-then-pct"]
BUILTIN_DEFAULTS = TOOLSETS["builtin"].defaults()
TOKYO = RanCall(
    "current_time",
    {"timezone": "Asia/Tokyo"},
    "Tuesday 2026-03-10 14:05:33 in Asia/Tokyo (UTC+09:00, JST)",
)
PERCENT = RanCall("calculate", {"expression": "0.15 * 80"}, "0.15 * 80 = 12")


def _score(item: Item, *turns: RanTurn) -> tuple[bool, bool, bool]:
    score = score_item(item, turns, TOOLSETS[item.toolset].defaults())
    return score.calls_right, score.parts_called, score.answer_right


def test_a_multi_part_request_is_right_with_both_calls_in_any_order() -> None:
    answer = "It's 2:05 PM in Tokyo, and 15% of 80 is 12."
    for calls in [(TOKYO, PERCENT), (PERCENT, TOKYO)]:
        assert _score(TIME_ITEM, RanTurn(calls, answer, "answer")) == (True, True, True)


def test_a_missing_part_a_junk_call_and_a_wrong_answer_are_each_wrong() -> None:
    answer = "It's 14:05 in Tokyo and 15% of 80 is 12."
    assert _score(TIME_ITEM, RanTurn((TOKYO,), answer, "answer")) == (False, False, True)
    junk = RanCall("calculate", {"expression": "12"}, "12 = 12")
    assert _score(TIME_ITEM, RanTurn((TOKYO, PERCENT, junk), answer, "answer")) == (
        False,
        True,
        True,
    )
    made_up = "It's 10:30 in Tokyo and 15% of 80 is 12."
    assert _score(TIME_ITEM, RanTurn((TOKYO, PERCENT), made_up, "answer")) == (True, True, False)
    assert _score(TIME_ITEM, RanTurn((TOKYO, PERCENT), answer, "max_steps"))[2] is False


def test_a_failed_call_corrected_by_the_model_is_no_junk() -> None:
    failed = RanCall("calculate", {"expression": "15% of 80"}, "not an arithmetic expression", True)
    calls = (TOKYO, failed, PERCENT)
    assert _score(TIME_ITEM, RanTurn(calls, "14:05; 12", "answer")) == (True, True, True)


def test_an_argument_left_out_counts_as_its_default() -> None:
    item = BY_ID["builtin-time-utc"]
    utc = RanCall("current_time", {}, "Tuesday 2026-03-10 05:05:33 in UTC (UTC+00:00, UTC)")
    assert _score(item, RanTurn((utc,), "It is 05:05 UTC.", "answer")) == (True, True, True)


def test_no_call_for_a_request_no_tool_fits_and_only_allowed_look_ups_before_asking() -> None:
    none = BY_ID["builtin-none-capital-australia"]
    assert _score(none, RanTurn((), "Canberra.", "answer")) == (True, True, True)
    assert not _score(none, RanTurn((PERCENT,), "Canberra.", "answer"))[0]
    ask = BY_ID["shop-ask-refund"]
    look_up = RanCall("search_orders", {}, "[]")
    question = "Which order should I refund? Please give me the order number."
    assert _score(ask, RanTurn((look_up,), question, "answer")) == (True, True, True)
    refund = RanCall("refund_order", {"order_id": "ORD-10482"}, "{}")
    assert not _score(ask, RanTurn((refund,), question, "answer"))[0]


def test_a_follow_up_must_call_again_and_an_unfinished_conversation_is_wrong() -> None:
    item = BY_ID["builtin-follow-12x12-add6"]
    first = RanTurn(
        (RanCall("calculate", {"expression": "12*12"}, "12*12 = 144"),), "144", "answer"
    )
    again = RanCall("calculate", {"expression": "144+6"}, "144+6 = 150")
    assert _score(item, first, RanTurn((again,), "150", "answer")) == (True, True, True)
    assert _score(item, first, RanTurn((), "150", "answer"))[:2] == (False, False)
    assert _score(item, first) == (False, False, False)


def test_matching_finds_the_assignment_a_greedy_one_misses() -> None:
    any_city = ExpectedCall("current_time", {})
    tokyo = ExpectedCall("current_time", {"timezone": Exact("Asia/Tokyo")})
    paris = RanCall("current_time", {"timezone": "Europe/Paris"}, "...")
    assert match_calls([any_city, tokyo], [TOKYO, paris], BUILTIN_DEFAULTS) == [1, 0]


@given(st.permutations(range(4)), st.sets(st.integers(0, 3)))
def test_the_verdict_does_not_depend_on_the_order_of_the_calls(
    order: list[int], dropped: set[int]
) -> None:
    item = BY_ID["builtin-multi-four-cities"]
    zones = ["Europe/Paris", "Asia/Tokyo", "America/New_York", "Australia/Sydney"]
    calls = [
        RanCall("current_time", {"timezone": z}, f"Tuesday 2026-03-10 0{i}:1{i}:00 in {z}")
        for i, z in enumerate(zones)
        if i not in dropped
    ]
    answer = ", ".join(f"0{i}:1{i}" for i in range(4))
    expected = _score(item, RanTurn(tuple(calls), answer, "answer"))
    shuffled = tuple(calls[i] for i in order if i < len(calls))
    assert _score(item, RanTurn(shuffled, answer, "answer")) == expected
    assert expected == ((not dropped),) * 3


def test_tally_counts_each_metric_over_its_kinds() -> None:
    single = BY_ID["builtin-calc-17x23"]
    none = BY_ID["builtin-none-hi"]
    scored = [
        (single, score_item(single, [RanTurn((), "391", "answer")], BUILTIN_DEFAULTS)),
        (none, score_item(none, [RanTurn((), "Hello!", "answer")], BUILTIN_DEFAULTS)),
    ]
    counts = tally(scored)
    assert counts["tool_calls"] == (0, 1)
    assert counts["no_call"] == (1, 1)
    assert counts["all_parts"] == (0, 0)
    assert counts["answer"] == (2, 2)


# ---------------------------------------------------------------- the runner


def test_the_runner_runs_three_items_end_to_end_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = ["builtin-follow-12x12-add6", "shop-multi-two-statuses", "devbox-none-hi"]
    turns = [  # one per model request, in the suite's order of the items
        {"tool_calls": [{"name": "calculate", "arguments": {"expression": "12*12"}}]},
        {"text": "12*12 = 144."},
        {"tool_calls": [{"name": "calculate", "arguments": {"expression": "144 + 6"}}]},
        {"text": "That makes 150."},
        {
            "tool_calls": [
                {"name": "get_order", "arguments": {"order_id": "ORD-10501"}},
                {"name": "get_order", "arguments": {"order_id": "ORD-10522"}},
            ]
        },
        {"text": "ORD-10501 has shipped; ORD-10522 is pending payment."},
        {"text": "Hi! How can I help?"},
    ]
    assert [item.id for item in ITEMS if item.id in chosen] == chosen
    script = tmp_path / "script.json"
    script.write_text(json.dumps(turns))
    out = tmp_path / "out.jsonl"
    argv = ["--model", f"scripted:{script}", "--out", str(out), "--ids", *chosen]
    assert run_requests(argv) == 0
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in records] == chosen
    assert all(r["score"]["calls_right"] and r["score"]["answer_right"] for r in records)
    follow_up = records[0]["turns"]
    assert [t["calls"][0]["result"] for t in follow_up] == ["12*12 = 144", "144 + 6 = 150"]
    assert records[1]["turns"][0]["stop_reason"] == "answer"
    table = capsys.readouterr().out
    assert "3 of 3 selected items run" in table
    assert "needs a tool: the right call(s)" in table
    # Run again: every id is already there, so the script (now exhausted) is never asked.
    assert run_requests(argv) == 0
    assert len(out.read_text().splitlines()) == 3


def test_the_runner_runs_two_models_item_by_item_in_shards_and_compares_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = ["builtin-none-your-name", "devbox-none-hi"]
    greeting = [{"text": "Hi! How can I help?"}]
    scripts = {}
    for name in ("one", "two"):
        scripts[name] = tmp_path / f"{name}.json"
        # Each shard's model answers one item: its script has one reply.
        scripts[name].write_text(json.dumps(greeting))
    out = tmp_path / "out.jsonl"
    models = [f"scripted:{scripts['one']}", f"scripted:{scripts['two']}"]
    argv = ["--model", *models, "--out", str(out), "--ids", *chosen]
    assert run_requests([*argv, "--shard", "0/2"]) == 0
    capsys.readouterr()
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [(r["id"], r["model"]) for r in records] == [(chosen[0], m) for m in models]
    for name in ("one", "two"):
        scripts[name].write_text(json.dumps(greeting))
    assert run_requests([*argv, "--shard", "1/2"]) == 0
    capsys.readouterr()
    # Run again whole: nothing left to run, and both models side by side on both items.
    assert run_requests(argv) == 0
    table = capsys.readouterr().out
    side_by_side = table[table.index("side by side on the 2 items every model ran") :]
    assert all(model in side_by_side for model in models)
    with pytest.raises(SystemExit):
        run_requests([*argv, "--shard", "2/2"])


def test_the_answer_step_is_scored_alone_from_the_expected_calls_results(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    chosen = ["builtin-time-tokyo", "builtin-calc-tip", "assistant-calendar-tomorrow"]
    replies = [  # one per item, in the suite's order: the calls were made by the bench
        {"text": "It is 23:25 in Tokyo."},
        {"tool_calls": [{"name": "calculate", "arguments": {"expression": "1"}}]},
        {"text": "Yes, you have two events tomorrow."},  # which ones is left out
    ]
    assert [item.id for item in ITEMS if item.id in chosen] == chosen
    script = tmp_path / "script.json"
    script.write_text(json.dumps(replies))
    out = tmp_path / "out.jsonl"
    argv = ["--model", f"scripted:{script}", "--split", "all", "--out", str(out), "--ids", *chosen]
    assert run_answers(argv) == 0
    rows = {row["id"]: row for row in map(json.loads, out.read_text().splitlines())}
    assert [rows[i]["right"] for i in chosen] == [True, False, False]
    assert rows["assistant-calendar-tomorrow"]["answer"].startswith("Yes")
    assert rows["builtin-calc-tip"]["calls"] == 1
    table = capsys.readouterr().out
    assert "called again: 1" in table
    # Run again: every id is there, so the script (now exhausted) is never asked.
    assert run_answers(argv) == 0
    assert len(out.read_text().splitlines()) == 3
