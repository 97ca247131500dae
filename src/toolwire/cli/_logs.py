"""`toolwire logs`: recent runs, or one run's calls."""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from typing import Any

from ..errors import UsageError
from ..log import RunLog
from ._display import (
    compact,
    describe_correction,
    describe_dropped,
    one_line,
    preview,
    printable,
)


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("logs", help="recent runs, or the calls of one run")
    parser.add_argument("run", nargs="?", help="a run id (or a unique prefix of one)")
    parser.add_argument("--limit", type=int, default=20, help="runs to list (default 20)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=logs_command)


def logs_command(args: argparse.Namespace) -> int:
    if args.limit < 1:
        raise UsageError("--limit must be at least 1")
    log = RunLog()
    try:
        return _show_run(log, args) if args.run else _list_runs(log, args)
    finally:
        log.close()


def _list_runs(log: RunLog, args: argparse.Namespace) -> int:
    runs = log.runs(args.limit)
    if args.json:
        print(json.dumps([dataclasses.asdict(r) for r in runs], ensure_ascii=False))
        return 0
    for run in runs:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(run.started_at))
        print(
            f"{run.id[:12]}  {when}  {run.stop_reason or 'running':<13} {one_line(run.model)}  "
            f"{preview(run.prompt or '')[:60]}"
        )
    return 0


def _show_run(log: RunLog, args: argparse.Namespace) -> int:
    run = log.find_run(args.run)
    if run is None:
        raise UsageError(f"no single run matches {args.run!r}")
    calls = log.calls(run.id)
    corrections = log.corrections(run.id)
    elicitations, samplings = log.elicitations(run.id), log.samplings(run.id)
    if args.json:
        print(
            json.dumps(
                {
                    **dataclasses.asdict(run),
                    "calls": [dataclasses.asdict(c) for c in calls],
                    "corrections": [dataclasses.asdict(c) for c in corrections],
                    "elicitations": [dataclasses.asdict(e) for e in elicitations],
                    "samplings": [dataclasses.asdict(s) for s in samplings],
                },
                ensure_ascii=False,
            )
        )
        return 0
    # Everything below was written by a person, a model or a tool: shown, never obeyed.
    print(f"run {run.id}  {one_line(run.model)}  {run.stop_reason or 'running'}  steps {run.steps}")
    print(f"prompt: {printable(run.prompt or '')}")
    for call in calls:
        mark = "✗" if call.is_error else "←"
        approval = f"  [decided by {one_line(call.decided_by)}]" if call.decided_by else ""
        print(f"  step {call.step}  → {one_line(call.name)} {compact(call.arguments)}{approval}")
        if call.edited_arguments is not None:
            print(f"    edited to {compact(call.edited_arguments)}")
        for correction in (c for c in corrections if c.call_id == call.call_id):
            print(f"    {describe_correction(correction.written, correction.changes)}")
        for asked in (e for e in elicitations if e.call_id == call.call_id):
            answer = f"{asked.action} by {one_line(asked.answered_by)}"
            print(f"    ? {one_line(asked.server)} asked {preview(asked.message)}: {answer}")
        for sampled in (s for s in samplings if s.call_id == call.call_id):
            outcome = one_line(sampled.refused or "") or preview(sampled.output or "")
            who = one_line(sampled.decided_by)
            print(f"    ? {one_line(sampled.server)} sampled the model [{who}]: {outcome}")
        print(f"    {mark} {preview(call.result)} ({call.duration:.2f} s)")
    for dropped in (c for c in corrections if c.call_id is None):
        note = describe_dropped(dropped.name, dropped.written, dropped.changes)
        print(f"  step {dropped.step}  {note}")
    if run.output:
        print(f"answer: {printable(run.output)}")
    return 0
