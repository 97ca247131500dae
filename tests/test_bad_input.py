"""Arbitrary input gets a clear error or a result, never a crash, and nothing is lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import InvalidArguments, UsageError, tool
from toolwire._assemble import ResponseBuilder
from toolwire._redact import REDACTED, redact
from toolwire.clock import IdSource
from toolwire.events import ResponseCompleted, ToolCallArgumentsDelta, ToolCallStarted
from toolwire.models import load_script

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(document=json_values)
def test_any_script_file_loads_or_is_refused_clearly(tmp_path_factory: Any, document: Any) -> None:
    path = Path(tmp_path_factory.mktemp("s")) / "turns.json"
    path.write_text(json.dumps(document))
    try:
        turns = load_script(path)
    except UsageError as error:
        assert str(path) in str(error)
    else:
        assert len(turns) == len(document)


@tool
def order(sku: str, quantity: int = 1, notes: list[str] | None = None) -> str:
    return sku


@settings(max_examples=300, deadline=None)
@given(
    arguments=st.dictionaries(st.sampled_from(["sku", "quantity", "notes", "extra"]), json_values)
)
def test_any_arguments_validate_or_name_their_errors(arguments: dict[str, Any]) -> None:
    try:
        validated = order.validate(arguments)
    except InvalidArguments as invalid:
        assert invalid.errors
        assert all(
            path.split(".")[0].split("[")[0] in arguments or path in {"sku", ""}
            for path, _ in invalid.errors
        )
    else:
        assert set(validated) == {"sku", "quantity", "notes"}


@settings(max_examples=300, deadline=None)
@given(
    chunks=st.lists(st.text(max_size=12), max_size=8),
    finish=st.sampled_from(["stop", "tool_calls", "length"]),
)
def test_any_streamed_arguments_assemble_without_raising(chunks: list[str], finish: Any) -> None:
    builder = ResponseBuilder(IdSource("run"))
    builder.add(ToolCallStarted(index=0, name="order"))
    for chunk in chunks:
        builder.add(ToolCallArgumentsDelta(index=0, delta=chunk))
    builder.add(ResponseCompleted(finish_reason=finish))
    [call] = builder.finish().message.tool_calls
    assert call.raw_arguments == "".join(chunks)
    if call.error is None:
        expected = json.loads(call.raw_arguments) if call.raw_arguments.strip() else {}
        assert expected == call.arguments
        assert isinstance(call.arguments, dict)


def test_redaction() -> None:
    cases = {
        "api_key=abcd1234efgh": f"api_key={REDACTED}",
        "Authorization: Bearer abc.def.ghijkl": f"Authorization: Bearer {REDACTED}",
        'password: "hunter22"': f'password: "{REDACTED}"',
        "postgres://bob:s3cret@host/db": f"postgres://bob:{REDACTED}@host/db",
        "key sk-abcdefghijklmnopqrstu": f"key {REDACTED}",
        "AKIAABCDEFGHIJKLMNOP in use": f"{REDACTED} in use",
        "nothing secret: 42 items": "nothing secret: 42 items",
    }
    for text, expected in cases.items():
        assert redact(text) == expected
    assert redact("user tok-99999999 failed", ["tok-99999999"]) == f"user {REDACTED} failed"
