"""Several MCP servers as one toolset, so that two servers may offer tools of the same name."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AsyncExitStack
from types import TracebackType

from ..errors import UsageError
from ..tools import Tool, Toolset
from ._names import model_name, safe_part
from ._server import MCPServer


class MCPServers(Toolset):
    """The tools of several servers. A tool whose name an earlier server already uses is offered
    as `<server>__<tool>`, so adding a tool to one server never renames another's.

    Give servers as a list of `MCPServer`s, or as {name: toolset} (a server wrapped in
    `.hidden(...)`, say). Entering enters every server; `hidden_tools` gathers the agent-only
    tools of servers wrapped in `.hidden(...)`.
    """

    def __init__(self, servers: Sequence[MCPServer] | Mapping[str, Toolset]) -> None:
        members: dict[str, Toolset] = (
            dict(servers) if isinstance(servers, Mapping) else {s.name: s for s in servers}
        )
        if isinstance(servers, Sequence) and len(members) != len(servers):
            raise UsageError("two MCP servers have the same name: give each a distinct name")
        self.servers: dict[str, Toolset] = members
        self._seen: list[Sequence[Tool]] = []
        self._tools: tuple[Tool, ...] = ()
        self._stacks: list[AsyncExitStack] = []

    async def get_tools(self) -> Sequence[Tool]:
        lists = [await member.get_tools() for member in self.servers.values()]
        if len(lists) != len(self._seen) or any(
            a is not b for a, b in zip(lists, self._seen, strict=True)
        ):
            self._tools = self._merge(lists)
            self._seen = lists
        return self._tools

    def _merge(self, lists: Sequence[Sequence[Tool]]) -> tuple[Tool, ...]:
        merged: list[Tool] = []
        taken: set[str] = set()
        for alias, tools in zip(self.servers, lists, strict=True):
            for tool in tools:
                name = tool.name
                if name in taken:
                    name = model_name(tool.name, taken, f"{safe_part(alias)}__")
                    tool = tool.replace(name=name)
                taken.add(name)
                merged.append(tool)
        return tuple(merged)

    async def hidden_tools(self) -> Sequence[Tool]:
        found: list[Tool] = []
        for member in self.servers.values():
            found.extend(await member.hidden_tools())
        return tuple(found)

    async def __aenter__(self) -> MCPServers:
        stack = AsyncExitStack()
        async with AsyncExitStack() as guard:
            guard.push_async_exit(stack)
            for member in self.servers.values():
                await stack.enter_async_context(member)
            guard.pop_all()
        self._stacks.append(stack)
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self._stacks.pop().__aexit__(exc_type, exc, traceback)
