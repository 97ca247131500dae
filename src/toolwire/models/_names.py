"""Tool names and call ids in the form the APIs accept, mapped deterministically.

Every API here accepts `^[A-Za-z0-9_-]{1,64}$` for tool names (Gemini also wants a letter or an
underscore first). toolwire's own tools already match, so they pass unchanged; names from elsewhere
(an MCP server, a history written for another API) are rewritten by a pure function, so the same
name maps the same way in the tools list, in the history and in every request. The reverse mapping
comes from the tools of the request; a name the model made up is passed back as written, and the
loop answers it as an unknown tool.
"""

from __future__ import annotations

import hashlib
import re

_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
_ID = re.compile(r"[A-Za-z0-9_-]+")
_INVALID = re.compile(r"[^A-Za-z0-9_-]")
_DIGEST = 8


def wire_name(name: str, *, letter_first: bool = False) -> str:
    if _NAME.fullmatch(name) and (not letter_first or _letter_first(name)):
        return name
    base = _INVALID.sub("_", name) or "_"
    if letter_first and not _letter_first(base):
        base = "_" + base
    return f"{base[: 64 - _DIGEST - 1]}_{_digest(name)}"


def wire_id(call_id: str) -> str:
    """A call id in the characters Anthropic and Bedrock accept (`^[A-Za-z0-9_-]+$`)."""
    if _ID.fullmatch(call_id):
        return call_id
    return f"{_INVALID.sub('_', call_id)}_{_digest(call_id)}"


def _letter_first(name: str) -> bool:
    first = name[:1]
    return first == "_" or ("a" <= first.lower() <= "z")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:_DIGEST]
