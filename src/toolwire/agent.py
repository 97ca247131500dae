"""The agent: a model, tools and limits; `run` is the tool-calling loop, written once."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Protocol

import anyio

from . import _telemetry
from ._assemble import ModelResponse, ResponseBuilder
from ._durability import Durability
from ._execute import answer_the_rest, execute_calls
from ._loopguard import LoopGuard
from ._redact import redact, run_secrets
from ._state import RunState
from ._sync import sync_runner
from ._telemetry import Telemetry
from .approval import Approver
from .clock import Clock, EventLoopClock, IdSource, new_run_id
from .elicitation import Elicitor
from .errors import ProviderError, UsageError
from .events import (
    FinishReason,
    MessageAdded,
    RetryScheduled,
    RunEvent,
    RunFinished,
    RunStarted,
    StepStarted,
    StopReason,
)
from .limits import Limits
from .messages import Message, ToolCall
from .models import Model, ModelRequest, ModelSettings, NamedToolChoice, ToolChoice, get_model
from .run import RunResult
from .tools import FunctionToolset, Tool, ToolDefinition, Toolset
from .tools._tool import CONTEXT_KEYS

__all__ = ["Agent", "EventSink", "describe_tools", "offered_tools"]

ToolLike = Tool | Toolset | Callable[..., Any]
EventHandler = Callable[[RunEvent], None]


class EventSink(Protocol):
    """Records every event of every run: `toolwire.log.RunLog` is one."""

    def record(self, run_id: str, event: RunEvent) -> None: ...


class Agent:
    """A model with tools, instructions and limits. Reusable and safe to share across runs.

    `run` is the loop; `run_sync` drives the same loop from synchronous code; `iter` streams its
    events. Pass `log=RunLog()` to record every run in SQLite, and
    `telemetry=toolwire.otel.OpenTelemetry()` to trace them (`toolwire.otel.instrument()` traces
    every agent's runs).
    """

    def __init__(
        self,
        model: Model | str,
        tools: Iterable[ToolLike] = (),
        *,
        instructions: str | None = None,
        limits: Limits | None = None,
        approver: Approver | None = None,
        elicitor: Elicitor | None = None,
        tool_choice: ToolChoice | str = "auto",
        parallel_tool_calls: bool = True,
        settings: ModelSettings | None = None,
        log: EventSink | None = None,
        clock: Clock | None = None,
        telemetry: Telemetry | None = None,
    ) -> None:
        self.model = get_model(model)
        self.toolsets = as_toolsets(tools)
        self.instructions = instructions
        self.limits = limits or Limits()
        self.approver = approver
        self.elicitor = elicitor
        self.tool_choice = _tool_choice(tool_choice)
        self.parallel_tool_calls = parallel_tool_calls
        self.settings = settings or ModelSettings()
        self.log = log
        self.telemetry = telemetry
        self.clock: Clock = clock or EventLoopClock()

    async def aclose(self) -> None:
        """Close the model's connections (adapters holding an HTTP client have `aclose`)."""
        aclose = getattr(self.model, "aclose", None)
        if aclose is not None:
            await aclose()

    def close(self) -> None:
        """`aclose` from synchronous code, on the event loop `run_sync` uses."""
        sync_runner.run(self.aclose)

    async def __aenter__(self) -> Agent:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def tools(self) -> list[ToolDefinition]:
        """Exactly what the model is sent, in order."""
        return await describe_tools(self.toolsets)

    async def run(
        self,
        prompt: str | None = None,
        *,
        history: Sequence[Message] = (),
        deps: Mapping[str, Any] | None = None,
        run_id: str | None = None,
        limits: Limits | None = None,
        on_event: EventHandler | None = None,
        durability: Durability | None = None,
    ) -> RunResult:
        """Run the loop until the model answers or a limit stops it.

        `deps` are the values injected into tools (`Injected`); they never reach the model. On
        cancellation (task cancel, Ctrl-C) the history is made consistent (every issued call gets a
        result), `RunFinished` is emitted with stop reason `cancelled`, and the cancellation
        propagates.

        `durability` makes the run durable: `toolwire.durable` passes it, with the run id its
        engine knows the run by; the run then reads time from it instead of `clock`.
        """
        run_id = run_id or new_run_id()
        secrets = run_secrets(deps or {})
        emit = self._emitter(run_id, on_event, secrets)
        limits = limits or self.limits
        clock = self.clock if durability is None else durability.clock
        messages = _initial_messages(self.instructions, history, prompt)
        ids = IdSource(run_id)
        ids.take(call.id for message in messages for call in message.tool_calls)
        state = RunState(
            run_id=run_id,
            clock=clock,
            limits=limits,
            ids=ids,
            emit=emit,
            deps=deps or {},
            approver=self.approver,
            elicitor=self.elicitor,
            model=self.model,
            secrets=secrets,
            deadline=None if limits.timeout is None else clock.now() + limits.timeout,
            guard=LoopGuard(limits.loop_threshold),
            durability=durability,
        )
        loop = _Loop(self, state, messages)
        emit(
            RunStarted(
                run_id=run_id, model=self.model.name, prompt=prompt, started_at=clock.timestamp()
            )
        )
        for index, message in enumerate(loop.messages):
            emit(MessageAdded(message=message, index=index, step=0))
        return await loop.run()

    def run_sync(self, prompt: str | None = None, **options: Any) -> RunResult:
        """`run` from synchronous code: the same loop, on one event loop kept in a background
        thread for all synchronous calls, so a model's connections survive from call to call."""
        return sync_runner.run(functools.partial(self.run, prompt, **options))

    @asynccontextmanager
    async def iter(
        self, prompt: str | None = None, **options: Any
    ) -> AsyncIterator[AsyncIterator[RunEvent]]:
        """Stream a run's events: `async with agent.iter("...") as events: async for e in events`.
        The last event is `RunFinished`, which holds the result."""
        send, receive = anyio.create_memory_object_stream[RunEvent](float("inf"))

        async def drive() -> None:
            async with send:
                await self.run(prompt, on_event=send.send_nowait, **options)

        async with anyio.create_task_group() as group, receive:
            group.start_soon(drive)
            yield receive
            group.cancel_scope.cancel()

    def _emitter(
        self, run_id: str, on_event: EventHandler | None, secrets: list[str]
    ) -> EventHandler:
        handlers: list[EventHandler] = []
        if self.log is not None:
            handlers.append(functools.partial(self.log.record, run_id))
        telemetry = self.telemetry or _telemetry.installed()
        if telemetry is not None:
            handlers.append(
                telemetry.watch(run_id, functools.partial(redact, known_secrets=secrets))
            )
        if on_event is not None:
            handlers.append(on_event)
        if len(handlers) <= 1:
            return handlers[0] if handlers else _ignore
        fan_out = tuple(handlers)

        def emit(event: RunEvent) -> None:
            for handler in fan_out:
                handler(event)

        return emit


def _ignore(event: RunEvent) -> None:
    pass


def as_toolsets(tools: Iterable[ToolLike]) -> list[Toolset]:
    """Loose tools and functions become one function toolset, first; toolsets stay as they are."""
    tools = list(tools)
    loose = [t for t in tools if not isinstance(t, Toolset)]
    toolsets = [t for t in tools if isinstance(t, Toolset)]
    return [FunctionToolset(loose), *toolsets] if loose else toolsets


async def describe_tools(tools: Iterable[ToolLike]) -> list[ToolDefinition]:
    """Exactly what a model would be sent for these tools, in order."""
    return [tool.definition for tool in await offered_tools(tools)]


async def offered_tools(tools: Iterable[ToolLike]) -> list[Tool]:
    """The tools a model would be offered, in order, with their side effects and approval."""
    toolsets = as_toolsets(tools)
    async with AsyncExitStack() as stack:
        for toolset in toolsets:
            await stack.enter_async_context(toolset)
        return list((await _Catalogue(toolsets).get()).values())


class _Catalogue:
    """The tools visible this step, rebuilt only when a toolset's list changes."""

    def __init__(
        self,
        toolsets: Sequence[Toolset],
        deps: Mapping[str, Any] | None = None,
        limits: Limits | None = None,
    ) -> None:
        self._toolsets = toolsets
        self._deps = deps
        self._limits = limits
        self._seen: list[Sequence[Tool]] = []
        self._tools: dict[str, Tool] = {}
        self.definitions: tuple[ToolDefinition, ...] = ()

    async def get(self) -> dict[str, Tool]:
        lists = [await toolset.get_tools() for toolset in self._toolsets]
        if len(lists) != len(self._seen) or any(
            a is not b for a, b in zip(lists, self._seen, strict=True)
        ):
            tools: dict[str, Tool] = {}
            for tool in (t for listed in lists for t in listed):
                if tool.name in tools:
                    raise UsageError(
                        f"two tools are named {tool.name!r}: give one toolset a prefix"
                    )
                tools[tool.name] = tool
                self._check_injected(tool)
            self._check_timeouts(tools.values())
            self._tools, self._seen = tools, lists
            self.definitions = tuple(t.definition for t in tools.values())
        return self._tools

    def _check_timeouts(self, tools: Iterable[Tool]) -> None:
        """A per-tool timeout that names no tool would silently never apply."""
        if self._limits is None or not self._limits.tool_timeouts:
            return
        names = {name for tool in tools for name in (tool.name, tool.own_name)}
        unknown = sorted(set(self._limits.tool_timeouts) - names)
        if unknown:
            raise UsageError(
                f"tool_timeouts names {', '.join(map(repr, unknown))}, which no tool is called "
                f"(a tool's own name or the name the model sees; tools: {', '.join(sorted(names))})"
            )

    def _check_injected(self, tool: Tool) -> None:
        if self._deps is None:
            return
        missing = sorted(tool.injected - CONTEXT_KEYS - self._deps.keys())
        if missing:
            raise UsageError(
                f"tool {tool.name!r} needs {', '.join(missing)} injected: pass them in deps"
            )


class _Loop:
    def __init__(self, agent: Agent, state: RunState, messages: list[Message]) -> None:
        self.agent = agent
        self.state = state
        self.messages = messages
        self.step = 0
        self.stop: StopReason | None = None
        self.finish_reason: FinishReason | None = None
        self.error: str | None = None
        self.open_calls: tuple[ToolCall, ...] = ()

    async def run(self) -> RunResult:
        try:
            async with AsyncExitStack() as stack:
                for toolset in self.agent.toolsets:
                    await stack.enter_async_context(toolset)
                catalogue = _Catalogue(self.agent.toolsets, self.state.deps, self.state.limits)
                await self._steps(catalogue)
        except Exception as failure:
            self._close_turn("Not run: the run failed.")
            self.error = f"{type(failure).__name__}: {failure}"
            self._finish("error")
            raise
        except BaseException:
            # Cancellation, Ctrl-C, or an exit raised by the application's own code (an approver,
            # an event handler): the run is over either way, and its record must say so.
            self._close_turn("Not run: the run was cancelled.")
            self._finish("cancelled")
            raise
        return self._finish(self.stop or "answer")

    async def _steps(self, catalogue: _Catalogue) -> None:
        tool_choice = self.agent.tool_choice
        max_steps = self.state.limits.max_steps
        while self.stop is None:
            if max_steps is not None and self.step >= max_steps:
                self.stop = "max_steps"
                break
            self.step += 1
            self.state.emit(StepStarted(step=self.step))
            tools = await catalogue.get()
            self._check_choice(tool_choice, tools)
            request = ModelRequest(
                messages=tuple(self.messages),
                tools=catalogue.definitions,
                tool_choice=tool_choice,
                parallel_tool_calls=self.agent.parallel_tool_calls,
                settings=self.agent.settings,
            )
            response = await self._request(request)
            if response is None:
                break
            self.state.usage = self.state.usage + response.usage
            self.finish_reason = response.finish_reason
            self._add(response.message)
            calls = response.message.tool_calls
            if not calls:
                self.stop = "answer"
                break
            self.open_calls = calls
            results = await execute_calls(self.state, calls, tools, self.step)
            self._add(Message(role="tool", parts=results))
            self.open_calls = ()
            if tool_choice != "none":
                tool_choice = "auto"
            self.stop = self._limit_reached()

    async def _request(self, request: ModelRequest) -> ModelResponse | None:
        """One model request, retried on provider failures; None when the run must stop."""
        state = self.state
        limits = state.limits
        attempt = 0
        while True:
            try:
                response = await self._attempt(request, attempt)
            except ProviderError as failure:
                if not failure.retryable or attempt >= limits.max_retries:
                    self.stop, self.error = "error", _describe(failure, attempt)
                    return None
                attempt += 1
                delay = _backoff(limits, attempt, failure.retry_after, state.ids)
                remaining = state.remaining()
                if remaining is not None and delay >= remaining:
                    self.stop = "timeout"
                    return None
                state.emit(
                    RetryScheduled(attempt=attempt, delay=delay, error=state.redact(str(failure)))
                )
                await state.clock.sleep(delay)
                continue
            if response is None:
                self.stop = "timeout"
            return response

    async def _attempt(self, request: ModelRequest, attempt: int) -> ModelResponse | None:
        """One try; None when the run's time ran out first. In a durable run, a recorded step:
        a response recorded once is never requested again."""
        durability = self.state.durability
        if durability is None:
            return await self._stream_in_time(request)
        response = await durability.step(
            f"model:{self.step}.{attempt}", functools.partial(self._stream_in_time, request)
        )
        if response is not None:
            # A replayed response assigned its call ids in a process that is gone.
            self.state.ids.take(call.id for call in response.message.tool_calls)
        return response

    async def _stream_in_time(self, request: ModelRequest) -> ModelResponse | None:
        remaining = self.state.remaining()
        with anyio.move_on_after(float("inf") if remaining is None else remaining):
            return await self._stream(request)
        return None

    async def _stream(self, request: ModelRequest) -> ModelResponse:
        builder = ResponseBuilder(self.state.ids)
        emit = self.state.emit
        events = self.agent.model.stream(request)
        try:
            async for event in events:
                emit(builder.add(event))
        finally:
            # An adapter's generator may hold a connection: close it now, not at GC.
            aclose = getattr(events, "aclose", None)
            if aclose is not None:
                await aclose()
        return builder.finish()

    def _limit_reached(self) -> StopReason | None:
        state, limits, usage = self.state, self.state.limits, self.state.usage
        if state.guard.tripped:
            return "loop_detected"
        remaining = state.remaining()
        if remaining is not None and remaining <= 0:
            return "timeout"
        for limit, used in (
            (limits.max_input_tokens, usage.input_tokens),
            (limits.max_output_tokens, usage.output_tokens),
            (limits.max_total_tokens, usage.total_tokens),
        ):
            if limit is not None and used >= limit:
                return "token_budget"
        return None

    def _check_choice(self, tool_choice: ToolChoice, tools: Mapping[str, Tool]) -> None:
        if isinstance(tool_choice, NamedToolChoice) and tool_choice.name not in tools:
            raise UsageError(f"tool_choice names {tool_choice.name!r}, which is not a tool")

    def _add(self, message: Message) -> None:
        self.messages.append(message)
        self.state.emit(MessageAdded(message=message, index=len(self.messages) - 1, step=self.step))

    def _close_turn(self, why: str) -> None:
        if self.open_calls:
            results = answer_the_rest(self.state, self.open_calls, self.step, why)
            self._add(Message(role="tool", parts=results))
            self.open_calls = ()

    def _finish(self, stop: StopReason) -> RunResult:
        # An answer is the final reply exactly, even an empty one; a run stopped early shows the
        # last text the model wrote.
        output = self.messages[-1].text if stop == "answer" else _last_text(self.messages)
        result = RunResult(
            run_id=self.state.run_id,
            output=output,
            stop_reason=stop,
            messages=tuple(self.messages),
            calls=tuple(self.state.records),
            usage=self.state.usage,
            steps=self.step,
            # Redacted here, where the run's error is made, so no sink (the log, a terminal,
            # --json) ever holds an API key a provider or proxy echoed back.
            error=None if self.error is None else self.state.redact(self.error),
            finish_reason=self.finish_reason,
        )
        self.state.emit(RunFinished(result=result))
        return result


def _initial_messages(
    instructions: str | None, history: Sequence[Message], prompt: str | None
) -> list[Message]:
    messages = list(history)
    if instructions and not (messages and messages[0].role == "system"):
        messages.insert(0, Message.system(instructions))
    if prompt is not None:
        messages.append(Message.user(prompt))
    if not messages or messages[-1].role == "assistant":
        raise UsageError("nothing to answer: give a prompt, or a history ending in a user turn")
    return messages


def _tool_choice(choice: ToolChoice | str) -> ToolChoice:
    if isinstance(choice, NamedToolChoice):
        return choice
    if choice == "auto":
        return "auto"
    if choice == "required":
        return "required"
    if choice == "none":
        return "none"
    return NamedToolChoice(choice)


def _backoff(limits: Limits, attempt: int, retry_after: float | None, ids: IdSource) -> float:
    exponential = min(limits.retry_max_delay, limits.retry_base_delay * 2.0 ** (attempt - 1))
    jittered = exponential * (0.5 + ids.random.random() / 2)
    return max(jittered, retry_after or 0.0)


def _describe(failure: ProviderError, attempt: int) -> str:
    retried = f" (after {attempt} retries)" if attempt else ""
    return f"model request failed{retried}: {failure}"


def _last_text(messages: Sequence[Message]) -> str:
    for message in reversed(messages):
        if message.role == "assistant" and message.text:
            return message.text
    return ""
