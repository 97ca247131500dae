from __future__ import annotations

from typing import Any

import pytest

from toolwire.evals import PredictedCall, parse_item, score_item

TOOLS = [
    {
        "name": "area",
        "description": "",
        "parameters": {
            "type": "object",
            "properties": {
                "base": {"type": "integer"},
                "height": {"type": "number"},
                "unit": {"type": "string"},
                "sides": {"type": "array", "items": {"type": "integer"}},
                "options": {"type": "object"},
                "points": {"type": "array", "items": {"type": "object"}},
                "exact": {"type": "boolean"},
            },
            "required": ["base"],
        },
    },
    {"name": "other", "description": "", "parameters": {"type": "object", "properties": {}}},
]


def item(expected: list[Any]) -> Any:
    return parse_item(
        {
            "id": "x",
            "category": "c",
            "tools": TOOLS,
            "messages": [{"role": "user", "content": "q"}],
            "expected": expected,
        },
        "test",
    )


def call(name: str = "area", **arguments: Any) -> PredictedCall:
    return PredictedCall(name=name, arguments=arguments)


ONE = item(
    [
        [
            {
                "name": "area",
                "arguments": {"base": [10], "height": [5.0, ""], "unit": ["Square meters", ""]},
            }
        ]
    ]
)


@pytest.mark.parametrize(
    ("calls", "correct"),
    [
        ([call(base=10)], True),
        ([call(base=10, height=5)], True),  # an integer is accepted for a number
        ([call(base=10, height=5.0, unit="square-meters")], True),  # strings are normalised
        ([call(base=10, unit="SQUARE METERS")], True),
        ([call(base=10.0)], False),  # a float is not an integer
        ([call(base="10")], False),
        ([call(base=True)], False),  # nor is a bool
        ([call(base=11)], False),
        ([call(height=5)], False),  # required parameter missing
        ([call(base=10, exact=True)], False),  # declared but not expected
        ([call(base=10, colour="red")], False),  # not declared
        ([call("other")], False),
        ([call(base=10), call(base=10)], False),  # wrong number of calls
        ([], False),
        ([PredictedCall(name="area", arguments=None)], False),  # arguments did not parse
    ],
)
def test_single_call_rules(calls: list[PredictedCall], correct: bool) -> None:
    assert score_item(ONE, calls).correct is correct


def test_a_parameter_left_out_must_be_allowed_to_be() -> None:
    strict = item([[{"name": "area", "arguments": {"base": [10], "unit": ["m"]}}]])
    assert not score_item(strict, [call(base=10)]).correct
    assert "missing parameter 'unit'" in score_item(strict, [call(base=10)]).reason


def test_parallel_calls_match_in_any_order() -> None:
    both = item(
        [[
            {"name": "area", "arguments": {"base": [1]}},
            {"name": "area", "arguments": {"base": [2]}},
            {"name": "other", "arguments": {}},
        ]]
    )  # fmt: skip
    assert score_item(both, [call("other"), call(base=2), call(base=1)]).correct
    assert not score_item(both, [call("other"), call(base=2), call(base=2)]).correct
    assert not score_item(both, [call(base=1), call(base=2)]).correct


def test_any_acceptable_call_set_will_do() -> None:
    either = item(
        [[{"name": "area", "arguments": {"base": [1]}}], [{"name": "other", "arguments": {}}]]
    )
    assert score_item(either, [call("other")]).correct
    assert score_item(either, [call(base=1)]).correct
    assert not score_item(either, [call(base=2)]).correct


def test_irrelevance_means_no_call() -> None:
    none = item([])
    assert score_item(none, []).correct
    assert not score_item(none, [call(base=1)]).correct


def test_lists_objects_and_lists_of_objects() -> None:
    nested = item(
        [[{"name": "area", "arguments": {
            "base": [1],
            "sides": [[3, 4, 5]],
            "options": [{"mode": ["Fast", ""], "depth": [2]}],
            "points": [[{"x": [1]}, {"x": [2]}]],
        }}]]
    )  # fmt: skip
    good = {
        "sides": [3, 4, 5],
        "options": {"mode": "fast", "depth": 2},
        "points": [{"x": 1}, {"x": 2}],
    }
    assert score_item(nested, [call(base=1, **good)]).correct
    assert score_item(nested, [call(base=1, **{**good, "options": {"depth": 2}})]).correct
    for bad in (
        {"sides": [5, 4, 3]},
        {"sides": [3.0, 4, 5]},  # items keep their declared type
        {"options": {"depth": 2, "extra": 1}},
        {"options": {"mode": "fast"}},
        {"points": [{"x": 1}]},
        {"points": [{"x": 2}, {"x": 1}]},
    ):
        assert not score_item(nested, [call(base=1, **{**good, **bad})]).correct, bad


def test_variables_given_as_strings_pass_as_in_bfcl() -> None:
    variable = item([[{"name": "area", "arguments": {"base": ["my_base"]}}]])
    assert score_item(variable, [call(base="my_base")]).correct
