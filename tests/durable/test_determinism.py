"""The workflow side of a durable run reads no clock, randomness, environment or I/O except
through recorded steps: replayed after a crash, it must take every decision the same way.

The workflow side is the loop's modules, minus the functions that run inside a recorded step
(there, anything goes: the step's result is what is recorded)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[2] / "src" / "toolwire"
WORKFLOW_SIDE = [
    "agent.py",
    "_execute.py",
    "_approve.py",
    "_state.py",
    "_loopguard.py",
    "_durability.py",
    "run.py",
    "durable/_workflow.py",
]
INSIDE_A_STEP = {
    "_invoke",
    "_raised_by_tool",
    "_describe_failure",
    "_stream",
    "_stream_in_time",
    "run_ends",
}
"""Functions that only ever run inside a recorded step (`run_ends` bounds the pause of a call's
timeout while a tool, inside its step, waits for a person)."""
FORBIDDEN_MODULES = {"time", "random", "uuid", "datetime", "os", "socket", "subprocess", "secrets"}
FORBIDDEN_CALLS = {
    "open",
    "input",
    "anyio.current_time",
    "anyio.sleep",
    "asyncio.sleep",
    "threading.Thread",
    "anyio.to_thread.run_sync",
}
ALLOWED_ON_THE_APPROVER_PATH = {"_ask": {"anyio.to_thread.run_sync"}}
"""An in-process approver (never used by a durable run, which waits through the engine)."""


def dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def nondeterministic_reads(source: str) -> list[str]:
    """Each read of the world outside a step: `function: call`."""
    found: list[str] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name in INSIDE_A_STEP:
                return
            function = node.name
        if isinstance(node, ast.Call | ast.Attribute):
            name = dotted(node.func if isinstance(node, ast.Call) else node)
            if name is not None and _forbidden(name, function):
                found.append(f"{function}: {name}")
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(ast.parse(source), "<module>")
    return sorted(set(found))


def _forbidden(name: str, function: str) -> bool:
    if name in ALLOWED_ON_THE_APPROVER_PATH.get(function, set()):
        return False
    return name in FORBIDDEN_CALLS or (name.split(".")[0] in FORBIDDEN_MODULES and "." in name)


@pytest.mark.parametrize("module", WORKFLOW_SIDE)
def test_the_workflow_side_reads_nothing_unrecorded(module: str) -> None:
    assert nondeterministic_reads((SRC / module).read_text()) == []


@pytest.mark.parametrize(
    ("source", "read"),
    [
        ("import time\ndef f(): return time.monotonic()", "f: time.monotonic"),
        ("import os\nasync def g(): return os.environ['KEY']", "g: os.environ"),
        ("import random\ndef h(): random.random()", "h: random.random"),
        ("def k(): return open('x').read()", "k: open"),
        ("import anyio\nasync def m(): await anyio.sleep(1)", "m: anyio.sleep"),
    ],
)
def test_the_check_catches_each_kind_of_read(source: str, read: str) -> None:
    assert read in nondeterministic_reads(source)


def test_code_inside_a_step_may_read_the_world() -> None:
    assert nondeterministic_reads("import time\ndef _invoke(): return time.time()") == []
