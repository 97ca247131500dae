"""Scripted model responses in neutral form, and the contract each API's test driver meets.

A driver renders a `Say` in its API's streaming wire format (the bytes a real server would send),
builds an adapter pointed at the local server, and reads back what a recorded request holds.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from toolwire._assemble import ModelResponse, ResponseBuilder
from toolwire.clock import IdSource
from toolwire.events import ModelEvent
from toolwire.messages import Message, Part, ReasoningPart, TextPart, ToolCall, ToolResult
from toolwire.models import Model, ModelRequest

from .wire import Chunker, Reply


@dataclass(frozen=True)
class Call:
    name: str
    arguments: Mapping[str, Any] | str = "{}"
    """A mapping, or raw text (to script malformed or cut-off arguments)."""
    id: str = "call_1"

    @property
    def raw(self) -> str:
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)

    @property
    def parsed(self) -> Any:
        return json.loads(self.raw)


@dataclass(frozen=True)
class Say:
    """One model response."""

    text: str = ""
    calls: tuple[Call, ...] = ()
    reasoning: str = ""
    cut_off: bool = False
    """The response hit the output-token limit (finish reason `length`)."""
    input_tokens: int = 11
    output_tokens: int = 7


def pieces(text: str, count: int = 3) -> list[str]:
    """`text` in about `count` pieces, as a model streams it."""
    if not text:
        return []
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


class Driver(Protocol):
    prefix: str
    streams_raw_arguments: bool
    """Arguments travel as text the model writes (False: as a JSON object, as Gemini's do)."""

    def model(self, url: str) -> Model: ...

    def spec(self, url: str) -> str:
        """A model string for `get_model` / `--model` that points at the server."""
        ...

    def reply(
        self, say: Say, *, chunks: Chunker | None = None, drop_after: int | None = None
    ) -> Reply: ...

    def error(
        self, status: int, message: str, headers: Mapping[str, str] | None = None
    ) -> Reply: ...

    def tool_names(self, body: Any) -> list[str]: ...

    def results(self, body: Any) -> list[tuple[str, str]]:
        """(call id, content) of every tool result in a request, in order."""
        ...


async def events_of(model: Model, request: ModelRequest) -> list[ModelEvent]:
    return [event async for event in model.stream(request)]


async def respond(model: Model, request: ModelRequest) -> ModelResponse:
    """The response assembled exactly as the loop assembles it."""
    builder = ResponseBuilder(IdSource("run-test"))
    async for event in model.stream(request):
        builder.add(event)
    return builder.finish()


def ask(text: str = "What is 2 + 3?", **options: Any) -> ModelRequest:
    return ModelRequest(messages=(Message.system("Be brief."), Message.user(text)), **options)


def conversation(
    reasoning: ReasoningPart | None = None,
    call_data: tuple[Mapping[str, Any] | None, Mapping[str, Any] | None] = (None, None),
    answer_data: Mapping[str, Any] | None = None,
) -> tuple[Message, ...]:
    """A history with everything an adapter must translate: instructions, a user turn, an
    assistant turn with reasoning, text and two calls, both results (one an error) and a new user
    turn straight after them."""
    parts: list[Part] = [reasoning] if reasoning is not None else []
    parts += [
        TextPart(text="Checking both."),
        ToolCall(
            id="call_1",
            name="weather",
            arguments={"city": "Oslo"},
            raw_arguments='{"city": "Oslo"}',
            provider_data=call_data[0],
        ),
        ToolCall(
            id="call_2",
            name="add",
            arguments={"a": 2, "b": 3},
            raw_arguments='{"a": 2, "b": 3}',
            provider_data=call_data[1],
        ),
    ]
    return (
        Message.system("Be brief."),
        Message.user("Weather in Oslo, and 2 + 3?"),
        Message(role="assistant", parts=tuple(parts), provider_data=answer_data),
        Message(
            role="tool",
            parts=(
                ToolResult(call_id="call_1", name="weather", content="sunny"),
                ToolResult(call_id="call_2", name="add", content="boom", is_error=True),
            ),
        ),
        Message.user("And in Lima?"),
    )
