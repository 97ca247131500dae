"""`toolwire ui` and `toolwire run --approve web` as a user runs them."""

from __future__ import annotations

import socket
import subprocess
import sys

from tests.ui.conftest import request, toolwire_command


def _toolwire(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(toolwire_command(*args), capture_output=True, text=True, timeout=60)


def test_a_busy_port_or_a_bad_one_is_a_clear_error() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        done = _toolwire("ui", "--no-open", "--port", port)
    assert done.returncode == 2
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    done = _toolwire("ui", "--port", "70000")
    assert done.returncode == 2 and "must be a port number (0-65535), not 70000" in done.stderr


def test_beyond_loopback_the_printed_address_carries_the_token() -> None:
    server = subprocess.Popen(
        toolwire_command("ui", "--no-open", "--port", "0", "--host", "0.0.0.0"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().split()[2]
        base, _, token = url.partition("?token=")
        assert len(token) >= 32
        assert request(base + "api/runs")[0] == 401
        assert request(url)[0] == 200
    finally:
        server.terminate()
        _, errors = server.communicate(timeout=10)
    assert "anyone with this address can answer approvals" in errors


def test_without_the_extra_the_error_names_it() -> None:
    code = (
        "import sys; sys.modules['uvicorn'] = None\n"
        "from toolwire.cli import main; sys.exit(main(['ui', '--no-open']))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 2
    assert "toolwire ui needs the ui extra (uvicorn not installed)" in done.stderr
    assert "pip install 'toolwire[ui]'" in done.stderr


def test_approving_on_the_web_needs_the_log() -> None:
    done = _toolwire("run", "hi", "--model", "scripted:x.json", "--approve", "web", "--no-log")
    assert done.returncode == 2 and "--approve web is answered through the run log" in done.stderr
