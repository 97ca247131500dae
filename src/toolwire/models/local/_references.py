"""A request that opens a conversation and refers back to something nothing before it names.

"What's 15% of it?" and "open that test" as the first thing a user says point at a value the
model cannot see: whatever a call passes for it is made up ("15 / 100"; the whole test suite).
The right reply asks what it is. Only the first clause of such a request is read (a later one
may refer to what an earlier one named: "Look up ORD-10490 and refund it"), and only a
reference nothing before it in that clause could stand for: "reply to the sender that I'll get
back to them" names the sender first. A pronoun after a form of "be" or an auxiliary is no
reference ("what time is it", "will it rain"), nor is a demonstrative that points forward to
what follows a colon ("sort this list of names: ..."), nor "that" after a noun ("restaurants
that offer ...").
"""

from __future__ import annotations

import re

from ._coverage import FUNCTION_WORDS, clauses

__all__ = ["unreferenced"]

_PRONOUN = re.compile(r"\b(?:it|them)\b(?!')", re.IGNORECASE)
_DEMONSTRATIVE = re.compile(r"\b(?:this|that|these|those)\s+([^\W\d_]+)\b", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_][\w'-]*")
_QUOTE_OPENED = re.compile(r"(?<!\w)['\"]\w")

# fmt: off
_AUXILIARIES = frozenset([
    "am", "is", "are", "was", "were", "be", "been", "isn't", "aren't", "wasn't", "do", "does",
    "did", "doesn't", "don't", "didn't", "will", "won't", "would", "can", "could", "should",
    "shall", "may", "might", "must", "has", "have", "had",
])
_PREPOSITIONS = frozenset([
    "in", "of", "from", "for", "to", "on", "about", "with", "at", "into", "onto", "by",
])
_NO_NOUNS = frozenset([
    "i", "you", "he", "she", "we", "they", "it", "me", "him", "us", "the", "a", "an", "my",
    "your", "his", "her", "our", "their", "its",
])
# fmt: on
"""Words a demonstrative may stand before without pointing at a thing ("that I'm", "that the
order"), and that name nothing a reference could stand for."""
_GRAMMAR = FUNCTION_WORDS | _AUXILIARIES | _PREPOSITIONS | _NO_NOUNS | {"one"}


def unreferenced(request: str) -> str | None:
    """The words `request` refers back with ("it", "that test"), where it is the first thing
    said and nothing before them in their clause could be what they stand for; else None."""
    parts = clauses(request)
    if not parts:
        return None
    first = parts[0]
    for found in _PRONOUN.finditer(first):
        before = _WORD.findall(first[: found.start()])
        if (
            before
            and before[-1].lower() not in _AUXILIARIES
            and not _names_a_thing(first[: found.start()])
        ):
            return found.group()
    for found in _DEMONSTRATIVE.finditer(first):
        noun = found.group(1).lower()
        if noun in FUNCTION_WORDS or noun in _AUXILIARIES or noun in _NO_NOUNS:
            continue
        before = _WORD.findall(first[: found.start()])
        # Past the verb that opens the clause, only after a preposition: "restaurants that
        # offer" is a relative clause.
        if len(before) > 1 and before[-1].lower() not in _PREPOSITIONS:
            continue
        if ":" in first[found.end() :] or _names_a_thing(first[: found.start()]):
            continue
        return found.group()
    return None


def _names_a_thing(before: str) -> bool:
    """Whether what comes before a reference names something it could stand for: a quoted
    value, or a word past the verb opening the clause other than the grammar's ("what's 15%
    of" names nothing)."""
    return _QUOTE_OPENED.search(before) is not None or any(
        len(word) > 2 and word.lower() not in _GRAMMAR for word in _WORD.findall(before)[1:]
    )
