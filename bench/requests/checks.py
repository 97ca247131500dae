"""The checks an item makes: on a call's arguments (value checks) and on an answer or a tool's
result (text checks), each parsed from its JSON form in items.jsonl.

Value checks (one argument; an argument left out counts as the schema's default):
    plain value            same as {"exact": value}
    {"exact": v}           equal; strings compare case- and space-insensitively, 10 == 10.0
    {"contains": s | [s]}  the string (or some element of a list) holds each part, any case
    {"number": x, "rtol"}  a number (or numeric string) within the relative tolerance (1e-3)
    {"one_of": [...]}      any of these (plain values or checks)
    {"evaluates_to": x}    an arithmetic expression whose value is x (within rtol, 1e-6)
    {"is_default": true}   left out, or the schema's default: the request does not ask otherwise

Text checks (an answer, or a tool's result):
    {"number": x, "rtol", "atol"}   some number written in the text is x (rtol 0.005); digits of
                                    a clock time ("12:30") or a date are not numbers here
    {"any": [s, ...]}               at least one phrase appears (case and accents ignored)
    {"none": [s, ...]}              no phrase appears
    {"from_result": i, "pattern"}   answers only: what `pattern` (its group 1, else the match)
                                    finds in the result of the turn's expected call i appears
                                    in the answer; with "time": true an HH:MM also counts when
                                    written on a 12-hour clock ("14:05" as "2:05")
A text check may carry "computed": true when its fact is worked out from the tools' results
rather than quoted from them (the suite's tests look for every other fact in the results).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from toolwire.builtin._arithmetic import evaluate
from toolwire.errors import ToolError

__all__ = [
    "MISSING",
    "CheckError",
    "Contains",
    "EvaluatesTo",
    "Exact",
    "FromResult",
    "HasAny",
    "HasNone",
    "HasNumber",
    "IsDefault",
    "Number",
    "OneOf",
    "TextCheck",
    "ValueCheck",
    "normalize",
    "numbers_in",
    "parse_text_check",
    "parse_value_check",
]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""An argument left out whose parameter has no default."""


def normalize(text: str) -> str:
    """Lower case, accents dropped, runs of spaces as one, typographic quotes made plain."""
    decomposed = unicodedata.normalize("NFKD", text.replace("\u2019", "'"))
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, str) and isinstance(b, str):
        return normalize(a) == normalize(b)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


def _as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip().replace(",", ""))
        except ValueError:
            return None
    return None


def _close(found: float, expected: float, rtol: float, atol: float = 0.0) -> bool:
    return abs(found - expected) <= max(rtol * abs(expected), atol, 1e-12)


@dataclass(frozen=True, slots=True)
class Exact:
    value: Any

    def passes(self, value: Any, default: Any) -> bool:
        return value is not MISSING and _same(value, self.value)


@dataclass(frozen=True, slots=True)
class Contains:
    parts: tuple[str, ...]

    def passes(self, value: Any, default: Any) -> bool:
        if value is MISSING or value is None:
            return False
        texts = [str(v) for v in value] if isinstance(value, list) else [str(value)]
        return all(any(normalize(p) in normalize(t) for t in texts) for p in self.parts)


@dataclass(frozen=True, slots=True)
class Number:
    value: float
    rtol: float = 1e-3

    def passes(self, value: Any, default: Any) -> bool:
        number = _as_number(value)
        return number is not None and _close(number, self.value, self.rtol)


@dataclass(frozen=True, slots=True)
class EvaluatesTo:
    value: float
    rtol: float = 1e-6

    def passes(self, value: Any, default: Any) -> bool:
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            return False
        try:
            result = evaluate(str(value))
        except ToolError:
            return False
        return _close(float(result), self.value, self.rtol)


@dataclass(frozen=True, slots=True)
class IsDefault:
    def passes(self, value: Any, default: Any) -> bool:
        return value is MISSING or _same(value, default)


@dataclass(frozen=True, slots=True)
class OneOf:
    options: tuple[ValueCheck, ...]

    def passes(self, value: Any, default: Any) -> bool:
        return any(option.passes(value, default) for option in self.options)


ValueCheck: TypeAlias = Exact | Contains | Number | EvaluatesTo | IsDefault | OneOf


# A number as people write it: 1,234.5 or 12 or -3.25 or 1e+06; not the digits inside a word.
# The hours and minutes of a clock time ("12:30") are not numbers here, so an answer's time does
# not pass for a computed value.
_NUMBER = re.compile(
    r"(?<![\w.,])(?<!\d:)([-\u2212]?)(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?([eE][-+]?\d+)?(?!\d)"
)
_CLOCK_AFTER = re.compile(r":\d")


def numbers_in(text: str) -> list[float]:
    """The numbers written in a text."""
    found = []
    for match in _NUMBER.finditer(text):
        if _CLOCK_AFTER.match(text, match.end()):
            continue
        sign, whole, fraction, exponent = match.groups()
        number = float(whole.replace(",", "") + (fraction or "") + (exponent or ""))
        found.append(-number if sign else number)
    return found


@dataclass(frozen=True, slots=True)
class HasNumber:
    value: float
    rtol: float = 0.005
    atol: float = 0.0
    computed: bool = False

    def passes(self, text: str, results: Sequence[str | None] = ()) -> bool:
        return any(_close(n, self.value, self.rtol, self.atol) for n in numbers_in(text))


@dataclass(frozen=True, slots=True)
class HasAny:
    phrases: tuple[str, ...]
    computed: bool = False

    def passes(self, text: str, results: Sequence[str | None] = ()) -> bool:
        plain = normalize(text)
        return any(normalize(p) in plain for p in self.phrases)


