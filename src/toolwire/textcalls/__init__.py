"""Text tool calling: read the tool calls models write as text, and give tools to text-only models.

`Scanner` reads a reply as it streams, in one pass, and `parse_calls` a whole one, with the same
result for any chunking. About thirty formats are recognised whatever the model (fenced
```` ```tool_call ```` JSON, `<tool_call>` tags, bare JSON, Python-style calls, Mistral, Llama,
Gemma, Qwen3-Coder / GLM / MiniMax XML, DeepSeek, Kimi, gpt-oss Harmony...). `PromptedTools` wraps
a text-only model so that the loop can give it tools: `render_catalogue` is the prompt it uses.
"""

from ._events import (
    ArgumentsDelta,
    CallCompleted,
    CallInvalid,
    CallStarted,
    ContentText,
    ReasoningText,
    ScanEvent,
)
from ._model_events import ModelEventReader
from ._parse import InvalidCall, ParsedCall, ParseResult, parse_calls
from ._profiles import PROFILES, Profile, get_profile, profile_for_model
from ._prompted import PromptedTools
from ._render import render_catalogue
from ._scanner import Scanner
from ._tools import ToolLike, ToolSpec, tool_specs

__all__ = [
    "PROFILES",
    "ArgumentsDelta",
    "CallCompleted",
    "CallInvalid",
    "CallStarted",
    "ContentText",
    "InvalidCall",
    "ModelEventReader",
    "ParseResult",
    "ParsedCall",
    "Profile",
    "PromptedTools",
    "ReasoningText",
    "ScanEvent",
    "Scanner",
    "ToolLike",
    "ToolSpec",
    "get_profile",
    "parse_calls",
    "profile_for_model",
    "render_catalogue",
    "tool_specs",
]
