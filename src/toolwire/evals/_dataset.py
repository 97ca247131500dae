"""The eval dataset: JSONL, one item per line.

    {"id": "simple_0", "category": "simple",
     "tools": [{"name": "...", "description": "...", "parameters": {JSON Schema}}],
     "messages": [{"role": "user", "content": "..."}],
     "expected": [[{"name": "...", "arguments": {"param": [allowed values...]}}]]}

`expected` lists the acceptable call sets (any one of them is a correct answer); within a set the
calls may come in any order. An allowed value of `""` means the parameter may be left out. An
empty `expected` means no tool should be called.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .._untrusted import load_json
from ..errors import UsageError
from ..messages import Message
from ..tools import ToolDefinition

__all__ = ["EvalItem", "ExpectedCall", "item_to_json", "load_dataset", "parse_item"]

_ROLES = {"system": Message.system, "user": Message.user, "assistant": Message.assistant}


@dataclass(frozen=True, kw_only=True, slots=True)
class ExpectedCall:
    name: str
    arguments: Mapping[str, tuple[Any, ...]]
    """Each parameter's allowed values; `""` among them means it may be omitted."""


@dataclass(frozen=True, kw_only=True, slots=True)
class EvalItem:
    id: str
    category: str
    tools: tuple[ToolDefinition, ...]
    messages: tuple[Message, ...]
    expected: tuple[tuple[ExpectedCall, ...], ...]

    @property
    def expects_no_call(self) -> bool:
        return not self.expected


def load_dataset(path: str | Path) -> list[EvalItem]:
    """Read every item, or raise `UsageError` naming the first bad line: a dataset with a broken
    item is never scored as if the item did not exist."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise UsageError(f"dataset not found: {path}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read dataset {path}: {error}") from None
    items: list[EvalItem] = []
    seen: set[str] = set()
    for number, line in _numbered(lines):
        where = f"{path}:{number}"
        try:
            data = load_json(line)
        except ValueError as unusable:
            raise UsageError(f"{where}: {unusable}") from None
        item = parse_item(data, where)
        if item.id in seen:
            raise UsageError(f"{where}: duplicate id {item.id!r}")
        seen.add(item.id)
        items.append(item)
    return items


def _numbered(lines: list[str]) -> Iterator[tuple[int, str]]:
    for number, line in enumerate(lines, start=1):
        if line.strip():
            yield number, line


def parse_item(data: Any, where: str) -> EvalItem:
    if not isinstance(data, dict):
        raise UsageError(f"{where}: an item is a JSON object")
    missing = [k for k in ("id", "category", "tools", "messages", "expected") if k not in data]
    if missing:
        raise UsageError(f"{where}: missing {', '.join(missing)}")
    item_id, category = data["id"], data["category"]
    if not isinstance(item_id, str) or not item_id:
        raise UsageError(f"{where}: 'id' must be a non-empty string")
    if not isinstance(category, str) or not category:
        raise UsageError(f"{where}: 'category' must be a non-empty string")
    return EvalItem(
        id=item_id,
        category=category,
        tools=_tools(data["tools"], where),
        messages=_messages(data["messages"], where),
        expected=_expected(data["expected"], where),
    )


def _tools(raw: Any, where: str) -> tuple[ToolDefinition, ...]:
    if not isinstance(raw, list):
        raise UsageError(f"{where}: 'tools' must be a list")
    tools = []
    for i, tool in enumerate(raw):
        if not (
            isinstance(tool, dict)
            and isinstance(tool.get("name"), str)
            and isinstance(tool.get("description", ""), str)
            and isinstance(tool.get("parameters"), dict)
        ):
            raise UsageError(
                f"{where}: tools[{i}] needs a string 'name', a string 'description' and an "
                "object 'parameters' (JSON Schema)"
            )
        tools.append(
            ToolDefinition(
                name=tool["name"],
                description=tool.get("description", ""),
                parameters=tool["parameters"],
            )
        )
    return tuple(tools)


def _messages(raw: Any, where: str) -> tuple[Message, ...]:
    if not isinstance(raw, list) or not raw:
        raise UsageError(f"{where}: 'messages' must be a non-empty list")
    messages = []
    for i, message in enumerate(raw):
        if not (
            isinstance(message, dict)
            and message.get("role") in _ROLES
            and isinstance(message.get("content"), str)
        ):
            raise UsageError(
                f"{where}: messages[{i}] needs a 'role' (system, user or assistant) and a "
                "string 'content'"
            )
        messages.append(_ROLES[message["role"]](message["content"]))
    return tuple(messages)


def _expected(raw: Any, where: str) -> tuple[tuple[ExpectedCall, ...], ...]:
    if not isinstance(raw, list):
        raise UsageError(f"{where}: 'expected' must be a list of call sets")
    call_sets = []
    for i, call_set in enumerate(raw):
        if not isinstance(call_set, list) or not call_set:
            raise UsageError(f"{where}: expected[{i}] must be a non-empty list of calls")
        calls = []
        for j, call in enumerate(call_set):
            if not (
                isinstance(call, dict)
                and isinstance(call.get("name"), str)
                and isinstance(call.get("arguments"), dict)
                and all(isinstance(v, list) and v for v in call["arguments"].values())
            ):
                raise UsageError(
                    f"{where}: expected[{i}][{j}] needs a string 'name' and 'arguments' mapping "
                    "each parameter to a non-empty list of allowed values"
                )
            calls.append(
                ExpectedCall(
                    name=call["name"],
                    arguments={k: tuple(v) for k, v in call["arguments"].items()},
                )
            )
        call_sets.append(tuple(calls))
    return tuple(call_sets)


def item_to_json(item: EvalItem) -> dict[str, Any]:
    return {
        "id": item.id,
        "category": item.category,
        "tools": [
            {"name": t.name, "description": t.description, "parameters": dict(t.parameters)}
            for t in item.tools
        ],
        "messages": [{"role": m.role, "content": m.text} for m in item.messages],
        "expected": [
            [{"name": c.name, "arguments": {k: list(v) for k, v in c.arguments.items()}} for c in s]
            for s in item.expected
        ],
    }
