"""A server asking the host for something during a call (elicitation; MRTR `input_required`
results and legacy server-to-client requests alike): routed to the run whose call is waiting."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..elicitation import Check, ElicitationRequest
from ..tools import ToolContext

if TYPE_CHECKING:
    from mcp.client.session import ClientRequestContext, ElicitationFnT

logger = logging.getLogger("toolwire.mcp")


@dataclass(frozen=True, slots=True)
class WaitingCall:
    tool: str
    context: ToolContext


_CURRENT: ContextVar[WaitingCall | None] = ContextVar("toolwire_mcp_call", default=None)


class WaitingCalls:
    """One server's calls waiting for an answer. A question asked inside an `input_required`
    result reaches the callback in the calling task, which knows its call; one the server sends
    as a request of its own (the legacy protocol) arrives on the session, and belongs to the call
    waiting, when only one is."""

    def __init__(self) -> None:
        self._calls: dict[object, WaitingCall] = {}

    @contextmanager
    def waiting(self, tool: str, context: ToolContext) -> Iterator[None]:
        call = WaitingCall(tool, context)
        key = object()
        self._calls[key] = call
        token = _CURRENT.set(call)
        try:
            yield
        finally:
            _CURRENT.reset(token)
            del self._calls[key]

    def asking(self) -> WaitingCall | None:
        current = _CURRENT.get()
        if current is not None:
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
