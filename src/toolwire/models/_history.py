"""Shared steps of translating a conversation for APIs with alternating user/assistant turns."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from ..messages import Message, TextPart


def system_text(messages: Iterable[Message]) -> str:
    """The text of every system message, in order: APIs that take one system prompt get them all."""
    return "\n\n".join(m.text for m in messages if m.role == "system" and m.text)


class Turns:
    """Turns for an API that wants roles to alternate: consecutive turns of one role merge, empty
    ones vanish, and `leading` blocks (tool results) go before the rest of their turn, which is
    the order Anthropic requires."""

    def __init__(self, content_key: str) -> None:
        self._key = content_key
        self._turns: list[tuple[str, list[dict[str, Any]], list[dict[str, Any]]]] = []

    def add(self, role: str, blocks: Sequence[dict[str, Any]], *, leading: bool = False) -> None:
        if not blocks:
            return
        if not self._turns or self._turns[-1][0] != role:
            self._turns.append((role, [], []))
        _, first, rest = self._turns[-1]
        (first if leading else rest).extend(blocks)

    def build(self) -> list[dict[str, Any]]:
        return [{"role": role, self._key: first + rest} for role, first, rest in self._turns]


def text_blocks(message: Message, make: Callable[[str], dict[str, Any]]) -> list[dict[str, Any]]:
    """`make(text)` for each non-empty text part (APIs reject empty text blocks)."""
    return [make(part.text) for part in message.parts if isinstance(part, TextPart) and part.text]
