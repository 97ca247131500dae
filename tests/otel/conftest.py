"""A real OTLP backend for the tracing tests: Arize Phoenix, started on 127.0.0.1 in a temporary
directory, queried through its REST API for the spans it stored."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

HERE = Path(__file__).parent
PHOENIX = Path(os.environ.get("TOOLWIRE_TEST_PHOENIX", HERE / ".phoenix" / "bin" / "phoenix"))
PROJECT_ATTRIBUTE = "openinference.project.name"
"""The resource attribute Phoenix files spans under: one project per test keeps them apart."""
START_SECONDS = 90


@dataclass(frozen=True)
class Phoenix:
    url: str

    def provider(self, project: str) -> TracerProvider:
        """A tracer provider exporting to this Phoenix over OTLP/HTTP, each span as it ends."""
        provider = TracerProvider(resource=Resource.create({PROJECT_ATTRIBUTE: project}))
        exporter = OTLPSpanExporter(endpoint=f"{self.url}/v1/traces")
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        return provider

    def spans(self, project: str, count: int, seconds: float = 20) -> list[dict[str, Any]]:
        """The spans stored for `project`, once there are `count` of them (Phoenix writes what
        it receives in the background). More than `count` is a failure too."""
        deadline = time.monotonic() + seconds
        spans: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            spans = self._get(f"/v1/projects/{project}/spans?limit=1000&sort=start_time&order=asc")
            if len(spans) >= count:
                time.sleep(0.3)
                again = self._get(
                    f"/v1/projects/{project}/spans?limit=1000&sort=start_time&order=asc"
                )
                assert len(again) == count, [s["name"] for s in again]
                return again
            time.sleep(0.1)
        raise AssertionError(f"Phoenix stored {len(spans)} spans, not {count}: {spans}")

    def _get(self, path: str) -> list[dict[str, Any]]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=10) as response:
                data: list[dict[str, Any]] = json.load(response)["data"]
                return data
        except urllib.error.HTTPError as error:
            if error.code == 404:  # no span of that project has arrived yet
                return []
            raise


def _free_ports(count: int) -> list[int]:
    sockets = [socket.socket() for _ in range(count)]
    try:
        for sock in sockets:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in sockets]
    finally:
        for sock in sockets:
            sock.close()


@pytest.fixture(scope="session")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Phoenix]:
    if not PHOENIX.is_file():
        pytest.fail(f"Phoenix is not installed at {PHOENIX}: run tests/otel/install-backend")
    directory = tmp_path_factory.mktemp("phoenix")
    http_port, grpc_port = _free_ports(2)
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(directory),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(http_port),
        "PHOENIX_GRPC_PORT": str(grpc_port),
        "PHOENIX_TELEMETRY_ENABLED": "false",
    }
    with open(directory / "phoenix.log", "wb") as log:
        process = subprocess.Popen(
            [str(PHOENIX), "serve"], env=env, stdout=log, stderr=subprocess.STDOUT
        )
    url = f"http://127.0.0.1:{http_port}"
    try:
        _wait_until_healthy(url, process, directory / "phoenix.log")
        yield Phoenix(url)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _wait_until_healthy(url: str, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Phoenix exited with {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"Phoenix did not start in {START_SECONDS} s:\n{log.read_text()}")


@pytest.fixture
def memory() -> tuple[TracerProvider, InMemorySpanExporter]:
    """A tracer provider keeping its finished spans in memory, for the tests that need no backend."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter
