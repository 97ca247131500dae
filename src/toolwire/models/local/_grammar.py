"""llama.cpp grammars (GBNF) that make a reply a well-formed tool call in the model's own format.

With `strict`, each tool's arguments follow its JSON Schema (llama-cpp-python's JSON Schema to
GBNF converter, which also forbids properties the schema does not declare); without, they are
any JSON object. The call structure itself (markers, name, arguments) is always fixed, so a call
that is required is certain to be one.

A JSON Schema `number` is written with a decimal point (`3.0`), an `integer` without one. JSON
does not tell them apart, but Python's reader does: `3` becomes an int, so a tool whose schema
came from a `float` parameter would get one, and type checks as Python makes them (isinstance,
BFCL's checker) fail. Left to itself the model writes `[1, 3]` for an array of numbers.

A call marker that is one token of the vocabulary (Qwen's `<tool_call>`) is written into the
grammar as that token: llama.cpp matches a string literal against ordinary tokens only, so the
model would otherwise have to spell the marker out in pieces, a form it was never trained on and
one the next prompt (which has the token) no longer shares with the KV cache.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ...tools import ToolDefinition
from ._formats import CallFormat

__all__ = ["MAX_PARALLEL_CALLS", "calls_grammar"]

MAX_PARALLEL_CALLS = 8
_MAX_REF_DEPTH = 3


def calls_grammar(
    call_format: CallFormat,
    tools: Sequence[ToolDefinition],
    *,
    strict: bool,
    parallel: bool,
    marker_tokens: Mapping[str, int] | None = None,
) -> str:
    """A grammar for one call (or, with `parallel`, one or more) to any of `tools`.
    `marker_tokens` maps the format's markers that are special tokens to their ids."""
    literal = _Literals(marker_tokens or {})
    grammars: Any = importlib.import_module("llama_cpp.llama_grammar")
    converter = grammars.SchemaConverter(
        prop_order={}, allow_fetch=False, dotall=False, raw_pattern=False
    )
    alternatives = []
    for number, tool in enumerate(tools):
        name = f"tool{number}-arguments"
        arguments = None
        if strict:
            schema = _inline_refs(dict(tool.parameters), tool.parameters, 0)
            schema.setdefault("type", "object")
            schema.setdefault("properties", {})
            try:
                arguments = converter.visit(schema, name)
            except (ValueError, KeyError, TypeError, AssertionError, RecursionError):
                # A schema the converter cannot express: this tool's arguments are held to
                # being a JSON object only, and the tool's own validation does the rest.
                arguments = None
        if arguments is None:
            arguments = converter.visit({"type": "object"}, name)
        before, after = call_format.call_text(tool.name)
        alternatives.append(f"{literal(before)} {arguments} {literal(after)}")
    rules: str = _DECIMAL_NUMBER.sub(_decimal_number, converter.format_grammar())
    call = "call ::= " + " | ".join(f"( {a} )" for a in alternatives)
    separator = literal(call_format.separator)
    # A bound on parallel calls: small models otherwise repeat a call until the token limit.
    more = f" ( {separator} call ){{0,{MAX_PARALLEL_CALLS - 1}}}" if parallel else ""
    root = f"root ::= call{more}"
    return f"{root}\n{call}\n{rules}"


_DECIMAL_NUMBER = re.compile(r'^(number ::= .*)\("\." decimal-part\)\?', re.MULTILINE)


def _decimal_number(found: re.Match[str]) -> str:
    return f'{found.group(1)}("." decimal-part)'


def _inline_refs(node: Any, root: Mapping[str, Any], depth: int) -> Any:
    """`node` with local `$ref`s (`#/$defs/X`, `#/definitions/X`) replaced by what they name;
    past a few levels (recursive schemas) a reference becomes "any value"."""
    if isinstance(node, list):
        return [_inline_refs(item, root, depth) for item in node]
    if not isinstance(node, Mapping):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        target: Any = root
        for key in ref.removeprefix("#/").split("/") if ref.startswith("#/") else [None]:
            target = target.get(key) if isinstance(target, Mapping) and key else None
        if target is None or depth >= _MAX_REF_DEPTH:
            return {}
        return _inline_refs(target, root, depth + 1)
    return {
        key: _inline_refs(value, root, depth)
        for key, value in node.items()
        if key not in ("$defs", "definitions")
    }


class _Literals:
    """GBNF for a fixed text: string literals, with each marker token as a token reference."""

    def __init__(self, marker_tokens: Mapping[str, int]) -> None:
        self._tokens = dict(marker_tokens)
        markers = sorted(self._tokens, key=len, reverse=True)
        self._markers = re.compile("|".join(map(re.escape, markers))) if markers else None

    def __call__(self, text: str) -> str:
        if self._markers is None:
            return _string(text)
        parts, position = [], 0
        for found in self._markers.finditer(text):
            if found.start() > position:
                parts.append(_string(text[position : found.start()]))
            parts.append(f"<[{self._tokens[found.group()]}]>")
            position = found.end()
        if position < len(text) or not parts:
            parts.append(_string(text[position:]))
        return " ".join(parts)


def _string(text: str) -> str:
    # GBNF string literals take JSON-style escapes.
    return json.dumps(text, ensure_ascii=False)
