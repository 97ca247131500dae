"""Durable runs from the command line: `submit`, `worker`, `runs`, `approve`, `resume`, `cancel`.

A submitted run names its agent by the options that build it (`cli:` + those options as JSON),
so any worker, on any machine with the same tools files, builds the same agent."""

from __future__ import annotations

import argparse
import contextlib
import json
import signal
import sys
import time
from pathlib import Path
from typing import Any

from ..agent import Agent
from ..approval import Approve, Decision, Decline, Edit
from ..errors import UsageError
from ._options import add_agent_options, build_agent, positive_int, require_text

AGENT_PREFIX = "cli:"
SPEC_OPTIONS = (
    "model",
    "tools",
    "mcp",
    "instructions",
    "max_steps",
    "timeout",
    "tool_timeout",
    "max_tokens",
    "no_log",
)


def register(subparsers: Any) -> None:
    submit = subparsers.add_parser("submit", help="queue a durable run; prints its run id")
    submit.add_argument("prompt")
    add_agent_options(submit)
    _add_common(submit, listing=True)
    submit.set_defaults(func=submit_command)
    worker = subparsers.add_parser("worker", help="run queued durable runs until stopped")
    worker.add_argument(
        "--concurrency", type=positive_int, help="runs at once in this worker (default: no cap)"
    )
    _add_common(worker)
    worker.set_defaults(func=worker_command)
    runs = subparsers.add_parser("runs", help="durable runs and their status")
    runs.add_argument("--limit", type=positive_int, default=50, help="runs to list (default 50)")
    _add_common(runs, listing=True)
    runs.set_defaults(func=runs_command)
    approve = subparsers.add_parser("approve", help="answer a durable run's approval")
    approve.add_argument("run_id")
    approve.add_argument("call_id")
    answer = approve.add_mutually_exclusive_group()
    answer.add_argument("--decline", metavar="WHY", help="decline the call, telling the model why")
    answer.add_argument("--edit", metavar="JSON", help="run the call with these arguments")
    approve.add_argument("--by", default="cli:user", help="who decides (default cli:user)")
    _add_common(approve)
    approve.set_defaults(func=approve_command)
    for name, help_text in (
        ("resume", "continue a cancelled or failed durable run from its last step"),
        ("cancel", "stop a durable run (it can be resumed)"),
    ):
        command = subparsers.add_parser(name, help=help_text)
        command.add_argument("run_id")
        _add_common(command)
        command.set_defaults(func=manage_command, action=name)


def _add_common(parser: argparse.ArgumentParser, *, listing: bool = False) -> None:
    parser.add_argument(
        "--db",
        metavar="URL",
        help="postgresql://... (default: TOOLWIRE_DATABASE_URL, else SQLite in the data directory)",
    )
    if listing:
        parser.add_argument("--json", action="store_true", help="print JSON")


def _durable() -> Any:
    try:
        import toolwire.durable as durable
    except ImportError:
        raise UsageError(
            "durable runs need the durable extra: pip install 'toolwire[durable]'"
        ) from None
    return durable


def submit_command(args: argparse.Namespace) -> int:
    if not require_text(args.prompt, "the prompt").strip():
        raise UsageError("the prompt is empty")
    if args.approve is not None:
        raise UsageError("a durable run's approvals wait for `toolwire approve`: drop --approve")
    spec = {name: getattr(args, name) for name in SPEC_OPTIONS}
    spec["tools"] = [_absolute(tools) for tools in args.tools]
    agent_name = AGENT_PREFIX + json.dumps(spec, sort_keys=True)
    agent_from_name(agent_name)  # bad options fail here, not later in a worker
    with _durable().Client(args.db) as client:
        run_id = client.submit(args.prompt, agent=agent_name)
    print(json.dumps({"run_id": run_id}) if args.json else run_id)
    return 0


def _absolute(tools: str) -> str:
    """A tools file as a path any worker's working directory finds; a module name as it is."""
    path = Path(tools)
    return str(path.resolve()) if path.exists() else tools


def agent_from_name(name: str) -> Agent | None:
    """The agent a submitted run was named after; None for a name the CLI did not make."""
    if not name.startswith(AGENT_PREFIX):
        return None
    spec = json.loads(name.removeprefix(AGENT_PREFIX))
    return build_agent(argparse.Namespace(**spec), approver=None)


def worker_command(args: argparse.Namespace) -> int:
    worker = _durable().Worker(
        {}, resolve=agent_from_name, database=args.db, concurrency=args.concurrency
    )
    signal.signal(signal.SIGTERM, lambda *_: worker.stop())
    with worker, contextlib.suppress(KeyboardInterrupt):
        print(f"toolwire worker {worker.executor_id}: {worker.database_url}", file=sys.stderr)
        worker.serve()
    return 0


def runs_command(args: argparse.Namespace) -> int:
    with _durable().Client(args.db) as client:
        runs = client.runs(args.limit)
    if args.json:
        print(json.dumps([_run_json(run) for run in runs]))
        return 0
    for run in runs:
        created = "" if run.created_at is None else time.ctime(run.created_at)
        waiting = f"  call {run.waiting['call_id']} ({run.waiting['tool']})" if run.waiting else ""
        print(f"{run.run_id}  {run.status:<9}  {created}{waiting}")
    return 0


def _run_json(run: Any) -> dict[str, Any]:
    return {
        "run_id": run.run_id,
        "status": run.status,
        "created_at": run.created_at,
        "worker": run.worker,
        "waiting": run.waiting,
    }


def approve_command(args: argparse.Namespace) -> int:
    decision: Decision = Approve(by=args.by)
    if args.decline is not None:
        decision = Decline(message=require_text(args.decline, "--decline") or None, by=args.by)
    elif args.edit is not None:
        try:
            arguments = json.loads(args.edit)
        except json.JSONDecodeError as error:
            raise UsageError(f"--edit is not JSON: {error}") from None
        if not isinstance(arguments, dict):
            raise UsageError("--edit must be a JSON object of the call's arguments")
        decision = Edit(arguments=arguments, by=args.by)
    with _durable().Client(args.db) as client:
        client.approve(args.run_id, args.call_id, decision)
    return 0


def manage_command(args: argparse.Namespace) -> int:
    with _durable().Client(args.db) as client:
        getattr(client, args.action)(args.run_id)
    return 0
