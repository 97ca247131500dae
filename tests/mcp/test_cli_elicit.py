"""A server's question on the terminal (`toolwire run` / `chat`): the person answers it."""

from __future__ import annotations

import io
import json
import shlex
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolwire.cli import _run as cli_run
from toolwire.cli import main
from toolwire.cli._elicit import answer_on_terminal
from toolwire.elicitation import ElicitationRequest

from .conftest import SERVERS

pytestmark = pytest.mark.timeout(60)

FORM = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "description": "Your name"},
        "check": {"type": "boolean", "description": "Agree?"},
        "integer": {"type": "integer", "minimum": 1, "default": 42},
        "friend": {"type": "string", "enum": ["Monica", "Joey"], "default": "Monica"},
        "hero": {"type": "string", "oneOf": [{"const": "h1", "title": "Superman"}]},
        "fish": {
            "type": "array",
            "items": {"anyOf": [{"const": "f1", "title": "Tuna"}, {"const": "f2", "title": "Eel"}]},
        },
        "pet": {"type": "string", "enum": ["p1", "p2"], "enumNames": ["Cats", "Dogs"]},
    },
    "required": ["name"],
}


def request(mode: str = "form", **fields: Any) -> ElicitationRequest:
    return ElicitationRequest(
        server="srv\x1b[2J",
        message="Tell me\nmore",
        mode=mode,  # type: ignore[arg-type]
        schema=FORM if mode == "form" else {},
        run_id="r",
        call_id="c",
        tool="t",
        **fields,
    )


class Person:
    """The lines a person types, and the prompts they saw."""

    def __init__(self, *lines: str) -> None:
        self._pending: Iterator[str] = iter(lines)
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        try:
            return next(self._pending)
        except StopIteration:
            raise EOFError from None


def test_the_form_is_filled_field_by_field_with_retries_and_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # accept; name (empty is refused: required); check (bad, then yes); integer keeps its
    # default; friend by number; hero by title; fish by numbers; pet by its legacy name.
    person = Person("a", "", "Ada", "maybe", "y", "", "2", "Superman", "1, 2", "Dogs")
    answer = answer_on_terminal(request(), person)
    assert answer.action == "accept" and answer.by == "cli:user"
    assert answer.content == {
        "name": "Ada",
        "check": True,
        "friend": "Joey",
        "hero": "h1",
        "fish": ["f1", "f2"],
        "pet": "p2",
    }
    err = capsys.readouterr().err
    assert "this one is required" in err and "answer yes or no; type it again" in err
    assert "  integer [42]: " in person.prompts
    # What the server wrote cannot steer the terminal.
    assert "\x1b" not in err and "srv\\x1b[2J" in err


def test_a_number_that_is_not_one_is_asked_again() -> None:
    answer = answer_on_terminal(request(), Person("a", "Ada", "n", "4.5", "7", "", "", "", "", ""))
    assert answer.content == {"name": "Ada", "check": False, "integer": 7}


@pytest.mark.parametrize(("typed", "action"), [("d", "decline"), ("cancel", "cancel")])
def test_decline_and_cancel(typed: str, action: str) -> None:
    assert answer_on_terminal(request(), Person("?", typed)).action == action


def test_end_of_input_cancels() -> None:
    assert answer_on_terminal(request(), Person("a", "Ada")).action == "cancel"


def test_a_url_is_shown_whole_and_accepting_sends_no_content(
    capsys: pytest.CaptureFixture[str],
) -> None:
    url = "https://accounts.example/link?x=1&y=2"
    answer = answer_on_terminal(request("url", url=url), Person("accept"))
    assert (answer.action, answer.content) == ("accept", None)
    assert url in capsys.readouterr().err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def run_booking(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    turns = [{"tool_calls": [{"name": "book_table", "arguments": {"restaurant": "Ro"}}]}, "done"]
    (tmp_path / "turns.json").write_text(json.dumps([turns[0], {"text": "done"}]))
    server = f"{shlex.quote(sys.executable)} {SERVERS / 'asking_server.py'}"
    model = f"scripted:{tmp_path / 'turns.json'}"
    argv = ["run", "go", "--model", model, "--mcp", server, "--approve", "all", "--json"]
    assert main([*argv, "--no-log"]) == 0
    output: dict[str, Any] = json.loads(capsys.readouterr().out)
    return output


def test_run_asks_on_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(cli_run, "_ask", Person("y", "a", "saturday", "4", "yes"))
    (record,) = run_booking(tmp_path, capsys)["calls"]
    assert record["result"] == "booked Ro on saturday for 4 (terrace: True)"


def test_run_without_a_terminal_declines_even_with_approve_all(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (record,) = run_booking(tmp_path, capsys)["calls"]
    assert record["result"] == "not booked at Ro: the user chose decline"
