"""Whether the calls a reply has written use what the request gives.

Small models asked for the same thing several times over ("the GCD of (45, 60) and (81, 27)")
often make the first call and stop, sure they are done: after the first call the probability they
give another is a few in ten thousand, as low as on requests that need one call. The request says
more: its numbers and quoted strings that no call has used yet are evidence that a call is
missing. The go-on check after each call weighs that count (see `_engine.GoOn`).

Where the check still ends the reply, the model writes one more call on trial, kept only if it
uses a value of the request that no earlier call has used: asking a tool an earlier call asked,
a value the request lists with one an earlier call has ("copper and aluminum", "gold, silver"),
and asking another tool, only values that hold a number or a word the request writes ("Asia/Tokyo"
for Tokyo, "15 * 80 / 100" for 15% of 80), one of them new. The aluminum call goes in though the
model gave it a probability of 2e-05, as does the deposit to "account 987654" after the
conversion of the dollars to deposit. The first call written again is dropped, as is a call
whose new values are made up, or which the request mentions in passing: "Earth" for the weight
"on Mars if my weight on Earth is 70 kg", a chess club nobody named after a route.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from typing import Any

from ._dates import relative_days, weekdays_of

__all__ = ["FUNCTION_WORDS", "RequestValues", "clauses", "described_by", "leaves", "spelled_out"]

_NUMBER = re.compile(r"(?<![\w.^])-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\d^]|\.\d)(%?)")
"""A number: not the end of a name (`x2`, `v1`) or an exponent (`x^2`); with thousands
separators, a percent sign, or a unit written on to it (`5cm`)."""
_LISTING = re.compile(r",|&|\b(?:and|or|plus|vs|versus)\b")
"""What lists values: "copper and aluminum", "gold, silver", "Seattle or Portland"."""
_LISTED_WITHIN = 6
"""Words that may stand between two listed values ("solar energy for 12 months and wind")."""
_QUOTED = re.compile(r"(?<!\w)(['\"])([^'\"\n]{2,80})\1(?!\w)")
_WORD = re.compile(r"[^\W\d_]{4,}")
"""A word long enough to tell where a value came from, or which tool a request names."""
_WORD_RUN = re.compile(r"[^\W_]+")
"""Any run of letters and digits: the words of a tool's name, its verb first."""
_CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")
"""Where a camelCase name goes on to its next word ("send|Email")."""
# fmt: off
FUNCTION_WORDS = frozenset([
    "what", "when", "where", "which", "whose", "with", "that", "this", "these", "those", "there",
    "their", "them", "they", "then", "than", "have", "from", "your", "yours", "will", "would",
    "could", "should", "shall", "about", "into", "onto", "also", "just", "please", "does",
    "done", "some", "much", "many", "more", "most", "very", "here", "been", "being", "were",
])
# fmt: on
"""Words of the grammar that tell nothing of where a value came from ("what" in a query that
copies the whole request)."""


_CLAUSE_BREAK = re.compile(
    r"(?<=[.?!;])\s+"
    r"|,?\s+(?:and\s+)?then\s+"
    r"|,\s+(?:and|but|also)\s+"
    r"|\s+and\s+(?=(?:also|what|what's|how|when|where|who|which|why|is|are|do|does|did|can|could"
    r"|will|would|tell|show|give|let)\b)",
    re.IGNORECASE,
)
"""Where a request goes on to another thing asked: a new sentence, "then", a comma before "and",
and "and" before a question ("...in Tokyo and what is 15% of 80?"); not "and" between two
values ("Dubai and São Paulo")."""


def clauses(text: str, tool_names: Iterable[str] = ()) -> list[str]:
    """The request cut where it goes on to another thing asked (see `_CLAUSE_BREAK`), or,
    given the tools, at "and" before the verb a tool's name opens with ("... and run the cache
    tests" for `run_tests`): the user asking for what that tool does."""
    parts = [text]
    verbs = sorted(
        {words[0] for name in tool_names if (words := _WORD_RUN.findall(spelled_out(name)))}
    )
    if verbs:
        verb = "|".join(map(re.escape, verbs))
        parts = re.split(rf"\s+and\s+(?=(?:{verb})\b)", text, flags=re.IGNORECASE)
    return [
        clause.strip() for part in parts for clause in _CLAUSE_BREAK.split(part) if clause.strip()
    ]


def spelled_out(name: str) -> str:
    """A tool's or a parameter's name as words, lower-cased: "send email" of `sendEmail` and
    of `send_email`."""
    return _CAMEL_HUMP.sub(" ", name).replace("_", " ").lower()


