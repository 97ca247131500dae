"""A developer's toolbox over a fixed fake repository, `weatherly` (a small Python client for a
weather API): its files, its git history and its test run, all in memory.

Today is 2026-03-10. The module is self-contained (`toolwire run "..." --tools
bench/requests/toolsets/devbox.py` works); `reset()` restores the fixed files.
"""

from __future__ import annotations

import fnmatch
from typing import Any

from toolwire import ToolError, tool

TODAY = "2026-03-10"
INSTRUCTIONS = (
    "You help a developer working in the git repository `weatherly`, a small Python client for a "
    "weather API; paths are relative to its root. Today is 2026-03-10."
)

_FILES = {
    "README.md": """# weatherly

A small Python client for the Open-Meteo forecast API, with a disk cache.

## Install

    pip install -e .

## Usage

    from weatherly import forecast
    forecast("Berlin", days=3)

Forecasts are cached for 10 minutes (see `weatherly.cache`).
""",
    "CHANGELOG.md": """# Changelog

## 0.4.2 (2026-03-02)
- Raise a clear error on unknown cities.
- Test on Python 3.12.

## 0.4.1 (2026-02-20)
- Cache forecasts on disk.
""",
    "pyproject.toml": """[project]
name = "weatherly"
version = "0.4.2"
requires-python = ">=3.10"
dependencies = ["httpx>=0.27", "platformdirs>=4"]

[project.optional-dependencies]
dev = ["pytest>=8", "respx>=0.21"]
""",
    "src/weatherly/__init__.py": '''"""weatherly: forecasts from Open-Meteo."""

from .api import forecast

__version__ = "0.4.2"
__all__ = ["forecast"]
''',
    "src/weatherly/api.py": '''"""Calls to the Open-Meteo API."""

import httpx

from .cache import Cache
from .geocode import coordinates

BASE_URL = "https://api.open-meteo.com/v1/forecast"
TIMEOUT = 10  # seconds

_cache = Cache()


def forecast(city: str, days: int = 3, units: str = "metric") -> dict:
    """The daily forecast for a city."""
    if not 1 <= days <= 16:
        raise ValueError("days must be between 1 and 16")
    key = f"{city}:{days}:{units}"
    cached = _cache.get(key)
    if cached is not None:
        return cached
    lat, lon = coordinates(city)
    # TODO: retry on 429 with backoff
    response = httpx.get(BASE_URL, params=_params(lat, lon, days, units), timeout=TIMEOUT)
    response.raise_for_status()
    data = response.json()
    _cache.set(key, data)
    return data


def _params(lat: float, lon: float, days: int, units: str) -> dict:
    params = {"latitude": lat, "longitude": lon, "forecast_days": days,
              "daily": "temperature_2m_max,temperature_2m_min"}
    if units == "imperial":
        params["temperature_unit"] = "fahrenheit"
    return params
''',
    "src/weatherly/cache.py": '''"""A small disk cache for API responses."""

import json
import time
from datetime import datetime
from pathlib import Path

from platformdirs import user_cache_dir

DEFAULT_TTL = 600  # seconds


class Cache:
    def __init__(self, folder: Path | None = None, ttl: int = DEFAULT_TTL) -> None:
        self.folder = folder or Path(user_cache_dir("weatherly"))
        self.ttl = ttl

    def _path(self, key: str) -> Path:
        return self.folder / (key.replace(" ", "_").replace(":", "-") + ".json")

    def get(self, key: str) -> dict | None:
        path = self._path(key)
        if not path.exists() or self.expired(path):
            return None
        return json.loads(path.read_text())

    def set(self, key: str, value: dict) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        self._path(key).write_text(json.dumps(value))

    def expired(self, path: Path) -> bool:
        # TODO: use timezone-aware datetimes
        written = datetime.fromtimestamp(path.stat().st_mtime)
        return (datetime.now() - written).total_seconds() > self.ttl
''',
    "src/weatherly/geocode.py": '''"""City names to coordinates (a fixed table; no network)."""

CITIES = {
    "berlin": (52.52, 13.41),
    "london": (51.51, -0.13),
    "new york": (40.71, -74.01),
    "tokyo": (35.69, 139.69),
}


def coordinates(city: str) -> tuple[float, float]:
    try:
        return CITIES[city.strip().lower()]
    except KeyError:
        raise ValueError(f"unknown city: {city!r}") from None
''',
    "src/weatherly/units.py": '''"""Unit helpers."""


def c_to_f(celsius: float) -> float:
    return celsius * 9 / 5 + 32


def f_to_c(fahrenheit: float) -> float:
    return (fahrenheit - 32) * 5 / 9


def kmh_to_mph(kmh: float) -> float:
    return kmh / 1.609344
''',
    "tests/test_api.py": """import pytest

from weatherly.api import _params, forecast


def test_forecast_url():
    assert _params(1.0, 2.0, 3, "metric")["forecast_days"] == 3


def test_unknown_city_raises():
    with pytest.raises(ValueError):
        forecast("Atlantis")


@pytest.mark.network
def test_live_request():
    assert "daily" in forecast("Berlin", days=1)
""",
    "tests/test_cache.py": """import os
import time

from weatherly.cache import Cache


def test_set_and_get(tmp_path):
    cache = Cache(tmp_path)
    cache.set("berlin:3:metric", {"t": 1})
    assert cache.get("berlin:3:metric") == {"t": 1}


def test_key_with_spaces(tmp_path):
    cache = Cache(tmp_path)
    cache.set("new york:3:metric", {"t": 2})
    assert cache.get("new york:3:metric") == {"t": 2}


def test_expiry_uses_utc(tmp_path, monkeypatch):
    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    cache = Cache(tmp_path, ttl=60)
    cache.set("k", {})
    path = cache._path("k")
    os.utime(path, (time.time() - 30, time.time() - 30))
    assert not cache.expired(path)
""",
    "tests/test_units.py": """from weatherly.units import c_to_f, f_to_c, kmh_to_mph


def test_c_to_f():
    assert c_to_f(100) == 212


def test_f_to_c():
    assert f_to_c(212) == 100


def test_kmh_to_mph():
    assert round(kmh_to_mph(100), 2) == 62.14
""",
    "docs/setup.md": """# Setting up a development environment

1. Install Python 3.10 or newer.
2. `python -m venv .venv` and activate it (on Windows: `.venv\\\\Scripts\\\\activate`).
3. `pip install -e '.[dev]'`
4. Run the tests with `pytest -m "not network"`.
""",
    ".github/workflows/ci.yml": """name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python-version: ["3.10", "3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: ${{ matrix.python-version }}
      - run: pip install -e '.[dev]'
      - run: pytest -m "not network"
""",
}

