"""A server's `tools/list` as toolwire tools: filtered, named for providers, checked, and classed
by side effect according to how far the server is trusted."""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tools import SideEffect, Tool
from ..tools._patterns import matches
from ._names import model_name
from ._schema import make_validate, prepare_schema

if TYPE_CHECKING:
    import mcp.types as mt

    from ..tools._tool import Invoker

logger = logging.getLogger("toolwire.mcp")


@dataclass(frozen=True, kw_only=True, slots=True)
class Policy:
    """How one server's tools are offered. `allow`/`deny` are shell-style patterns (`git_*`) on
    the server's own tool names (before `prefix` and the provider-safe mapping). Annotations
    count only when `trusted`: a server can lie."""

    trusted: bool = False
    allow: Collection[str] | None = None
    deny: Collection[str] = ()
    prefix: str = ""
    requires_approval: bool | None = None
    timeout: float | None = None

    def offers(self, name: str) -> bool:
        if matches(name, self.deny):
            return False
        return self.allow is None or matches(name, self.allow)


@dataclass(frozen=True, kw_only=True, slots=True)
class RemoteTool:
    """What a call needs: the server's name for the tool, and whether a call interrupted by a
    reconnect may be sent again."""

    mcp_name: str
    name: str
    replayable: bool


def build_tools(
    listed: Sequence[mt.Tool],
    policy: Policy,
    server: str,
    invoker: Callable[[RemoteTool], Invoker],
) -> tuple[Tool, ...]:
    tools: list[Tool] = []
    seen: set[str] = set()
    taken: set[str] = set()
    for listing in listed:
        if not policy.offers(listing.name):
            continue
        if listing.name in seen:
            logger.warning(
                "MCP server %r lists tool %r twice; using the first", server, listing.name
            )
            continue
        seen.add(listing.name)
        try:
            parameters, validator = prepare_schema(listing.input_schema)
        except ValueError as problem:
            logger.warning("MCP server %r: tool %r dropped: %s", server, listing.name, problem)
            continue
        name = model_name(listing.name, taken, policy.prefix)
        taken.add(name)
        side_effect, replayable = _side_effect(listing, policy.trusted)
        remote = RemoteTool(mcp_name=listing.name, name=name, replayable=replayable)
        tools.append(
            Tool(
                name=name,
                own_name=listing.name,
                description=_description(listing),
                parameters=parameters,
                validate=make_validate(validator),
                invoke=invoker(remote),
                side_effect=side_effect,
                requires_approval=(
                    policy.requires_approval
                    if policy.requires_approval is not None
                    else (None if policy.trusted else True)
                ),
                timeout=policy.timeout,
            )
        )
    return tuple(tools)


def _side_effect(listing: mt.Tool, trusted: bool) -> tuple[SideEffect, bool]:
    hints = listing.annotations
    if not trusted or hints is None:
        return "destructive", False
    if hints.read_only_hint:
        return "read_only", True
    idempotent = bool(hints.idempotent_hint)
    # MCP's destructiveHint defaults to true; an idempotent delete still needs approval.
    if idempotent and hints.destructive_hint is False:
        return "idempotent", True
    return "destructive", idempotent


def _description(listing: mt.Tool) -> str:
    title = listing.title or (listing.annotations.title if listing.annotations else None)
    return listing.description or title or ""
