"""Attacks on the loop: hostile tools, a hostile or broken model, slow people (issue 27).

Each test is an attack that once got through; it stays here so the next attack starts where this
one ended. Attacks that can wedge a process (the shared event loop of `run_sync`) run in a
subprocess with a time limit, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import run_with_fake_clock
from toolwire import (
    Agent,
    ApprovalRequest,
    Approve,
    Decline,
    Limits,
    RunResult,
    ScriptedModel,
    Turn,
    tool,
)
from toolwire.events import RunFinished, ToolResultReady
from toolwire.models import ModelRequest, ScriptedCall


def run_python(source: str, *, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """Run `source` in a fresh interpreter with this checkout's toolwire."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(source)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


# --- 1. A tool raising SystemExit or KeyboardInterrupt -------------------------------------------

ARGPARSE_TOOL = """
    import argparse, asyncio, sys, threading
    from toolwire import Agent, Limits, ScriptedModel, Turn, tool
    from toolwire.models import ScriptedCall

    @tool(side_effect="read_only")
    def cli(args: list[str]) -> str:
        \"\"\"Run a small command line.\"\"\"
        parser = argparse.ArgumentParser(prog="cli")
        parser.add_argument("--name", required=True)
        return parser.parse_args(args).name

    def agent(name, arguments, tools):
        model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name=name, arguments=arguments)]),
                               "done"])
        return Agent(model, tools, limits=Limits(timeout=5))
"""


def test_argparse_exiting_inside_a_tool_fails_only_that_call_and_run_sync_goes_on() -> None:
    done = run_python(
        ARGPARSE_TOOL
        + """
    for _ in range(2):
        result = agent("cli", {"args": []}, [cli]).run_sync("go")
        print(result.stop_reason, "|", result.calls[0].result.content)
    """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    for line in lines:
        assert line.startswith("answer | SystemExit: 2 (the tool tried to stop the program")


@pytest.mark.parametrize(
    ("kind", "raised"),
    [
        ("in a worker thread", "def bomb() -> str:\n        raise KeyboardInterrupt"),
        ("on the loop", "def bomb() -> str:\n        sys.exit(7)"),
        ("async", "async def bomb() -> str:\n        raise SystemExit('bye')"),
    ],
)
def test_every_kind_of_tool_exiting_is_an_error_result(kind: str, raised: str) -> None:
    in_thread = kind != "on the loop"
    done = run_python(
        ARGPARSE_TOOL
        + f"""
    @tool(side_effect="read_only", in_thread={in_thread})
    {raised}

    for _ in range(2):
        result = agent("bomb", {{}}, [bomb]).run_sync("go")
        print(result.stop_reason, "|", result.calls[0].result.content)
    """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and all(line.startswith("answer | ") for line in lines), lines
    assert all("the tool tried to stop the program" in line for line in lines)


def test_the_sync_event_loop_survives_an_exit_raised_from_a_loop_callback() -> None:
    # asyncio itself lets SystemExit out of run_forever: the loop thread must keep serving.
    done = run_python(
        ARGPARSE_TOOL
        + """
    @tool(side_effect="read_only")
    async def bomb() -> str:
        asyncio.get_running_loop().call_soon(sys.exit, 3)
        await asyncio.sleep(0.1)
        return "still here"

    for _ in range(2):
        result = agent("bomb", {}, [bomb]).run_sync("go")
        print(result.stop_reason, "|", result.calls[0].result.content)
    """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["answer | still here"] * 2


def toolwire_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable, "the toolwire console script is installed"
    return subprocess.run(
        [executable, *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


def test_sys_exit_in_a_tool_does_not_end_the_cli_and_the_run_is_logged_finished(
    tmp_path: Path,
) -> None:
    (tmp_path / "tools.py").write_text(
        textwrap.dedent(
            '''
            import sys
            from toolwire import tool

            @tool(side_effect="read_only")
            def quit_now() -> str:
                """Exit."""
                sys.exit(7)
            '''
        )
    )
    turns = [{"tool_calls": [{"name": "quit_now", "arguments": {}}]}, {"text": "It failed."}]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    done = toolwire_cli(
        "run", "go", "--model", f"scripted:{tmp_path / 'turns.json'}", "--tools", "tools.py",
        "--json", cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["stop_reason"] == "answer"
    assert report["calls"][0]["result"].startswith("SystemExit: 7")
    logs = toolwire_cli("logs", "--json", cwd=tmp_path)
    assert logs.returncode == 0, logs.stderr
    assert [run["stop_reason"] for run in json.loads(logs.stdout)] == ["answer"]


def test_ctrl_c_on_the_main_thread_still_cancels_the_run() -> None:
    # On the main thread a KeyboardInterrupt is the user's Ctrl-C, wherever it lands.
    @tool(side_effect="read_only", in_thread=False)
    def interrupted() -> str:
        raise KeyboardInterrupt

    finished: list[RunFinished] = []
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="interrupted")]), "never"])

    async def scenario() -> None:
        await Agent(model, [interrupted]).run(
            "go", on_event=lambda e: finished.append(e) if isinstance(e, RunFinished) else None
        )

    with pytest.raises(KeyboardInterrupt):
        anyio.run(scenario)
    assert [f.result.stop_reason for f in finished] == ["cancelled"]


# --- 11. The same error, again and again ----------------------------------------------------------


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool(side_effect="read_only")
async def hang(attempt: int) -> str:
    """Never finish."""
    await anyio.sleep(float("inf"))
    return "never"


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("no_such_tool", {}, "Unknown tool 'no_such_tool'"),
        ("add", {"a": "one", "b": 2}, "invalid arguments"),
        ("add", '{"a": 1, "b": ', "not valid JSON"),
        ("add", '["a", 1]', "must be a JSON object"),
        ("hang", None, "Timed out after 1 s"),  # a new attempt number each time
    ],
)
def test_the_same_error_result_repeated_stops_the_run(
    name: str, arguments: dict[str, Any] | str | None, error: str
) -> None:
    def script(request: ModelRequest) -> Turn:
        sent = {"attempt": len(request.messages)} if arguments is None else arguments
        return Turn(tool_calls=[ScriptedCall(name=name, arguments=sent)])

    model = ScriptedModel(script)
    limits = Limits(max_steps=40, loop_threshold=3, tool_timeout=1)

    async def scenario() -> RunResult:
        return await Agent(model, [add, hang], limits=limits).run("go")

    result = run_with_fake_clock(scenario)
    assert (result.stop_reason, result.steps) == ("loop_detected", 4)
    contents = [record.result.content for record in result.calls]
    assert all(error in content for content in contents)
    assert "occurred several times" in contents[2] and "occurred several times" not in contents[1]


