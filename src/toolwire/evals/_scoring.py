"""Scoring predicted calls with the Berkeley Function Calling Leaderboard's AST rules.

The rules, as BFCL applies them to Python-style function calls:
- the number of calls must equal the expected number; calls match in any order, each expected
  call taking the first unmatched prediction that passes (BFCL's greedy matching);
- a call matches when its name is the expected one, every required parameter is present, every
  parameter it passes is both declared and expected, each value has the declared JSON type
  (an integer is accepted for a `number`), and each value is one of the allowed values;
- strings compare after normalisation (case, spaces and `,./-_*^` ignored, `'` read as `"`),
  also inside lists and objects; an expected parameter left out must allow `""`;
- when no call is expected (irrelevance), any call is wrong.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from ..tools import ToolDefinition
from ._dataset import EvalItem, ExpectedCall

__all__ = ["PredictedCall", "Verdict", "score_item"]

_PYTHON_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "number": float,
    "boolean": bool,
    "array": list,
    "object": dict,
}
_IGNORED = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True, kw_only=True, slots=True)
class PredictedCall:
    name: str
    arguments: Mapping[str, Any] | None
    """None when the model's argument text did not parse as a JSON object."""


@dataclass(frozen=True, slots=True)
class Verdict:
    correct: bool
    reason: str = ""


def score_item(item: EvalItem, calls: Sequence[PredictedCall]) -> Verdict:
    if item.expects_no_call:
        if calls:
            return Verdict(False, f"called {', '.join(c.name for c in calls)}; no call expected")
        return Verdict(True)
    if not calls:
        return Verdict(False, "no call")
    tools = {tool.name: tool for tool in item.tools}
    reasons = []
    for call_set in item.expected:
        verdict = _match_set(call_set, calls, tools)
        if verdict.correct:
            return verdict
        reasons.append(verdict.reason)
    return Verdict(False, " | ".join(reasons))


def _match_set(
    expected: Sequence[ExpectedCall],
    calls: Sequence[PredictedCall],
    tools: Mapping[str, ToolDefinition],
) -> Verdict:
    if len(calls) != len(expected):
        return Verdict(False, f"{len(calls)} calls, expected {len(expected)}")
    used: set[int] = set()
    for want in expected:
        tool = tools.get(want.name)
        if tool is None:
            return Verdict(False, f"expected tool {want.name!r} is not among the item's tools")
        last = "no call left to match"
        for index, call in enumerate(calls):
            if index in used:
                continue
            last = _match_call(want, call, tool)
            if not last:
                used.add(index)
                break
        else:
            return Verdict(False, f"no call matches {want.name}: {last}")
    return Verdict(True)


def _match_call(want: ExpectedCall, call: PredictedCall, tool: ToolDefinition) -> str:
    """An empty string when `call` matches, else why not."""
    if call.name != want.name:
        return f"called {call.name!r}, expected {want.name!r}"
    if call.arguments is None:
        return "arguments are not a JSON object"
    properties: Mapping[str, Any] = tool.parameters.get("properties", {})
    for name in tool.parameters.get("required", ()):
        if name not in call.arguments:
            return f"missing required parameter {name!r}"
    for name, value in call.arguments.items():
        if name not in properties or name not in want.arguments:
            return f"unexpected parameter {name!r}"
        problem = _check_value(name, value, properties[name], want.arguments[name])
        if problem:
            return problem
    for name, allowed in want.arguments.items():
        if name not in call.arguments and "" not in allowed:
            return f"missing parameter {name!r}"
    return ""


def _check_value(name: str, value: Any, schema: Mapping[str, Any], allowed: Sequence[Any]) -> str:
    declared = schema.get("type", "string")
    expected_type = _PYTHON_TYPES.get(declared, str)
    item_type = None
    if declared == "array":
        item_type = _PYTHON_TYPES.get(schema.get("items", {}).get("type", "string"), str)
    if declared == "number" and type(value) is int:
        value = float(value)
    typed, is_variable = _type_check(value, allowed, expected_type, item_type)
    if not typed:
        return f"{name}: {value!r} is not of type {declared}"
    if not is_variable:
        if expected_type is dict:
            return _check_object(name, value, allowed)
        if expected_type is list and item_type is dict:
            return _check_object_list(name, value, allowed)
        if expected_type is str:
            ok = _norm(value) in [_norm(a) for a in allowed if isinstance(a, str)]
            return "" if ok else f"{name}: {value!r} not in {list(allowed)}"
        if expected_type is list:
            ok = _norm_list(value) in [_norm_list(a) for a in allowed]
            return "" if ok else f"{name}: {value!r} not in {list(allowed)}"
    return "" if value in allowed else f"{name}: {value!r} not in {list(allowed)}"


def _type_check(
    value: Any, allowed: Sequence[Any], expected_type: type, item_type: type | None
) -> tuple[bool, bool]:
    """(type is acceptable, the allowed values are variable names of another type).

    As in BFCL, a value whose type differs from the declared one still passes when it has the
    type of the allowed values (these then name a variable rather than give a literal)."""
    allowed_type = next((type(a) for a in allowed if a != ""), None)
    is_variable = allowed_type is not None and allowed_type is not expected_type
    if type(value) is expected_type:
        if item_type is None:
            return True, is_variable
        items = cast(list[Any], value)
        for candidate in allowed:
            if not isinstance(candidate, list) or all(
                _type_check(v, candidate, item_type, None)[0] for v in items
            ):
                return True, is_variable
        return False, is_variable
    if allowed_type is not None and type(value) is allowed_type:
        return True, True
    return False, is_variable


def _check_object(name: str, value: Mapping[str, Any], allowed: Sequence[Any]) -> str:
    problem = f"{name}: {value!r} not in {list(allowed)}"
    for candidate in allowed:
        if candidate == "" or not isinstance(candidate, dict):
            continue
        problem = _object_problem(name, value, candidate)
        if not problem:
            return ""
    return problem


def _object_problem(name: str, value: Mapping[str, Any], candidate: Mapping[str, Any]) -> str:
    for key, item in value.items():
        if key not in candidate:
            return f"{name}: unexpected key {key!r}"
        options = [_norm(o) if isinstance(o, str) else o for o in candidate[key]]
        if (_norm(item) if isinstance(item, str) else item) not in options:
            return f"{name}.{key}: {item!r} not in {candidate[key]}"
    for key, options in candidate.items():
        if key not in value and "" not in options:
            return f"{name}: missing key {key!r}"
    return ""


def _check_object_list(name: str, value: Sequence[Any], allowed: Sequence[Any]) -> str:
    problem = f"{name}: {value!r} not in {list(allowed)}"
    for candidate in allowed:
        if not isinstance(candidate, list) or len(candidate) != len(value):
            problem = f"{name}: wrong number of objects"
            continue
        problems = [
            _object_problem(name, v, c) if isinstance(v, dict) and isinstance(c, dict) else problem
            for v, c in zip(value, candidate, strict=True)
        ]
        problem = next((p for p in problems if p), "")
        if not problem:
            return ""
    return problem


def _norm(text: str) -> str:
    return _IGNORED.sub("", text).lower().replace("'", '"')


def _norm_list(value: Any) -> Any:
    if not isinstance(value, list | str):
        return value
    return [_norm(v) if isinstance(v, str) else v for v in value]
