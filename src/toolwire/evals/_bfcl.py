"""Build the eval dataset from the Berkeley Function Calling Leaderboard's data (Apache-2.0), as
shipped in the `bfcl-eval` PyPI package.

The package's own dependencies are heavy, so it is never imported: the data is read from an
installed copy, an unpacked directory, or the wheel itself (by default the pinned wheel is fetched
with `pip download --no-deps`). Function names lose their dots (`math.factorial` becomes
`math_factorial`, as BFCL does for every API that forbids dots) and BFCL's Python-flavoured types
become JSON Schema (`dict` → object, `float` → number, `tuple` → array, `any` → string).
"""

from __future__ import annotations

import copy
import importlib.util
import json
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError

__all__ = ["BFCL_CATEGORIES", "BFCL_VERSION", "convert_bfcl"]

BFCL_VERSION = "2026.3.23"
BFCL_CATEGORIES: dict[str, str] = {
    "simple": "simple_python",
    "multiple": "multiple",
    "parallel": "parallel",
    "parallel_multiple": "parallel_multiple",
    "irrelevance": "irrelevance",
}
"""Our category → BFCL's file stem (`data/BFCL_v4_<stem>.json`)."""

_TYPES = {
    "dict": "object",
    "float": "number",
    "tuple": "array",
    "any": "string",
    "list": "array",
    "bool": "boolean",
}
_JSON_TYPES = {"string", "integer", "number", "boolean", "array", "object"}


def convert_bfcl(
    out: str | Path, *, source: str | Path | None = None, categories: Iterable[str] | None = None
) -> int:
    """Write the dataset to `out` (JSONL) and return the number of items."""
    wanted = list(categories) if categories is not None else list(BFCL_CATEGORIES)
    unknown = [c for c in wanted if c not in BFCL_CATEGORIES]
    if unknown:
        raise UsageError(
            f"unknown BFCL categories {unknown}; choose from {', '.join(BFCL_CATEGORIES)}"
        )
    with tempfile.TemporaryDirectory(prefix="toolwire-bfcl-") as scratch:
        reader = _reader(source, Path(scratch))
        lines = []
        for category in wanted:
            stem = BFCL_CATEGORIES[category]
            questions = _jsonl(reader(f"data/BFCL_v4_{stem}.json"))
            answers = (
                {}
                if category == "irrelevance"
                else {
                    a["id"]: a for a in _jsonl(reader(f"data/possible_answer/BFCL_v4_{stem}.json"))
                }
            )
            for question in questions:
                lines.append(json.dumps(_item(category, question, answers), ensure_ascii=False))
    Path(out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)


def _item(category: str, question: Mapping[str, Any], answers: Mapping[str, Any]) -> dict[str, Any]:
    item_id = question["id"]
    turns = question["question"]
    if len(turns) != 1:
        raise UsageError(f"BFCL item {item_id}: expected a single-turn question")
    if category == "irrelevance":
        expected: list[Any] = []
    else:
        if item_id not in answers:
            raise UsageError(f"BFCL item {item_id}: no possible answer")
        expected = [[_call(call) for call in answers[item_id]["ground_truth"]]]
    return {
        "id": item_id,
        "category": category,
        "tools": [_tool(function) for function in question["function"]],
        "messages": [{"role": m["role"], "content": m["content"]} for m in turns[0]],
        "expected": expected,
    }


def _call(ground_truth: Mapping[str, Any]) -> dict[str, Any]:
    ((name, arguments),) = ground_truth.items()
    return {"name": _name(name), "arguments": arguments}


def _tool(function: Mapping[str, Any]) -> dict[str, Any]:
    parameters = copy.deepcopy(dict(function["parameters"]))
    parameters["type"] = "object"
    parameters["properties"] = {k: _schema(v) for k, v in parameters.get("properties", {}).items()}
    parameters.setdefault("required", [])
    return {
        "name": _name(function["name"]),
        "description": function.get("description", ""),
        "parameters": parameters,
    }


def _schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    converted = {k: v for k, v in schema.items() if k != "optional"}
    kind = _TYPES.get(converted.get("type", "string"), converted.get("type", "string"))
    converted["type"] = kind if kind in _JSON_TYPES else "string"
    if "items" in converted and isinstance(converted["items"], dict):
        converted["items"] = _schema(converted["items"])
    if isinstance(converted.get("properties"), dict):
        converted["properties"] = {k: _schema(v) for k, v in converted["properties"].items()}
    return converted


def _name(name: str) -> str:
    return name.replace(".", "_")


def _jsonl(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def _reader(source: str | Path | None, scratch: Path) -> Any:
    """A function reading `data/...` paths from wherever the BFCL data is."""
    root = Path(source) if source is not None else _installed() or _download(scratch)
    if root.is_dir():
        base = root / "bfcl_eval" if (root / "bfcl_eval").is_dir() else root

        def read_dir(name: str) -> str:
            try:
                return (base / name).read_text(encoding="utf-8")
            except FileNotFoundError:
                raise UsageError(
                    f"{base / name} not found: is {root} the bfcl_eval data?"
                ) from None

        return read_dir
    if root.suffix == ".whl" and root.is_file():
        archive = zipfile.ZipFile(root)

        def read_wheel(name: str) -> str:
            try:
                return archive.read(f"bfcl_eval/{name}").decode("utf-8")
            except KeyError:
                raise UsageError(f"{root} has no bfcl_eval/{name}") from None

        return read_wheel
    raise UsageError(f"BFCL source {root} is neither a bfcl_eval directory nor a wheel")


def _installed() -> Path | None:
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _download(scratch: Path) -> Path:
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--quiet",
        "--disable-pip-version-check", "--dest", str(scratch), f"bfcl-eval=={BFCL_VERSION}",
    ]  # fmt: skip
    finished = subprocess.run(command, capture_output=True, text=True, check=False)
    wheels = sorted(scratch.glob("bfcl_eval-*.whl"))
    if finished.returncode != 0 or not wheels:
        raise UsageError(
            f"cannot fetch bfcl-eval=={BFCL_VERSION} with pip ({finished.stderr.strip()[-300:]}); "
            "pass the path of a downloaded wheel or unpacked package instead"
        )
    return wheels[0]
