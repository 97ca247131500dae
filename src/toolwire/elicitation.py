"""Elicitation: a tool (an MCP server's) asks the person running the agent for input mid-call.

It is the person's to answer, never the model's: the application's `Elicitor` answers (a form in a
web page, a prompt on a terminal), within `Limits.approval_timeout`, and with nobody to ask the
request is declined. Every answer is an `ElicitationAnswered` event, so the run log records who
answered.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "Check",
    "ElicitationAnswer",
    "ElicitationRequest",
    "Elicitor",
    "form_defaults",
]

Action: TypeAlias = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True, kw_only=True, slots=True)
class ElicitationRequest:
    """What a server asks. `mode` "form": fill `schema` (a flat JSON Schema object of strings,
    numbers, booleans and enums; `defaults` pre-fills it). `mode` "url": consent to open `url`
    (show it whole; open it only after consent, never fetch it)."""

    server: str
    """Who asks: show it to the person."""
    message: str
    mode: Literal["form", "url"]
    schema: Mapping[str, Any] = field(default_factory=dict)
    url: str | None = None
    run_id: str
    call_id: str
    tool: str
    """The tool whose call is waiting for the answer."""

    @property
    def defaults(self) -> dict[str, Any]:
        return form_defaults(self.schema)


@dataclass(frozen=True, kw_only=True, slots=True)
class ElicitationAnswer:
    """`accept` (with the form's `content`; fields left out get the schema's defaults),
    `decline` (an explicit no) or `cancel` (dismissed without a choice)."""

    action: Action
    content: Mapping[str, Any] | None = None
    by: str = "elicitor"


Elicitor: TypeAlias = Callable[
    [ElicitationRequest], "ElicitationAnswer | Awaitable[ElicitationAnswer]"
]
"""Sync or async. A sync elicitor runs in a worker thread, so `Limits.approval_timeout` holds for
it too: no answer in time counts as `cancel`."""


def form_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The `default` of every property that has one."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return {}
    return {
        name: spec["default"]
        for name, spec in properties.items()
        if isinstance(spec, Mapping) and "default" in spec
    }


Check: TypeAlias = Callable[[Mapping[str, Any]], None]
"""Raises `ValueError` (saying why) when accepted content does not fit what was asked."""
