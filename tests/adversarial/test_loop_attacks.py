"""Attacks on the loop: hostile tools, a hostile or broken model, slow people (issue 27).

Each test is an attack that once got through; it stays here so the next attack starts where this
one ended. Attacks that can wedge a process (the shared event loop of `run_sync`) run in a
subprocess with a time limit, so a regression fails instead of hanging the suite.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
import trio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import run_with_fake_clock
from toolwire import (
    Agent,
    ApprovalRequest,
    Approve,
    Decline,
    Limits,
    RunResult,
    ScriptedModel,
    ToolError,
    Turn,
    UsageError,
    tool,
)
from toolwire.builtin import TOOLS
from toolwire.builtin._arithmetic import evaluate
from toolwire.builtin._notes import search as search_notes_words
from toolwire.evals import load_dataset, model_predictor, parse_item, read_predictions, run_eval
from toolwire.events import RunFinished, ToolResultReady
from toolwire.log import RunLog
from toolwire.models import ModelRequest, ScriptedCall
from toolwire.textcalls import PromptedTools, parse_calls


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


@tool(side_effect="read_only")
async def fan_out(exit_code: int | None = None) -> str:
    """Wait on two tasks in a trio nursery; one may exit."""

    async def child() -> None:
        if exit_code is not None:
            sys.exit(exit_code)
        await trio.sleep(100)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(child)
        nursery.start_soon(trio.sleep, 100)
    return "done"


@pytest.mark.parametrize(
    ("exit_code", "said"),
    [(None, "Timed out after 1 s"), (3, "BaseExceptionGroup: Exceptions from Trio nursery")],
)
def test_a_tools_own_task_group_is_cancelled_or_fails_like_the_tool(
    exit_code: int | None, said: str
) -> None:
    # A cancelled nursery raises a group of cancellations: that is the timeout, not a failure.
    async def scenario() -> RunResult:
        turn = Turn(tool_calls=[ScriptedCall(name="fan_out", arguments={"exit_code": exit_code})])
        model = ScriptedModel([turn, "ok"])
        return await Agent(model, [fan_out], limits=Limits(tool_timeout=1)).run("go")

    [record] = run_with_fake_clock(scenario).calls
    assert record.result.content.startswith(said)


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


# --- 4. Malformed arguments ----------------------------------------------------------------------


@tool(side_effect="read_only")
def echo(text: str = "", n: int = 0, data: list[Any] | dict[str, Any] | None = None) -> str:
    """Say the text back."""
    return text


def assert_every_call_answered_and_writable(result: RunResult) -> None:
    for index, message in enumerate(result.messages):
        if message.role == "assistant" and message.tool_calls:
            answer = result.messages[index + 1]
            assert [r.call_id for r in answer.tool_results] == [c.id for c in message.tool_calls]
    for record in result.calls:
        # What every sink does with a call: JSON as UTF-8 (the log, --json, a web UI).
        json.dumps(
            [record.call.name, record.call.raw_arguments, record.call.arguments],
            ensure_ascii=False,
        ).encode()
        json.dumps([record.result.content, record.call.error], ensure_ascii=False).encode()


def run_raw_arguments(raw: str, log: RunLog | None = None) -> RunResult:
    turn = Turn(tool_calls=[ScriptedCall(name="echo", arguments=raw)])
    return Agent(ScriptedModel([turn, "ok"]), [echo], log=log).run_sync("go")


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        ("[" * 10_000, "nested deeper than 100 levels"),
        ('{"data": ' + "[" * 150 + "]" * 150 + "}", "nested deeper than 100 levels"),
        ('{"n": ' + "7" * 5_000 + "}", "4300 digits"),
        ('{"text": "\\ud800"}', "lone surrogate"),
        ('{"text": "a\ud800"}', "lone surrogate"),
        ('{"n": NaN}', "NaN is not a JSON number"),
        ('{"n": 1e999}', "too large"),
    ],
)
def test_malformed_arguments_become_an_error_result_with_the_log_on(
    raw: str, said: str, tmp_path: Path
) -> None:
    log = RunLog(tmp_path / "runs.db")
    result = run_raw_arguments(raw, log)
    assert result.stop_reason == "answer"
    [record] = result.calls
    assert record.result.is_error and said in record.result.content
    assert record.result.content.endswith("; not run.")
    assert_every_call_answered_and_writable(result)
    assert [run.stop_reason for run in log.runs()] == ["answer"]


def test_text_a_model_streams_is_made_writable_where_it_enters(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "runs.db")
    model = ScriptedModel(
        [Turn(text="a\udc80b", tool_calls=[ScriptedCall(name="echo\ud800", arguments={})]), "ok"]
    )
    result = Agent(model, [echo], log=log).run_sync("go")
    assert result.messages[1].text == "a\\udc80b"
    assert result.calls[0].call.name == "echo\\ud800"
    assert_every_call_answered_and_writable(result)


def test_a_tool_result_that_cannot_be_encoded_is_made_writable(tmp_path: Path) -> None:
    @tool(side_effect="read_only")
    def garbled() -> str:
        """Return bytes decoded with surrogateescape."""
        return b"caf\xe9".decode("utf-8", "surrogateescape")

    log = RunLog(tmp_path / "runs.db")
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="garbled")]), "ok"])
    result = Agent(model, [garbled], log=log).run_sync("go")
    assert result.calls[0].result.content == "caf\\udce9"
    assert log.calls(result.run_id)[0].result == "caf\\udce9"


# JSON-ish text: values of every kind (surrogates, huge and odd numbers), nested anyhow, then
# written out whole, cut short, or with a random fragment of JSON glued on.
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**4000)
    | st.floats()
    | st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=8)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=12,
)
deep = st.tuples(st.integers(1, 3000), st.sampled_from(["[]", "{}"]), st.booleans()).map(
    lambda t: '{"data": ' + t[1][0] * t[0] + t[1][1] * (t[0] if t[2] else t[0] // 2) + "}"
)
fragments = st.sampled_from(
    ["", "{", "}", "[", "]", ",", ":", '"', "\\", "\\u", "\\ud800", "1e", "-", "NaN", "Infinity"]
)
json_ish = st.one_of(
    st.tuples(values, fragments, st.integers(0, 400)).map(
        lambda t: (json.dumps({"data": t[0]}) + t[1])[: t[2] or None]
    ),
    st.dictionaries(st.sampled_from(["text", "n", "data", "extra"]), values, max_size=3).map(
        json.dumps
    ),
    deep,
    st.integers(4000, 6000).map(lambda digits: '{"n": -' + "9" * digits + "}"),
    st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=30),
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(raws=st.lists(json_ish, min_size=1, max_size=3))
@example(raws=["[" * 10_000, '{"data": ' + "[" * 600 + "]" * 600 + "}"])
def test_any_argument_text_ends_in_one_result_per_call(raws: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        log = RunLog(Path(folder) / "runs.db")
        turn = Turn(tool_calls=[ScriptedCall(name="echo", arguments=raw) for raw in raws])
        result = Agent(ScriptedModel([turn, "ok"]), [echo], log=log).run_sync("go")
        log.close()
    assert result.stop_reason == "answer" and len(result.calls) == len(raws)
    assert_every_call_answered_and_writable(result)


def as_text_call(raw: str, profile: str) -> str:
    if profile == "hermes":
        return f'<tool_call>{{"name": "echo", "arguments": {raw}}}</tool_call>'
    # qwen3-coder: each parameter's value is text, read by the parameter's schema type
    return f"<tool_call>\n<function=echo>\n<parameter=data>\n{raw}\n</parameter>\n</function>\n</tool_call>"


@settings(max_examples=100, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    raws=st.lists(json_ish, min_size=1, max_size=2),
    prose=st.text(max_size=10),
    profile=st.sampled_from(["hermes", "qwen3-coder"]),
)
@example(raws=["[" * 5000 + "]" * 5000], prose="", profile="qwen3-coder")
@example(raws=["[" * 5000], prose="", profile="qwen3-coder")
@example(raws=["[" * 600 + "]" * 600], prose="", profile="qwen3-coder")
@example(raws=["[" * 5000 + "]" * 5000], prose="", profile="hermes")
@example(raws=["-" + "9" * 6000], prose="", profile="hermes")
def test_any_argument_text_written_as_text_calls_ends_in_one_result_per_call(
    raws: list[str], prose: str, profile: str
) -> None:
    reply = prose + "".join(as_text_call(raw, profile) for raw in raws)
    parse_calls(reply, [echo], profile=profile)  # the parser on its own never raises
    with tempfile.TemporaryDirectory() as folder:
        log = RunLog(Path(folder) / "runs.db")
        model = PromptedTools(ScriptedModel([reply, "ok"]), profile=profile)
        result = Agent(model, [echo], log=log).run_sync("go")
        log.close()
    assert result.stop_reason in ("answer", "error")
    assert result.stop_reason == "answer", result.error
    assert_every_call_answered_and_writable(result)


GOOD_ITEM = {
    "id": "ok_0",
    "category": "simple",
    "tools": [{"name": "echo", "description": "Say it back.", "parameters": {"type": "object"}}],
    "messages": [{"role": "user", "content": "hi"}],
    "expected": [],
}


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("[" * 10_000, "nested deeper than 100 levels"),
        ('{"id": ' + "7" * 5_000 + "}", "4300 digits"),
        (
            json.dumps(
                {**GOOD_ITEM, "id": "bad_1", "messages": [{"role": "user", "content": "\ud800"}]}
            ),
            "lone surrogate",
        ),
    ],
)
def test_a_dataset_line_that_cannot_be_used_is_a_clear_error_naming_it(
    line: str, said: str, tmp_path: Path
) -> None:
    dataset = tmp_path / "data.jsonl"
    dataset.write_text(json.dumps(GOOD_ITEM) + "\n" + line + "\n", encoding="utf-8")
    with pytest.raises(UsageError, match=f"data.jsonl:2: .*{said}"):
        load_dataset(dataset)
    done = toolwire_cli(
        "eval", str(dataset), "--model", "scripted:none.json", "--out", "out.jsonl", cwd=tmp_path
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "data.jsonl:2" in done.stderr and said in done.stderr


@pytest.mark.parametrize("raw", ["[" * 10_000, '{"n": ' + "7" * 5_000 + "}", '{"s": "\\udc80"}'])
def test_an_eval_prediction_with_unusable_arguments_is_scored_not_a_crash(
    raw: str, tmp_path: Path
) -> None:
    item = parse_item(GOOD_ITEM, "item")
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name="echo", arguments=raw)])])
    out = tmp_path / "out.jsonl"
    [prediction] = anyio.run(run_eval, [item], model_predictor(model), out)
    assert prediction.calls[0].arguments is None  # unparseable: scored wrong, recorded whole
    assert read_predictions(out)["ok_0"].raw_arguments == (raw,)


# --- 2. Built-in tools that pin a CPU past every limit --------------------------------------------

EXPENSIVE = [
    "round(1, -10**8)",
    "round(10**1000, -10**9)",
    "round(-7, -(2**62))",
    "round(1.5, 10**9)",
    "9**9**9",
    "factorial(1000) * factorial(1000)",
    "10**4000 / 3",
    "1e400",
]


def test_the_calculator_bounds_its_work_for_any_operands() -> None:
    # In a subprocess: an unbounded computation runs for minutes and cannot be interrupted.
    done = run_python(
        f"""
        import time
        from toolwire import ToolError
        from toolwire.builtin._arithmetic import evaluate

        for expression in {EXPENSIVE!r}:
            started = time.perf_counter()
            try:
                value = evaluate(expression)
            except ToolError as error:
                value = f"ToolError: {{error}}"
            print(round(time.perf_counter() - started, 3), expression, "=", str(value)[:40])
        """,
        timeout=20,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == len(EXPENSIVE)
    assert all(float(line.split()[0]) < 1 for line in lines), lines
    assert "round(1, -10**8) = 0" in done.stdout
    assert "round(1.5, 10**9) = 1.5" in done.stdout
    assert "1e400 = ToolError: the result is not finite" in done.stdout


numbers = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.integers(0, 400).map(lambda digits: "9" * digits),
    st.sampled_from(["10**1200", "2**4000", "1e308", "0.5", "-(10**9)", "-(2**62)", "pi"]),
)
expressions = st.recursive(
    numbers,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "//", "%", "**"]), inner).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"
        ),
        st.tuples(st.sampled_from(["round", "min", "max", "hypot", "log"]), inner, inner).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
        st.tuples(
            st.sampled_from(["factorial", "sqrt", "exp", "floor", "abs", "round"]), inner
        ).map(lambda t: f"{t[0]}({t[1]})"),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=2000)  # every evaluation is bounded: milliseconds
@given(expressions)
def test_any_expression_of_big_operands_is_quick_and_a_number_or_a_tool_error(
    expression: str,
) -> None:
    try:
        value = evaluate(expression)
    except ToolError:
        return
    assert isinstance(value, int) or (isinstance(value, float) and math.isfinite(value))


BUILTIN_WORK = {
    "calculate": ("_arithmetic", "evaluate", {"expression": "1 + 1"}),
    "current_time": ("_clock", "describe_time", {"timezone": "UTC"}),
    "convert_units": ("_units", "convert", {"value": 1, "from_unit": "m", "to_unit": "ft"}),
    "search_notes": ("_notes", "search", {"query": "approval"}),
}


def test_every_builtin_tool_is_covered_here() -> None:
    assert sorted(BUILTIN_WORK) == sorted(t.name for t in TOOLS)


@pytest.mark.parametrize("name", sorted(BUILTIN_WORK))
def test_the_loops_timeouts_hold_for_every_builtin_tool(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    module, function, arguments = BUILTIN_WORK[name]
    released = threading.Event()

    def stuck(*args: Any, **kwargs: Any) -> Any:
        released.wait(3)  # work that takes far longer than the tool's time limit
        raise ToolError("finished late")

    monkeypatch.setattr(f"toolwire.builtin.{module}.{function}", stuck)
    model = ScriptedModel([Turn(tool_calls=[ScriptedCall(name=name, arguments=arguments)]), "ok"])
    try:
        result = Agent(model, TOOLS, limits=Limits(tool_timeout=0.2)).run_sync("go")
    finally:
        released.set()
    assert result.calls[0].result.content == "Timed out after 0.2 s; the call did not finish."


def test_a_long_notes_query_is_bounded() -> None:
    with pytest.raises(ToolError, match="longer than"):
        search_notes_words(" ".join(f"approval{i}" for i in range(3000)))


# --- An empty final answer -----------------------------------------------------------------------


def test_an_empty_final_answer_is_not_reported_as_the_text_before_it() -> None:
    model = ScriptedModel(
        [
            Turn(
                text="Let me add.",
                tool_calls=[ScriptedCall(name="add", arguments={"a": 1, "b": 2})],
            ),
            "",
        ]
    )
    result = Agent(model, [add]).run_sync("go")
    assert (result.stop_reason, result.output, result.finish_reason) == ("answer", "", "stop")


def test_a_final_answer_cut_off_by_the_length_limit_says_so() -> None:
    model = ScriptedModel([Turn(text="The answer is", finish_reason="length")])
    result = Agent(model).run_sync("go")
    assert (result.stop_reason, result.output, result.finish_reason) == (
        "answer",
        "The answer is",
        "length",
    )
