"""One turn's calls: look up, validate, guard against loops, approve, run, answer. Exactly one
result per call, whatever happens."""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio

from ._approve import ask_approval, or_inf
from ._elicit import elicit
from ._pause import PausableDeadline
from ._sampling import sample
from ._state import RunState
from ._untrusted import safe_text
from .approval import Decline, Edit
from .errors import InvalidArguments, ToolError, UsageError
from .events import ToolCallReady, ToolResultReady
from .messages import ToolCall, ToolResult
from .run import CallRecord
from .tools import Tool, ToolContext
from .tools._tool import ToolExited

INTERRUPTED = "Interrupted: the call started and was cut off; it may have taken effect."


@dataclass(frozen=True, slots=True)
class _Decided:
    """Who approved or declined a call, and the seconds they took (apart from the run time)."""

    by: str
    seconds: float
    edited_arguments: Mapping[str, Any] | None = None
    """The approver's edit: what the tool was to run with instead of the model's arguments."""


@dataclass(frozen=True, slots=True)
class _Refused:
    result: ToolResult
    decided: _Decided | None = None


@dataclass(frozen=True, slots=True)
class _Ready:
    call: ToolCall
    tool: Tool
    arguments: Mapping[str, Any]
    loop_key: tuple[str, str]
    decided: _Decided | None


async def execute_calls(
    state: RunState, calls: Sequence[ToolCall], catalogue: Mapping[str, Tool], step: int
) -> tuple[ToolResult, ...]:
    """Read-only calls next to each other run concurrently; any other call runs alone, in order."""
    state.guard.begin_turn()
    limiter = anyio.CapacityLimiter(state.limits.max_concurrency)
    for batch in _batches(calls, catalogue):
        ready = []
        for call in batch:
            state.emit(ToolCallReady(call=call, step=step))
            outcome = await _prepare(state, call, catalogue)
            if isinstance(outcome, _Ready):
                ready.append(outcome)
            else:
                _answer(state, call, outcome.result, step, state.clock.now(), outcome.decided)
        if len(ready) == 1:
            await _run(state, ready[0], step)
        elif ready:
            async with anyio.create_task_group() as group:
                for item in ready:
                    group.start_soon(_run_limited, state, item, step, limiter)
    return state.close_turn(calls)


def answer_the_rest(
    state: RunState, calls: Sequence[ToolCall], step: int, why: str
) -> tuple[ToolResult, ...]:
    """Results for a turn interrupted midway: what finished keeps its result; a call that had
    started says it may have taken effect; the rest say `why` they did not run. Each is recorded
    like any other result."""
    now = state.clock.now()
    for call in calls:
        if call.id not in state.answered:
            cut_off = call.id in state.started
            content = INTERRUPTED if cut_off else why
            result = ToolResult(call_id=call.id, name=call.name, content=content, is_error=True)
            _answer(state, call, result, step, now, None, interrupted=cut_off)
    return state.close_turn(calls)


def _batches(calls: Sequence[ToolCall], catalogue: Mapping[str, Tool]) -> list[list[ToolCall]]:
    batches: list[list[ToolCall]] = []
    previous_concurrent = False
    for call in calls:
        tool = catalogue.get(call.name)
        concurrent = tool is None or tool.side_effect == "read_only"
        if batches and concurrent and previous_concurrent:
            batches[-1].append(call)
        else:
            batches.append([call])
        previous_concurrent = concurrent
    return batches


async def _prepare(
    state: RunState, call: ToolCall, catalogue: Mapping[str, Tool]
) -> _Ready | _Refused:
    def error(content: str, decided: _Decided | None = None) -> _Refused:
        result = ToolResult(call_id=call.id, name=call.name, content=content, is_error=True)
        return _Refused(result, decided)

    def mistake(content: str) -> _Refused:
        return error(_counted_error(state, content))

    if call.error is not None:
        return mistake(call.error)
    tool = catalogue.get(call.name)
    if tool is None:
        available = ", ".join(sorted(catalogue)) or "none"
        return mistake(f"Unknown tool {call.name!r}. Available tools: {available}.")
    try:
        arguments = tool.validate(call.arguments)
    except InvalidArguments as invalid:
        return mistake(f"{invalid} Call {call.name} again with corrected arguments.")
    verdict, loop_key = state.guard.check_call(call.name, call.arguments)
    if verdict == "stop":
        return error("Not run: this exact call was repeated too often; the run is stopping.")
    if verdict == "warn":
        last = state.guard.last_result.get(loop_key)
        shown = f" The last result was:\n{last}\n" if last is not None else " "
        return error(
            f"Not run: you already called {call.name} with exactly these arguments "
            f"{state.guard.repeats(loop_key) - 1} times.{shown}Use what you have, or change "
            "approach; repeating this call again stops the run."
        )
    decided = None
    if tool.needs_approval:
        asked = state.clock.now()
        decision = await ask_approval(state, call, tool.definition, tool.side_effect, arguments)
        waited = state.clock.now() - asked
        if state.durability is not None and state.deadline is not None:
            # A durable run's wait for a person holds no worker and is not the run's own time.
            state.deadline += waited
        edited = decision.arguments if isinstance(decision, Edit) else None
        decided = _Decided(decision.by, waited, edited)
        if isinstance(decision, Decline):
            return error(_declined(decision), decided)
        if edited is not None:
            try:
                arguments = tool.validate(edited)
            except InvalidArguments as invalid:
                return error(f"The approver's edited arguments are invalid: {invalid}", decided)
    return _Ready(call, tool, arguments, loop_key, decided)


async def _run_limited(
    state: RunState, ready: _Ready, step: int, limiter: anyio.CapacityLimiter
) -> None:
    async with limiter:
        await _run(state, ready, step)


