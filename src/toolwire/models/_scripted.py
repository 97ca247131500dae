"""A model that plays a script: for tests, demos and the CLI without a real model."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

from ..errors import ProviderError, UsageError
from ..events import (
    FinishReason,
    ModelEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
    UsageReported,
)
from ..messages import Message, TextPart, ToolCall, ToolResult, Usage
from ._base import ModelRequest


@dataclass(frozen=True, kw_only=True, slots=True)
class ScriptedCall:
    name: str
    arguments: Mapping[str, Any] | str = field(default_factory=dict)
    """A mapping, or raw argument text (to script malformed arguments)."""
    id: str | None = None


@dataclass(frozen=True, kw_only=True, slots=True)
class Turn:
    """One scripted response. Usage is estimated (4 characters a token) unless given."""

    text: str = ""
    tool_calls: Sequence[ScriptedCall] = ()
    finish_reason: FinishReason | None = None
    usage: Usage | None = None


Script: TypeAlias = (
    Sequence["Turn | str | ProviderError"]
    | Callable[[ModelRequest], "Turn | str | Awaitable[Turn | str]"]
)


class ScriptedModel:
    """Plays `turns` in order, one per request (a `str` is a text-only turn, a `ProviderError`
    is raised), or asks `script(request)` for each turn. Output streams in `chunk_size` pieces."""

    def __init__(self, script: Script, *, chunk_size: int = 8, name: str = "scripted") -> None:
        if chunk_size < 1:
            raise UsageError("chunk_size must be at least 1")
        self._script = script
        self._chunk_size = chunk_size
        self._name = name
        self.requests: list[ModelRequest] = []
        # Messages are immutable and shared between requests: count each one once, so the usage
        # estimate costs O(new messages) per request, not O(history).
        self._chars: dict[int, tuple[Message, int]] = {}

    @property
    def name(self) -> str:
        return self._name

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        self.requests.append(request)
        turn = await self._next_turn(request)
        size = self._chunk_size
        for start in range(0, len(turn.text), size):
            yield TextDelta(text=turn.text[start : start + size])
        for index, call in enumerate(turn.tool_calls):
            yield ToolCallStarted(index=index, name=call.name, id=call.id)
            raw = call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments)
            for start in range(0, len(raw), size):
                yield ToolCallArgumentsDelta(index=index, delta=raw[start : start + size])
        yield UsageReported(usage=turn.usage or self._estimate_usage(request, turn))
        finish = turn.finish_reason or ("tool_calls" if turn.tool_calls else "stop")
        yield ResponseCompleted(finish_reason=finish)

    def _estimate_usage(self, request: ModelRequest, turn: Turn) -> Usage:
        prompt_chars = sum(self._message_chars(m) for m in request.messages)
        output_chars = len(turn.text) + sum(
            len(c.name) + len(str(c.arguments)) for c in turn.tool_calls
        )
        return Usage(
            input_tokens=prompt_chars // 4 + 1, output_tokens=output_chars // 4 + 1, requests=1
        )

    def _message_chars(self, message: Message) -> int:
        known = self._chars.get(id(message))
        if known is None or known[0] is not message:
            known = (message, sum(_part_chars(part) for part in message.parts))
            self._chars[id(message)] = known
        return known[1]

    async def _next_turn(self, request: ModelRequest) -> Turn:
        if callable(self._script):
            produced = self._script(request)
            step = await produced if inspect.isawaitable(produced) else produced
        else:
            index = len(self.requests) - 1
            if index >= len(self._script):
                # The model failed the run, as a provider that stops answering does: the run
                # ends with stop reason "error" and keeps what it did.
                raise ProviderError(
                    f"the scripted model has {len(self._script)} turns and was asked for turn "
                    f"{index + 1}"
                )
            scripted = self._script[index]
            if isinstance(scripted, ProviderError):
                raise scripted
            step = scripted
        return Turn(text=step) if isinstance(step, str) else step


def _part_chars(part: object) -> int:
    if isinstance(part, TextPart):
        return len(part.text)
    if isinstance(part, ToolCall):
        return len(part.raw_arguments) + len(part.name)
    if isinstance(part, ToolResult):
        return len(part.content)
    return 0


def load_script(path: str | Path) -> list[Turn]:
    """Read a JSON list of turns, each `{"text": ...}` and/or
    `{"tool_calls": [{"name": ..., "arguments": {...}}]}`."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"script file not found: {path}") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise UsageError(f"cannot read script {path}: {error}") from None
    if not isinstance(data, list):
        raise UsageError(f"script {path}: expected a JSON list of turns")
    if not data:
        raise UsageError(f"script {path} has no turns")
    return [_turn_from_json(item, f"{path}[{i}]") for i, item in enumerate(data)]


def _turn_from_json(item: Any, where: str) -> Turn:
    if not isinstance(item, dict) or not ({"text", "tool_calls"} & item.keys()):
        raise UsageError(f"{where}: a turn is an object with 'text' and/or 'tool_calls'")
    text = item.get("text", "")
    calls = item.get("tool_calls", [])
    if not isinstance(text, str) or not isinstance(calls, list):
        raise UsageError(f"{where}: 'text' must be a string and 'tool_calls' a list")
    scripted = []
    for j, call in enumerate(calls):
        if not (isinstance(call, dict) and isinstance(call.get("name"), str)):
            raise UsageError(f"{where}.tool_calls[{j}]: a call needs a string 'name'")
        arguments = call.get("arguments", {})
        if not isinstance(arguments, dict | str):
            raise UsageError(f"{where}.tool_calls[{j}]: 'arguments' must be an object")
        scripted.append(ScriptedCall(name=call["name"], arguments=arguments, id=call.get("id")))
    return Turn(text=text, tool_calls=tuple(scripted))


def scripted_from_spec(spec: str) -> ScriptedModel:
    """`scripted:PATH`, as a model string."""
    if not spec:
        raise UsageError("scripted model needs a path: scripted:PATH")
    return ScriptedModel(load_script(spec), name=f"scripted:{spec}")
