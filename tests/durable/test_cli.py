"""The durable commands through the real entry point: submit, worker, runs, approve, logs."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import wait_until

TOOLS = '''
from toolwire import tool

@tool
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"
'''
TURNS = [
    {"text": "Deleting.", "tool_calls": [{"name": "delete", "arguments": {"path": "a.txt"}}]},
    {"text": "Done."},
]


def toolwire(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "toolwire", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "turns.json").write_text(json.dumps(TURNS))
    return tmp_path


def runs(project: Path) -> list[dict[str, Any]]:
    listed = toolwire("runs", "--json", cwd=project)
    assert listed.returncode == 0, listed.stderr
    found: list[dict[str, Any]] = json.loads(listed.stdout)
    return found


def test_a_submitted_run_waits_for_approve_then_finishes_in_a_worker(project: Path) -> None:
    submitted = toolwire(
        "submit",
        "delete a",
        "--model",
        "scripted:turns.json",
        "--tools",
        "tools.py",
        "--json",
        cwd=project,
    )
    assert submitted.returncode == 0, submitted.stderr
    run_id = json.loads(submitted.stdout)["run_id"]
    assert [(r["run_id"], r["status"]) for r in runs(project)] == [(run_id, "pending")]
    worker = subprocess.Popen(
        [sys.executable, "-m", "toolwire", "worker", "--concurrency", "2"],
        cwd=project,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        wait_until(lambda: runs(project)[0]["status"] == "waiting")
        [run] = runs(project)
        call_id = run["waiting"]["call_id"]
        assert (run["waiting"]["tool"], run["waiting"]["arguments"]) == (
            "delete",
            {"path": "a.txt"},
        )
        wrong = toolwire("approve", run_id, "call_nope", cwd=project)
        assert wrong.returncode == 2
        assert (
            f"not waiting for an approval of call_nope: it waits for call {call_id}" in wrong.stderr
        )
        edited = toolwire("approve", run_id, call_id, "--edit", '{"path": "b.txt"}', cwd=project)
        assert edited.returncode == 0, edited.stderr
        wait_until(lambda: runs(project)[0]["status"] == "done")
    finally:
        worker.send_signal(signal.SIGTERM)
        _, err = worker.communicate(timeout=30)
    assert worker.returncode == 0, err
    logged = toolwire("logs", run_id, cwd=project)
    assert 'edited to {"path":"b.txt"}' in logged.stdout
    assert "deleted b.txt" in logged.stdout and "answer: Done." in logged.stdout


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["approve", "nope", "call_1"], "no durable run has the id 'nope'"),
        (["cancel", "nope"], "no durable run has the id 'nope'"),
        (["resume", "nope"], "no durable run has the id 'nope'"),
        (["approve", "r", "c", "--edit", "{nope"], "--edit is not JSON"),
        (["approve", "r", "c", "--edit", "[1]"], "--edit must be a JSON object"),
        (["submit", "hi", "--approve", "all"], "drop --approve"),
        (["submit", "hi", "--tools", "missing.py"], "tools file not found"),
        (["runs", "--db", "postgresql://nobody@127.0.0.1:1/none"], "does not answer"),
        (["runs", "--db", "mysql://x/y"], "expected sqlite"),
    ],
)
def test_bad_input_is_a_clear_error(project: Path, args: list[str], error: str) -> None:
    result = toolwire(*args, cwd=project)
    assert result.returncode in (1, 2)
    assert error in result.stderr
