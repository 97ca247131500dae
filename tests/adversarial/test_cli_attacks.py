"""Attacks on the command line: bad input, hostile model text, hostile tools modules and MCP
servers. Every failure must be one clear line with the documented exit code (0 answer, 1 error,
2 bad input, 3 a limit, 130 interrupted), never a traceback, and nothing a model or a server writes
may drive the terminal."""

from __future__ import annotations

import io
import json
import logging
import subprocess
import sys
import time
import unicodedata
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolwire import Agent, Limits, ScriptedModel, Turn, tool
from toolwire.approval import ApprovalRequest, Approve, Decision, Decline, Edit
from toolwire.cli import _run as cli_run
from toolwire.cli import main
from toolwire.cli._display import Display
from toolwire.errors import ToolError
from toolwire.models import ScriptedCall

from ..test_cli import TOOLS, toolwire

BIDI_CONTROLS = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\rhidden\b\x9b31m\u202eevil\ud800\x00\x7f"


def control_characters(text: str, allowed: str) -> set[str]:
    """What a terminal would act on: C0, DEL, C1, lone surrogates and bidi controls."""
    return {
        c
        for c in text
        if c not in allowed and (unicodedata.category(c) in ("Cc", "Cs") or c in BIDI_CONTROLS)
    }


def one_line_error(stderr: str, message: str) -> None:
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("toolwire: error: ") and message in lines[0], stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS)
    (tmp_path / "hi.json").write_text(json.dumps([{"text": "hi"}]))
    return tmp_path


def script(project: Path, turns: list[dict[str, Any]], name: str = "turns.json") -> str:
    (project / name).write_text(json.dumps(turns))
    return f"scripted:{project / name}"


# 12. Tracebacks reach CLI users


@pytest.mark.parametrize("option", ["prompt", "--instructions"])
def test_text_for_the_model_that_is_not_utf8_is_bad_input(project: Path, option: str) -> None:
    # The shell hands over bytes; Python keeps the undecodable ones as lone surrogates.
    text = "caf\udce9"
    args = [text] if option == "prompt" else ["hi", option, text]
    done = toolwire("run", *args, "--model", f"scripted:{project / 'hi.json'}")
    assert done.returncode == 2
    one_line_error(done.stderr, "is not valid UTF-8 (byte 0xe9 at position 3)")


