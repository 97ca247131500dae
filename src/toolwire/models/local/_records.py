"""The records a tool's results list, and those a request names among them.

After a look-up lists several records ("any unread emails?": four messages), a request that
goes on from them names the one it means by what that record holds ("open the one from Jonas",
"cancel the dentist one"), and a small model passes the first record's identifier whatever the
request says. The results say which record holds the request's words; the request says which
it means.

A record is an object of a list a result holds (the result itself, or one of its fields); its
identifier is a field whose value tells every record of the list apart. A request names a
record where it writes one of the record's words that not every record of the list holds: a
word of four letters or more, or a name of three written with a capital ("Tom").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..._untrusted import load_json
from ._coverage import FUNCTION_WORDS, leaves
from ._wording import folded

__all__ = ["RecordsNamed", "records_named"]

_SHORTEST_WORD = 4
_SHORTEST_NAME = 3


@dataclass(frozen=True, slots=True)
class RecordsNamed:
    """The records a request names, where a call passes another record of their list."""

    parameter: str
    """The parameter that passed the other record's identifier."""
    passed: str
    """That identifier."""
    identifiers: tuple[str, ...]
    """The identifiers of the records that hold the most of `words`, in the list's order."""
    words: tuple[str, ...]
    """The request's words that name records of the list, folded."""


def records_named(
    results: Iterable[str],
    request_words: Sequence[str],
    arguments: Mapping[str, Any],
    parameters: Iterable[str],
) -> RecordsNamed | None:
    """Where a call passes, to one of `parameters`, the identifier of a record that `results`
    list, and the request (its `request_words`, as written) names other records of that list
    and not that one: which records it names."""
    naming = _naming_words(request_words)
    if not naming:
        return None
    listings = [listing for result in results for listing in _listings(result)]
    for parameter in parameters:
        value = arguments.get(parameter)
        if not isinstance(value, str):
            continue
        for listing in listings:
            key = _identifier_of(listing, value)
            if key is None:
                continue
            words = [_words(record) for record in listing]
            telling = tuple(
                word
                for word in naming
                if any(word in held for held in words) and not all(word in held for held in words)
            )
            counts = [len(held.intersection(telling)) for held in words]
            passed = next(i for i, record in enumerate(listing) if record[key] == value)
            if not telling or counts[passed]:
                continue
            most = max(counts)
            identifiers = tuple(
                str(listing[i][key]) for i, count in enumerate(counts) if count == most
            )
            return RecordsNamed(parameter, value, identifiers, telling)
    return None


def _naming_words(written: Sequence[str]) -> tuple[str, ...]:
    return tuple(
        dict.fromkeys(
            word.casefold()
            for word in written
            if word.casefold() not in FUNCTION_WORDS
            and not word.isdigit()
            and (
                len(word) >= _SHORTEST_WORD
                or (len(word) >= _SHORTEST_NAME and word[0].isupper() and word[1:].islower())
            )
        )
    )


def _listings(result: str) -> Iterator[list[Mapping[str, Any]]]:
    """The lists of two records or more that a result holds, whole or as one of its fields."""
    try:
        value = load_json(result)
    except ValueError:
        return
    candidates = [value, *value.values()] if isinstance(value, dict) else [value]
    for candidate in candidates:
        if (
            isinstance(candidate, list)
            and len(candidate) > 1
            and all(isinstance(record, dict) for record in candidate)
        ):
            yield candidate


def _identifier_of(listing: Sequence[Mapping[str, Any]], value: str) -> str | None:
    """The field of `listing` whose values tell its records apart and of which one is
    `value`."""
    for key, held in listing[0].items():
        if not isinstance(held, str):
            continue
        values = [record.get(key) for record in listing]
        if (
            value in values
            and all(isinstance(each, str) for each in values)
            and len(set(values)) == len(values)
        ):
            return str(key)
    return None


def _words(record: Mapping[str, Any]) -> frozenset[str]:
    text = " ".join(
        str(leaf)
        for leaf in leaves(record)
        if isinstance(leaf, str | int | float) and not isinstance(leaf, bool)
    )
    return frozenset(folded(text).split())
