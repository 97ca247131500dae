"""The README's examples, and those of the pages under docs/, run as written."""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def run_python_blocks(page: Path) -> int:
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(), re.S)
    name = str(page.relative_to(ROOT))
    for block in blocks:
        exec(compile(block, name, "exec"), {"__name__": "readme"})
    return len(blocks)


def test_python_examples_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-examples-send-nothing")
    assert run_python_blocks(ROOT / "README.md")
    assert "You ordered a lamp (order 17). answer" in capsys.readouterr().out


def test_docs_python_examples_run(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-readme-examples-send-nothing")
    assert sum(run_python_blocks(page) for page in PAGES[1:])
    out = capsys.readouterr().out
    assert "It is sunny.\n{'city': 'Rome'}" in out  # docs/text-calls.md
    assert "Durable hello." in out  # docs/durable.md


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_relative_links_resolve(page: Path) -> None:
    targets = re.findall(r"\]\(([^)\s]+)\)", page.read_text())
    local = [target.split("#")[0] for target in targets if "://" not in target]
    missing = [target for target in local if target and not (page.parent / target).exists()]
    assert not missing


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
