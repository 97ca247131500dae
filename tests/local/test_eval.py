"""`toolwire eval` on the default model: a call where a tool fits, none where no tool does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolwire.builtin import convert_units
from toolwire.cli import main

CONVERT = {
    "name": convert_units.definition.name,
    "description": convert_units.definition.description,
    "parameters": dict(convert_units.definition.parameters),
}


def test_toolwire_eval_on_the_embedded_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    items = [
        {
            "id": "convert",
            "category": "simple",
            "tools": [CONVERT],
            "messages": [{"role": "user", "content": "Convert 100 km to miles."}],
            "expected": [
                [
                    {
                        "name": "convert_units",
                        "arguments": {
                            "value": [100, 100.0],
                            "from_unit": ["km", "kilometers"],
                            "to_unit": ["mi", "miles"],
                        },
                    }
                ]
            ],
        },
        {
            "id": "hamlet",
            "category": "irrelevance",
            "tools": [CONVERT],
            "messages": [{"role": "user", "content": "Who wrote Hamlet?"}],
            "expected": [],
        },
    ]
    dataset = tmp_path / "d.jsonl"
    dataset.write_text("".join(json.dumps(item) + "\n" for item in items))
    out = tmp_path / "p.jsonl"
    assert main(["eval", str(dataset), "--model", "local", "--out", str(out), "-q"]) == 0
    report = capsys.readouterr().out
    assert "simple" in report and "irrelevance" in report and "100.0%" in report
    predictions = {p["id"]: p for p in map(json.loads, out.read_text().splitlines())}
    assert [c["name"] for c in predictions["convert"]["calls"]] == ["convert_units"]
    assert predictions["hamlet"]["calls"] == [] and "Shakespeare" in predictions["hamlet"]["text"]
    assert predictions["convert"]["tokens"]["input"] > 0
