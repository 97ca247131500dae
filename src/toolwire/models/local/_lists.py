"""The lists a request writes: "Dubai and São Paulo", "Paris, Tokyo, New York and Sydney",
"ORD-10501 and ORD-10522".

A value a call took from a request may be one item of a list the request writes; the list's
other items are the same thing asked again (the time in Dubai too, the other order's status).
An item is told by its joints (a comma, "and", "or", "&", the last joint "and" or "or") and by
its likeness to the value: a name is a run of capitalized words ("New York"), anything else
as many words as the value, each of the same kind (a path for a path, a number for a number,
a symbol for a symbol: "144 / 12" beside "25 * 4"), plain words only where the clause ends
with them ("tokyo and paris?"). So "Read tests/test_cache.py and src/weatherly/cache.py and
tell me why" lists two files, not "tell"; "in Tokyo, and what is 15% of 80?" and "Run the
tests and show me the file" list nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._coverage import FUNCTION_WORDS

__all__ = ["POSSESSIVE", "listed_beside"]

_FINAL_JOINTS = frozenset(["and", "or", "&"])
_BREAKS = frozenset(";:?!.")
_TRAILING = ",;:?!."
_QUOTES = "\"'()[]`"
POSSESSIVE = re.compile("['\u2019]s$")
"""A possessive's ending ("'s" of "Marco's"), which no name or word searched for holds."""
# fmt: off
_SMALL_WORDS = frozenset([
    "a", "an", "the", "to", "of", "in", "on", "at", "for", "by", "as", "me", "my", "it", "its",
    "is", "are", "be", "do", "i", "i'm", "i'll", "i'd", "i've", "you", "we", "he", "she", "his",
    "her", "our", "all", "any", "each", "not", "no", "so", "if", "both", "between",
])
# fmt: on
"""Short words of the grammar, which no list of values holds (see also `FUNCTION_WORDS`)."""
_LONGEST_NAME = 4
"""Words a name listed may have ("Santa Cruz de Tenerife")."""


def listed_beside(text: str, value: str) -> tuple[str, ...]:
    """The other items of the list in `text` that holds `value` as an item, as written (less a
    possessive "'s": "Marco" of "Priya's and Marco's"); none where `value` is no item of a
    list."""
    tokens = _tokens(text)
    wanted = [_bare(token).casefold() for token in _tokens(value)]
    if not wanted or any(token in (",", *_BREAKS) for token in wanted):
        return ()
    for start in range(len(tokens) - len(wanted) + 1):
        span = tokens[start : start + len(wanted)]
        if [_bare(token).casefold() for token in span] == wanted:
            listed = _list_around(tokens, start, start + len(wanted))
            if listed:
                return listed
    return ()


def _list_around(tokens: Sequence[str], start: int, end: int) -> tuple[str, ...]:
    """The items listed with the one at `tokens[start:end]`: leftwards across commas (or one
    final joint first), rightwards across commas up to the item after the final joint."""
    kinds = [_kind(_bare(token)) for token in tokens[start:end]]
    before: list[str] = []
    at, last_item = start, False
    while (joint := _joint_before(tokens, at)) is not None:
        width, final = joint
        if before and final:
            break
        item = _item_ending(tokens, at - width, kinds)
        if item is None:
            break
        before.insert(0, " ".join(map(_bare, item)))
        at -= width + len(item)
        last_item = last_item or final
    after: list[str] = []
    at = end
    while not last_item and (joint := _joint_after(tokens, at)) is not None:
        width, final = joint
        item = _item_starting(tokens, at + width, kinds)
        if item is None:
            break
        after.append(" ".join(map(_bare, item)))
        at += width + len(item)
        last_item = final
    return (*before, *after) if last_item else ()


def _joint_before(tokens: Sequence[str], at: int) -> tuple[int, bool] | None:
    """The joint ending just before `at`: how many tokens it takes, whether it is final."""
    if at >= 2 and tokens[at - 1].casefold() in _FINAL_JOINTS and tokens[at - 2] == ",":
        return 2, True
    if at >= 1 and tokens[at - 1].casefold() in _FINAL_JOINTS:
        return 1, True
    if at >= 1 and tokens[at - 1] == ",":
        return 1, False
    return None


def _joint_after(tokens: Sequence[str], at: int) -> tuple[int, bool] | None:
    """The joint beginning at `at`: how many tokens it takes, whether it is final."""
    if at < len(tokens) and tokens[at] == ",":
        if at + 1 < len(tokens) and tokens[at + 1].casefold() in _FINAL_JOINTS:
            return 2, True
        return 1, False
    if at < len(tokens) and tokens[at].casefold() in _FINAL_JOINTS:
        return 1, True
    return None


def _item_ending(tokens: Sequence[str], end: int, kinds: Sequence[str]) -> list[str] | None:
    """The item like the listed one (of `kinds`) that ends just before `end`."""
    if kinds == ["name"] * len(kinds):
        run: list[str] = []
        while end - len(run) > 0 and len(run) < _LONGEST_NAME:
            token = tokens[end - len(run) - 1]
            if _kind(_bare(token)) != "name" or (POSSESSIVE.search(token) and run):
                break
            run.insert(0, token)
        return run or None
    if end < len(kinds):
        return None
    item = list(tokens[end - len(kinds) : end])
    return item if [_kind(_bare(token)) for token in item] == list(kinds) else None


def _item_starting(tokens: Sequence[str], start: int, kinds: Sequence[str]) -> list[str] | None:
    """The item like the listed one (of `kinds`) that begins at `start`."""
    if kinds == ["name"] * len(kinds):
        run: list[str] = []
        while start + len(run) < len(tokens) and len(run) < _LONGEST_NAME:
            token = tokens[start + len(run)]
            if _kind(_bare(token)) != "name":
                break
            run.append(token)
            if POSSESSIVE.search(token):
                break
        return run or None
    end = start + len(kinds)
    item = list(tokens[start:end])
    if len(item) < len(kinds) or [_kind(_bare(token)) for token in item] != list(kinds):
        return None
    # Plain words end a list only where the clause ends: "Run the tests and show me" lists no
    # "show", "in tokyo and paris?" lists "paris".
    if "word" in kinds and end < len(tokens) and _kind(tokens[end]) != "joint":
        return None
    return item


def _kind(token: str) -> str:
    """What sort of word `token` is, which the items of one list share."""
    if token in (",", *_BREAKS) or token.casefold() in _FINAL_JOINTS:
        return "joint"
    if re.search(r"\w[./]\w|\w/|/\w", token):
        return "path"
    if any(c.isdigit() for c in token):
        return "number"
    if not any(c.isalnum() for c in token):
        return "symbol"
    if token.casefold() in _SMALL_WORDS or token.casefold() in FUNCTION_WORDS:
        return "function"
    return "name" if token[0].isupper() else "word"


def _tokens(text: str) -> list[str]:
    """`text`'s words, and the comma or sentence break after one as a token of its own."""
    tokens: list[str] = []
    for raw in text.split():
        quoted = raw.strip(_QUOTES)
        word = quoted.rstrip(_TRAILING)
        tokens.extend(token for token in (word, quoted[len(word) : len(word) + 1]) if token)
    return tokens


def _bare(token: str) -> str:
    """`token` without a possessive "'s"."""
    return POSSESSIVE.sub("", token)
