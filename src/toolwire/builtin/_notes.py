"""A read-only search over the notes shipped with toolwire (package data, about toolwire)."""

from __future__ import annotations

import functools
import importlib.resources
import math
import re
from collections import Counter
from dataclasses import dataclass

from ..errors import ToolError
from ..tools import tool

__all__ = ["Note", "load_notes", "search", "search_notes"]

_WORD = re.compile(r"[a-z0-9]+")
MAX_QUERY = 500
_STOP = frozenset(
    ("a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from", "how",
     "i", "in", "is", "it", "my", "of", "on", "or", "the", "to", "what", "when", "where", "which",
     "who", "why", "with", "you", "your")
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Note:
    title: str
    paragraphs: tuple[str, ...]


def _terms(text: str) -> list[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in _STOP]
    # A crude stem, so "tools" finds "tool" and "approvals" finds "approval".
    return [w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w for w in words]


@functools.cache
def load_notes() -> tuple[Note, ...]:
    folder = importlib.resources.files("toolwire.builtin").joinpath("notes")
    notes = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".md"):
            continue
        text = entry.read_text(encoding="utf-8")
        title, _, body = text.partition("\n")
        paragraphs = tuple(" ".join(p.split()) for p in body.split("\n\n") if p.strip())
        notes.append(Note(title=title.lstrip("# ").strip(), paragraphs=paragraphs))
    return tuple(notes)


def search(query: str, limit: int = 3) -> list[tuple[Note, str]]:
    """The best notes for `query` (tf-idf, titles count double), each with its best paragraph."""
    if len(query) > MAX_QUERY:
        raise ToolError(f"the query is longer than {MAX_QUERY} characters: use a few words")
    terms = _terms(query)
    if not terms:
        raise ToolError("the query has no searchable words")
    notes = load_notes()
    counts = [Counter(_terms(n.title) * 2 + _terms(" ".join(n.paragraphs))) for n in notes]
    weight = {t: math.log(1 + len(notes) / (1 + sum(t in c for c in counts))) for t in set(terms)}
    scored = []
    for note, count in zip(notes, counts, strict=True):
        score = sum(weight[t] * math.log(1 + count[t]) for t in terms)
        if score > 0:
            best = max(note.paragraphs, key=lambda p: _matches(terms, p))
            scored.append((score, note, best))
    scored.sort(key=lambda s: -s[0])
    return [(note, best) for _, note, best in scored[:limit]]


def _matches(terms: list[str], paragraph: str) -> int:
    words = set(_terms(paragraph))
    return sum(t in words for t in terms)


@tool(side_effect="read_only")
def search_notes(query: str, limit: int = 3) -> str:
    """Search toolwire's own notes (getting started, writing tools, approvals, limits, local
    models, strict mode, the run log, evals, troubleshooting) and return the best passages.

    Args:
        query: what to look for, in a few words
        limit: at most this many notes (1-10)
    """
    if not 1 <= limit <= 10:
        raise ToolError("limit must be between 1 and 10")
    found = search(query, limit)
    if not found:
        titles = ", ".join(n.title for n in load_notes())
        return f"No note matches {query!r}. The notes are: {titles}."
    return "\n\n".join(f"## {note.title}\n{passage}" for note, passage in found)
