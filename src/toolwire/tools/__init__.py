"""Tools and toolsets: what the model may call, and how each call is validated and run."""

from ._function import Injected, function_tool, to_content, tool
from ._tool import SideEffect, Tool, ToolContext, ToolDefinition
from ._toolsets import (
    ApprovalRequiredToolset,
    FilteredToolset,
    FunctionToolset,
    HiddenToolset,
    PrefixedToolset,
    Toolset,
    WrapperToolset,
)

__all__ = [
    "ApprovalRequiredToolset",
    "FilteredToolset",
    "FunctionToolset",
    "HiddenToolset",
    "Injected",
    "PrefixedToolset",
    "SideEffect",
    "Tool",
    "ToolContext",
    "ToolDefinition",
    "Toolset",
    "WrapperToolset",
    "function_tool",
    "to_content",
    "tool",
]