def test_a_chat_line_that_is_not_utf8_is_refused_and_the_chat_goes_on(project: Path) -> None:
    executable = Path(sys.executable).parent / "toolwire"
    done = subprocess.run(
        [executable, "chat", "--model", script(project, [{"text": "hello"}])],
        input=b"caf\xe9\nhi\n",
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert b"not valid UTF-8" in done.stderr and b"Traceback" not in done.stderr
    assert done.stdout == b"hello\n"


@pytest.mark.parametrize(
    ("module", "message"),
    [
        ("TOOLS = 5", "TOOLS must be a list of tools, not int"),
        ("TOOLS = [1]", "not a tool, a toolset or a function: 1"),
        ("TOOLS = [dict]", "cannot describe dict as a tool: no signature found"),
        ("import functools\nTOOLS = [functools.partial(max, 1)]", "give the tool a name"),
        ("import sys\nsys.exit(5)", "exited while being imported (SystemExit: 5)"),
        ("raise SystemExit('bye')", "exited while being imported (SystemExit: bye)"),
    ],
)
def test_a_tools_module_that_offers_no_tools_is_bad_input(
    project: Path, capsys: pytest.CaptureFixture[str], module: str, message: str
) -> None:
    (project / "bad.py").write_text(module + "\n")
    code = main(["tools", "--tools", str(project / "bad.py")])
    assert code == 2
    one_line_error(capsys.readouterr().err, message)


def test_an_attribute_that_is_not_a_tool_is_bad_input(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (project / "mod.py").write_text("NAME = 'x'\n")
    assert main(["tools", "--tools", f"{project / 'mod.py'}:NAME"]) == 2
    one_line_error(capsys.readouterr().err, "not a tool, a toolset or a function: 'x'")


EVAL_ITEM = {
    "id": "s0",
    "category": "simple",
    "tools": [{"name": "f", "description": "", "parameters": {"type": "object"}}],
    "messages": [{"role": "user", "content": "call f"}],
    "expected": [[{"name": "f", "arguments": {}}]],
}


@pytest.mark.parametrize(
    ("out", "message"),
    [("", "--out is a directory"), ("missing/p.jsonl", "--out: no directory")],
)
def test_eval_out_that_cannot_be_written_is_bad_input(
    project: Path, capsys: pytest.CaptureFixture[str], out: str, message: str
) -> None:
    (project / "d.jsonl").write_text(json.dumps(EVAL_ITEM) + "\n")
    model = script(project, [{"text": "no"}])
    code = main(["eval", str(project / "d.jsonl"), "--model", model, "--out", str(project / out)])
    assert code == 2
    one_line_error(capsys.readouterr().err, message)


GARBLING_SERVER = """
import json, sys

def send(message):
    sys.stdout.write(json.dumps(message) + "\\n")
    sys.stdout.flush()

for line in sys.stdin:
    request = json.loads(line)
    method, rid = request.get("method"), request.get("id")
    if rid is None:
        continue
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": rid, "result": {"protocolVersion": "2025-11-25",
              "capabilities": {"tools": {}}, "serverInfo": {"name": "garbler", "version": "1"}}})
    elif method == "tools/list":
        tool = {"name": "lookup", "description": "look up", "inputSchema": {"type": "object"},
                "annotations": {"readOnlyHint": True}}
        send({"jsonrpc": "2.0", "id": rid, "result": {"tools": [tool]}})
    elif method == "tools/call":
        # Noise first (tolerated), then garbage where the answer should be.
        sys.stdout.write("debug: looking up\\n{\\"jsonrpc\\": \\"2.0\\", \\"id\\": " + str(rid)
                         + ", \\"result\\": \\n")
        sys.stdout.flush()
    else:
        send({"jsonrpc": "2.0", "id": rid, "result": {}})
"""


def test_garbage_instead_of_an_answer_fails_the_call_at_once(tmp_path: Path) -> None:
    from toolwire.mcp import MCPServer

    from ..mcp.conftest import call

    (tmp_path / "garbler.py").write_text(GARBLING_SERVER)
    server = MCPServer.stdio(sys.executable, [str(tmp_path / "garbler.py")], timeout=60)

    async def scenario() -> str:
        async with server:
            with pytest.raises(ToolError) as caught:
                await call(server, "lookup")
            return str(caught.value)

    started = time.monotonic()
    message = anyio.run(scenario)
    assert time.monotonic() - started < 15
    assert "wrote a line that is not JSON-RPC" in message and "may or may not" in message


def test_garbage_from_an_mcp_server_reaches_the_user_as_one_line(project: Path) -> None:
    (project / "garbler.py").write_text(GARBLING_SERVER)
    turns = [{"tool_calls": [{"name": "lookup"}]}, {"text": "the server is broken"}]
    started = time.monotonic()
    done = toolwire(
        "run",
        "look it up",
        "--model",
        script(project, turns),
        "--mcp",
        f"{sys.executable} {project / 'garbler.py'}",
        "--approve",
        "all",
        "--tool-timeout",
        "60",
    )
    assert time.monotonic() - started < 30
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "File " not in done.stderr
    assert "✗ lookup" in done.stderr and "not JSON-RPC" in done.stderr


def test_an_unexpected_failure_is_one_line_and_exit_1(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(args: Any) -> int:
        raise RuntimeError("something nobody expected")

    monkeypatch.setattr(cli_run, "run_command", broken)
    assert main(["run", "hi"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "RuntimeError: something nobody expected" in err


def test_a_library_logging_a_traceback_shows_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def logs_a_failure(args: Any) -> int:
        try:
            raise ValueError("bad frame\nsecond line")
        except ValueError:
            logging.getLogger("mcp.client.sse").exception("Error parsing SSE message")
        return 0

    monkeypatch.setattr(cli_run, "run_command", logs_a_failure)
    assert main(["run", "hi"]) == 0
    err = capsys.readouterr().err
    assert err == "toolwire: Error parsing SSE message (ValueError: bad frame)\n"


# 13. Terminal escape injection

hostile_text = st.text(
    st.one_of(st.sampled_from(HOSTILE + "\n\t\r\n"), st.characters(exclude_categories=()))
)


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@tool(side_effect="read_only")
def echo(text: str) -> str:
    """Echo.

    Args:
        text: what to send back
    """
    return text


def display_run(
    turns: list[Turn], approver: Callable[[ApprovalRequest], Decision] | None = None
) -> tuple[str, str]:
    out, err = Terminal(), Terminal()
    display = Display(Limits(), out=out, err=err)

    async def run() -> None:
        agent = Agent(ScriptedModel(turns), [echo], approver=approver)
        result = await agent.run("go", on_event=display)
        display.summary(result)

    anyio.run(run)
    return out.getvalue(), err.getvalue()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=hostile_text, raw=hostile_text, result=hostile_text, answer=hostile_text)
def test_the_display_never_emits_a_control_character(
    name: str, raw: str, result: str, answer: str
) -> None:
    turns = [
        Turn(
            text=answer,
            tool_calls=[
                ScriptedCall(name=name, arguments=raw),
                ScriptedCall(name="echo", arguments={"text": result}),
            ],
        ),
        Turn(text=answer),
    ]
    out, err = display_run(turns)
    assert not control_characters(err, allowed="\n")
    assert not control_characters(out, allowed="\n\t")
    out.encode("utf-8")
    err.encode("utf-8")


@settings(max_examples=30, deadline=None)
@given(message=hostile_text, edited=hostile_text)
def test_approval_notes_never_emit_a_control_character(message: str, edited: str) -> None:
    @tool
    def send(text: str) -> str:
        """Send."""
        return "sent"

    decisions = iter([Decline(message=message, by=message), Edit(arguments={"text": edited})])
    turns = [
        Turn(tool_calls=[ScriptedCall(name="send", arguments={"text": "a"})]),
        Turn(tool_calls=[ScriptedCall(name="send", arguments={"text": "b"})]),
        Turn(text="done"),
    ]
    out, err = Terminal(), Terminal()
    display = Display(Limits(), out=out, err=err)
    agent = Agent(ScriptedModel(turns), [send], approver=lambda request: next(decisions))
    anyio.run(lambda: agent.run("go", on_event=display))
    assert not control_characters(err.getvalue(), allowed="\n")


def test_a_hostile_model_cannot_drive_the_terminal_through_the_cli(project: Path) -> None:
    hostile = HOSTILE.replace("\ud800", "")  # the run log's own attack (issue item 4)
    turns = [
        {
            "text": "ok",
            "tool_calls": [
                {"name": hostile, "arguments": {"x": hostile}},
                {"name": "add", "arguments": {"a": 1, "b": 2}},
            ],
        },
        {"text": "done"},
    ]
    model = script(project, turns)
    done = toolwire("run", "go", "--model", model, "--tools", str(project / "tools.py"))
    assert done.returncode == 0, done.stderr
    assert not control_characters(done.stderr, allowed="\n")
    assert "\\x1b]0;pwned\\x07" in done.stderr
    # The logs command shows the same values, escaped as well.
    [run] = json.loads(toolwire("logs", "--json").stdout)
    shown = toolwire("logs", run["id"])
    assert shown.returncode == 0 and not control_characters(shown.stdout, allowed="\n")


def test_a_hostile_tool_description_is_escaped_by_tools(project: Path) -> None:
    (project / "hostile.py").write_text(
        "from toolwire import tool\n\n"
        "@tool(side_effect='read_only')\n"
        "def look(x: int) -> int:\n"
        f"    {json.dumps('Look.' + chr(27) + '[2J' + chr(13) + 'gone')}\n"
        "    return x\n"
    )
    shown = toolwire("tools", "--tools", str(project / "hostile.py"))
    assert shown.returncode == 0, shown.stderr
    assert not control_characters(shown.stdout, allowed="\n") and "Look.\\x1b[2J" in shown.stdout


def test_the_approval_prompt_shows_arguments_escaped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["y"])
    monkeypatch.setattr(cli_run, "_ask", lambda prompt: next(answers))
    decision = cli_run._prompt_for_decision(approval_request({"text": HOSTILE}))
    assert isinstance(decision, Approve)
    assert not control_characters(capsys.readouterr().err, allowed="\n")


# 14. Exit codes


def test_an_empty_model_string_is_bad_input(project: Path) -> None:
    done = toolwire("run", "hi", "--model", "", "--tools", str(project / "tools.py"))
    assert done.returncode == 2
    one_line_error(done.stderr, "unknown model ''")


def test_a_script_that_runs_past_its_end_is_an_error_of_the_run(project: Path) -> None:
    model = script(project, [{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}])
    done = toolwire("run", "go", "--model", model, "--tools", str(project / "tools.py"), "--json")
    assert done.returncode == 1, done.stderr
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "error"
    assert "has 1 turns and was asked for turn 2" in result["error"]
    assert result["calls"][0]["result"] == "3"


def test_an_empty_script_is_bad_input(project: Path) -> None:
    done = toolwire("run", "go", "--model", script(project, []))
    assert done.returncode == 2
    one_line_error(done.stderr, "has no turns")


def test_an_mcp_server_that_dies_at_start_is_an_error_not_bad_input(project: Path) -> None:
    dies = f"{sys.executable} -c 'import sys; sys.exit(3)'"
    done = toolwire("run", "go", "--model", f"scripted:{project / 'hi.json'}", "--mcp", dies)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "cannot connect to MCP server" in done.stderr


# From a new user's first hour


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out.startswith("toolwire 0.")


def test_an_unknown_option_shows_the_usage_of_its_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "hi", "--bogus"])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: toolwire run ") and "unrecognized arguments: --bogus" in err


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-steps", "-1", "argument --max-steps: must be a positive integer, not -1"),
        ("--max-steps", "0", "argument --max-steps: must be a positive integer, not 0"),
        ("--max-tokens", "0", "argument --max-tokens: must be a positive integer"),
        ("--timeout", "0", "argument --timeout: must be a positive number of seconds"),
        ("--timeout", "nan", "argument --timeout: must be a positive number of seconds"),
        ("--tool-timeout", "-1", "argument --tool-timeout: must be a positive number of seconds"),
    ],
)
def test_a_limit_that_is_not_positive_names_the_option(
    capsys: pytest.CaptureFixture[str], option: str, value: str, message: str
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["run", "hi", option, value])
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "None" not in err and "usage: toolwire run" in err