@dataclass(frozen=True, slots=True)
class HasNone:
    phrases: tuple[str, ...]

    def passes(self, text: str, results: Sequence[str | None] = ()) -> bool:
        plain = normalize(text)
        return not any(normalize(p) in plain for p in self.phrases)


@dataclass(frozen=True, slots=True)
class FromResult:
    call: int
    pattern: str
    time: bool = False

    def value(self, result: str) -> str | None:
        """What the pattern finds in a result, or None."""
        match = re.search(self.pattern, result)
        if match is None:
            return None
        return match.group(1) if match.re.groups else match.group(0)

    def passes(self, text: str, results: Sequence[str | None] = ()) -> bool:
        """`results[i]`: the result of the call matched to expected call i (None: unmatched)."""
        result = results[self.call] if self.call < len(results) else None
        found = None if result is None else self.value(result)
        if found is None:
            return False
        if self.time:
            return any(re.search(rf"(?<!\d){re.escape(f)}(?!\d)", text) for f in _clock(found))
        return normalize(found) in normalize(text)


def _clock(hhmm: str) -> list[str]:
    """The ways an HH:MM is written: 14:05, and 2:05 on a 12-hour clock; 09:05 also as 9:05."""
    hours, _, minutes = hhmm.partition(":")
    if not (hours.isdigit() and minutes.isdigit()):
        return [hhmm]
    hour = int(hours)
    twelve = hour % 12 or 12
    return sorted({hhmm, f"{hour}:{minutes}", f"{twelve}:{minutes}"})


TextCheck: TypeAlias = HasNumber | HasAny | HasNone | FromResult


class CheckError(ValueError):
    """A check in items.jsonl that is not well formed."""


def _options(spec: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = set(spec) - allowed
    if unknown:
        raise CheckError(f"{where}: unknown keys {sorted(unknown)} in {dict(spec)}")


def _tolerance(spec: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = spec.get(key, default)
    if not isinstance(value, int | float) or isinstance(value, bool) or value < 0:
        raise CheckError(f"{where}: {key} must be a non-negative number")
    return float(value)


def _target(spec: Mapping[str, Any], key: str, where: str) -> float:
    value = spec[key]
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise CheckError(f"{where}: {key} must be a number, not {value!r}")
    return float(value)


def _phrases(value: Any, where: str) -> tuple[str, ...]:
    phrases = (value,) if isinstance(value, str) else value
    if not (
        isinstance(phrases, list | tuple)
        and phrases
        and all(isinstance(p, str) and p.strip() for p in phrases)
    ):
        raise CheckError(f"{where}: expected a non-empty string or list of strings, not {value!r}")
    return tuple(phrases)


def parse_value_check(spec: Any, where: str) -> ValueCheck:
    if not isinstance(spec, dict):
        return Exact(spec)
    kinds = {"exact", "contains", "number", "one_of", "evaluates_to", "is_default"} & spec.keys()
    if len(kinds) != 1:
        raise CheckError(f"{where}: a value check needs exactly one kind, got {dict(spec)}")
    (kind,) = kinds
    if kind == "exact":
        _options(spec, {"exact"}, where)
        return Exact(spec["exact"])
    if kind == "contains":
        _options(spec, {"contains"}, where)
        return Contains(_phrases(spec["contains"], where))
    if kind == "number":
        _options(spec, {"number", "rtol"}, where)
        return Number(_target(spec, "number", where), _tolerance(spec, "rtol", 1e-3, where))
    if kind == "evaluates_to":
        _options(spec, {"evaluates_to", "rtol"}, where)
        value = _target(spec, "evaluates_to", where)
        return EvaluatesTo(value, _tolerance(spec, "rtol", 1e-6, where))
    if kind == "is_default":
        _options(spec, {"is_default"}, where)
        if spec["is_default"] is not True:
            raise CheckError(f"{where}: is_default takes true")
        return IsDefault()
    _options(spec, {"one_of"}, where)
    options = spec["one_of"]
    if not isinstance(options, list) or not options:
        raise CheckError(f"{where}: one_of takes a non-empty list")
    return OneOf(tuple(parse_value_check(o, f"{where}.one_of") for o in options))


def parse_text_check(spec: Any, where: str) -> TextCheck:
    if not isinstance(spec, dict):
        raise CheckError(f"{where}: a text check is an object, not {spec!r}")
    kinds = {"number", "any", "none", "from_result"} & spec.keys()
    if len(kinds) != 1:
        raise CheckError(f"{where}: a text check needs exactly one kind, got {dict(spec)}")
    (kind,) = kinds
    computed = spec.get("computed", False)
    if not isinstance(computed, bool):
        raise CheckError(f"{where}: computed takes true or false")
    if kind == "number":
        _options(spec, {"number", "rtol", "atol", "computed"}, where)
        return HasNumber(
            _target(spec, "number", where),
            _tolerance(spec, "rtol", 0.005, where),
            _tolerance(spec, "atol", 0.0, where),
            computed,
        )
    if kind == "any":
        _options(spec, {"any", "computed"}, where)
        return HasAny(_phrases(spec["any"], where), computed)
    if kind == "none":
        _options(spec, {"none"}, where)
        return HasNone(_phrases(spec["none"], where))
    _options(spec, {"from_result", "pattern", "time"}, where)
    call, pattern, time = spec["from_result"], spec.get("pattern"), spec.get("time", False)
    if not isinstance(call, int) or isinstance(call, bool) or call < 0:
        raise CheckError(f"{where}: from_result takes the index of an expected call")
    if not isinstance(pattern, str) or not isinstance(time, bool):
        raise CheckError(f"{where}: from_result needs a string pattern (and time: true/false)")
    try:
        re.compile(pattern)
    except re.error as error:
        raise CheckError(f"{where}: bad pattern {pattern!r}: {error}") from None
    return FromResult(call, pattern, time)
