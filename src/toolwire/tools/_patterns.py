"""Name patterns of the wrappers that decide what the model may see and call (`hidden`,
`filtered`, `requiring_approval`, an MCP server's `allow`/`deny`).

They match a tool's own name, which no prefix or provider-safe renaming changes: a rule written
against the name the model sees would silently stop matching when a prefix is added or a second
server offers a tool of the same name, and for these wrappers not matching means exposing.
"""

from __future__ import annotations

import logging
from collections.abc import Collection, Iterable, Sequence
from fnmatch import fnmatchcase

from ..errors import UsageError

logger = logging.getLogger("toolwire.tools")

_SHOWN = 30
"""Tools listed in an error; an MCP server may have hundreds."""


def matches(name: str, patterns: Iterable[str]) -> bool:
    return any(fnmatchcase(name, pattern) for pattern in patterns)


class NamePatterns:
    """Shell-style patterns (`git_*`) on tools' own names.

    A pattern that matches none of the tools the first time a list is checked is a `UsageError`:
    misspelt, it would leave the tool exposed. A pattern that did match once and matches nothing
    in a later list (a server dropped the tool) is only logged, so a running run goes on; it
    applies again if the tool comes back. An empty list is not checked: a server still
    connecting in the background has listed nothing yet.
    """

    def __init__(self, patterns: Collection[str], role: str) -> None:
        if isinstance(patterns, str) or not all(isinstance(p, str) and p for p in patterns):
            raise UsageError(f"{role}: give a list of tool names or patterns, not {patterns!r}")
        self.patterns = tuple(patterns)
        self.role = role
        self._matched: set[str] = set()

    def match(self, own_name: str) -> bool:
        return matches(own_name, self.patterns)

    def check(self, listed: Sequence[tuple[str, str]]) -> None:
        """Check against `listed`: each tool's own name, and how to show it in an error."""
        if not listed:
            return
        unmatched = [p for p in self.patterns if not any(fnmatchcase(n, p) for n, _ in listed)]
        self._matched.update(p for p in self.patterns if p not in unmatched)
        never = [p for p in unmatched if p not in self._matched]
        if never:
            shown = ", ".join(label for _, label in listed[:_SHOWN])
            more = f" and {len(listed) - _SHOWN} more" if len(listed) > _SHOWN else ""
            raise UsageError(
                f"{self.role}: {_quoted(never)} {_matches(never)} no tool. Patterns match a "
                "tool's own name (its function's, or its MCP server's), not the name the model "
                f"sees; the tools here: {shown}{more}"
            )
        if unmatched:
            logger.warning(
                "%s: %s now %s no tool; the run goes on, and the pattern applies again "
                "if the tool comes back",
                self.role,
                _quoted(unmatched),
                _matches(unmatched),
            )


def _quoted(patterns: Iterable[str]) -> str:
    return ", ".join(map(repr, patterns))


def _matches(patterns: Sequence[str]) -> str:
    return "matches" if len(patterns) == 1 else "match"
