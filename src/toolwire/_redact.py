"""Secrets never reach the model, the run log or the terminal through an error message."""

from __future__ import annotations

import dataclasses
import os
import re
from collections import deque
from collections.abc import Iterable, Mapping, Set
from itertools import islice
from typing import Any

import pydantic

# Group 1 of each pattern is kept (the label before a secret); the rest is replaced.
_PATTERNS = [
    re.compile(r"()\bsk-[A-Za-z0-9_-]{16,}"),
    re.compile(r"()\b(?:gh[pousr]|github_pat)_[A-Za-z0-9_]{20,}"),
    re.compile(r"()\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    re.compile(r"()\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"()\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+"),
    re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}"),
    re.compile(
        r"(?i)((?:api[_-]?key|token|secret|password|passwd)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',;}]{4,}"
    ),
    re.compile(r"(://[^/\s:@]+:)[^/\s@]+(?=@)"),
]
_SECRET_ENV = re.compile(r"(?i)(key|token|secret|password|passwd|credential)")
REDACTED = "[REDACTED]"
MIN_SECRET_CHARS = 6
"""Shorter known values are left alone: replacing every "abc" would garble messages."""
MAX_DEP_VALUES = 10_000
"""How many values of `deps` are looked into for strings: deps may hold large structures."""


def secret_env_values() -> list[str]:
    return [v for k, v in os.environ.items() if _SECRET_ENV.search(k) and len(v) >= 8]


def run_secrets(deps: Mapping[str, Any]) -> list[str]:
    """What a run redacts besides the patterns: every string in its deps (they never reach the
    model, so none may leak through an error) and the values of secret-named environment
    variables."""
    return dep_strings(deps) + secret_env_values()


def dep_strings(deps: Mapping[str, Any]) -> list[str]:
    """The strings inside `deps`, however nested in mappings, sequences, sets, dataclasses and
    pydantic models (`SecretStr` unwrapped), breadth first, up to `MAX_DEP_VALUES` values."""
    found: list[str] = []
    queue: deque[Any] = deque(deps.values())
    budget = MAX_DEP_VALUES
    while queue and budget > 0:
        value = queue.popleft()
        budget -= 1
        if isinstance(value, pydantic.SecretStr):
            value = value.get_secret_value()
        if isinstance(value, str):
            found.append(value)
        else:
            queue.extend(islice(_children(value), budget))
    return found


def _children(value: Any) -> Iterable[Any]:
    if isinstance(value, Mapping):
        return value.values()
    if isinstance(value, list | tuple | Set | deque):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return (getattr(value, f.name, None) for f in dataclasses.fields(value))
    if isinstance(value, pydantic.BaseModel):
        return (getattr(value, name, None) for name in type(value).model_fields)
    # Anything else (a client, a session, a generator) is not walked: that could run its code.
    return ()


def redact(text: str, known_secrets: Iterable[str] = ()) -> str:
    text = _cover(text, known_secrets)
    for pattern in _PATTERNS:
        text = pattern.sub(rf"\g<1>{REDACTED}", text)
    return text


def _cover(text: str, known_secrets: Iterable[str]) -> str:
    """Every character that belongs to an occurrence of a known secret, replaced. Occurrences may
    overlap (one secret's tail another's head): replacing secrets one after another would leave
    the rest of the second in the text."""
    spans: list[tuple[int, int]] = []
    for secret in set(known_secrets):
        if len(secret) < MIN_SECRET_CHARS:
            continue
        start = text.find(secret)
        while start != -1:
            spans.append((start, start + len(secret)))
            start = text.find(secret, start + 1)
    if not spans:
        return text
    spans.sort()
    pieces: list[str] = []
    kept_from = 0
    cover_start, cover_end = spans[0]
    for start, end in spans[1:]:
        if start > cover_end:
            pieces += [text[kept_from:cover_start], REDACTED]
            kept_from, cover_start = cover_end, start
        cover_end = max(cover_end, end)
    pieces += [text[kept_from:cover_start], REDACTED, text[cover_end:]]
    return "".join(pieces)
