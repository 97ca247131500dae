"""A tool asking the run's model for a completion (MCP sampling): shown to the approver like a
call, run through the agent's own model within the run's limits, counted and recorded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import anyio

from ._approve import ask_approval
from ._assemble import ResponseBuilder
from ._pause import PausableDeadline
from ._state import RunState
from .approval import Decline, Edit
from .errors import ProviderError
from .events import SamplingAnswered, UsageReported
from .messages import Message, ToolCall, Usage
from .models import ModelRequest, ModelSettings
from .sampling import Sampled, SamplingRefused, SamplingRequest
from .tools import ToolDefinition

SAMPLING = "sampling"
"""The name an approver sees: the request is shown like a call of this tool."""


async def sample(
    state: RunState, step: int, deadline: PausableDeadline, request: SamplingRequest
) -> Sampled:
    with deadline.paused():
        return await _sample(state, step, request)


async def _sample(state: RunState, step: int, request: SamplingRequest) -> Sampled:
    asked = state.clock.now()
    answered = _Recorder(state, step, request, asked)
    call = ToolCall(
        id=state.ids.call_id(f"{request.call_id}-{SAMPLING}"),
        name=SAMPLING,
        arguments=request.arguments(),
    )
    definition = ToolDefinition(
        name=SAMPLING,
        description=(
            f"MCP server {request.server!r} asks the agent's model for a completion, during a "
            f"call of {request.tool}"
        ),
        parameters={"type": "object"},
    )
    decision = await ask_approval(state, call, definition, "read_only", call.arguments)
    if isinstance(decision, Decline):
        answered(decision.by, refused=decision.message or "the user declined")
        raise SamplingRefused(decision.message or "the user declined the sampling request")
    if isinstance(decision, Edit):
        try:
            request = _edited(request, decision.arguments)
        except ValueError as problem:
            answered(decision.by, refused=f"invalid edit: {problem}")
            raise SamplingRefused(f"the approver's edit is invalid: {problem}") from None
    try:
        sampled, usage = await _complete(state, request)
    except SamplingRefused as refused:
        answered(decision.by, refused=str(refused))
        raise
    answered(decision.by, sampled=sampled, usage=usage)
    return sampled


async def _complete(state: RunState, request: SamplingRequest) -> tuple[Sampled, Usage]:
    assert state.model is not None, "a run always has its agent's model"
    max_tokens = _within_budget(state, request.max_tokens)
    system = (Message.system(request.system_prompt),) if request.system_prompt else ()
    model_request = ModelRequest(
        messages=(*system, *request.messages),
        tool_choice="none",
        settings=ModelSettings(
            max_output_tokens=max_tokens, temperature=request.temperature, stop=request.stop
        ),
    )
    builder = ResponseBuilder(state.ids)
    remaining = state.remaining()
    try:
        with anyio.fail_after(float("inf") if remaining is None else max(remaining, 0.0)):
            events = state.model.stream(model_request)
            try:
                async for event in events:
                    builder.add(event)
            finally:
                aclose = getattr(events, "aclose", None)
                if aclose is not None:
                    await aclose()
            response = builder.finish()
    except TimeoutError:
        raise SamplingRefused("the run's time ran out before the model answered") from None
    except ProviderError as failure:
        raise SamplingRefused(f"the model failed: {state.redact(str(failure))}") from None
    state.usage = state.usage + response.usage
    state.emit(UsageReported(usage=response.usage))
    text = response.message.text
    model = state.model.name
    return Sampled(text=text, model=model, finish_reason=response.finish_reason), response.usage


def _within_budget(state: RunState, asked: int) -> int:
    """The tokens the server asked for, cut to what is left of the run's output budget."""
    limits, used = state.limits, state.usage
    left = [asked]
    if limits.max_output_tokens is not None:
        left.append(limits.max_output_tokens - used.output_tokens)
    if limits.max_total_tokens is not None:
        left.append(limits.max_total_tokens - used.total_tokens)
    allowed = min(left)
    if allowed < 1:
        raise SamplingRefused("the run's token budget is spent")
    return allowed


def _edited(request: SamplingRequest, arguments: Mapping[str, Any]) -> SamplingRequest:
    messages = arguments.get("messages")
    if not isinstance(messages, Sequence) or isinstance(messages, str) or not messages:
        raise ValueError("messages must be a non-empty list of {role, text}")
    parsed = tuple(_message(m) for m in messages)
    system = arguments.get("system_prompt")
    max_tokens = arguments.get("max_tokens", request.max_tokens)
    if system is not None and not isinstance(system, str):
        raise ValueError("system_prompt must be text or null")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ValueError("max_tokens must be a positive integer")
    return SamplingRequest(
        server=request.server,
        tool=request.tool,
        run_id=request.run_id,
        call_id=request.call_id,
        messages=parsed,
        system_prompt=system,
        max_tokens=min(max_tokens, request.max_tokens),
        temperature=request.temperature,
        stop=request.stop,
    )


def _message(item: Any) -> Message:
    role: Literal["user", "assistant"] | None = None
    if isinstance(item, Mapping) and item.get("role") in ("user", "assistant"):
        role = item["role"]
    if role is None or not isinstance(item.get("text"), str):
        raise ValueError("each message must be {role: user|assistant, text: ...}")
    return Message.user(item["text"]) if role == "user" else Message.assistant(item["text"])


class _Recorder:
    def __init__(self, state: RunState, step: int, request: SamplingRequest, asked: float) -> None:
        self._state, self._step, self._request, self._asked = state, step, request, asked

    def __call__(
        self,
        decided_by: str,
        *,
        refused: str | None = None,
        sampled: Sampled | None = None,
        usage: Usage | None = None,
    ) -> None:
        state = self._state
        state.emit(
            SamplingAnswered(
                request=self._request,
                decided_by=decided_by,
                refused=refused,
                text=None if sampled is None else sampled.text,
                model=None if sampled is None else sampled.model,
                usage=usage or Usage(),
                step=self._step,
                seconds=state.clock.now() - self._asked,
            )
        )
