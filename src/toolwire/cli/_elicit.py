"""A server's question to the person, asked on the terminal: accept (fill the form, the schema's
defaults pre-filled; or consent to open a URL), decline or cancel."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import anyio.to_thread

from ..elicitation import ElicitationAnswer, ElicitationRequest, Elicitor
from ._display import compact, one_line

Ask = Callable[[str], str]
"""Shows a prompt and returns the line typed (raises `EOFError` at the end of input)."""

BY = "cli:user"


def terminal_elicitor(ask: Ask) -> Elicitor:
    async def elicit(request: ElicitationRequest) -> ElicitationAnswer:
        return await anyio.to_thread.run_sync(answer_on_terminal, request, ask)

    return elicit


def answer_on_terminal(request: ElicitationRequest, ask: Ask) -> ElicitationAnswer:
    try:
        return _answer(request, ask)
    except EOFError:
        return ElicitationAnswer(action="cancel", by=BY)


def _answer(request: ElicitationRequest, ask: Ask) -> ElicitationAnswer:
    _say(
        f"\nMCP server {one_line(request.server)} asks, during {one_line(request.tool)}: "
        f"{one_line(request.message)}"
    )
    if request.mode == "url":
        _say(f"  {one_line(request.url or '')}")
        _say("  (not opened or fetched: open it in your browser if you accept)")
    while True:
        action = ask("[a]ccept / [d]ecline / [c]ancel: ").lower()
        if action in ("d", "decline"):
            return ElicitationAnswer(action="decline", by=BY)
        if action in ("c", "cancel"):
            return ElicitationAnswer(action="cancel", by=BY)
        if action in ("a", "accept"):
            break
    if request.mode == "url":
        return ElicitationAnswer(action="accept", by=BY)
    content = _fill(request.schema, ask)
    _say(f"sending {compact(content)}")
    return ElicitationAnswer(action="accept", content=content, by=BY)


def _fill(schema: Mapping[str, Any], ask: Ask) -> dict[str, Any]:
    properties = schema.get("properties")
    required = set(schema.get("required", ()))
    content: dict[str, Any] = {}
    for name, spec in (properties or {}).items() if isinstance(properties, Mapping) else ():
        spec = spec if isinstance(spec, Mapping) else {}
        value = _field(name, spec, name in required, ask)
        if value is not None:
            content[name] = value
    return content


def _field(name: str, spec: Mapping[str, Any], required: bool, ask: Ask) -> Any:
    """The value typed for one field; None when left empty (the schema's default then applies)."""
    choices = _choices(spec)
    label = one_line(str(spec.get("title") or name))
    about = f" - {one_line(str(spec['description']))}" if spec.get("description") else ""
    _say(f"{label}{about}{' (required)' if required else ''}")
    if choices:
        _say("  " + ", ".join(f"{i}) {one_line(title)}" for i, (_, title) in enumerate(choices, 1)))
    shown = f" [{compact(spec['default'])}]" if "default" in spec else ""
    while True:
        text = ask(f"  {_kind(spec)}{shown}: ")
        if not text:
            if required and "default" not in spec:
                _say("  this one is required")
                continue
            return None
        try:
            return _parse(text, spec, choices)
        except ValueError as problem:
            _say(f"  {problem}; type it again")


def _parse(text: str, spec: Mapping[str, Any], choices: Sequence[tuple[Any, str]]) -> Any:
    kind = spec.get("type")
    if kind == "array":
        return [_pick(part.strip(), choices) for part in text.split(",") if part.strip()]
    if choices:
        return _pick(text, choices)
    if kind == "boolean":
        if text.lower() in ("y", "yes", "true"):
            return True
        if text.lower() in ("n", "no", "false"):
            return False
        raise ValueError("answer yes or no")
    if kind in ("integer", "number"):
        try:
            number = json.loads(text)
        except json.JSONDecodeError:
            number = None
        if isinstance(number, bool) or not isinstance(number, int | float):
            raise ValueError(f"not a{'n integer' if kind == 'integer' else ' number'}")
        if kind == "integer" and not float(number).is_integer():
            raise ValueError("not an integer")
        return int(number) if kind == "integer" else number
    return text


def _pick(text: str, choices: Sequence[tuple[Any, str]]) -> Any:
    if not choices:
        return text
    if text.isdigit() and 1 <= int(text) <= len(choices):
        return choices[int(text) - 1][0]
    for value, title in choices:
        if text in (str(value), title):
            return value
    raise ValueError(f"{text!r} is not one of the choices")


def _choices(spec: Mapping[str, Any]) -> list[tuple[Any, str]]:
    """(value, title) pairs: `enum` (with the legacy `enumNames`), or `oneOf`/`anyOf` of
    `const`s; for an array, those of its items."""
    items = spec.get("items")
    source = items if spec.get("type") == "array" and isinstance(items, Mapping) else spec
    if isinstance(source.get("enum"), list):
        names = source.get("enumNames")
        titles = names if isinstance(names, list) and len(names) == len(source["enum"]) else None
        return [(v, str(titles[i] if titles else v)) for i, v in enumerate(source["enum"])]
    options = source.get("oneOf") or source.get("anyOf") or []
    return [
        (o["const"], str(o.get("title", o["const"])))
        for o in options
        if isinstance(o, Mapping) and "const" in o
    ]


def _kind(spec: Mapping[str, Any]) -> str:
    kind = spec.get("type")
    if kind == "array":
        return "choices, comma-separated"
    if kind == "boolean":
        return "yes/no"
    return str(kind or "text")


def _say(line: str) -> None:
    # Prompts go to stderr: stdout carries only the answer (or the --json object).
    print(line, file=sys.stderr)
