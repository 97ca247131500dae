"""Model adapters: one contract (`Model.stream`), a scripted model, and model strings."""

from ._base import Model, ModelProfile, ModelRequest, ModelSettings, NamedToolChoice, ToolChoice
from ._registry import ModelFactory, get_model, model_providers, register_model_provider
from ._scripted import ScriptedCall, ScriptedModel, Turn, load_script

__all__ = [
    "Model",
    "ModelFactory",
    "ModelProfile",
    "ModelRequest",
    "ModelSettings",
    "NamedToolChoice",
    "ScriptedCall",
    "ScriptedModel",
    "ToolChoice",
    "Turn",
    "get_model",
    "load_script",
    "model_providers",
    "register_model_provider",
]
