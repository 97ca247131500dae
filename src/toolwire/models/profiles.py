"""What each model family can do, kept apart from the wire code that talks to it.

An adapter asks for the profile of its model once, at construction; pass `profile=` to an adapter
to override (a new model, a local server with different abilities).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ._base import ModelProfile

__all__ = [
    "AnthropicProfile",
    "BedrockProfile",
    "OpenAIProfile",
    "anthropic_profile",
    "bedrock_profile",
    "gemini_profile",
    "openai_compatible_profile",
    "openai_profile",
]

_OPENAI_REASONING = ("o1", "o3", "o4", "gpt-5", "codex")


@dataclass(frozen=True, kw_only=True, slots=True)
class OpenAIProfile(ModelProfile):
    reasoning: bool = False
    """Ask for encrypted reasoning and send it back with the history (Responses, `store=False`)."""
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    """Chat Completions: OpenAI wants `max_completion_tokens`, most other servers `max_tokens`."""
    stream_usage: bool = True
    """Chat Completions: ask for a usage chunk at the end of the stream."""


@dataclass(frozen=True, kw_only=True, slots=True)
class AnthropicProfile(ModelProfile):
    default_max_tokens: int = 8192
    """The Messages API requires `max_tokens`: used when the settings give none."""


@dataclass(frozen=True, kw_only=True, slots=True)
class BedrockProfile(ModelProfile):
    stream_tool_use: bool = True
    """False: the model cannot call tools through ConverseStream; Converse is used instead."""
    forced_tool_choice: bool = True
    """The model accepts `toolChoice` any / tool (`required` or a named tool)."""


def openai_profile(model: str) -> OpenAIProfile:
    return OpenAIProfile(
        strict_schemas=True,
        schema_dialect="openai-strict",
        reasoning=model.startswith(_OPENAI_REASONING),
    )


def openai_compatible_profile(model: str) -> OpenAIProfile:
    """A server that speaks Chat Completions (llama.cpp, vLLM, Ollama, LM Studio): plain JSON
    Schema, no strict mode, `max_tokens`."""
    return OpenAIProfile(max_tokens_field="max_tokens")


def anthropic_profile(model: str) -> AnthropicProfile:
    return AnthropicProfile()


def gemini_profile(model: str) -> ModelProfile:
    return ModelProfile(schema_dialect="gemini")


# Bedrock model ids start with the vendor, after an optional cross-region prefix ("us.", "eu.").
_BEDROCK_FAMILIES: dict[str, BedrockProfile] = {
    "anthropic": BedrockProfile(),
    "amazon": BedrockProfile(),
    "mistral": BedrockProfile(stream_tool_use=False),
    "meta": BedrockProfile(stream_tool_use=False, forced_tool_choice=False),
    "cohere": BedrockProfile(forced_tool_choice=False),
}


def bedrock_profile(model: str) -> BedrockProfile:
    for vendor in model.split(".")[:2]:
        if vendor in _BEDROCK_FAMILIES:
            return _BEDROCK_FAMILIES[vendor]
    # Unknown families: Converse (tool use works wherever the model has it), no forced choice.
    return BedrockProfile(stream_tool_use=False, forced_tool_choice=False)
