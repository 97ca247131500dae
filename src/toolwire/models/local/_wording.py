"""What the conversation writes, read the way a call's values are compared with it.

Whether a value came from the conversation is asked of its words, not its characters: text is
folded so that a value is found whole words at a time however either is punctuated, a word is
known by its first letters (an option's plural), a number by the unit written after it, a name
or a file as the user wrote it. Reading the text is this module's; judging a call by it is
`_grounding`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ...builtin._units import known_unit
from ._coverage import FUNCTION_WORDS

__all__ = [
    "DIGITS",
    "NUMBER",
    "STEM",
    "TELLING_WORD",
    "files_written",
    "folded",
    "leading_unit",
    "measures",
    "names_written",
    "negated",
    "percentages",
    "stems",
    "telling_words",
    "unit_roots",
    "units_named",
]

_SEPARATORS = re.compile(r"[\W_]+")
TELLING_WORD = 4
"""Characters a word needs to show on its own that a value came from the conversation."""
NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
DIGITS = re.compile(r"\d+")
_PERCENTAGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b)")
_FILE_NAME = re.compile(r"(?=.{4})(?:[\w.-]*\w(?:/[\w.-]+)+/?|[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,7})")
"""A file named by its folders ("src/weatherly/cache.py") or its extension ("pyproject.toml";
not "e.g")."""
_FILE_TRIMMED = "\"'`()[],;:?!."
_WRITTEN_WORD = re.compile(r"\w+")
_NEGATION = re.compile(r"\b(?:not|no|without|never)\b|n't\b")
_CLAUSE_END = re.compile(r"[.?!,;:]")
_NEGATION_REACH = 40
"""Characters before a mention of a flag, within its clause, where a negation turns it down
("I don't need the full text", "if we do not include the impact of human activities")."""
_SENTENCE_OPENING = re.compile(r"(?:^|[.!?:]\s+|\n)\W*$")
"""Where the text before a word ends, that word opens a sentence."""
STEM = 5
"""Letters two words must begin with alike for one to mention the other (an option's plural,
say)."""
_MEASURE = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)\s?((?:[^\W\d_][\w/²³]*[ \t]*){1,3})")
"""A number and the (up to three) words after it, where a unit may be."""
_UNIT_WORD = re.compile(r"[^\W\d_][\w/²³]*|°\w*")
"""A word that may name a unit, or a part of one ("km/h", "ft²", "°F")."""


def names_written(text: str) -> tuple[str, ...]:
    """The words of `text` written with a capital letter that opens no sentence, each once."""
    return tuple(
        dict.fromkeys(
            found.group()
            for found in _WRITTEN_WORD.finditer(text)
            if found.group()[:1].isupper()
            and found.group() != "I"
            and not _SENTENCE_OPENING.search(text[: found.start()])
        )
    )


def files_written(text: str) -> tuple[str, ...]:
    """The files `text` names: words with a folder ("src/weatherly") or an extension of letters
    ("pyproject.toml", not "3.5"), each once."""
    return tuple(
        dict.fromkeys(
            word for raw in text.split() if _FILE_NAME.fullmatch(word := raw.strip(_FILE_TRIMMED))
        )
    )


def telling_words(text: str) -> tuple[str, ...]:
    """The words of `text`, each once, but for those that say nothing of what is asked."""
    words = _WRITTEN_WORD.findall(text)
    return tuple(dict.fromkeys(word for word in words if word.casefold() not in FUNCTION_WORDS))


def measures(text: str) -> tuple[tuple[float, str, str, str], ...]:
    """Each number `text` writes with a unit after it ("5.6 feet", "10 square meters", "50km"):
    the number, the unit's kind and canonical name, and the unit as written."""
    return tuple(
        (float(number.replace(",", "")), *known, unit)
        for number, after in _MEASURE.findall(text)
        if (unit := leading_unit(after.split())) and (known := known_unit(unit))
    )


def units_named(text: str) -> frozenset[str]:
    """The units `text` names, alone or after a number, as their `unit_roots`."""
    words = _UNIT_WORD.findall(text)
    return frozenset().union(
        *(
            unit_roots(known[1])
            for at in range(len(words))
            if (unit := leading_unit(words[at : at + 3])) and (known := known_unit(unit))
        )
    )


def unit_roots(canonical: str) -> frozenset[str]:
    """The units a unit is made of, by canonical name: an area or a volume of its length
    ("ft2" of "ft": the area of a triangle in the feet its sides are given in), a speed of its
    distance and time ("km/h")."""
    return frozenset(part.rstrip("23") or part for part in canonical.split("/"))


def leading_unit(words: Sequence[str]) -> str | None:
    """The longest run of `words` from the first that names a unit. The preposition "in"
    ("5 in the box") names none: inches are rarely written so."""
    runs = (" ".join(words[:count]) for count in range(len(words), 0, -1))
    return next((run for run in runs if run != "in" and known_unit(run)), None)


def stems(text: object) -> frozenset[str]:
    words = folded(str(text or "")).split()
    return frozenset(word[:STEM] for word in words if len(word) >= TELLING_WORD)


def negated(text: str, at: int, negation: re.Pattern[str] = _NEGATION) -> bool:
    clause = max((found.end() for found in _CLAUSE_END.finditer(text, 0, at)), default=0)
    return bool(negation.search(text, max(clause, at - _NEGATION_REACH), at))


def percentages(text: str) -> frozenset[float]:
    return frozenset(float(found) for found in _PERCENTAGE.findall(text))


def folded(text: str) -> str:
    """Case folded, every run of non-word characters one space, padded with one on each side,
    so that a value is found whole words at a time however either is punctuated."""
    return f" {_SEPARATORS.sub(' ', text.casefold()).strip()} "