def test_tools_shows_side_effects_and_approvals(project: Path) -> None:
    human = toolwire("tools", "--tools", str(project / "tools.py")).stdout
    assert "add  (read-only)\n" in human and "delete  (destructive, needs approval)\n" in human
    listed = json.loads(toolwire("tools", "--tools", str(project / "tools.py"), "--json").stdout)
    assert [(t["side_effect"], t["needs_approval"]) for t in listed] == [
        ("read_only", False),
        ("destructive", True),
    ]


def approval_request(arguments: dict[str, Any]) -> ApprovalRequest:
    @tool
    def send(text: str) -> str:
        """Send."""
        return "sent"

    from toolwire.messages import ToolCall

    return ApprovalRequest(
        call=ToolCall(id="c1", name="send", arguments=arguments),
        tool=send.definition,
        arguments=arguments,
        side_effect="destructive",
        run_id="r1",
    )


def test_the_edit_prompt_shows_the_arguments_and_empty_input_keeps_them(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(["e", "", "e", '{"text": "b"}'])
    monkeypatch.setattr(cli_run, "_ask", lambda prompt: next(answers))
    decision = cli_run._prompt_for_decision(approval_request({"text": "a"}))
    assert decision == Edit(arguments={"text": "b"}, by="cli:user")
    err = capsys.readouterr().err
    assert err.count('current arguments: {"text":"a"}') == 2
    assert "arguments unchanged" in err


def test_an_edited_call_is_shown_as_edited() -> None:
    turns = [Turn(tool_calls=[ScriptedCall(name="send", arguments={"text": "a"})]), Turn(text="")]

    @tool
    def send(text: str) -> str:
        """Send."""
        return f"sent {text}"

    err = Terminal()
    display = Display(Limits(), out=Terminal(), err=err)
    agent = Agent(
        ScriptedModel(turns),
        [send],
        approver=lambda request: Edit(arguments={"text": "b"}, by="cli:user"),
    )
    anyio.run(lambda: agent.run("go", on_event=display))
    assert '  edited by cli:user: {"text":"b"}\n' in err.getvalue()


def test_without_a_terminal_the_user_learns_nobody_was_asked_and_how_to_allow(
    project: Path,
) -> None:
    turns = [{"tool_calls": [{"name": "delete", "arguments": {"path": "a"}}]}, {"text": "ok"}]
    args = ["run", "rm", "--model", script(project, turns), "--tools", str(project / "tools.py")]
    shown = toolwire(*args)
    assert "declined by policy:no-terminal: not asked: no terminal to ask on" in shown.stderr
    assert "run with --approve all to allow such calls" in shown.stderr
    [record] = json.loads(toolwire(*args, "--json").stdout)["calls"]
    assert "no terminal to ask on" in record["result"] and "--approve all" in record["result"]


def test_an_untyped_undocumented_parameter_warns() -> None:
    with pytest.warns(UserWarning, match="tool 'lookup': parameter 'key' has no type"):

        @tool
        def lookup(key, limit: int = 3):  # type: ignore[no-untyped-def]
            return key

    assert lookup.parameters["properties"]["key"] == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")

        @tool
        def documented(key):  # type: ignore[no-untyped-def]
            """Look up.

            Args:
                key: the record's key
            """
            return key
