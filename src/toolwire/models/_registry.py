"""Model strings (`provider:model`) and the one door every adapter comes through.

toolwire's own adapters are registered here exactly as a plugin's would be, by an import path
resolved only when the prefix is used, so no provider SDK is imported before it is needed. Plugins
register through the `toolwire.models` entry-point group or `register_model_provider`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TypeAlias, cast

from ..errors import UsageError
from ._base import Model

ModelFactory: TypeAlias = Callable[[str], Model]
"""Takes what follows `provider:` in the model string and returns a model."""

ENTRY_POINT_GROUP = "toolwire.models"

_providers: dict[str, str | ModelFactory] = {
    "scripted": "toolwire.models._scripted:scripted_from_spec",
    "local": "toolwire.models.local:from_spec",
    "openai": "toolwire.models.openai_responses:openai_from_spec",
    "openai-chat": "toolwire.models.openai_chat:openai_chat_from_spec",
    "anthropic": "toolwire.models.anthropic:anthropic_from_spec",
    "gemini": "toolwire.models.gemini:gemini_from_spec",
    "bedrock": "toolwire.models.bedrock:bedrock_from_spec",
    # `prompted:MODEL` gives any text-only model tool calling through the text-call scanner.
    "prompted": "toolwire.textcalls:PromptedTools",
}
_entry_points_loaded = False


def register_model_provider(prefix: str, factory: str | ModelFactory) -> None:
    """Make `prefix:...` model strings resolve through `factory` (or a `module:attribute` path)."""
    _providers[prefix] = factory


def model_providers() -> list[str]:
    _load_entry_points()
    return sorted(_providers)


def get_model(model: str | Model) -> Model:
    if not isinstance(model, str):
        return model
    prefix, _, rest = model.partition(":")
    _load_entry_points()
    factory = _providers.get(prefix)
    if factory is None:
        raise UsageError(
            f"unknown model {model!r}: use provider:model with one of "
            f"{', '.join(f'{p}:' for p in sorted(_providers))}"
        )
    if isinstance(factory, str):
        factory = _resolve(factory, prefix)
        _providers[prefix] = factory
    return factory(rest)


def _resolve(path: str, prefix: str) -> ModelFactory:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise UsageError(
            f"models '{prefix}:' need an optional dependency ({error.name or error}): "
            f"pip install 'toolwire[{prefix}]'"
        ) from None
    return cast(ModelFactory, getattr(module, attribute))


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    _entry_points_loaded = True
    from importlib.metadata import entry_points  # costs ~20 ms: only when a model is resolved

    for point in entry_points(group=ENTRY_POINT_GROUP):
        _providers.setdefault(point.name, point.value)
