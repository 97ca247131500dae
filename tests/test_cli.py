"""The CLI through its real entry point, as a subprocess."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from toolwire import Limits
from toolwire.cli._display import Display
from toolwire.events import CallCorrected

TOOLS = '''
from toolwire import tool

@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers.

    Args:
        a: the first
        b: the second
    """
    return a + b

@tool
def delete(path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"
'''


def toolwire(
    *args: str, stdin: str = "", cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable, "the toolwire console script is installed"
    return subprocess.run(
        [executable, *args], input=stdin, capture_output=True, text=True, timeout=60, cwd=cwd
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS)
    turns = [
        {"text": "Let me add.", "tool_calls": [{"name": "add", "arguments": {"a": 2, "b": 40}}]},
        {"text": "The sum is 42."},
    ]
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    return tmp_path


def test_run_streams_the_answer_and_shows_calls(project: Path) -> None:
    done = toolwire(
        "run",
        "add 2 and 40",
        "--model",
        f"scripted:{project / 'turns.json'}",
        "--tools",
        str(project / "tools.py"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Let me add.\nThe sum is 42.\n"
    assert '→ add {"a": 2, "b": 40}' in done.stderr
    assert "← add" in done.stderr and ": 42" in done.stderr
    assert "[answer · 2 steps · 1 calls" in done.stderr


def test_run_json_and_then_logs(project: Path) -> None:
    done = toolwire(
        "run",
        "add",
        "--model",
        f"scripted:{project / 'turns.json'}",
        "--tools",
        str(project / "tools.py"),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    output = json.loads(done.stdout)
    assert output["answer"] == "The sum is 42." and output["stop_reason"] == "answer"
    assert output["steps"] == 2 and output["usage"]["total_tokens"] > 0
    assert output["calls"] == [
        {
            "name": "add",
            "arguments": {"a": 2, "b": 40},
            "is_error": False,
            "result": "42",
            "decided_by": None,
        }
    ]
    runs = json.loads(toolwire("logs", "--json").stdout)
    assert runs[0]["id"] == output["run_id"]
    one = toolwire("logs", output["run_id"][:8])
    assert "→ add" in one.stdout and "answer: The sum is 42." in one.stdout
    detail = json.loads(toolwire("logs", output["run_id"], "--json").stdout)
    assert detail["calls"][0]["result"] == "42"


def test_tools_shows_what_the_model_sees(project: Path) -> None:
    listed = json.loads(toolwire("tools", "--tools", str(project / "tools.py"), "--json").stdout)
    assert [t["name"] for t in listed] == ["add", "delete"]
    assert listed[0]["parameters"]["properties"]["a"]["description"] == "the first"
    human = toolwire("tools", "--tools", str(project / "tools.py")).stdout
    assert "Add two integers." in human and '"additionalProperties": false' in human


def test_without_a_terminal_approval_is_declined_clearly(project: Path) -> None:
    turns = [{"tool_calls": [{"name": "delete", "arguments": {"path": "a.txt"}}]}, {"text": "ok"}]
    (project / "delete.json").write_text(json.dumps(turns))
    base = [
        "run",
        "rm",
        "--model",
        f"scripted:{project / 'delete.json'}",
        "--tools",
        str(project / "tools.py"),
        "--json",
    ]
    declined = json.loads(toolwire(*base).stdout)["calls"][0]
    assert declined["is_error"] and "no terminal to ask on" in declined["result"]
    approved = json.loads(toolwire(*base, "--approve", "all").stdout)["calls"][0]
    assert approved["result"] == "deleted a.txt" and approved["decided_by"] == "cli:--approve=all"


def test_chat_keeps_the_conversation(project: Path) -> None:
    (project / "chat.json").write_text(json.dumps([{"text": "hello"}, {"text": "again"}]))
    done = toolwire(
        "chat",
        "--model",
        f"scripted:{project / 'chat.json'}",
        "--tools",
        str(project / "tools.py"),
        stdin="hi\nmore\n",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("hello") == 1 and "again" in done.stdout


def test_limits_end_with_their_own_exit_code(project: Path) -> None:
    loop = [{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": n}}]} for n in range(5)]
    (project / "loop.json").write_text(json.dumps(loop))
    done = toolwire(
        "run",
        "x",
        "--model",
        f"scripted:{project / 'loop.json'}",
        "--tools",
        str(project / "tools.py"),
        "--max-steps",
        "2",
        "--json",
    )
    assert done.returncode == 3
    assert json.loads(done.stdout)["stop_reason"] == "max_steps"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "hi", "--model", "nonsense:x"], "unknown model 'nonsense:x'"),
        (
            ["run", "hi", "--model", "scripted:/no/such.json"],
            "script file not found: /no/such.json",
        ),
        (
            ["run", "hi", "--model", "scripted:{p}/turns.json", "--tools", "/no/tools.py"],
            "tools file not found",
        ),
        (
            ["run", "hi", "--model", "scripted:{p}/turns.json", "--tools", "{p}/broken.py"],
            "cannot import tools from",
        ),
        (
            ["run", "hi", "--model", "scripted:{p}/turns.json", "--tools", "no_such_module_x"],
            "no tools file or module named",
        ),
        (["run", "hi", "--model", "scripted:{p}/bad.json"], "expected a JSON list of turns"),
        (["run", "hi", "--model", "scripted:{p}/short.json"], "short.json has no turns"),
        (["run", "  "], "the prompt is empty"),
        (["logs", "nope"], "no single run matches"),
    ],
)
def test_bad_input_gives_one_clear_line(project: Path, args: list[str], message: str) -> None:
    (project / "broken.py").write_text("import json\nraise ValueError('oops')\n")
    (project / "bad.json").write_text('{"text": "x"}')
    (project / "short.json").write_text("[]")
    done = toolwire(*[a.replace("{p}", str(project)) for a in args])
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("toolwire: error: ")
    assert message in lines[0]
    assert "Traceback" not in done.stderr


def test_run_without_a_model_says_so_when_the_embedded_model_is_missing(project: Path) -> None:
    # A fresh environment without the `local` extra: the registry cannot resolve the default.
    code = (
        "import sys; sys.modules['toolwire.models.local'] = None\n"
        "from toolwire.cli import main\n"
        f"sys.exit(main(['run', 'hi', '--tools', {str(project / 'tools.py')!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "embedded default model is not available" in done.stderr
    assert "scripted:" in done.stderr and "--model" in done.stderr


SLOW_TOOLS = '''
import time
from toolwire import tool

@tool(side_effect="read_only")
def wait(seconds: float) -> str:
    """Wait."""
    print("waiting", flush=True)
    time.sleep(seconds)
    return "waited"

@tool(side_effect="read_only")
async def quick() -> str:
    """Quick (async, so it finishes before the slow call's thread starts)."""
    return "quick done"
'''


def test_ctrl_c_leaves_every_call_answered_in_the_log(project: Path) -> None:
    import signal

    (project / "slow.py").write_text(SLOW_TOOLS)
    turns = [
        {"tool_calls": [{"name": "quick"}, {"name": "wait", "arguments": {"seconds": 60}}]},
        {"text": "x"},
    ]
    (project / "slow.json").write_text(json.dumps(turns))
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable
    process = subprocess.Popen(
        [
            executable,
            "run",
            "go",
            "--model",
            f"scripted:{project / 'slow.json'}",
            "--tools",
            str(project / "slow.py"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # A test runner started in the background may ignore SIGINT, and children inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "waiting"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    [run] = json.loads(toolwire("logs", "--json").stdout)
    assert run["stop_reason"] == "cancelled"
    calls = json.loads(toolwire("logs", run["id"], "--json").stdout)["calls"]
    assert sorted((c["name"], c["result"]) for c in calls) == [
        ("quick", "quick done"),
        ("wait", "Interrupted: the call started and was cut off; it may have taken effect."),
    ]


def test_approval_prompt_on_a_terminal(project: Path) -> None:
    import pty

    turns = [
        {"tool_calls": [{"name": "delete", "arguments": {"path": "a.txt"}}]},
        {"tool_calls": [{"name": "delete", "arguments": {"path": "b.txt"}}]},
        {"text": "ok"},
    ]
    (project / "delete.json").write_text(json.dumps(turns))
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable
    controller, terminal = pty.openpty()
    process = subprocess.Popen(
        [
            executable,
            "run",
            "rm",
            "--model",
            f"scripted:{project / 'delete.json'}",
            "--tools",
            str(project / "tools.py"),
            "--json",
        ],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    os.close(terminal)
    os.write(controller, b"y\nn\ntoo risky\n")
    stdout, stderr = process.communicate(timeout=30)
    os.close(controller)
    assert "approve delete (destructive)" in stderr
    first, second = json.loads(stdout)["calls"]
    assert (first["result"], first["decided_by"]) == ("deleted a.txt", "cli:user")
    assert second["is_error"] and "Their reason: too risky" in second["result"]


def test_a_corrected_or_dropped_call_is_shown_with_what_the_model_wrote() -> None:
    out, err = io.StringIO(), io.StringIO()
    display = Display(Limits(), out=out, err=err)
    display(CallCorrected(name="f", written={"unit": "x"}, index=0, changes=("unit left out",)))
    display(CallCorrected(name="g", written={"a": "\x1b[2J"}, index=None, changes=("dropped",)))
    assert err.getvalue().splitlines() == [
        '✎ f: the model wrote {"unit":"x"}; unit left out',
        '✗ not run: g {"a":"\\u001b[2J"}: dropped',
    ]
