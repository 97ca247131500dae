"""The lenient JSON transducer: strict JSON passes through unchanged, what models get wrong is
rewritten locally, and nothing it emits ever changes, whatever the chunking."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire.textcalls._json import LenientJson, ValueKind, normalize_object


class _Sink:
    def on_key(self, key: str) -> bool:
        return True

    def on_begin(self, key: str | int | None, kind: ValueKind) -> bool:
        return True

    def on_end(self) -> bool:
        return True


def transduce(text: str, chunk: int = 0, **options: Any) -> tuple[str, LenientJson]:
    """Feed `text` whole, or `chunk` characters at a time (the buffer grows as in a scanner)."""
    output: list[str] = []
    machine = LenientJson(_Sink(), **options)
    machine.sink = output
    if chunk == 0:
        machine.feed(text, 0)
    else:
        for start in range(0, len(text), chunk):
            machine.feed(text[start : start + chunk], 0)
    return "".join(output), machine


@pytest.mark.parametrize(
    ("lenient", "strict"),
    [
        ("{'a': True, 'b': None, 'c': False}", '{"a": true, "b": null, "c": false}'),
        ("{'q': \"what's up\", 'r': 'say \"hi\"'}", '{"q": "what\'s up", "r": "say \\"hi\\""}'),
        ('{"a": [1, 2,], "b": {"c": 1,},}', '{"a": [1, 2], "b": {"c": 1}}'),
        ('{a: 1, b_2: "x"}', '{"a": 1, "b_2": "x"}'),
        ('{"t": (1, "a")}', '{"t": [1, "a"]}'),
        ('{"n": 0x1F, "m": 1_000, "f": .5, "g": +2}', '{"n": 31, "m": 1000, "f": 0.5, "g": 2}'),
        ('{"s": "line\none\ttab"}', '{"s": "line\\none\\ttab"}'),
        ('{"re": "\\d+\\.\\w"}', '{"re": "\\\\d+\\\\.\\\\w"}'),
        ('{"x": "\\x41\\u00e9\\U0001F600"}', '{"x": "\\u0041\\u00e9\U0001f600"}'),
        ('{"s": """tri"ple\nquoted"""}', '{"s": "tri\\"ple\\nquoted"}'),
        ("{'e': '', 'f': \"\"}", '{"e": "", "f": ""}'),
    ],
)
def test_lenient_text_becomes_strict_json(lenient: str, strict: str) -> None:
    for chunk in (0, 1, 3):
        assert transduce(lenient, chunk)[0] == strict
    json.loads(strict)


@pytest.mark.parametrize(
    "broken",
    ['{"a": 1 "b": 2}', '{"a": tru}', '{"a": x}', '{"a" 1}', '{"a": [1,, 2]}', '{"a": }'],
)
def test_what_cannot_be_read_is_an_error(broken: str) -> None:
    _, machine = transduce(broken)
    assert machine.error is not None and not machine.done
    assert normalize_object(broken) is None


def test_python_arguments_become_an_object() -> None:
    text = "(\"dogs\", limit = 5, flag=True, where=(1, 'a'), )"
    out, machine = transduce(text, call_args=True, positional=("query", "limit"))
    assert machine.done
    assert json.loads(out) == {"query": "dogs", "limit": 5, "flag": True, "where": [1, "a"]}


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("(1, 2, 3)", "positional"),
        ("(a b)", "expected '='"),
        ("(x=g(1))", "not a JSON or Python literal"),
    ],
)
def test_python_arguments_that_cannot_be_read(text: str, error: str) -> None:
    _, machine = transduce(text, call_args=True, positional=("query", "limit"))
    assert machine.error is not None and error in machine.error


def test_it_stops_at_the_end_of_the_value() -> None:
    machine = LenientJson(_Sink())
    assert machine.feed('{"a": 1} trailing', 0) == len('{"a": 1}')
    assert machine.done


def test_normalize_object_wants_exactly_one_object() -> None:
    assert normalize_object(' {"a": 1} ') == '{"a": 1}'
    assert normalize_object('{"a": 1} extra') is None
    assert normalize_object("[1]") is None


json_documents = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(st.text(), json_documents, max_size=4), st.booleans(), st.integers(1, 9))
def test_strict_json_passes_through_character_for_character(
    value: dict[str, Any], ascii_only: bool, chunk: int
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)
    assert transduce(text, chunk)[0] == text


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(st.text(), json_documents, max_size=4), st.integers(1, 9))
def test_python_literals_read_back_as_the_same_value(value: dict[str, Any], chunk: int) -> None:
    out, machine = transduce(repr(value), chunk)
    assert machine.done and json.loads(out) == value
