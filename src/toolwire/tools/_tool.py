from __future__ import annotations

import dataclasses
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from ..errors import UsageError

if TYPE_CHECKING:
    from ..elicitation import Check, ElicitationAnswer, ElicitationRequest
    from ..sampling import Sampled, SamplingRequest

    Elicit: TypeAlias = Callable[[ElicitationRequest, Check | None], Awaitable[ElicitationAnswer]]
    Sample: TypeAlias = Callable[[SamplingRequest], Awaitable[Sampled]]

SideEffect: TypeAlias = Literal["read_only", "idempotent", "destructive"]
"""What running a tool may change. It decides concurrency (only read-only calls of a turn run
together), approval (destructive tools need it unless told otherwise) and replay after a crash or
reconnect (only read-only and idempotent calls are ever repeated)."""

SIDE_EFFECTS: tuple[SideEffect, ...] = ("read_only", "idempotent", "destructive")
TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")

# Keys of the context that a tool can ask for with `Injected`, beside the application's deps.
CONTEXT_KEYS = frozenset({"run_id", "call_id", "step", "idempotency_key"})


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolDefinition:
    """Exactly what the model is told about a tool, and what running it may change, which no
    adapter sends: a model that writes calls on trial (the local one) weighs it."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    side_effect: SideEffect = "destructive"


@dataclass(frozen=True, kw_only=True, slots=True)
class ToolContext:
    """What the application, never the model, supplies to a call.

    `idempotency_key` is derived from the run id and the call id, so a call repeated after a crash
    carries the same key and a tool with side effects can make the repeat harmless.
    """

    run_id: str
    call_id: str
    step: int
    idempotency_key: str
    deps: Mapping[str, Any] = field(default_factory=dict)
    elicit: Elicit | None = None
    """Asks the person running the agent for input (`toolwire.elicitation`); None outside a run."""
    sample: Sample | None = None
    """Asks the run's model for a completion, once the approver allows it (raises
    `SamplingRefused` otherwise); None outside a run."""

    def lookup(self, key: str) -> Any:
        if key in CONTEXT_KEYS:
            return getattr(self, key)
        try:
            return self.deps[key]
        except KeyError:
            raise UsageError(f"no value for injected parameter {key!r}: pass it in deps") from None


class ToolExited(Exception):
    """A tool's own code raised a `BaseException` that is not an error (`SystemExit` from argparse
    or `sys.exit`, a `KeyboardInterrupt` of its own making): it must not end the run or the
    process, so it travels as an ordinary failure of the one call."""

    def __init__(self, raised: BaseException) -> None:
        super().__init__(raised)
        self.raised = raised


Validator: TypeAlias = Callable[[Mapping[str, Any]], Mapping[str, Any]]
Invoker: TypeAlias = Callable[[Mapping[str, Any], ToolContext], Awaitable[str]]


@dataclass(frozen=True, kw_only=True, slots=True)
class Tool:
    """A tool as the loop sees it: a definition for the model, plus how to validate and run a call.

    `validate` returns the arguments to run with or raises `InvalidArguments`; `invoke` returns the
    result content or raises (`ToolError` for a message meant for the model). Toolset wrappers make
    changed copies with `replace`.

    `name` is what the model sees; `own_name` (by default `name` as made: the function's name, or
    the MCP server's name for the tool) stays the same through prefixes and provider-safe
    renaming, and is what `hidden`, `filtered` and `requiring_approval` match.
    """

    name: str
    own_name: str = ""
    description: str
    parameters: Mapping[str, Any]
    validate: Validator
    invoke: Invoker
    side_effect: SideEffect = "destructive"
    requires_approval: bool | None = None
    timeout: float | None = None
    injected: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if not self.own_name:
            object.__setattr__(self, "own_name", self.name)
        if not TOOL_NAME.fullmatch(self.name):
            raise UsageError(
                f"tool name {self.name!r} must match ^[A-Za-z0-9_-]{{1,64}}$ (after any prefix)"
            )
        if self.side_effect not in SIDE_EFFECTS:
            raise UsageError(
                f"tool {self.name!r}: side_effect must be one of {', '.join(SIDE_EFFECTS)}"
            )
        if self.timeout is not None and self.timeout <= 0:
            raise UsageError(f"tool {self.name!r}: timeout must be positive")

    @property
    def definition(self) -> ToolDefinition:
        return ToolDefinition(
            name=self.name,
            description=self.description,
            parameters=self.parameters,
            side_effect=self.side_effect,
        )

    @property
    def needs_approval(self) -> bool:
        if self.requires_approval is not None:
            return self.requires_approval
        return self.side_effect == "destructive"

    def replace(self, **changes: Any) -> Tool:
        return dataclasses.replace(self, **changes)
