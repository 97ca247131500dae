"""Toolsets: where the loop gets its tools. Cross-cutting behaviour is a thin wrapper each."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from types import TracebackType
from typing import Any

from ..errors import UsageError
from ._function import function_tool
from ._tool import Tool

ToolPredicate = Callable[[Tool], bool]


class Toolset:
    """A source of tools. Subclasses implement `get_tools`; ones holding connections (MCP servers)
    also override `__aenter__`/`__aexit__`, which the agent enters for the length of a run.

    `get_tools` is awaited once per step, so a toolset whose tools change (an MCP server's list)
    is seen fresh by the model; a static one should return the same sequence every time.
    """

    async def get_tools(self) -> Sequence[Tool]:
        raise NotImplementedError

    async def __aenter__(self) -> Toolset:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        return None

    def filtered(
        self, allow: Collection[str] | ToolPredicate | None = None, deny: Collection[str] = ()
    ) -> Toolset:
        return FilteredToolset(self, allow=allow, deny=deny)

    def prefixed(self, prefix: str) -> Toolset:
        return PrefixedToolset(self, prefix)

    def hidden(self, *names: str) -> Toolset:
        return HiddenToolset(self, names)

    def requiring_approval(self, *names: str) -> Toolset:
        return ApprovalRequiredToolset(self, names or None)


class FunctionToolset(Toolset):
    """Tools made from functions (or given as `Tool`s)."""

    def __init__(self, tools: Iterable[Tool | Callable[..., Any]] = ()) -> None:
        made = [t if isinstance(t, Tool) else function_tool(t) for t in tools]
        names = [t.name for t in made]
        duplicates = sorted({n for n in names if names.count(n) > 1})
        if duplicates:
            raise UsageError(f"duplicate tool names: {', '.join(duplicates)}")
        self._tools = tuple(made)

    async def get_tools(self) -> Sequence[Tool]:
        return self._tools


class WrapperToolset(Toolset):
    """Transforms another toolset's list; recomputed only when the inner list changes."""

    def __init__(self, inner: Toolset) -> None:
        self.inner = inner
        self._seen: Sequence[Tool] | None = None
        self._derived: Sequence[Tool] = ()

    async def get_tools(self) -> Sequence[Tool]:
        tools = await self.inner.get_tools()
        if tools is not self._seen:
            self._derived = tuple(self.transform(tools))
            self._seen = tools
        return self._derived

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        raise NotImplementedError

    async def __aenter__(self) -> Toolset:
        await self.inner.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.inner.__aexit__(exc_type, exc, traceback)


class FilteredToolset(WrapperToolset):
    def __init__(
        self,
        inner: Toolset,
        *,
        allow: Collection[str] | ToolPredicate | None = None,
        deny: Collection[str] = (),
    ) -> None:
        super().__init__(inner)
        self.allow = allow
        self.deny = frozenset(deny)

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        for t in tools:
            if t.name in self.deny:
                continue
            if self.allow is None or (
                self.allow(t) if callable(self.allow) else t.name in self.allow
            ):
                yield t


class PrefixedToolset(WrapperToolset):
    def __init__(self, inner: Toolset, prefix: str) -> None:
        super().__init__(inner)
        self.prefix = prefix

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        return (t.replace(name=f"{self.prefix}{t.name}") for t in tools)


class HiddenToolset(WrapperToolset):
    """Agent-only tools (a memory writer, say): never shown to the model, and a call to one is
    answered exactly like a call to a tool that does not exist. The application still calls them
    through `hidden_tools`."""

    def __init__(self, inner: Toolset, names: Collection[str]) -> None:
        super().__init__(inner)
        self.names = frozenset(names)

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        return (t for t in tools if t.name not in self.names)

    async def hidden_tools(self) -> Sequence[Tool]:
        return tuple(t for t in await self.inner.get_tools() if t.name in self.names)


class ApprovalRequiredToolset(WrapperToolset):
    """Every call to the named tools (all tools when `names` is None) needs approval."""

    def __init__(self, inner: Toolset, names: Collection[str] | None = None) -> None:
        super().__init__(inner)
        self.names = None if names is None else frozenset(names)

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        for t in tools:
            yield (
                t.replace(requires_approval=True)
                if (self.names is None or t.name in self.names)
                else t
            )
