"""The README's examples run as written."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_python_examples_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-examples-send-nothing")
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "README.md", "exec"), {"__name__": "readme"})
    assert "You ordered a lamp (order 17). answer" in capsys.readouterr().out


def test_the_main_command_answers_with_a_tool_call() -> None:
    command = next(line for line in README.splitlines() if "toolwire run" in line and "&&" in line)
    run = command.split("&& ")[-1].replace(".venv/bin/", "")
    import sys

    argv = shlex.split(run)
    toolwire = str(Path(sys.executable).parent / argv[0])
    done = subprocess.run(
        [toolwire, *argv[1:]], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    # The embedded default model, greedy: the same call and answer every time.
    assert done.returncode == 0, done.stderr
    assert '→ convert_units {"value": 100.0, "from_unit": "km"' in done.stderr
    assert "62.1371" in done.stdout
