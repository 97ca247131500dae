"""Small lookahead helpers shared by the modes: every one is bounded by the token it looks for."""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "IDENT_START",
    "NO",
    "PARTIAL",
    "fence_mark",
    "find_first",
    "match_token",
    "safe_end",
    "skip_space",
]

IDENT_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
_SPACE_RUN = re.compile(r"[ \t\r\n]+")
_FENCE_MARK = re.compile(r"`{3,}[A-Za-z0-9_+\-]*")

NO = 0
PARTIAL = -1


def match_token(buf: str, i: int, tokens: Sequence[str], final: bool) -> tuple[int, str]:
    """(length, token) of the first token at `buf[i:]`; (PARTIAL, "") when the buffer ends inside
    a possible one (and more may come); (NO, "") otherwise."""
    partial = False
    for token in tokens:
        if buf.startswith(token, i):
            return len(token), token
        if not final and len(buf) - i < len(token) and token.startswith(buf[i:]):
            partial = True
    return (PARTIAL, "") if partial else (NO, "")


def skip_space(buf: str, i: int) -> int:
    match = _SPACE_RUN.match(buf, i)
    return match.end() if match else i


def find_first(buf: str, i: int, tokens: Sequence[str]) -> tuple[int, str]:
    """Earliest occurrence of any token at or after `i`: (index, token), or (-1, "")."""
    best, found = -1, ""
    for token in tokens:
        at = buf.find(token, i, best + len(token) if best >= 0 else len(buf))
        if at >= 0 and (best < 0 or at < best):
            best, found = at, token
    return best, found


def safe_end(buf: str, i: int, tokens: Sequence[str], final: bool) -> int:
    """How far text without any of `tokens` may be consumed from `i`: up to the end, less a tail
    that could still grow into a token."""
    n = len(buf)
    if final:
        return n
    longest = max((len(t) for t in tokens), default=1)
    for start in range(max(i, n - longest + 1), n):
        tail = buf[start:]
        if any(t.startswith(tail) for t in tokens):
            return start
    return n


def fence_mark(buf: str, i: int, final: bool) -> int:
    """Length of a fence mark (three or more backticks and a language) at `buf[i:]`."""
    mark = _FENCE_MARK.match(buf, i)
    if mark is not None and (mark.end() < len(buf) or final):
        return mark.end() - i
    if not final and (mark is not None or not buf[i:].strip("`")):
        return PARTIAL
    return NO
