"""`toolwire run` and `toolwire chat`."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

import anyio
import anyio.to_thread

from ..approval import ApprovalRequest, Approve, Approver, Decision, Decline, Edit
from ..elicitation import Elicitor
from ..errors import UsageError
from ..messages import Message
from ..run import RunResult
from ._display import Display, compact, one_line, result_json
from ._elicit import terminal_elicitor
from ._options import add_agent_options, build_agent, choose_approver, limits_from, require_text
from ._otel import otlp_export

EXIT_CODES = {"answer": 0, "error": 1, "cancelled": 130}
EXIT_LIMIT = 3


def register(subparsers: Any) -> None:
    run = subparsers.add_parser("run", help="answer one prompt, calling tools as needed")
    run.add_argument("prompt")
    add_agent_options(run)
    run.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object at the end: answer, stop_reason, steps, usage, calls",
    )
    run.set_defaults(func=run_command)
    chat = subparsers.add_parser("chat", help="a conversation that keeps its history")
    add_agent_options(chat)
    chat.set_defaults(func=chat_command)


def run_command(args: argparse.Namespace) -> int:
    if not require_text(args.prompt, "the prompt").strip():
        raise UsageError("the prompt is empty")
    with otlp_export(args.otel):
        return anyio.run(_run, args)


async def _run(args: argparse.Namespace) -> int:
    async with build_agent(args, choose_approver(args, terminal_approver), _elicitor()) as agent:
        if args.json:
            result = await agent.run(args.prompt)
            print(json.dumps(result_json(result), ensure_ascii=False))
        else:
            display = Display(limits_from(args))
            result = await agent.run(args.prompt, on_event=display)
            display.summary(result)
    return exit_code(result)


def chat_command(args: argparse.Namespace) -> int:
    with otlp_export(args.otel):
        return anyio.run(_chat, args)


async def _chat(args: argparse.Namespace) -> int:
    display = Display(limits_from(args))
    history: tuple[Message, ...] = ()
    print("toolwire chat: an empty line or Ctrl-D ends it.", file=sys.stderr)
    async with build_agent(args, choose_approver(args, terminal_approver), _elicitor()) as agent:
        while True:
            try:
                prompt = await anyio.to_thread.run_sync(_ask, "> ")
            except EOFError:
                return 0
            if not prompt:
                return 0
            result = await agent.run(prompt, history=history, on_event=display)
            display.summary(result)
            history = result.messages


def exit_code(result: RunResult) -> int:
    return EXIT_CODES.get(result.stop_reason, EXIT_LIMIT)


def _elicitor() -> Elicitor | None:
    """A server's questions are the person's to answer: with no terminal, nobody answers them
    (they are declined), whatever `--approve` says."""
    return terminal_elicitor(_ask) if sys.stdin.isatty() else None


def terminal_approver() -> Approver:
    async def ask(request: ApprovalRequest) -> Decision:
        return await anyio.to_thread.run_sync(_ask_on_terminal, request)

    return ask


def _ask_on_terminal(request: ApprovalRequest) -> Decision:
    try:
        return _prompt_for_decision(request)
    except EOFError:
        return Decline(message="no answer (end of input)", by="cli:user")


def _prompt_for_decision(request: ApprovalRequest) -> Decision:
    current = dict(request.arguments)
    print(
        f"\napprove {one_line(request.tool.name)} ({request.side_effect.replace('_', '-')})"
        f" with {compact(current)}?",
        file=sys.stderr,
    )
    while True:
        answer = _ask("[y]es / [n]o / [e]dit arguments: ").lower()
        if answer in ("y", "yes"):
            return Approve(by="cli:user")
        if answer in ("n", "no"):
            reason = _ask("reason (optional): ")
            return Decline(message=reason or None, by="cli:user")
        if answer in ("e", "edit"):
            edited = _edit(current)
            if edited is not None:
                return Edit(arguments=edited, by="cli:user")


def _edit(current: dict[str, Any]) -> dict[str, Any] | None:
    """New arguments, or None to ask again (nothing changed, or not a JSON object)."""
    print(f"current arguments: {compact(current)}", file=sys.stderr)
    text = _ask("new arguments as JSON (empty keeps them): ")
    try:
        edited = json.loads(text) if text else current
    except json.JSONDecodeError as error:
        print(f"not JSON: {error}", file=sys.stderr)
        return None
    if not isinstance(edited, dict):
        print("the arguments must be a JSON object", file=sys.stderr)
        return None
    if edited == current:
        # Keeping them is approving them, which the person has not said yet.
        print("arguments unchanged", file=sys.stderr)
        return None
    return edited


def _ask(prompt: str) -> str:
    while True:
        # Prompts go to stderr: stdout carries only the answer (or the --json object).
        print(prompt, end="", file=sys.stderr, flush=True)
        line = input().strip()
        try:
            return require_text(line, "that line")
        except UsageError as error:
            print(f"{error}; type it again", file=sys.stderr)
