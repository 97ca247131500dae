"""How a run looks on a terminal: the answer on stdout, everything else on stderr."""

from __future__ import annotations

import json
import sys
import time
from typing import Any, TextIO

from ..events import (
    ApprovalDecided,
    RetryScheduled,
    RunEvent,
    RunFinished,
    StepStarted,
    TextDelta,
    ToolCallReady,
    ToolResultReady,
    UsageReported,
)
from ..limits import Limits
from ..run import RunResult

PREVIEW_CHARS = 300


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def preview(text: str) -> str:
    flat = text.replace("\n", " ")
    return flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS] + " …"


class Display:
    """Consumes run events and prints them as they happen."""

    def __init__(self, limits: Limits, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.limits = limits
        self.out = out
        self.err = err
        self.tokens = 0
        self.started = time.monotonic()
        self._text_open = False

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(event.text)
            self.out.flush()
            self._text_open = True
            return
        if isinstance(event, ToolCallReady):
            self._note(f"→ {event.call.name} {event.call.raw_arguments or '{}'}")
        elif isinstance(event, ApprovalDecided):
            verdict = "approved" if event.approved else "declined"
            reason = f": {event.message}" if event.message else ""
            self._note(f"  {verdict} by {event.decided_by}{reason}")
        elif isinstance(event, ToolResultReady):
            mark = "✗" if event.result.is_error else "←"
            took = f"{event.duration:.2f} s"
            self._note(f"{mark} {event.call.name} ({took}): {preview(event.result.content)}")
        elif isinstance(event, StepStarted) and event.step > 1:
            self._note(self._budget(event.step))
        elif isinstance(event, UsageReported):
            self.tokens += event.usage.total_tokens
        elif isinstance(event, RetryScheduled):
            self._note(f"  retry {event.attempt} in {event.delay:.1f} s: {event.error}")
        elif isinstance(event, RunFinished) and self._text_open:
            self.out.write("\n")
            self._text_open = False

    def _budget(self, step: int) -> str:
        limits = self.limits
        elapsed = time.monotonic() - self.started
        parts = [
            f"step {step}/{limits.max_steps or '∞'}",
            f"{self.tokens}/{limits.max_total_tokens or '∞'} tokens",
            f"{elapsed:.1f}/{limits.timeout or '∞'} s",
        ]
        return f"[{' · '.join(parts)}]"

    def summary(self, result: RunResult) -> None:
        """After a run that returned (one that raised is reported as an error instead)."""
        usage = result.usage
        summary = (
            f"[{result.stop_reason} · {result.steps} steps · {len(result.calls)} calls · "
            f"{usage.input_tokens} in / {usage.output_tokens} out tokens · "
            f"run {result.run_id[:12]}]"
        )
        if result.error:
            summary += f"\n{result.error}"
        self._note(summary)

    def _note(self, line: str) -> None:
        if self._text_open:
            self.out.write("\n")
            self.out.flush()
            self._text_open = False
        print(line, file=self.err, flush=True)


def result_json(result: RunResult) -> dict[str, Any]:
    return {
        "answer": result.output,
        "stop_reason": result.stop_reason,
        "steps": result.steps,
        "run_id": result.run_id,
        "error": result.error,
        "usage": {
            "input_tokens": result.usage.input_tokens,
            "output_tokens": result.usage.output_tokens,
            "total_tokens": result.usage.total_tokens,
            "requests": result.usage.requests,
        },
        "calls": [
            {
                "name": record.call.name,
                "arguments": dict(record.call.arguments),
                "is_error": record.result.is_error,
                "result": record.result.content,
                "decided_by": record.decided_by,
            }
            for record in result.calls
        ],
    }


def show_progress(progress: Any) -> None:
    """An MCP server's progress on a running call (a `toolwire.mcp.ToolProgress`)."""
    total = f"/{progress.total:g}" if progress.total else ""
    message = f" {progress.message}" if progress.message else ""
    print(f"  … {progress.tool} {progress.progress:g}{total}{message}", file=sys.stderr, flush=True)
