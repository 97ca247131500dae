"""The suite of everyday requests: its items (items.jsonl), their dev/test split and the four
toolsets they run against.

An item is one conversation: a list of user turns, each with the calls it should lead to and the
checks its answer must pass. One JSON object a line:

    {"id": "...", "toolset": "builtin" | "assistant" | "shop" | "devbox",
     "kind": "single" | "multi" | "followup" | "none" | "ask",
     "turns": [{"user": "the message",
                "calls": [{"name": "tool", "args": {"param": VALUE_CHECK, ...},
                           "result": [TEXT_CHECK, ...], "example": {...}}],
                "also_ok": ["tool", ...],
                "answer": [TEXT_CHECK, ...]}]}

(checks.py lists the checks.) `calls` match the calls made in that turn in any order; `result`
checks the result of the call matched; `example` gives the arguments of one right call where
they cannot be read off the checks (the tests run it). `also_ok` names tools a careful assistant
may call in that turn beyond those expected (a look-up before asking which order). Kinds: one call
(`single`), two to four calls in one turn (`multi`), a conversation whose follow-ups need tools
again (`followup`), a request no tool fits (`none`), a request missing a required value, where the
right move is to ask for it (`ask`).

The split is fixed by the id alone (`split_of`), so it never changes as items are added.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeAlias

from toolwire import Tool
from toolwire.builtin import TOOLS as BUILTIN_TOOLS
from toolwire.builtin import clock_tool

from .checks import (
    CheckError,
    FromResult,
    TextCheck,
    ValueCheck,
    parse_text_check,
    parse_value_check,
)
from .toolsets import assistant, devbox, shop

__all__ = [
    "ITEMS",
    "KINDS",
    "SPLITS",
    "TOOLSETS",
    "ExpectedCall",
    "Item",
    "Kind",
    "Split",
    "SuiteError",
    "Toolset",
    "UserTurn",
    "load_items",
    "parse_item",
    "split_of",
]

ITEMS = Path(__file__).with_name("items.jsonl")

Kind: TypeAlias = Literal["single", "multi", "followup", "none", "ask"]
KINDS: tuple[Kind, ...] = ("single", "multi", "followup", "none", "ask")
Split: TypeAlias = Literal["dev", "test"]
SPLITS: tuple[Split, ...] = ("dev", "test")


class SuiteError(ValueError):
    """items.jsonl holds an item that is not well formed."""


def split_of(item_id: str) -> Split:
    """dev or test, from the id alone: the first byte of its SHA-256, even or odd."""
    return "dev" if hashlib.sha256(item_id.encode()).digest()[0] % 2 == 0 else "test"


@dataclass(frozen=True, slots=True)
class Toolset:
    name: str
    tools: tuple[Tool, ...]
    instructions: str | None
    reset: Callable[[], None]

    def tool(self, name: str) -> Tool | None:
        return next((t for t in self.tools if t.name == name), None)

    def defaults(self) -> dict[str, dict[str, Any]]:
        """Each tool's parameters that have a default, with it: a call leaving one out gets it."""
        return {
            t.name: {
                name: schema["default"]
                for name, schema in t.parameters.get("properties", {}).items()
                if "default" in schema
            }
            for t in self.tools
        }


def _nothing_to_reset() -> None:
    pass


NOW = datetime.datetime(2026, 3, 10, 14, 25, 37, tzinfo=datetime.UTC)
"""The built-in clock's time throughout: a result that changed with each run would change what
the model writes after it, and no two runs would be comparable."""


def _stopped_clock(tool: Tool) -> Tool:
    return clock_tool(lambda: NOW) if tool.name == "current_time" else tool


TOOLSETS: dict[str, Toolset] = {
    # The built-in tools get no instructions: `toolwire run` gives them none.
    "builtin": Toolset(
        "builtin", tuple(map(_stopped_clock, BUILTIN_TOOLS)), None, _nothing_to_reset
    ),
    "assistant": Toolset(
        "assistant", tuple(assistant.TOOLS), assistant.INSTRUCTIONS, assistant.reset
    ),
    "shop": Toolset("shop", tuple(shop.TOOLS), shop.INSTRUCTIONS, shop.reset),
    "devbox": Toolset("devbox", tuple(devbox.TOOLS), devbox.INSTRUCTIONS, devbox.reset),
}


@dataclass(frozen=True, slots=True)
class ExpectedCall:
    name: str
    arguments: Mapping[str, ValueCheck]
    result: tuple[TextCheck, ...] = ()
    example: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class UserTurn:
    user: str
    calls: tuple[ExpectedCall, ...] = ()
    also_ok: frozenset[str] = frozenset()
    answer: tuple[TextCheck, ...] = ()


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    toolset: str
    kind: Kind
    turns: tuple[UserTurn, ...]

    @property
    def split(self) -> Split:
        return split_of(self.id)