@dataclass(frozen=True, slots=True)
class RequestValues:
    """The literal values of a request: its numbers and quoted strings."""

    numbers: frozenset[tuple[str, float, bool]]
    """Each number as written, its value, and whether it is a percentage (which a call may
    also hold as a fraction)."""
    strings: frozenset[str]
    """Quoted strings, folded to lower case; a tool's name quoted in the request is left out."""
    text: str
    """The request, folded to lower case."""
    words: frozenset[str] = frozenset()
    """Its words (see `_WORD`), but for `FUNCTION_WORDS`."""
    days: frozenset[tuple[str, str]] = frozenset()
    """Each of its words naming a day by its relation to today ("tomorrow"), with the ISO date
    it stands for, where the conversation states today's date (see `_dates.relative_days`)."""

    @classmethod
    def of(
        cls, request: str, tool_names: Iterable[str] = (), today: date | None = None
    ) -> RequestValues:
        names = {_name_key(name) for name in tool_names}
        numbers = set()
        for found in _NUMBER.finditer(request):
            written = found.group().rstrip("%")
            numbers.add((written, float(written.replace(",", "")), bool(found.group(1))))
        strings = {
            text.lower()
            for _, text in _QUOTED.findall(request)
            if _name_key(text) not in names and text.strip()
        }
        lowered = request.lower()
        words = frozenset(_WORD.findall(lowered)) - FUNCTION_WORDS
        days = frozenset(relative_days(request, today).items()) if today else frozenset()
        return cls(frozenset(numbers), frozenset(strings), lowered, words, days)

    def __len__(self) -> int:
        return len(self.numbers) + len(self.strings)

    def unused(self, calls: Iterable[Mapping[str, Any]]) -> int:
        """How many of the values no call's arguments hold (a number may be held as that
        number, or written inside a string: a date holds its year)."""
        numbers: set[float] = set()
        texts: list[str] = []
        for value in leaves(list(calls)):
            if isinstance(value, bool):
                continue
            if isinstance(value, int | float):
                numbers.add(float(value))
            elif isinstance(value, str):
                texts.append(value.lower())
        count = 0
        for written, value, percentage in self.numbers:
            if value in numbers or (percentage and value / 100 in numbers):
                continue
            inside = re.compile(rf"(?<!\d){re.escape(written.lstrip('-'))}(?!\d)")
            count += not any(inside.search(text) for text in texts)
        for string in self.strings:
            count += not any(string in text or (text and text in string) for text in texts)
        return count

    def adds(self, call: Mapping[str, Any], before: Iterable[Mapping[str, Any]]) -> bool:
        """Whether the arguments of `call` hold a piece of the request (see `takes_up`) that
        none of the calls `before` holds, and that the request lists with one they do hold
        ("copper and aluminum", "New York, Los Angeles", "(45, 60) and (81, 27)", "Europe/Paris"
        after "Asia/Tokyo" for "Paris, Tokyo")."""
        held = self._held(before)
        held_spans = [span for piece in held for span in self._piece_spans(piece)]
        return any(
            piece not in held
            and any(
                self._listed(span, other)
                for span in self._piece_spans(piece)
                for other in held_spans
            )
            for found in self._value_pieces(call)
            for piece in found
        )

    def extends(self, call: Mapping[str, Any], before: Iterable[Mapping[str, Any]]) -> bool:
        """Whether every value the arguments of `call` hold holds a piece of the request (see
        `takes_up`), and one piece is held by none of the calls `before`: the call takes up
        another part of the request ("convert 10 dollars to euros, and deposit them in
        account 987654"; "Asia/Tokyo" or "15 * 80 / 100" after the other part of "what time
        is it in Tokyo, and what is 15% of 80?"), holding no piece of another part that the
        request writes once (the request copied, or another part restated)."""
        pieces = self._value_pieces(call)
        # An empty list or object holds no value at all, so no piece of the request either.
        if not all(pieces) or any(not any(True for _ in leaves(v)) for v in call.values()):
            return False
        held = self._held(before)
        # A piece an earlier call holds, which the request writes once, belongs to that call's
        # part: holding it too, the call copies the request rather than taking up its own part.
        restated = set().union(*pieces) & held
        if any(len(self._piece_spans(piece)) < 2 for piece in restated):
            return False
        return any(found - held for found in pieces)

    def repeats(self, value: Any, others: Iterable[Any]) -> bool:
        """Whether `value` holds pieces of the request, each held by one of `others` as well,
        and written once by the request: a call passing one piece twice ("*httpx*" as the
        files' pattern beside "httpx" as the text searched, for "search for httpx")."""
        pieces = self._pieces(value)
        held = set().union(*(self._pieces(other) for other in others))
        return (
            bool(pieces)
            and pieces <= held
            and all(len(self._piece_spans(piece)) < 2 for piece in pieces)
        )

    def restates(self, call: Mapping[str, Any], before: Iterable[Mapping[str, Any]]) -> bool:
        """Whether the arguments of `call` hold values, each holding a piece of the request,
        and none a piece the calls `before` do not hold."""
        pieces = self._value_pieces(call)
        held = self._held(before)
        return bool(pieces) and all(pieces) and not any(found - held for found in pieces)

    def takes_up(self, call: Mapping[str, Any], before: Iterable[Mapping[str, Any]]) -> bool:
        """Whether the arguments of `call` hold a piece of the request that none of the calls
        `before` holds: a number it writes, alone or inside a string ("15 * 80 / 100"), a word
        of it ("tokyo" in "Asia/Tokyo"), or a quoted string. A call after the first of a reply
        that takes up nothing new asks again what is asked, or what nobody asked ("165 pounds"
        searched in the notes after its conversion, the time in UTC)."""
        held = self._held(before)
        return any(found - held for found in self._value_pieces(call))

    def _value_pieces(self, call: Mapping[str, Any]) -> list[set[float | str]]:
        """The pieces of the request each value of `call` (but a flag) holds."""
        return [self._pieces(value) for value in leaves(call) if not isinstance(value, bool)]

    def _held(self, calls: Iterable[Mapping[str, Any]]) -> set[float | str]:
        return {
            piece
            for arguments in calls
            for found in self._value_pieces(arguments)
            for piece in found
        }

    def names(self, tool: str) -> bool:
        """Whether the request writes a word of the tool's name ("time" for `current_time`),
        or one beginning alike ("notes" for `search_note`)."""
        return self.says(_long_name_words(tool))

    def says(self, words: Iterable[str]) -> bool:
        """Whether the request writes one of `words`, or a word beginning alike."""
        return any(
            word.startswith(said) or said.startswith(word) for word in words for said in self.words
        )

    def _pieces(self, value: Any) -> set[float | str]:
        if isinstance(value, int | float):
            return {
                number
                for _, number, percentage in self.numbers
                if abs(value) == number or (percentage and value == number / 100)
            }
        if not isinstance(value, str):
            return set()
        lowered = value.lower()
        pieces: set[float | str] = {
            number
            for written, number, _ in self.numbers
            if re.search(rf"(?<![\d.]){re.escape(written.lstrip('-'))}(?!\.?\d)", lowered)
        }
        pieces |= set(_WORD.findall(lowered)) & self.words
        pieces |= {string for string in self.strings if string in lowered}
        pieces |= {word for word, day in self.days if day in lowered}
        return pieces | (weekdays_of(lowered) & self.words)

    def _piece_spans(self, piece: float | str) -> list[tuple[int, int]]:
        if isinstance(piece, float):
            return self._spans(piece)
        # A word is written wherever `_WORD` finds it: "cache" in "test_cache.py" too.
        edge = r"[^\W\d_]" if piece in self.words else r"\w"
        pattern = rf"(?<!{edge}){re.escape(piece)}(?!{edge})"
        return [found.span() for found in re.finditer(pattern, self.text)]

    def nearest_held(self, position: int, arguments: Mapping[str, Any]) -> bool:
        """Whether the value the request writes nearest `position` is one `arguments` hold: the
        words there are about this call ("the last match of 'Manchester United'. Also, include
        the match statistics"). A value the request writes more than once (the 52 cards of
        every draw) places the call only when it holds no value written once."""
        held = [self._spans(value) for value in leaves(arguments)]
        every = {span for spans in held for span in spans}
        mine = {span for spans in held if len(spans) == 1 for span in spans} or every
        if not mine:
            return False
        written = [
            *(span for _, number, _ in self.numbers for span in self._spans(number)),
            *(span for string in self.strings for span in self._spans(string)),
        ]

        def distance(span: tuple[int, int]) -> int:
            return max(span[0] - position, position - span[1], 0)

        others = [distance(span) for span in written if span not in every]
        return min(map(distance, mine)) <= min(others, default=len(self.text))

    def _spans(self, value: Any) -> list[tuple[int, int]]:
        """Where the request writes `value`: a number as any of its numbers equal to it (or the
        percentage it is a fraction of), a string as whole words."""
        if isinstance(value, bool):
            return []
        if isinstance(value, int | float):
            patterns = [
                rf"(?<![\d.]){re.escape(written)}(?!\.?\d)"  # "5m" holds 5; "5.5" does not
                for written, number, percentage in self.numbers
                if abs(value) == number or (percentage and value == number / 100)
            ]
        elif isinstance(value, str) and len(value.strip()) > 1:
            patterns = [rf"(?<!\w){re.escape(value.strip().lower())}(?!\w)"]
        else:
            return []
        return [found.span() for pattern in patterns for found in re.finditer(pattern, self.text)]

    def _listed(self, one: tuple[int, int], other: tuple[int, int]) -> bool:
        between = (
            self.text[other[1] : one[0]] if other[1] <= one[0] else self.text[one[1] : other[0]]
        )
        return len(between.split()) <= _LISTED_WITHIN and bool(_LISTING.search(between))


def leaves(value: Any) -> Iterator[Any]:
    """The scalars inside a value, however deep in lists and objects."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def described_by(tools: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    """For each tool (as name and description), the words of its description that no other
    tool's name or description writes: what its author says it is about and no other tool is
    ("toolwire" of the notes' search beside a clock and a calculator; "commits" of a log)."""
    said = {
        name: (frozenset(_WORD.findall(description.lower())) - FUNCTION_WORDS)
        | _long_name_words(name)
        for name, description in tools
    }
    return {
        name: words.difference(*(other for each, other in said.items() if each != name))
        for name, words in said.items()
    }


def _long_name_words(tool: str) -> frozenset[str]:
    """The words of a tool's name (camelCase split) long enough to be matched (`_WORD`)."""
    return frozenset(_WORD.findall(spelled_out(tool)))


def _name_key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())