_COMMITS = [
    ("a41f9c2", "Maya Lin", "2026-03-09", "Fix cache key for cities with spaces", ["src/weatherly/cache.py", "tests/test_cache.py"]),
    ("9b3e7d1", "Omar Said", "2026-03-06", "Add kmh_to_mph helper", ["src/weatherly/units.py", "tests/test_units.py"]),
    ("77c0a58", "Maya Lin", "2026-03-04", "Raise a clear error on unknown city", ["src/weatherly/geocode.py", "src/weatherly/api.py", "tests/test_api.py"]),
    ("3d2f1be", "Sam Rivera", "2026-03-02", "Release 0.4.2", ["pyproject.toml", "CHANGELOG.md", "src/weatherly/__init__.py"]),
    ("e8a90c4", "Omar Said", "2026-02-27", "CI: test on Python 3.12", [".github/workflows/ci.yml"]),
    ("5c1d3aa", "Maya Lin", "2026-02-25", "Cache forecasts on disk for 10 minutes", ["src/weatherly/cache.py", "src/weatherly/api.py"]),
    ("0f6b2e9", "Sam Rivera", "2026-02-20", "Document setup on Windows", ["docs/setup.md", "README.md"]),
    ("c7d4e11", "Jun Park", "2026-02-18", "Use httpx instead of requests", ["src/weatherly/api.py", "pyproject.toml"]),
    ("2a9f8b3", "Sam Rivera", "2026-02-12", "Initial commit", ["README.md", "pyproject.toml", "src/weatherly/__init__.py", "src/weatherly/api.py"]),
]  # fmt: skip

# (file, test, outcome, message)
_TESTS = [
    ("tests/test_api.py", "test_forecast_url", "passed", ""),
    ("tests/test_api.py", "test_unknown_city_raises", "passed", ""),
    ("tests/test_api.py", "test_live_request", "skipped", "needs the network (-m network)"),
    ("tests/test_cache.py", "test_set_and_get", "passed", ""),
    ("tests/test_cache.py", "test_key_with_spaces", "passed", ""),
    ("tests/test_cache.py", "test_expiry_uses_utc", "failed",
     "tests/test_cache.py:26: AssertionError: assert not True (Cache.expired compares a naive "
     "local datetime: the entry looked 18030 s old instead of 30 s)"),
    ("tests/test_units.py", "test_c_to_f", "passed", ""),
    ("tests/test_units.py", "test_f_to_c", "passed", ""),
    ("tests/test_units.py", "test_kmh_to_mph", "passed", ""),
]  # fmt: skip

_state: dict[str, Any] = {}


def reset() -> None:
    """Back to the fixed tree: every run of an item starts from the same files."""
    _state["files"] = dict(_FILES)


reset()


def _clean(path: str) -> str:
    text = path.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    if text.startswith("/") or ".." in text.split("/"):
        raise ToolError(f"paths are relative to the repository root: {path!r}")
    return text.rstrip("/") if text not in ("", ".") else ""


def _under(path: str, folder: str) -> bool:
    return not folder or path == folder or path.startswith(folder + "/")