async def _run(state: RunState, ready: _Ready, step: int) -> None:
    call, tool = ready.call, ready.tool
    limits = state.limits
    per_tool = limits.tool_timeouts.get(tool.own_name) or limits.tool_timeouts.get(tool.name)
    timeout = tool.timeout or per_tool or limits.tool_timeout
    bounded = state.bounded(timeout)
    scope = anyio.move_on_after(or_inf(bounded))
    deadline = PausableDeadline(scope, state.run_ends)
    context = ToolContext(
        run_id=state.run_id,
        call_id=call.id,
        step=step,
        idempotency_key=state.ids.idempotency_key(call.id),
        deps=state.deps,
        elicit=functools.partial(elicit, state, step, deadline),
        sample=functools.partial(sample, state, step, deadline),
    )
    started = state.clock.now()
    state.started.add(call.id)
    invoke = functools.partial(_invoke, state, ready, context, scope)
    if state.durability is None:
        content, is_error, cut_off = await invoke()
    else:
        content, is_error, cut_off = await state.durability.step(f"tool:{call.id}", invoke)
    if cut_off:
        content = (
            f"Timed out after {timeout:g} s; the call did not finish."
            if bounded == timeout
            else "Stopped: the run's time limit was reached before the call finished."
        )
    if is_error:
        content = _counted_error(state, content)
    else:
        state.guard.last_result[ready.loop_key] = content
    result = ToolResult(call_id=call.id, name=call.name, content=content, is_error=is_error)
    _answer(state, call, result, step, started, ready.decided, interrupted=cut_off)


async def _invoke(
    state: RunState, ready: _Ready, context: ToolContext, scope: anyio.CancelScope
) -> tuple[str, bool, bool]:
    """The tool's own run within `scope`: its output or failure text, whether it failed, and
    whether it was cut off. Plain values, so a durable engine can record them."""
    is_error = True
    content = ""
    with scope:
        try:
            content = await ready.tool.invoke(ready.arguments, context)
            is_error = False
        except ToolError as failure:
            content = str(failure)
        except UsageError:
            raise
        except BaseException as exception:
            if not _raised_by_tool(exception):
                raise
            content = _describe_failure(exception, state)
    return content, is_error, scope.cancelled_caught


def _counted_error(state: RunState, content: str) -> str:
    """Every error result the model caused counts toward loop detection: the same text at the
    threshold gets a warning appended; once more and the run stops after this turn."""
    if state.guard.check_error(content) == "warn":
        content += (
            "\nThis same error has now occurred several times. Do not repeat what causes it:"
            " fix the arguments, try another tool, or answer with what you have."
        )
    return content


def _raised_by_tool(exception: BaseException) -> bool:
    """Whether a tool's own code raised `exception`, so it fails the one call: anything but a
    cancellation, or a `KeyboardInterrupt` on the main thread, which is the user's Ctrl-C (nor a
    group holding either: a tool's task group cancelled by its timeout raises one)."""
    if isinstance(exception, BaseExceptionGroup):
        return all(_raised_by_tool(inner) for inner in exception.exceptions)
    if isinstance(exception, anyio.get_cancelled_exc_class()):
        return False
    return not (
        isinstance(exception, KeyboardInterrupt)
        and threading.current_thread() is threading.main_thread()
    )


def _describe_failure(exception: BaseException, state: RunState) -> str:
    raised = exception.raised if isinstance(exception, ToolExited) else exception
    message = state.redact(str(raised))
    described = f"{type(raised).__name__}: {message}" if message else type(raised).__name__
    if not isinstance(raised, Exception):
        described += " (the tool tried to stop the program; only this call failed)"
    return described


def _declined(decline: Decline) -> str:
    """What the model is told of a declined call: a person's no, or a policy's, which nobody
    decided (no approver, no terminal to ask on, no answer in time)."""
    if decline.by.startswith("policy:"):
        why = f": {decline.message}" if decline.message else ""
        return f"Not run: this call needs approval and was not approved{why}. Do not retry it."
    reason = f" Their reason: {decline.message}" if decline.message else ""
    return f"The user declined this call; do not retry it.{reason}"


def _answer(
    state: RunState,
    call: ToolCall,
    result: ToolResult,
    step: int,
    started: float,
    decided: _Decided | None,
    *,
    interrupted: bool = False,
) -> None:
    # A tool's output enters here: made writable once, for the model and every sink.
    content = safe_text(result.content)
    full_content = None
    limit = state.limits.max_result_chars
    if limit is not None and len(content) > limit:
        full_content, content = content, _head_and_tail(content, limit)
    result = ToolResult(
        call_id=result.call_id, name=result.name, content=content, is_error=result.is_error
    )
    duration = state.clock.now() - started
    decided_by = decided.by if decided else None
    decision_time = decided.seconds if decided else None
    edited_arguments = decided.edited_arguments if decided else None
    record = CallRecord(
        call=call,
        result=result,
        step=step,
        duration=duration,
        decided_by=decided_by,
        decision_time=decision_time,
        interrupted=interrupted,
        edited_arguments=edited_arguments,
    )
    state.answered[call.id] = (result, record)
    state.emit(
        ToolResultReady(
            call=call,
            result=result,
            step=step,
            started_at=started,
            duration=duration,
            full_content=full_content,
            decided_by=decided_by,
            decision_time=decision_time,
            interrupted=interrupted,
            edited_arguments=edited_arguments,
        )
    )


def _head_and_tail(content: str, limit: int) -> str:
    omitted = len(content) - limit
    marker = f"\n[... {omitted} characters omitted; the full result is in the run log ...]\n"
    head = (limit * 2) // 3
    return content[:head] + marker + content[len(content) - (limit - head) :]
