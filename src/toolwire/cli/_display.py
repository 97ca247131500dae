"""How a run looks on a terminal: the answer on stdout, everything else on stderr."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from collections.abc import Sequence
from typing import Any, TextIO

from ..events import (
    ApprovalDecided,
    CallCorrected,
    ElicitationAnswered,
    RetryScheduled,
    RunEvent,
    RunFinished,
    SamplingAnswered,
    StepStarted,
    TextDelta,
    ToolCallReady,
    ToolResultReady,
    UsageReported,
)
from ..limits import Limits
from ..run import RunResult

PREVIEW_CHARS = 300

# What a terminal acts on instead of showing: C0 and C1 controls (ESC starts the sequences that set
# the title or clear the screen; \r and \b overwrite what was shown), DEL, the bidi controls
# that reorder a line's text, and lone surrogates (no encoding can write them).
_CONTROLS = "\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
_ANY_CONTROL = re.compile(f"[{_CONTROLS}]")
_CONTROL_BUT_LAYOUT = re.compile(f"(?![\n\t])[{_CONTROLS}]")


def printable(text: str) -> str:
    """`text` with every control character shown as its escape (`\\x1b`), newlines and tabs kept:
    what a model, a tool or a server wrote can never drive the terminal."""
    return _CONTROL_BUT_LAYOUT.sub(_escape, text)


def one_line(text: str) -> str:
    """`text` on one line: newlines become spaces, every other control character its escape."""
    return _ANY_CONTROL.sub(_escape, text.replace("\n", " "))


def _escape(match: re.Match[str]) -> str:
    return match.group().encode("unicode_escape").decode("ascii")


def compact(value: Any) -> str:
    """Arguments as one line of JSON, safe to print."""
    return one_line(json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str))


def describe_correction(written: Any, changes: Sequence[str]) -> str:
    """A call the model adapter changed before it ran: what the model wrote, and why."""
    return f"the model wrote {compact(written)}; {one_line('; '.join(changes))}"


def describe_dropped(name: str, written: Any, changes: Sequence[str]) -> str:
    """A call the model adapter dropped before it ran."""
    return f"✗ not run: {one_line(name)} {compact(written)}: {one_line('; '.join(changes))}"


def preview(text: str) -> str:
    short = text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + " …"
    return one_line(short)


class Display:
    """Consumes run events and prints them as they happen."""

    def __init__(self, limits: Limits, out: TextIO = sys.stdout, err: TextIO = sys.stderr) -> None:
        self.limits = limits
        self.out = out
        self.err = err
        self.tokens = 0
        self.started = time.monotonic()
        self._text_open = False
        # On a terminal the answer is shown like everything else; written to a file or a pipe it
        # is the product, and stays exactly as the model wrote it.
        self._answer = printable if out.isatty() else str

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, TextDelta):
            self.out.write(self._answer(event.text))
            self.out.flush()
            self._text_open = True
            return
        if isinstance(event, ToolCallReady):
            name, raw = one_line(event.call.name), one_line(event.call.raw_arguments or "{}")
            self._note(f"→ {name} {raw}")
        elif isinstance(event, CallCorrected):
            if event.index is None:
                self._note(describe_dropped(event.name, event.written, event.changes))
            else:
                correction = describe_correction(event.written, event.changes)
                self._note(f"✎ {one_line(event.name)}: {correction}")
        elif isinstance(event, ApprovalDecided):
            self._note(_decision(event))
        elif isinstance(event, ElicitationAnswered):
            asker = one_line(event.request.server)
            answer = f"{event.answer.action} by {one_line(event.answer.by)}"
            self._note(f"  ? {asker} asked for input: {answer}")
        elif isinstance(event, SamplingAnswered):
            asker = one_line(event.request.server)
            outcome = one_line(event.refused) if event.refused else preview(event.text or "")
            self._note(f"  ? {asker} asked the model for a completion: {outcome}")
        elif isinstance(event, ToolResultReady):
            mark = "✗" if event.result.is_error else "←"
            took = f"{event.duration:.2f} s"
            name = one_line(event.call.name)
            self._note(f"{mark} {name} ({took}): {preview(event.result.content)}")
        elif isinstance(event, StepStarted) and event.step > 1:
            self._note(self._budget(event.step))
        elif isinstance(event, UsageReported):
            self.tokens += event.usage.total_tokens
        elif isinstance(event, RetryScheduled):
            self._note(f"  retry {event.attempt} in {event.delay:.1f} s: {one_line(event.error)}")
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
            summary += f"\n{printable(result.error)}"
        self._note(summary)

    def _note(self, line: str) -> None:
        if self._text_open:
            self.out.write("\n")
            self.out.flush()
            self._text_open = False
        print(line, file=self.err, flush=True)


def _decision(event: ApprovalDecided) -> str:
    if event.edited_arguments is not None:
        verdict = f"edited by {one_line(event.decided_by)}: {compact(event.edited_arguments)}"
    else:
        approved = "approved" if event.approved else "declined"
        verdict = f"{approved} by {one_line(event.decided_by)}"
        if event.message:
            verdict += f": {one_line(event.message)}"
    return f"  {verdict}"


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
    message = f" {one_line(progress.message)}" if progress.message else ""
    tool = one_line(progress.tool)
    print(f"  … {tool} {progress.progress:g}{total}{message}", file=sys.stderr, flush=True)


class OneLineLogs(logging.Handler):
    """Warnings from toolwire and the SDKs under it, one escaped line each on stderr: a library's
    traceback (the MCP SDK logs one for every line a server writes that is not JSON-RPC) is not
    for the person at the terminal."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = record.getMessage()
            if record.exc_info and record.exc_info[1] is not None:
                error = record.exc_info[1]
                first = str(error).strip().splitlines()[:1]
                line += f" ({type(error).__name__}{': ' + first[0] if first else ''})"
            print(f"toolwire: {one_line(line)}", file=sys.stderr, flush=True)
        except Exception:
            self.handleError(record)
