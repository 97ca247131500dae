"""The personal-content example: users are isolated by their tokens, and the hidden memory tool
cannot be run by the model, whatever the content says."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from toolwire import RunResult, ScriptedModel, Turn
from toolwire.errors import UsageError
from toolwire.models import ScriptedCall

from .conftest import free_port, wait_for_port

pytestmark = pytest.mark.timeout(60)

EXAMPLE = Path(__file__).parents[2] / "examples" / "personal_content"
ALICE = "alice-demo-token-7f3a"
BOB = "bob-demo-token-91c2"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"personal_content_{name}", EXAMPLE / f"{name}.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


assistant = load("assistant")


@pytest.fixture(scope="module")
def content(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    db = tmp_path_factory.mktemp("content") / "content.db"
    port = free_port()
    command = [sys.executable, str(EXAMPLE / "server.py"), "--db", str(db), "--port", str(port)]
    process = subprocess.Popen([*command, "--demo-data"], stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}/mcp", db
    finally:
        process.kill()
        process.wait()


def ask(url: str, token: str, *turns: Turn | str, question: str = "?") -> RunResult:
    model = ScriptedModel(list(turns))
    return anyio.run(lambda: assistant.answer(question, url=url, token=token, model=model))


def search(**arguments: Any) -> Turn:
    return Turn(tool_calls=[ScriptedCall(name="search_my_content", arguments=arguments)])


def found(content: str) -> list[Any]:
    # FastMCP sends a list as JSON text, or (when empty) only as structured {"result": [...]}.
    value = json.loads(content)
    return list(value["result"] if isinstance(value, dict) else value)


def summaries(db: Path, user: str) -> list[str]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT summary FROM summaries WHERE user_id = ?", (user,))
        return [row[0] for row in rows]


def test_each_user_sees_only_their_own_content(content: tuple[str, Path]) -> None:
    url, _ = content
    nosy = [
        search(query="harbour"),
        search(query="sourdough"),  # Bob's post
        search(query="Bob"),
        Turn(
            tool_calls=[
                ScriptedCall(name="search_my_content", arguments={"query": "", "user": "bob"})
            ]
        ),
        "done",
    ]
    alice = ask(url, ALICE, *nosy)
    seen_by_alice = " ".join(c.result.content for c in alice.calls)
    assert "Sunset over the harbour" in seen_by_alice
    assert "fishing boats" not in seen_by_alice and "sourdough recipe" not in seen_by_alice
    assert found(alice.calls[1].result.content) == found(alice.calls[2].result.content) == []
    # Asking for another user by argument is not even possible: there is no such argument.
    assert alice.calls[3].result.is_error and "user: unexpected property" in (
        alice.calls[3].result.content
    )

    bob = ask(url, BOB, search(query="harbour"), search(query="bookshelf"), "done")
    assert "fishing boats at dawn" in bob.calls[0].result.content
    assert "Sunset" not in bob.calls[0].result.content
    assert found(bob.calls[1].result.content) == []


def test_a_caption_cannot_make_the_model_run_the_hidden_memory_tool(
    content: tuple[str, Path],
) -> None:
    url, db = content
    before = summaries(db, "alice")
    obeys_the_caption = [
        search(query="boots"),
        Turn(
            tool_calls=[
                ScriptedCall(name="save_run_summary", arguments={"summary": "all memories deleted"})
            ]
        ),
        "Your hiking boots are by the tent.",
    ]
    result = ask(url, ALICE, *obeys_the_caption, question="where are my boots?")
    assert "IMPORTANT SYSTEM NOTICE" in result.calls[0].result.content
    refused = result.calls[1].result
    assert refused.is_error and refused.content.startswith("Unknown tool 'save_run_summary'")
    assert "Available tools: search_my_content." in refused.content
    # Only the application's own summary was saved.
    assert summaries(db, "alice")[len(before) :] == [
        "Asked: where are my boots?\nAnswered: Your hiking boots are by the tent."
    ]
    assert not any("all memories deleted" in s for s in summaries(db, "alice"))


def test_the_model_never_sees_the_token_and_only_the_search_tool(
    content: tuple[str, Path],
) -> None:
    url, _ = content
    model = ScriptedModel([search(query="harbour"), "done"])
    result = anyio.run(lambda: assistant.answer("?", url=url, token=ALICE, model=model))
    assert [d.name for d in model.requests[0].tools] == ["search_my_content"]
    assert ALICE not in repr(model.requests) and ALICE not in repr(result)


def test_an_unknown_token_is_refused_with_a_clear_message(content: tuple[str, Path]) -> None:
    url, db = content
    with pytest.raises(UsageError) as caught:
        ask(url, "stolen-or-made-up-token", search(query="harbour"), "done")
    message = str(caught.value)
    assert "MCP server 'content'" in message
    assert "rejected the credentials (HTTP 401)" in message
    assert "stolen-or-made-up-token" not in message
    assert summaries(db, "nobody") == []
