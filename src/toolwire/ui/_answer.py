"""A person's answer to a waiting call, from the page's form to a `Decision`: checked before it
reaches the run, an edit against the tool's own schema, so a typo is fixed on the page instead
of costing the run a failed call."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..approval import Approve, Decision, Decline, Edit
from ..errors import InvalidArguments, UsageError
from ..log import ApprovalRow
from ..mcp._schema import make_validate, prepare_schema

DECIDED_BY = "web:user"


def decision_from(body: Any, waiting: ApprovalRow) -> Decision:
    """`body` is the posted JSON: {"answer": "approve" | "decline" | "edit", "message": "...",
    "arguments": {...}}; `UsageError` says what is wrong with it."""
    if not isinstance(body, Mapping):
        raise UsageError("the answer must be a JSON object")
    answer = body.get("answer")
    if answer == "approve":
        return Approve(by=DECIDED_BY)
    if answer == "decline":
        message = body.get("message")
        if message is not None and not isinstance(message, str):
            raise UsageError("the message must be text")
        return Decline(message=message.strip() or None if message else None, by=DECIDED_BY)
    if answer == "edit":
        arguments = body.get("arguments")
        if not isinstance(arguments, Mapping):
            raise UsageError("the edited arguments must be a JSON object")
        check_arguments(arguments, waiting.parameters)
        return Edit(arguments=dict(arguments), by=DECIDED_BY)
    raise UsageError('answer must be "approve", "decline" or "edit"')


def check_arguments(arguments: Mapping[str, Any], schema: Any) -> None:
    try:
        _, validator = prepare_schema(schema)
    except ValueError as unusable:
        raise UsageError(f"cannot check arguments against this tool's schema: {unusable}") from None
    try:
        make_validate(validator)(arguments)
    except InvalidArguments as invalid:
        raise UsageError(str(invalid)) from None
