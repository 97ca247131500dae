"""A server asking the host for something during a call (elicitation, sampling; in MRTR
`input_required` results and legacy server-to-client requests alike): routed to the run whose call
is waiting."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from .._pause import PausableDeadline
from ..elicitation import Check, ElicitationRequest
from ..messages import Message
from ..tools import ToolContext

if TYPE_CHECKING:
    import mcp.types as mt
    from mcp.client.session import ClientRequestContext, ElicitationFnT, SamplingFnT

    from ..sampling import SamplingRequest

logger = logging.getLogger("toolwire.mcp")


@dataclass(slots=True)
class WaitingCall:
    tool: str
    context: ToolContext
    deadline: PausableDeadline
    """The call's own deadline on this server: it waits while the host answers the server."""
    failure: Exception | None = None
    """What the application raised while answering (its elicitor, say): the SDK turns it into a
    failed request, but it is the application's error, not the server's."""

    @contextmanager
    def answering(self) -> Iterator[None]:
        with self.deadline.paused():
            try:
                yield
            except Exception as error:
                self.failure = error
                raise


class AnswerFailed(Exception):
    """The call failed because answering the server did: `error` is what the application raised."""

    def __init__(self, error: Exception) -> None:
        super().__init__(str(error))
        self.error = error


_CURRENT: ContextVar[WaitingCall | None] = ContextVar("toolwire_mcp_call", default=None)


class WaitingCalls:
    """One server's calls waiting for an answer. A question asked inside an `input_required`
    result reaches the callback in the calling task, which knows its call; one the server sends
    as a request of its own (the legacy protocol) arrives on the session, and belongs to the call
    waiting, when only one is."""

    def __init__(self) -> None:
        self._calls: dict[object, WaitingCall] = {}

    @contextmanager
    def waiting(self, tool: str, context: ToolContext, scope: anyio.CancelScope) -> Iterator[None]:
        call = WaitingCall(tool, context, PausableDeadline(scope))
        key = object()
        self._calls[key] = call
        token = _CURRENT.set(call)
        try:
            yield
        except Exception:
            if call.failure is None:
                raise
        finally:
            _CURRENT.reset(token)
            del self._calls[key]
        # Whatever the server made of it, the application's error is the call's outcome.
        if call.failure is not None:
            raise AnswerFailed(call.failure)

    def asking(self) -> WaitingCall | None:
        current = _CURRENT.get()
        if current is not None and current in self._calls.values():
            return current
        runs = {call.context.run_id for call in self._calls.values()}
        return next(iter(self._calls.values())) if len(runs) == 1 else None


def elicitation_callback(server: str, calls: WaitingCalls) -> ElicitationFnT:
    import mcp.types as mt

    async def answer(
        context: ClientRequestContext, params: mt.ElicitRequestParams
    ) -> mt.ElicitResult | mt.ErrorData:
        call = calls.asking()
        if call is None or call.context.elicit is None:
            logger.warning(
                "MCP server %r asked for input outside a call (or with several waiting): declined",
                server,
            )
            return mt.ElicitResult(action="decline")
        if isinstance(params, mt.ElicitRequestURLParams):
            request = _request(server, call, params.message, mode="url", url=params.url)
            check = None
        else:
            schema = params.requested_schema
            try:
                check = _checker(schema)
            except ValueError as error:
                return mt.ErrorData(code=mt.INVALID_PARAMS, message=str(error))
            request = _request(server, call, params.message, mode="form", schema=schema)
        with call.answering():
            got = await call.context.elicit(request, check)
        content = None if got.content is None else dict(got.content)
        return mt.ElicitResult(action=got.action, content=content)

    return answer


def _request(server: str, call: WaitingCall, message: str, **fields: Any) -> ElicitationRequest:
    return ElicitationRequest(
        server=server,
        message=message,
        run_id=call.context.run_id,
        call_id=call.context.call_id,
        tool=call.tool,
        **fields,
    )


def _checker(schema: Mapping[str, Any]) -> Check:
    # By name: jsonschema ships no type information.
    jsonschema = importlib.import_module("jsonschema")
    cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
    try:
        cls.check_schema(schema)
    except jsonschema.SchemaError as error:
        raise ValueError(f"invalid requested schema: {error.message}") from None
    validator = cls(schema)

    def check(content: Mapping[str, Any]) -> None:
        error = jsonschema.exceptions.best_match(validator.iter_errors(content))
        if error is not None:
            where = ".".join(str(p) for p in error.absolute_path)
            raise ValueError(f"{where}: {error.message}" if where else error.message)

    return check


def sampling_callback(server: str, calls: WaitingCalls) -> SamplingFnT:
    import mcp.types as mt

    from ..sampling import SamplingRefused

    async def answer(
        context: ClientRequestContext, params: mt.CreateMessageRequestParams
    ) -> mt.CreateMessageResult | mt.ErrorData:
        call = calls.asking()
        if call is None or call.context.sample is None:
            return mt.ErrorData(code=_REFUSED, message="sampling is only answered during a call")
        try:
            request = _sampling_request(server, call, params)
        except ValueError as problem:
            return mt.ErrorData(code=mt.INVALID_PARAMS, message=str(problem))
        with call.answering():
            try:
                sampled = await call.context.sample(request)
            except SamplingRefused as refused:
                return mt.ErrorData(code=_REFUSED, message=str(refused))
        return mt.CreateMessageResult(
            role="assistant",
            content=mt.TextContent(type="text", text=sampled.text),
            model=sampled.model,
            stop_reason="maxTokens" if sampled.finish_reason == "length" else "endTurn",
        )

    return answer


_REFUSED = -1
"""The spec's code for a sampling request the user (or the host's policy) rejected."""


def _sampling_request(
    server: str, call: WaitingCall, params: mt.CreateMessageRequestParams
) -> SamplingRequest:
    import mcp.types as mt

    from ..sampling import SamplingRequest

    if params.tools or params.tool_choice:
        raise ValueError("sampling with tools is not supported by this host")
    messages = []
    for message in params.messages:
        blocks = message.content if isinstance(message.content, list) else [message.content]
        if not all(isinstance(block, mt.TextContent) for block in blocks):
            raise ValueError("only text content can be sampled by this host")
        text = "".join(block.text for block in blocks if isinstance(block, mt.TextContent))
        messages.append(Message.user(text) if message.role == "user" else Message.assistant(text))
    return SamplingRequest(
        server=server,
        tool=call.tool,
        run_id=call.context.run_id,
        call_id=call.context.call_id,
        messages=tuple(messages),
        system_prompt=params.system_prompt,
        max_tokens=params.max_tokens,
        temperature=params.temperature,
        stop=tuple(params.stop_sequences or ()),
    )
