"""Text tool calling: read tool calls that models write as text, and give tools to text-only
models.

`Scanner` reads a reply as it streams; `parse_calls` reads a whole one, with the same result.
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