def load_items(path: Path = ITEMS) -> list[Item]:
    items: list[Item] = []
    seen: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            data = json.loads(line)
        except json.JSONDecodeError as error:
            raise SuiteError(f"{where}: not JSON: {error}") from None
        item = parse_item(data, where)
        if item.id in seen:
            raise SuiteError(f"{where}: id {item.id!r} is used twice")
        seen.add(item.id)
        items.append(item)
    return items


def parse_item(data: Any, where: str) -> Item:
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: an item is a JSON object")
    _keys(data, {"id", "toolset", "kind", "turns"}, {"id", "toolset", "kind", "turns"}, where)
    item_id, toolset_name, kind, turns = data["id"], data["toolset"], data["kind"], data["turns"]
    if not isinstance(item_id, str) or not item_id:
        raise SuiteError(f"{where}: id must be a non-empty string")
    where = f"{where} ({item_id})"
    toolset = TOOLSETS.get(toolset_name)
    if toolset is None:
        raise SuiteError(f"{where}: unknown toolset {toolset_name!r}; one of {list(TOOLSETS)}")
    if kind not in KINDS:
        raise SuiteError(f"{where}: unknown kind {kind!r}; one of {list(KINDS)}")
    if not isinstance(turns, list) or not turns:
        raise SuiteError(f"{where}: turns must be a non-empty list")
    try:
        parsed = tuple(
            _parse_turn(turn, toolset, f"{where}.turns[{i}]") for i, turn in enumerate(turns)
        )
    except CheckError as error:
        raise SuiteError(str(error)) from None
    _check_kind(kind, parsed, where)
    return Item(id=item_id, toolset=toolset_name, kind=kind, turns=parsed)


def _keys(data: Mapping[str, Any], allowed: set[str], required: set[str], where: str) -> None:
    if unknown := set(data) - allowed:
        raise SuiteError(f"{where}: unknown keys {sorted(unknown)}")
    if missing := required - set(data):
        raise SuiteError(f"{where}: missing {sorted(missing)}")


def _parse_turn(data: Any, toolset: Toolset, where: str) -> UserTurn:
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: a turn is a JSON object")
    _keys(data, {"user", "calls", "also_ok", "answer"}, {"user"}, where)
    if not isinstance(data["user"], str) or not data["user"].strip():
        raise SuiteError(f"{where}: user must be the message's text")
    calls = tuple(
        _parse_call(call, toolset, f"{where}.calls[{i}]")
        for i, call in enumerate(_list(data, "calls", where))
    )
    also_ok = _list(data, "also_ok", where)
    for name in also_ok:
        if toolset.tool(name) is None:
            raise SuiteError(f"{where}: also_ok names {name!r}, not a tool of {toolset.name}")
    answer = tuple(
        parse_text_check(check, f"{where}.answer[{i}]")
        for i, check in enumerate(_list(data, "answer", where))
    )
    for check in answer:
        if isinstance(check, FromResult) and check.call >= len(calls):
            raise SuiteError(f"{where}: from_result {check.call} but {len(calls)} expected calls")
    return UserTurn(user=data["user"], calls=calls, also_ok=frozenset(also_ok), answer=answer)


def _list(data: Mapping[str, Any], key: str, where: str) -> Sequence[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise SuiteError(f"{where}: {key} must be a list")
    return value


def _parse_call(data: Any, toolset: Toolset, where: str) -> ExpectedCall:
    if not isinstance(data, dict):
        raise SuiteError(f"{where}: an expected call is a JSON object")
    _keys(data, {"name", "args", "result", "example"}, {"name"}, where)
    tool = toolset.tool(data["name"])
    if tool is None:
        raise SuiteError(f"{where}: {data['name']!r} is not a tool of {toolset.name}")
    args, example = data.get("args", {}), data.get("example")
    if not isinstance(args, dict) or not (example is None or isinstance(example, dict)):
        raise SuiteError(f"{where}: args and example are JSON objects")
    properties = tool.parameters.get("properties", {})
    for name in [*args, *(example or {})]:
        if name not in properties:
            raise SuiteError(f"{where}: {tool.name} has no parameter {name!r}")
    result = tuple(
        parse_text_check(c, f"{where}.result[{i}]")
        for i, c in enumerate(_list(data, "result", where))
    )
    if any(isinstance(check, FromResult) for check in result):
        raise SuiteError(f"{where}: from_result checks an answer, not a result")
    return ExpectedCall(
        name=tool.name,
        arguments={name: parse_value_check(c, f"{where}.args.{name}") for name, c in args.items()},
        result=result,
        example=example,
    )


def _check_kind(kind: Kind, turns: tuple[UserTurn, ...], where: str) -> None:
    counts = [len(turn.calls) for turn in turns]
    fits = {
        "single": counts == [1],
        "multi": len(counts) == 1 and 2 <= counts[0] <= 4,
        "followup": len(counts) >= 2 and all(counts),
        "none": not any(counts),
        "ask": counts == [0] and bool(turns[0].answer),
    }[kind]
    if not fits:
        raise SuiteError(f"{where}: a {kind!r} item cannot expect {counts} calls per turn")
