"""A run log with runs worth looking at, and `toolwire ui`'s app served on a free port."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the ui extra is not installed")

import uvicorn

from toolwire import Agent, ScriptedModel, Turn, tool
from toolwire.log import RunLog
from toolwire.models import ScriptedCall
from toolwire.ui import create_app

HOSTILE = '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">'
LONG = "line of a long result\n" * 100


@tool(side_effect="read_only")
def fetch(url: str) -> str:
    """Fetch a page."""
    return HOSTILE if "evil" in url else LONG


@tool(side_effect="read_only")
def fail(reason: str) -> str:
    """Always fails."""
    raise RuntimeError(reason)


@tool
def delete(path: str, force: bool = False) -> str:
    """Delete a file.

    Args:
        path: the file
        force: even if read-only
    """
    return f"deleted {path}" + (" (forced)" if force else "")


def seed(path: Path) -> dict[str, str]:
    """Two finished runs: one with a hostile, a long and a failing result; one plain."""
    log = RunLog(path)
    turns = [
        Turn(
            text="Fetching <b>both</b>.",
            tool_calls=[
                ScriptedCall(name="fetch", arguments={"url": "https://evil.example"}),
                ScriptedCall(name="fetch", arguments={"url": "https://long.example"}),
                ScriptedCall(name="fail", arguments={"reason": "disk full"}),
            ],
        ),
        "Done: <i>two pages</i>.",
    ]
    agent = Agent(ScriptedModel(turns, name="scripted-a"), [fetch, fail], log=log)
    hostile = agent.run_sync("read the evil page").run_id
    plain = Agent(ScriptedModel(["hello"], name="scripted-b"), [], log=log).run_sync("say hi")
    log.close()
    return {"hostile": hostile, "plain": plain.run_id}


def toolwire_command(*args: str) -> list[str]:
    executable = shutil.which("toolwire", path=os.path.dirname(sys.executable))
    assert executable, "the toolwire console script is installed"
    return [executable, *args]


@dataclass
class Served:
    url: str
    log_path: Path

    def get(self, path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
        return request(self.url + path, headers=headers)

    def json(self, path: str) -> Any:
        status, _, body = self.get(path)
        assert status == 200, body
        return json.loads(body)

    def post(self, path: str, body: Any, **headers: str) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        headers = {"Content-Type": "application/json", **headers}
        status, _, reply = request(self.url + path, data=data, headers=headers)
        return status, json.loads(reply) if reply.startswith(b"{") else reply.decode()


def request(
    url: str, *, data: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    sent = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(sent, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@dataclass
class Server:
    server: uvicorn.Server
    thread: threading.Thread
    port: int
    close: Callable[[], None]


def start(log_path: Path, *, token: str | None = None, loopback_only: bool = True) -> Server:
    listening = socket.create_server(("127.0.0.1", 0))
    port = listening.getsockname()[1]
    hosts = frozenset({f"127.0.0.1:{port}"}) if loopback_only else frozenset()
    app = create_app(log_path, token=token, hosts=hosts)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listening]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)
    return Server(server, thread, port, app.close)


def stop(running: Server) -> None:
    running.close()
    running.server.should_exit = True
    running.thread.join(timeout=10)


@pytest.fixture
def seeded(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "data" / "runs.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path, seed(path)


@pytest.fixture
def served(seeded: tuple[Path, dict[str, str]]) -> Iterator[Served]:
    path, _ = seeded
    running = start(path)
    yield Served(f"http://127.0.0.1:{running.port}", path)
    stop(running)
