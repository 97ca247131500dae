"""Model-facing tool names.

MCP allows `[A-Za-z0-9_.-]{1,128}`; providers accept only `^[A-Za-z0-9_-]{1,64}$`, and some reject a
whole request over one bad name. Names are mapped once, deterministically; each tool keeps its
original MCP name for the call, so no reverse lookup is needed.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Container

MAX_LENGTH = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_part(text: str) -> str:
    """`text` with every character a provider would reject replaced by `_`."""
    return _UNSAFE.sub("_", text)


def model_name(name: str, taken: Container[str], prefix: str = "") -> str:
    """`prefix + name` made provider-safe and unique among `taken`.

    A name that had to be shortened, or that collides after mapping, gets a short hash of the
    original, so the same inputs always give the same name.
    """
    base = safe_part(prefix) + (safe_part(name) or "tool")
    if len(base) <= MAX_LENGTH and base not in taken:
        return base
    for attempt in range(100):
        digest = hashlib.sha256(f"{prefix}\0{name}\0{attempt}".encode()).hexdigest()[:8]
        candidate = f"{base[: MAX_LENGTH - len(digest) - 1]}_{digest}"
        if candidate not in taken:
            return candidate
    raise AssertionError("100 sha256 collisions in a row")
