"""The provider-neutral conversation: messages made of tagged parts.

Every adapter translates to and from these types at its edge; nothing here knows a provider.
Data a provider needs back verbatim (reasoning signatures, encrypted items, response ids) rides in
the opaque `provider_data` field of the part or message it belongs to.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = [
    "Message",
    "Part",
    "ReasoningPart",
    "Role",
    "TextPart",
    "ToolCall",
    "ToolResult",
    "Usage",
]

Role: TypeAlias = Literal["system", "user", "assistant", "tool"]
ProviderData: TypeAlias = Mapping[str, Any] | None


@dataclass(frozen=True, kw_only=True, slots=True)
class TextPart:
    text: str
    kind: Literal["text"] = "text"


@dataclass(frozen=True, kw_only=True, slots=True)
class ReasoningPart:
    text: str
    provider_data: ProviderData = None
    kind: Literal["reasoning"] = "reasoning"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolCall:
    """A call the model wrote.

    `id` names this call alone within its run: the provider's id, or one the loop assigned when
    the provider sent none or repeated an id (results and the run log are matched by it).
    `raw_arguments` is the argument text exactly as the model produced it (adapters send it back
    verbatim); `arguments` is its parse. When the text did not parse, or the reply was cut off
    while the call was being written, `error` says why and the call is never executed.
    """

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    raw_arguments: str = ""
    error: str | None = None
    provider_data: ProviderData = None
    kind: Literal["tool_call"] = "tool_call"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolResult:
    """Exactly one per tool call, matched by `call_id`. Tool output is untrusted data."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    kind: Literal["tool_result"] = "tool_result"


Part: TypeAlias = TextPart | ReasoningPart | ToolCall | ToolResult


@dataclass(frozen=True, kw_only=True, slots=True)
class Message:
    role: Role
    parts: tuple[Part, ...]
    provider_data: ProviderData = None

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", parts=(TextPart(text=text),))

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", parts=(TextPart(text=text),))

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls(role="assistant", parts=(TextPart(text=text),))

    @property
    def text(self) -> str:
        return "".join(part.text for part in self.parts if isinstance(part, TextPart))

    @property
    def tool_calls(self) -> tuple[ToolCall, ...]:
        return tuple(part for part in self.parts if isinstance(part, ToolCall))

    @property
    def tool_results(self) -> tuple[ToolResult, ...]:
        return tuple(part for part in self.parts if isinstance(part, ToolResult))


@dataclass(frozen=True, kw_only=True, slots=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cached_input_tokens: int = 0
    requests: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_input_tokens=self.cached_input_tokens + other.cached_input_tokens,
            requests=self.requests + other.requests,
        )
