"""The built-in example tools `toolwire run` offers when it is given no others: exact arithmetic,
the current time in a time zone, unit conversion, and a search over toolwire's own notes. All
read-only and safe to run without approval."""

from __future__ import annotations

from ..tools import FunctionToolset, Tool
from ._arithmetic import calculate
from ._clock import clock_tool, current_time
from ._notes import search_notes
from ._units import convert_units

__all__ = [
    "TOOLS",
    "builtin_toolset",
    "calculate",
    "clock_tool",
    "convert_units",
    "current_time",
    "search_notes",
]

TOOLS: list[Tool] = [calculate, current_time, convert_units, search_notes]


def builtin_toolset() -> FunctionToolset:
    return FunctionToolset(TOOLS)
