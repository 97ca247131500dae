"""toolwire: the LLM tool-calling round trip for any model.

The model proposes; the application disposes. An `Agent` describes its tools to a model, reads the
calls it writes, validates, approves and runs them, sends back exactly one result per call, and
loops until the model answers, inside hard `Limits`.
"""

from .agent import Agent, EventSink, describe_tools
from .approval import ApprovalRequest, Approve, Approver, Decision, Decline, Edit
from .clock import Clock, EventLoopClock
from .elicitation import ElicitationAnswer, ElicitationRequest, Elicitor
from .errors import (
    InvalidArguments,
    ProviderError,
    RunError,
    ToolError,
    ToolwireError,
    UsageError,
)
from .events import RunEvent, StopReason
from .limits import Limits
from .messages import Message, ReasoningPart, TextPart, ToolCall, ToolResult, Usage
from .models import Model, ModelSettings, ScriptedModel, Turn
from .run import CallRecord, RunResult
from .tools import Injected, SideEffect, Tool, ToolContext, Toolset, tool

__all__ = [
    "Agent",
    "ApprovalRequest",
    "Approve",
    "Approver",
    "CallRecord",
    "Clock",
    "Decision",
    "Decline",
    "Edit",
    "ElicitationAnswer",
    "ElicitationRequest",
    "Elicitor",
    "EventLoopClock",
    "EventSink",
    "Injected",
    "InvalidArguments",
    "Limits",
    "Message",
    "Model",
    "ModelSettings",
    "ProviderError",
    "ReasoningPart",
    "RunError",
    "RunEvent",
    "RunResult",
    "ScriptedModel",
    "SideEffect",
    "StopReason",
    "TextPart",
    "Tool",
    "ToolCall",
    "ToolContext",
    "ToolError",
    "ToolResult",
    "Toolset",
    "ToolwireError",
    "Turn",
    "Usage",
    "UsageError",
    "describe_tools",
    "tool",
]
