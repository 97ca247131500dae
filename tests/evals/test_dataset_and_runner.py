from __future__ import annotations

import contextlib
import json
import zipfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import UsageError
from toolwire.evals import (
    EvalItem,
    Prediction,
    convert_bfcl,
    format_report,
    item_to_json,
    load_dataset,
    model_predictor,
    parse_item,
    read_predictions,
    run_eval,
    score,
    select_items,
)
from toolwire.events import ModelEvent
from toolwire.models import ModelRequest, ScriptedCall, ScriptedModel, Turn

ITEM = {
    "id": "a1",
    "category": "simple",
    "tools": [
        {
            "name": "f",
            "description": "d",
            "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
        }
    ],
    "messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}],
    "expected": [[{"name": "f", "arguments": {"x": [1]}}]],
}


def write(path: Path, items: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(i) + "\n" for i in items), encoding="utf-8")
    return path


def test_items_round_trip(tmp_path: Path) -> None:
    (loaded,) = load_dataset(write(tmp_path / "d.jsonl", [ITEM]))
    assert loaded.messages[0].role == "system" and loaded.messages[1].text == "u"
    assert loaded.expected[0][0].arguments == {"x": (1,)}
    assert item_to_json(loaded) == ITEM


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"id": ""}, "'id'"),
        ({"tools": {}}, "'tools' must be a list"),
        ({"tools": [{"name": "f"}]}, r"tools\[0\]"),
        ({"messages": []}, "'messages'"),
        ({"messages": [{"role": "robot", "content": "x"}]}, r"messages\[0\]"),
        ({"expected": {}}, "'expected'"),
        ({"expected": [[]]}, r"expected\[0\]"),
        ({"expected": [[{"name": "f", "arguments": {"x": 1}}]]}, r"expected\[0\]\[0\]"),
        ({"expected": [[{"name": "f", "arguments": {"x": []}}]]}, r"expected\[0\]\[0\]"),
    ],
)
def test_bad_items_are_named_by_line(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    path = write(tmp_path / "d.jsonl", [ITEM, {**ITEM, "id": "a2", **change}])
    with pytest.raises(UsageError, match=rf"d.jsonl:2: .*{message}"):
        load_dataset(path)


def test_duplicate_ids_and_unreadable_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="duplicate id 'a1'"):
        load_dataset(write(tmp_path / "d.jsonl", [ITEM, ITEM]))
    with pytest.raises(UsageError, match="not found"):
        load_dataset(tmp_path / "missing.jsonl")
    (tmp_path / "bad.jsonl").write_text('{"id": \n', encoding="utf-8")
    with pytest.raises(UsageError, match=r"bad\.jsonl:1: not valid JSON"):
        load_dataset(tmp_path / "bad.jsonl")


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=12))  # fmt: skip
def test_arbitrary_json_is_an_item_or_a_usage_error(data: Any) -> None:
    with contextlib.suppress(UsageError):
        parse_item(data, "x")


def make_items(n: int, category: str = "simple") -> list[EvalItem]:
    return [
        parse_item({**ITEM, "id": f"{category}{i}", "category": category}, "t") for i in range(n)
    ]


def test_select_items_takes_the_first_of_each_category() -> None:
    items = make_items(3) + make_items(3, "parallel")
    assert [i.id for i in select_items(items, limit=2)] == [
        "simple0",
        "simple1",
        "parallel0",
        "parallel1",
    ]
    assert [i.id for i in select_items(items, categories=["parallel"], limit=1)] == ["parallel0"]
    with pytest.raises(UsageError, match="no items in categories"):
        select_items(items, categories=["irrelevance"])
    with pytest.raises(UsageError, match="at least 1"):
        select_items(items, limit=0)


def test_model_predictions_are_scored(tmp_path: Path) -> None:
    items = make_items(2)
    model = ScriptedModel(
        [Turn(tool_calls=[ScriptedCall(name="f", arguments={"x": 1})]), Turn(text="no idea")]
    )
    predictions = anyio.run(run_eval, items, model_predictor(model), tmp_path / "p.jsonl")
    assert [len(p.calls) for p in predictions] == [1, 0]
    assert predictions[0].calls[0].arguments == {"x": 1} and predictions[1].text == "no idea"
    report = score(items, predictions)
    assert (report.correct, report.total) == (1, 2)
    assert "simple" in format_report(report) and "50.0%" in format_report(report)
    assert list(read_predictions(tmp_path / "p.jsonl")) == ["simple0", "simple1"]


