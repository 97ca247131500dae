"""Generated text becomes tool calls through the shared text tool-call scanner
(`toolwire.textcalls`), told the model family's format first; this is where that is chosen."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...textcalls import Scanner
from ...tools import ToolDefinition

__all__ = ["ScannerFactory", "default_scanner"]

ScannerFactory = Callable[[Sequence[ToolDefinition], str], Scanner]
"""Makes a scanner for these tools that tries this text tool-call profile first."""


def default_scanner(tools: Sequence[ToolDefinition], profile: str) -> Scanner:
    return Scanner(tools, profile=profile)
