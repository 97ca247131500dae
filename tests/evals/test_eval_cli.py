from __future__ import annotations

import json
from pathlib import Path

import pytest

from toolwire.cli import main
from toolwire.evals.bfcl import main as bfcl_main

ITEM = {
    "id": "s0",
    "category": "simple",
    "tools": [
        {
            "name": "f",
            "description": "",
            "parameters": {"type": "object", "properties": {"x": {"type": "integer"}}},
        }
    ],
    "messages": [{"role": "user", "content": "call f with 1"}],
    "expected": [[{"name": "f", "arguments": {"x": [1]}}]],
}


def test_toolwire_eval_scores_and_resumes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "d.jsonl"
    items = [
        ITEM,
        {**ITEM, "id": "s1"},
        {**ITEM, "id": "i0", "category": "irrelevance", "expected": []},
    ]
    dataset.write_text("".join(json.dumps(i) + "\n" for i in items))
    turns = tmp_path / "turns.json"
    call = {"tool_calls": [{"name": "f", "arguments": {"x": 1}}]}
    turns.write_text(json.dumps([call, {"text": "hm"}, {"text": "no tool for that"}]))
    out = tmp_path / "p.jsonl"
    args = ["eval", str(dataset), "--model", f"scripted:{turns}", "--out", str(out)]
    assert main(args) == 0
    captured = capsys.readouterr()
    assert "[1/3] ok s0" in captured.err and "[2/3] -- s1" in captured.err
    assert "simple" in captured.out and "50.0%" in captured.out and "irrelevance" in captured.out
    # Resuming asks nothing again: a new scripted model would answer s0 with "hm" otherwise.
    assert main([*args, "--quiet"]) == 0
    assert "50.0%" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 3
    # --fresh starts over: the script's first turn (a call) now answers the irrelevance item.
    assert main([*args, "--categories", "irrelevance", "--fresh", "-q"]) == 0
    assert "0.0%" in capsys.readouterr().out
    assert len(out.read_text().splitlines()) == 1


def test_bad_input_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "p")]) == 2
    assert "dataset not found" in capsys.readouterr().err
    assert (
        bfcl_main([str(tmp_path / "o.jsonl"), "--source", str(tmp_path), "--categories", "nope"])
        == 2
    )
    assert "unknown BFCL categories" in capsys.readouterr().err