def test_unparsable_arguments_are_kept_and_scored_wrong(tmp_path: Path) -> None:
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="f", arguments='{"x": 1')])])
    (prediction,) = anyio.run(run_eval, make_items(1), model_predictor(model), tmp_path / "p.jsonl")
    assert prediction.calls[0].arguments is None and prediction.raw_arguments == ('{"x": 1',)
    assert score(make_items(1), [prediction]).correct == 0


def test_a_run_resumes_and_drops_a_torn_line(tmp_path: Path) -> None:
    items = make_items(3)
    out = tmp_path / "p.jsonl"
    first = Prediction(id="simple0", category="simple", text="kept")
    out.write_text(json.dumps(first.to_json()) + '\n{"id": "simple1", "cat', encoding="utf-8")
    asked: list[str] = []

    async def predictor(item: EvalItem) -> Prediction:
        asked.append(item.id)
        return Prediction(id=item.id, category=item.category)

    predictions = anyio.run(run_eval, items, predictor, out)
    assert asked == ["simple1", "simple2"]
    assert predictions[0].text == "kept"
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == [
        "simple0",
        "simple1",
        "simple2",
    ]


def test_provider_errors_are_recorded_not_raised(tmp_path: Path) -> None:
    class Failing:
        name = "failing"

        async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
            from toolwire import ProviderError

            raise ProviderError("bad request", retryable=False)
            yield  # pragma: no cover

    (prediction,) = anyio.run(
        run_eval, make_items(1), model_predictor(Failing()), tmp_path / "p.jsonl"
    )
    assert prediction.error == "bad request"


def fake_bfcl(root: Path) -> Path:
    data = root / "bfcl_eval" / "data"
    (data / "possible_answer").mkdir(parents=True)
    function = {"name": "math.area", "description": "d", "parameters": {"type": "dict", "properties": {
        "r": {"type": "float", "description": "radius"},
        "pts": {"type": "tuple", "items": {"type": "dict", "properties": {"v": {"type": "any"}}}},
        "flag": {"type": "boolean", "optional": True}}, "required": ["r"]}}  # fmt: skip
    question = {
        "id": "simple_python_0",
        "question": [[{"role": "user", "content": "q"}]],
        "function": [function],
    }
    (data / "BFCL_v4_simple_python.json").write_text(json.dumps(question) + "\n")
    answer = {
        "id": "simple_python_0",
        "ground_truth": [{"math.area": {"r": [2.0], "flag": ["", True]}}],
    }
    (data / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(answer) + "\n")
    irrelevant = {**question, "id": "irrelevance_0"}
    (data / "BFCL_v4_irrelevance.json").write_text(json.dumps(irrelevant) + "\n")
    return root


def test_bfcl_conversion_from_a_directory_and_a_wheel(tmp_path: Path) -> None:
    root = fake_bfcl(tmp_path / "src")
    out = tmp_path / "bfcl.jsonl"
    assert convert_bfcl(out, source=root, categories=["simple", "irrelevance"]) == 2
    simple, irrelevance = load_dataset(out)
    tool = simple.tools[0]
    assert tool.name == "math_area"
    assert tool.parameters["type"] == "object" and tool.parameters["required"] == ["r"]
    properties = tool.parameters["properties"]
    assert properties["r"]["type"] == "number"
    assert properties["pts"] == {
        "type": "array",
        "items": {"type": "object", "properties": {"v": {"type": "string"}}},
    }
    assert "optional" not in properties["flag"]
    assert simple.expected[0][0].name == "math_area"
    assert (simple.category, irrelevance.category, irrelevance.expected) == (
        "simple",
        "irrelevance",
        (),
    )
    wheel = tmp_path / "bfcl_eval-1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path in (root / "bfcl_eval").rglob("*.json"):
            archive.write(path, path.relative_to(root).as_posix())
    out2 = tmp_path / "bfcl2.jsonl"
    convert_bfcl(out2, source=wheel, categories=["simple", "irrelevance"])
    assert out2.read_text() == out.read_text()


def test_bfcl_conversion_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown BFCL categories"):
        convert_bfcl(tmp_path / "o.jsonl", source=tmp_path, categories=["live_simple"])
    with pytest.raises(UsageError, match="not found"):
        convert_bfcl(tmp_path / "o.jsonl", source=tmp_path, categories=["simple"])
    with pytest.raises(UsageError, match="neither"):
        convert_bfcl(tmp_path / "o.jsonl", source=tmp_path / "nothing.txt")
    assert not (tmp_path / "o.jsonl").exists()
