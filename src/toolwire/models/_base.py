from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from ..events import ModelEvent
from ..messages import Message
from ..tools import ToolDefinition


@dataclass(frozen=True, slots=True)
class NamedToolChoice:
    """Force a call to this tool."""

    name: str


ToolChoice: TypeAlias = Literal["auto", "required", "none"] | NamedToolChoice


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelSettings:
    max_output_tokens: int | None = None
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    """Passed through to the adapter untouched (provider-specific options)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelRequest:
    """Everything one model call needs. Serializable: the unit a durable engine records."""

    messages: tuple[Message, ...]
    tools: tuple[ToolDefinition, ...] = ()
    tool_choice: ToolChoice = "auto"
    parallel_tool_calls: bool = True
    settings: ModelSettings = field(default_factory=ModelSettings)


@dataclass(frozen=True, kw_only=True, slots=True)
class ModelProfile:
    """What a model can do, kept apart from the API it is reached through."""

    native_tools: bool = True
    parallel_tool_calls: bool = True
    strict_schemas: bool = False
    schema_dialect: Literal["json-schema", "openai-strict", "gemini"] = "json-schema"
    text_tool_format: str | None = None
    """For models that write calls as text: the format to expect first."""


@runtime_checkable
class Model(Protocol):
    """The one contract an adapter implements: stream the response to a request as `ModelEvent`s,
    ending with `ResponseCompleted`. Raise `ProviderError` (retryable or not) on API failures."""

    @property
    def name(self) -> str: ...

    def stream(self, request: ModelRequest) -> AsyncIterator[ModelEvent]: ...
