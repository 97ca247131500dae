"""Toolsets: where the loop gets its tools. Cross-cutting behaviour is a thin wrapper each."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from types import TracebackType
from typing import Any

from ..errors import UsageError
from ._function import function_tool
from ._patterns import NamePatterns
from ._tool import Tool

ToolPredicate = Callable[[Tool], bool]


class Toolset:
    """A source of tools. Subclasses implement `get_tools`; ones holding connections (MCP servers)
    also override `__aenter__`/`__aexit__`, which the agent enters for the length of a run.

    `get_tools` is awaited once per step, so a toolset whose tools change (an MCP server's list)
    is seen fresh by the model; a static one should return the same sequence every time.

    `filtered`, `hidden` and `requiring_approval` take shell-style patterns (`fs_*`) on the tools'
    own names (`Tool.own_name`), so a prefix before or after them changes nothing.
    """

    async def get_tools(self) -> Sequence[Tool]:
        raise NotImplementedError

    async def hidden_tools(self) -> Sequence[Tool]:
        """The agent-only tools of `.hidden(...)` wrappers in this toolset, named as the wrappers
        above them name them: the model never sees them; the application calls them."""
        return ()

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
    """Transforms another toolset's list; recomputed only when the inner list changes.

    `patterns` are checked against every new inner list, hidden tools included (naming a tool
    hidden below is not a mistake): one that has never matched a tool is a `UsageError`.
    """

    def __init__(self, inner: Toolset, patterns: Iterable[NamePatterns] = ()) -> None:
        self.inner = inner
        self.patterns = tuple(patterns)
        self._seen: Sequence[Tool] | None = None
        self._derived: Sequence[Tool] = ()

    async def get_tools(self) -> Sequence[Tool]:
        tools = await self.inner.get_tools()
        if tools is not self._seen:
            if self.patterns:
                listed = _listing(tools, await self.inner.hidden_tools())
                for patterns in self.patterns:
                    patterns.check(listed)
            self._derived = tuple(self.transform(tools))
            self._seen = tools
        return self._derived

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        raise NotImplementedError

    async def hidden_tools(self) -> Sequence[Tool]:
        return await self.inner.hidden_tools()

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


def _listing(tools: Sequence[Tool], hidden: Sequence[Tool]) -> list[tuple[str, str]]:
    """Each tool's own name, and how an error shows it."""
    shown = [(t.own_name, _label(t)) for t in tools]
    return shown + [(t.own_name, f"{t.own_name} (hidden)") for t in hidden]


def _label(tool: Tool) -> str:
    if tool.own_name == tool.name:
        return tool.name
    return f"{tool.own_name} (the model sees {tool.name})"


class FilteredToolset(WrapperToolset):
    """The tools whose own names match `allow` (all when None; or those a predicate of the
    `Tool` accepts) and no `deny` pattern. Hidden tools are not filtered: the model never sees
    them anyway."""

    def __init__(
        self,
        inner: Toolset,
        *,
        allow: Collection[str] | ToolPredicate | None = None,
        deny: Collection[str] = (),
    ) -> None:
        self.allow: NamePatterns | ToolPredicate | None
        self.deny = NamePatterns(deny, "filtered(deny=...)")
        if allow is None or callable(allow):
            self.allow = allow
            super().__init__(inner, [self.deny])
        else:
            self.allow = NamePatterns(allow, "filtered(allow=...)")
            super().__init__(inner, [self.allow, self.deny])

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        for t in tools:
            if self.deny.match(t.own_name):
                continue
            if self.allow is None or (
                self.allow.match(t.own_name)
                if isinstance(self.allow, NamePatterns)
                else self.allow(t)
            ):
                yield t


class PrefixedToolset(WrapperToolset):
    """Puts `prefix` before the name the model sees; own names, which the other wrappers
    match, stay as they are."""

    def __init__(self, inner: Toolset, prefix: str) -> None:
        super().__init__(inner)
        self.prefix = prefix

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        return (t.replace(name=f"{self.prefix}{t.name}") for t in tools)

    async def hidden_tools(self) -> Sequence[Tool]:
        return tuple(self.transform(await self.inner.hidden_tools()))


class HiddenToolset(WrapperToolset):
    """Agent-only tools (a memory writer, say): never shown to the model, and a call to one is
    answered exactly like a call to a tool that does not exist. The application still calls them
    through `hidden_tools`."""

    def __init__(self, inner: Toolset, names: Collection[str]) -> None:
        self.names = NamePatterns(names, "hidden")
        super().__init__(inner, [self.names])
        self._hidden: tuple[Tool, ...] = ()

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        self._hidden = tuple(t for t in tools if self.names.match(t.own_name))
        return (t for t in tools if not self.names.match(t.own_name))

    async def hidden_tools(self) -> Sequence[Tool]:
        await self.get_tools()  # brings `_hidden` up to date with the inner list
        return (*await self.inner.hidden_tools(), *self._hidden)


class ApprovalRequiredToolset(WrapperToolset):
    """Every call to the tools whose own names match `names` (all tools when `names` is None)
    needs approval."""

    def __init__(self, inner: Toolset, names: Collection[str] | None = None) -> None:
        self.names = None if names is None else NamePatterns(names, "requiring_approval")
        super().__init__(inner, [] if self.names is None else [self.names])

    def transform(self, tools: Sequence[Tool]) -> Iterable[Tool]:
        for t in tools:
            yield (
                t.replace(requires_approval=True)
                if (self.names is None or self.names.match(t.own_name))
                else t
            )