# --- 5. An approver that answers too late; the person's thinking time ----------------------------


def test_a_sync_approver_answering_after_the_approval_timeout_counts_as_declined() -> None:
    ran: list[str] = []
    released = threading.Event()

    @tool
    def pay(amount: int) -> str:
        """Send money."""
        ran.append(f"paid {amount}")
        return "paid"

    def slow_person(request: ApprovalRequest) -> Approve:
        released.wait(2)  # blocks like time.sleep(5), but the test can end it
        return Approve()

    async def scenario() -> RunResult:
        model = ScriptedModel(
            [Turn(tool_calls=[ScriptedCall(name="pay", arguments={"amount": 5})]), "ok"]
        )
        agent = Agent(model, [pay], approver=slow_person, limits=Limits(approval_timeout=1))
        return await agent.run("pay")

    try:
        result = run_with_fake_clock(scenario)
    finally:
        released.set()
    record = result.calls[0]
    assert record.decided_by == "policy:approval-timeout" and record.result.is_error
    assert ran == []


def test_a_declined_calls_duration_leaves_out_the_time_to_decide() -> None:
    @tool
    async def pay(amount: int) -> str:
        """Send money."""
        await anyio.sleep(2)
        return "paid"

    async def thinker(request: ApprovalRequest) -> Approve | Decline:
        await anyio.sleep(30)
        return Approve() if request.arguments["amount"] < 10 else Decline()

    events: list[ToolResultReady] = []

    async def scenario() -> RunResult:
        turn = Turn(
            tool_calls=[
                ScriptedCall(name="pay", arguments={"amount": 5}),
                ScriptedCall(name="pay", arguments={"amount": 500}),
            ]
        )
        agent = Agent(ScriptedModel([turn, "ok"]), [pay], approver=thinker)
        return await agent.run(
            "pay", on_event=lambda e: events.append(e) if isinstance(e, ToolResultReady) else None
        )

    result = run_with_fake_clock(scenario)
    approved, declined = result.calls
    assert (approved.duration, approved.decision_time) == (2, 30)
    assert (declined.duration, declined.decision_time) == (0, 30)
    assert [(e.duration, e.decision_time) for e in events] == [(2, 30), (0, 30)]
    assert result.calls[0].result.content == "paid" and declined.result.is_error


# --- 7. A call cut off after it started ----------------------------------------------------------


async def approve_all(request: ApprovalRequest) -> bool:
    return True


def test_a_call_cut_off_after_it_started_says_it_may_have_taken_effect() -> None:
    ledger: list[int] = []

    @tool
    async def pay(amount: int) -> str:
        """Send money."""
        ledger.append(amount)  # the effect happens first...
        await anyio.sleep(100)  # ...then the confirmation takes long
        return "paid"

    finished: list[RunFinished] = []
    events: list[ToolResultReady] = []

    def on_event(event: object) -> None:
        if isinstance(event, RunFinished):
            finished.append(event)
        elif isinstance(event, ToolResultReady):
            events.append(event)

    async def scenario() -> None:
        turn = Turn(
            tool_calls=[
                ScriptedCall(name="pay", arguments={"amount": 5}),
                ScriptedCall(name="pay", arguments={"amount": 7}),
            ]
        )
        agent = Agent(ScriptedModel([turn, "ok"]), [pay], approver=approve_all)
        with anyio.move_on_after(50):
            await agent.run("pay", on_event=on_event)

    run_with_fake_clock(scenario)
    assert ledger == [5]
    started, never = finished[0].result.calls
    assert started.result.content == (
        "Interrupted: the call started and was cut off; it may have taken effect."
    )
    assert started.interrupted and started.result.is_error
    assert never.result.content == "Not run: the run was cancelled."
    assert not never.interrupted
    assert [e.interrupted for e in events] == [True, False]


def test_a_timed_out_call_is_marked_interrupted() -> None:
    async def scenario() -> RunResult:
        model = ScriptedModel(
            [Turn(tool_calls=[ScriptedCall(name="hang", arguments={"attempt": 1})]), "ok"]
        )
        return await Agent(model, [hang], limits=Limits(tool_timeout=1)).run("go")

    [record] = run_with_fake_clock(scenario).calls
    assert record.result.content.startswith("Timed out after 1 s") and record.interrupted