@tool(side_effect="read_only")
def list_files(path: str = ".", pattern: str = "*") -> list[dict[str, Any]]:
    """List the files under a folder (recursively), with their sizes in bytes.

    Args:
        path: the folder, relative to the repository root
        pattern: only file names matching this glob, e.g. "*.py"
    """
    folder = _clean(path)
    found = [
        {"path": name, "bytes": len(text.encode())}
        for name, text in sorted(_state["files"].items())
        if _under(name, folder) and fnmatch.fnmatch(name.rsplit("/", 1)[-1], pattern)
    ]
    if not found and not any(_under(name, folder) for name in _state["files"]):
        raise ToolError(f"no folder {path!r}")
    return found


@tool(side_effect="read_only")
def read_file(path: str, start_line: int = 1, max_lines: int = 200) -> str:
    """Read a text file, with line numbers.

    Args:
        path: the file, relative to the repository root
        start_line: the first line to show (1-based)
        max_lines: at most this many lines
    """
    name = _clean(path)
    if name not in _state["files"]:
        close = [f for f in _state["files"] if f.rsplit("/", 1)[-1] == name.rsplit("/", 1)[-1]]
        hint = f"; did you mean {close[0]}?" if close else ""
        raise ToolError(f"no file {path!r}{hint}")
    lines = _state["files"][name].splitlines()
    first = max(start_line, 1)
    shown = lines[first - 1 : first - 1 + max(max_lines, 1)]
    body = "\n".join(f"{first + i:>4}  {line}" for i, line in enumerate(shown))
    return f"{name} ({len(lines)} lines)\n{body}"


@tool(side_effect="read_only")
def search_code(text: str, path: str = ".", file_pattern: str = "*") -> list[str]:
    """Find the lines that contain a piece of text (case-insensitive, not a regex), as
    "file:line: content".

    Args:
        text: the text to find
        path: search under this folder
        file_pattern: only files whose name matches this glob, e.g. "*.py"
    """
    needle = text.lower()
    if not needle.strip():
        raise ToolError("the text to find is empty")
    folder = _clean(path)
    return [
        f"{name}:{number}: {line.strip()}"
        for name, content in sorted(_state["files"].items())
        if _under(name, folder) and fnmatch.fnmatch(name.rsplit("/", 1)[-1], file_pattern)
        for number, line in enumerate(content.splitlines(), start=1)
        if needle in line.lower()
    ][:50]


@tool(side_effect="read_only")
def git_log(
    limit: int = 10, author: str | None = None, path: str | None = None
) -> list[dict[str, Any]]:
    """The latest commits, newest first: hash, author, date, message and files changed.

    Args:
        limit: at most this many commits
        author: only commits by this author (name or part of it)
        path: only commits that changed this file or folder
    """
    folder = _clean(path) if path else None
    commits = [
        {"hash": h, "author": who, "date": day, "message": message, "files": files}
        for h, who, day, message, files in _COMMITS
        if (author is None or author.lower() in who.lower())
        and (folder is None or any(_under(f, folder) for f in files))
    ]
    return commits[: max(limit, 0)]


@tool(side_effect="idempotent")
def run_tests(path: str = "tests", keyword: str | None = None) -> dict[str, Any]:
    """Run the test suite (pytest) or part of it, and report what passed and what failed.

    Args:
        path: a test file or folder
        keyword: only tests whose file or name contains this text
    """
    target = _clean(path)
    chosen = [
        t
        for t in _TESTS
        if _under(t[0], target)
        and (keyword is None or keyword.lower() in f"{t[0]}::{t[1]}".lower())
    ]
    if not chosen:
        raise ToolError(
            f"no tests collected from {path!r}" + (f" for {keyword!r}" if keyword else "")
        )
    counts = {o: sum(t[2] == o for t in chosen) for o in ("passed", "failed", "skipped")}
    summary = ", ".join(f"{n} {o}" for o, n in counts.items() if n)
    return {
        "summary": f"{summary} in 0.42s",
        **counts,
        "failures": [{"test": f"{f}::{n}", "error": m} for f, n, o, m in chosen if o == "failed"],
        "skipped_tests": [
            {"test": f"{f}::{n}", "why": m} for f, n, o, m in chosen if o == "skipped"
        ],
    }


@tool(side_effect="destructive")
def write_file(path: str, content: str, overwrite: bool = False) -> dict[str, Any]:
    """Write a text file, creating its folders.

    Args:
        path: the file, relative to the repository root
        content: the whole text of the file
        overwrite: replace the file if it exists
    """
    name = _clean(path)
    if not name:
        raise ToolError("give a file name")
    existed = name in _state["files"]
    if existed and not overwrite:
        raise ToolError(f"{name} exists: pass overwrite=true to replace it")
    _state["files"][name] = content
    return {"path": name, "bytes": len(content.encode()), "created": not existed}


TOOLS = [list_files, read_file, search_code, git_log, run_tests, write_file]
