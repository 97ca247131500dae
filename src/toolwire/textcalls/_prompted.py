"""Prompted mode: tool calling for any text-only model, through the prompt and the scanner.

`PromptedTools(model)` is itself a `Model`: the loop, its limits and tools work unchanged. The
request's tools go into the system prompt as a catalogue; earlier calls and results are written
into the conversation as text; the inner model is sent no tools; its text streams through the
scanner, which turns the calls it writes into the same call events a native adapter streams.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import replace

from ..events import (
    ModelEvent,
    ResponseCompleted,
    TextDelta,
    ToolCallArgumentsDelta,
    ToolCallStarted,
)
from ..messages import Message, TextPart, ToolCall, ToolResult
from ..models import Model, ModelProfile, ModelRequest, NamedToolChoice, get_model
from ._model_events import ModelEventReader
from ._profiles import Profile, get_profile, profile_for_model
from ._render import render_call, render_catalogue, render_result
from ._scanner import Scanner

__all__ = ["PromptedTools"]

# The model stops here instead of inventing a result for the call it just wrote.
_RESULT_FENCE = "```tool_result"


class PromptedTools:
    """Wraps a text-only model (a `Model` or a model string) so that it can call tools.

    `profile` names the model's habits (reasoning tags, its own call format); by default it is
    the inner adapter's `profile.text_tool_format`, else guessed from the model's name. Calls are
    started with no id: the loop assigns them.
    """

    def __init__(self, model: Model | str, *, profile: Profile | str | None = None) -> None:
        self.inner = get_model(model)
        if profile is None:
            declared = getattr(self.inner, "profile", None)
            if isinstance(declared, ModelProfile) and declared.text_tool_format is not None:
                profile = declared.text_tool_format
        self.profile = (
            profile_for_model(self.inner.name) if profile is None else get_profile(profile)
        )

    @property
    def name(self) -> str:
        return self.inner.name

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]:
        with_tools = bool(request.tools) and request.tool_choice != "none"
        inner_request = self._inner_request(request, with_tools)
        if not with_tools:
            async for event in self.inner.stream(inner_request):
                yield event
            return
        reader = ModelEventReader(Scanner(request.tools, profile=self.profile))
        async for event in self.inner.stream(inner_request):
            if isinstance(event, TextDelta):
                for converted in reader.feed(event.text):
                    yield converted
            elif isinstance(event, ToolCallStarted | ToolCallArgumentsDelta):
                yield reader.native(event)  # the inner model called natively after all
            elif isinstance(event, ResponseCompleted):
                for converted in reader.close():
                    yield converted
                yield ResponseCompleted(
                    finish_reason=reader.finish_reason(event.finish_reason),
                    provider_data=event.provider_data,
                )
            else:
                yield event

    def _inner_request(self, request: ModelRequest, with_tools: bool) -> ModelRequest:
        messages = _as_text(request.messages)
        settings = request.settings
        if with_tools:
            catalogue = render_catalogue(
                request.tools,
                required=request.tool_choice == "required",
                only=(
                    request.tool_choice.name
                    if isinstance(request.tool_choice, NamedToolChoice)
                    else None
                ),
                parallel=request.parallel_tool_calls,
            )
            messages = _with_system(messages, catalogue)
            if _RESULT_FENCE not in settings.stop:
                settings = replace(settings, stop=(*settings.stop, _RESULT_FENCE))
        return ModelRequest(
            messages=tuple(messages),
            tools=(),
            tool_choice="auto",
            parallel_tool_calls=request.parallel_tool_calls,
            settings=settings,
        )


def _as_text(messages: Sequence[Message]) -> list[Message]:
    """The conversation for a model that knows no tool calls: calls become tool_call blocks in
    the assistant's text, results become tool_result blocks in a user message."""
    calls: dict[str, ToolCall] = {}
    converted: list[Message] = []
    for message in messages:
        if message.role == "assistant":
            pieces = []
            for part in message.parts:
                if isinstance(part, TextPart) and part.text:
                    pieces.append(part.text)
                elif isinstance(part, ToolCall):
                    calls[part.id] = part
                    pieces.append(render_call(part))
            converted.append(Message(role="assistant", parts=(TextPart(text="\n\n".join(pieces)),)))
        elif message.role == "tool" or message.tool_results:
            pieces = [
                render_result(part, calls.get(part.call_id))
                if isinstance(part, ToolResult)
                else part.text
                for part in message.parts
                if isinstance(part, ToolResult | TextPart)
            ]
            _append_user(converted, "\n\n".join(pieces))
        elif message.role == "user":
            _append_user(converted, message.text)
        else:
            converted.append(message)
    return converted


def _append_user(messages: list[Message], text: str) -> None:
    # Consecutive user turns are merged: many chat templates insist on alternating roles.
    if messages and messages[-1].role == "user":
        text = f"{messages[-1].text}\n\n{text}"
        messages.pop()
    messages.append(Message.user(text))


def _with_system(messages: list[Message], catalogue: str) -> list[Message]:
    if messages and messages[0].role == "system":
        first = messages[0]
        return [Message.system(f"{first.text}\n\n{catalogue}"), *messages[1:]]
    return [Message.system(catalogue), *messages]
