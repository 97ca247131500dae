"""Optional arguments a call makes up.

Small models fill optional parameters with values of their own: the Los Angeles Lakers for a
player's career statistics nobody asked to narrow, "Lunch" for a recipe's calories, "London" for
a football club's schedule. A string that has nothing in common with the conversation is the
model's guess, and the tool's own default is the better one, so such an argument is left out of
the call. A value counts as given when the conversation holds it whole, or any word of it of
four characters or more: "Asia/Tokyo" for "the time in Tokyo" is the model's knowledge put to
use, not a guess. A number may be written in words ("three days"): an optional number is judged
only when the conversation writes none in words, and is made up when none of its numbers is that
value (or the percentage it is a fraction of): the year 2023 for "the population of pandas in
China", `"min_humidity": 50` for a humidity forecast.

An optional flag the model turns away from its default is asked for when the conversation
mentions a word of its name ("the first discoverer" for `first`), or two telling words of what its
description says it does ("the match statistics" for "include match statistics like
possession"); else the tool's default stands: `"include_description": true` for "the names of
proteins", `"detailed": true` for "the market performance of the S&P 500". Replayed, that makes
1 simple and 1 multiple item of the raw model's right and none wrong, and 2 multiple and 1
parallel-multiple items of toolwire's (the name alone would have cost 3 right calls, among them
"additional information like Director, Cast" for `extra_info`).

The other way round, a flag off by default that the model leaves off (or out) is turned on where
the request asks for it for this call: a word of its name (else of its description) stands nearer
to a value of this call than to any other value the request writes, and no negation comes before
it in its clause ("the last match played by 'Manchester United'. Also, include the match
statistics"; "the inventor and year of invention of the 'Telephone'"). A call asking the tool
with the flag on earlier in the reply keeps it as the model wrote it: "with standardization, then
without" asks two things. Replayed over toolwire's calls on BFCL: parallel-multiple +3, parallel
+1, none wrong; over the raw model's: simple +2, multiple +1, none wrong. Placed by words of the
description as well as the name, "the last match of 'Manchester United'" asked for match
statistics; placed by values written more than once too, the 52 cards of every draw asked each
of them "as a ratio".

Replayed over Qwen2.5-Coder-0.5B's raw calls on BFCL (`bench/local_grounding.py`), it makes 13
simple items right and one wrong (`"24h"` for "24-hour format"), and 5 multiple items right (on
toolwire's calls before it: 13, 1 and 4). Leaving out numbers whatever the words made five right
calls wrong ("3" for "three days"); judged only without number words, they make 2 simple and 1
multiple items right and none wrong (and 2 parallel ones of toolwire's). Requiring the whole
value rather than one telling word of it changed no item there, but would drop "Asia/Tokyo" for
Tokyo.

Options (the strings of an `enum`) are judged more loosely, being short labels the model
inflects: an option is mentioned when the conversation holds it whole, or a word of four
characters or more that begins with the same five letters as one of the conversation's
("children" mentions "child", "month" "Monthly"). An option nobody mentioned is left out where
the parameter is optional: `"algorithm": "binary"` for a plain GCD, `"frequency": "quarterly"`
for dividends nobody asked the period of. An option implied by other words ("metric" for "in
kilometres") goes too, and the tool's default applies: on BFCL that cost no item. A list of
options that holds every option is the model copying the menu, not choosing from it: asked for
a sushi place with a patio, it asks for `["Patio", "Wi-Fi", "Happy Hour", "Wheelchair
Accessible"]`; such a list keeps only the options mentioned, and mentioning none, an optional
list is left out. Replayed over toolwire's own calls on BFCL, the two make 5 simple, 6 multiple
and 2 parallel-multiple items right and 1 multiple item wrong (the request's "vegetarian" is not
the option "vegan"); judged by whole words, as free text is, four more right calls would have
gone wrong ("children", "ratings", "month", "details").

A percentage the conversation writes ("5%", "7 percent") that a call passes as the whole number
to a `number` parameter whose schema declares a fraction (a `maximum` of 1 or less, or a
description saying "fraction", "decimal" or "between 0 and 1") becomes the fraction: the tool's
author said how the value is written, and 5 is no fraction. Where the schema says nothing, the
value stays as the model wrote it.

A unit the call leaves to the tool's default is the one the request writes after a number of the
call, where that unit is of the default's kind and not the default: "a circle with a radius of
5.6 feet" to a tool whose `units` default to meters. Left out, the tool would measure in the
wrong unit. Replayed over toolwire's calls on BFCL: simple +1, parallel +3, parallel-multiple
+1, none wrong (over the raw model's, simple +1). Taking whatever word follows a number of the
call instead cost 4 simple and 3 multiple items: "kilograms" for the "metric" system of a BMI,
"kilometers" for a velocity wanted in "km/h", "and" for the unit of a triangle's area.

Lists and objects are judged like the values they hold: an optional one holding a string the
conversation never gave, or a number it never wrote, is left out (transactions nobody gave to
"calculate the total balance"). A conversion between two units of one kind is turned round
where the conversation writes the call's number after the unit it converts to, and never after
the one it converts from ("a vase 24 inches tall, but I know centimeters"); so are the two ends
of any call, a route's say, where the conversation writes "from" the second "to" the first and
never "from" the first ("traffic from Las Vegas to Los Angeles": replayed on BFCL, multiple +1
over toolwire's calls and over the raw model's, none wrong).

A call after the first of a reply may go on past what the request asks (see `made_up`): out of
the request's values, a small model makes up more (the core beliefs of Judaism, Christianity and
Islam after those of Buddhism and Hinduism), picks an option nobody mentioned beside ones
mentioned (six months of rain besides the past year and five years), or asks an earlier call
again with a flag turned off ("how many years ago" asked for, then not). The reply drops such a
call. A value counts as made up only where every earlier call of the tool took that parameter
from the conversation (a ticker for each company named is knowledge, call after call), and a
flag turned off stands where the request turns it off or makes a condition of it ("what if the
process is not isothermal", "if we allow transfer"). Replayed over toolwire's calls on BFCL,
these three paragraphs make 8 parallel-multiple and 2 simple items right and none wrong.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...builtin._units import known_unit
from ...messages import Message
from ...tools import ToolDefinition
from ._coverage import RequestValues, leaves
from ._relevance import last_request

__all__ = ["Grounding", "changes"]

_SEPARATORS = re.compile(r"[\W_]+")
_TELLING_WORD = 4
"""Characters a word needs to show on its own that a value came from the conversation."""
_NUMBER = re.compile(r"\d+(?:,\d{3})*(?:\.\d+)?")
_NUMBER_WORDS = re.compile(
    r"\b(?:zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|\w+teen|twenty|"
    r"thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million|billion|dozen|"
    r"couple|pair|half|twice|double|triple|single|first|second|third|fourth|fifth|sixth|"
    r"seventh|eighth|ninth|tenth)s?\b"
)
"""Words that may stand for a number: where a conversation has any, numbers are not judged."""
_ORDINAL_MARKER = re.compile(
    r"(^|[.!?:\"\n])\s*(?:first|second|third|fourth|fifth|sixth)(?:ly)?\s*,"
)
"""An ordinal opening a sentence to mark a step ("First, I'd like..."): it stands for no number
(replayed on BFCL: 1 parallel item made right, none wrong)."""
_PERCENTAGE = re.compile(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b)")
_FRACTION = re.compile(
    r"\bfraction|\bdecimal\b|\bbetween 0(?:\.0+)? and 1\b|\b0(?:\.0+)? ?(?:to|-) ?1(?:\.0+)?\b",
    re.IGNORECASE,
)
"""What a `number` parameter's description says when it takes a fraction, not a percentage."""
_CAMEL_HUMP = re.compile(r"(?<=[a-z])(?=[A-Z])")
_NEGATION = re.compile(r"\b(?:not|no|without|never)\b|n't\b")
_VARIATION = re.compile(r"\b(?:not|no|without|never|if|whether|unless)\b|n't\b")
"""What turns a flag off or makes it a condition: "what if the process is not isothermal", "and
then the shortest distance if we allow transfer"."""
_CLAUSE_END = re.compile(r"[.?!,;:]")
_NEGATION_REACH = 40
"""Characters before a mention of a flag, within its clause, where a negation turns it down
("I don't need the full text", "if we do not include the impact of human activities")."""
_STEM = 5
"""Letters two words must begin with alike for one to mention the other (an option's plural,
say)."""
_MEASURE = re.compile(r"(?<![\w.])(\d+(?:,\d{3})*(?:\.\d+)?)\s?((?:[^\W\d_][\w/²³]*[ \t]*){1,3})")
"""A number and the (up to three) words after it, where a unit may be."""
_DEFAULT_UNIT = re.compile(
    r"\bdefaults?\b(?:\s+(?:unit\s+)?(?:is|to))?\s*:?\s*['\"]?([^'\".,;)]+)", re.I
)
"""Where a description names the default ("Default is 'cm'", "defaults to meters")."""
_SOURCE_WORDS = frozenset({"from", "source", "original", "input", "start", "origin", "departure"})
_TARGET_WORDS = frozenset({"to", "target", "desired", "output", "end", "destination", "arrival"})
"""Words of parameter names that say which end of a conversion or a route a parameter is."""


@dataclass(frozen=True, slots=True)
class Grounding:
    """What a conversation says, and which parameters of its tools grounding judges."""

    said: str
    """The conversation's text, folded (see `_folded`)."""
    words: frozenset[str]
    """Its words."""
    stems: frozenset[str]
    """The first `_STEM` letters of its words of `_TELLING_WORD` letters or more."""
    guessable: Mapping[str, _Guessable]
    """By tool name: the parameters it judges."""
    numbers: frozenset[float] | None = None
    """The numbers it writes in digits, and each as a fraction of a hundred; None when it may
    write numbers in words too (numbers are not judged then)."""
    percentages: frozenset[float] = frozenset()
    """The percentages it writes, as numbers of a hundred."""
    request: RequestValues | None = None
    """The request the conversation ends with, where a flag may be asked for a call."""
    measures: tuple[tuple[float, str, str, str], ...] = ()
    """Each number it writes with a unit after it: the number, the unit's kind and canonical
    name (see `known_unit`), and the unit as written."""

    @classmethod
    def of(cls, messages: Iterable[Message], tools: Sequence[ToolDefinition]) -> Grounding:
        texts: list[str] = []
        for message in messages:
            texts.append(message.text)
            texts.extend(result.content for result in message.tool_results)
            texts.extend(call.raw_arguments for call in message.tool_calls)
        text = " ".join(texts)
        said = _folded(text)
        words = frozenset(said.split())
        numbers = None
        if not _NUMBER_WORDS.search(_ORDINAL_MARKER.sub(r"\1", text.casefold())):
            written = [float(found.replace(",", "")) for found in _NUMBER.findall(text)]
            numbers = frozenset([*written, *(number / 100 for number in written)])
        last = last_request(list(messages))
        return cls(
            said,
            words,
            _stems(said),
            {tool.name: _guessable(tool) for tool in tools},
            numbers,
            _percentages(text),
            request=RequestValues.of(last.text, [tool.name for tool in tools]) if last else None,
            measures=_measures(text),
        )

    def arguments(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        earlier: Sequence[tuple[str, Mapping[str, Any]]] = (),
    ) -> dict[str, Any]:
        """`arguments` without the optional ones the conversation never gave, with each list
        holding every option cut down to the options it mentions, each percentage passed
        whole to a `number` parameter as its fraction, each flag the request asks for this
        call turned on (unless a call `earlier` in the reply, as name and arguments, already
        asked the tool with it on), and each unit left to the tool's default given the one the
        conversation writes for the call's numbers."""
        parameters = self.guessable.get(tool, _NOTHING_GUESSABLE)
        grounded: dict[str, Any] = {}
        for name, value in arguments.items():
            if isinstance(value, str) and (
                (name in parameters.free_text and not self.gave(value))
                or (name in parameters.options and not self.mentions(value))
            ):
                continue
            if name in parameters.numbers and self._made_up_number(value):
                continue
            if name in parameters.structures and self._made_up_inside(value):
                continue
            flag = parameters.flags.get(name)
            if (
                flag is not None
                and flag.optional
                and value is not flag.default
                and not self.asks_for(name, flag)
            ):
                continue
            if name in parameters.fractions and self._percentage(value):
                value /= 100
            option_list = parameters.option_lists.get(name)
            if option_list is not None and option_list.holds_every_option(value):
                mentioned = [option for option in value if self.mentions(option)]
                if mentioned:
                    value = mentioned
                elif not option_list.required:
                    continue
            grounded[name] = value
        for name, flag in parameters.flags.items():
            if (
                not flag.default
                and grounded.get(name) is not True
                and not any(
                    called == tool and before.get(name) is True for called, before in earlier
                )
                and self.asks_here(name, flag, grounded)
            ):
                grounded[name] = True
        for name, unit in parameters.units.items():
            if name not in grounded and (written := self.unit_written(unit, grounded)):
                grounded[name] = written
        if parameters.ends is not None:
            source, target = parameters.ends
            ends = grounded.get(source), grounded.get(target)
            if self.converts_backwards(*ends, grounded) or self.goes_backwards(*ends):
                grounded[source], grounded[target] = ends[1], ends[0]
        return grounded

    def made_up(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        earlier: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> bool:
        """Whether a call after the `earlier` ones of a reply (as name and arguments) goes on
        past what the conversation asks: it asks an earlier call again with flags turned off
        that the request never turns off or makes a condition of; it passes a value the
        conversation never gave to a parameter every earlier call of the tool took from it; or
        it passes an option the conversation does not mention where it mentions another."""
        if not earlier:
            return False
        parameters = self.guessable.get(tool, _NOTHING_GUESSABLE)
        siblings = [before for called, before in earlier if called == tool]
        for name, value in arguments.items():
            if self._given(parameters, name, value):
                continue
            options = parameters.choices.get(name, ())
            if any(self.mentions(option) for option in options):
                return True
            taken = [before[name] for before in siblings if _scalar(before.get(name))]
            if taken and all(self._given(parameters, name, before) for before in taken):
                return True
        return any(self._switched_off(parameters, arguments, before) for before in siblings)

    def _given(self, parameters: _Guessable, name: str, value: Any) -> bool:
        """Whether the conversation gave a scalar `value` (lists and objects count as given):
        an option mentioned, a string given, a number written (zero, the value of nothing
        done, always is)."""
        if isinstance(value, str):
            return self.mentions(value) if name in parameters.choices else self.gave(value)
        return value == 0 or not self._made_up_number(value)

    def _switched_off(
        self, parameters: _Guessable, arguments: Mapping[str, Any], before: Mapping[str, Any]
    ) -> bool:
        """Whether `arguments` are `before` with flags it turned on turned off (or left to a
        default that is off), flags the request never turns off nor makes a condition of."""
        changed = {
            name for name in {*arguments, *before} if arguments.get(name) != before.get(name)
        }
        return (
            bool(changed)
            and all(
                name in parameters.flags
                and before.get(name) is True
                and arguments.get(name, parameters.flags[name].default) is not True
                for name in changed
            )
            and not any(self.varies(name, parameters.flags[name]) for name in changed)
        )

    def converts_backwards(self, source: Any, target: Any, arguments: Mapping[str, Any]) -> bool:
        """Whether a conversion from unit `source` to unit `target` (of one kind) has them the
        wrong way round: the conversation writes a number of the call with the target unit
        after it, and with the source unit never ("a vase 24 inches tall, but I know
        centimeters" converts 24 from inches)."""
        if not isinstance(source, str) or not isinstance(target, str):
            return False
        units = known_unit(source), known_unit(target)
        if units[0] is None or units[1] is None or units[0] == units[1]:
            return False
        if units[0][0] != units[1][0]:
            return False
        numbers = _numbers(arguments)
        written = {
            (kind, canonical) for number, kind, canonical, _ in self.measures if number in numbers
        }
        return units[1] in written and units[0] not in written

    def goes_backwards(self, source: Any, target: Any) -> bool:
        """Whether a call from `source` to `target` has them the wrong way round: the
        conversation writes "from `target` to `source`", and "from `source`" never ("traffic
        from Las Vegas to Los Angeles")."""
        if not isinstance(source, str) or not isinstance(target, str):
            return False
        return (
            f" from{_folded(target)}to{_folded(source)}" in self.said
            and f" from{_folded(source)}" not in self.said
        )

    def unit_written(self, unit: _Unit, arguments: Mapping[str, Any]) -> str | None:
        """The unit of `unit`'s kind, other than its default, that the conversation writes
        after the numbers of `arguments`, as written (or as the option naming it); None where
        it writes none, or more than one."""
        numbers = _numbers(arguments)
        found: dict[str, str] = {}
        for number, kind, canonical, written in self.measures:
            if number in numbers and kind == unit.kind and canonical != unit.default:
                found.setdefault(canonical, written)
        if len(found) != 1:
            return None
        [(canonical, written)] = found.items()
        if unit.options is None:
            return written
        return next((o for o in unit.options if known_unit(o) == (unit.kind, canonical)), None)

    def gave(self, value: str) -> bool:
        """Whether the conversation holds `value` whole, or a telling word of it."""
        folded = _folded(value)
        telling = {word for word in folded.split() if len(word) >= _TELLING_WORD}
        return folded in self.said or bool(telling & self.words)

    def _percentage(self, value: Any) -> bool:
        return (
            isinstance(value, int | float)
            and not isinstance(value, bool)
            and value > 1
            and value in self.percentages
        )

    def _made_up_number(self, value: Any) -> bool:
        if self.numbers is None or isinstance(value, bool) or not isinstance(value, int | float):
            return False
        return abs(value) not in self.numbers

    def _made_up_inside(self, value: Any) -> bool:
        """Whether a list or an object holds a string the conversation never gave, or a number
        it never wrote."""
        return any(
            (isinstance(leaf, str) and not self.gave(leaf)) or self._made_up_number(leaf)
            for leaf in leaves(value)
        )

    def asks_for(self, name: str, flag: _Flag) -> bool:
        """Whether the conversation mentions a word of the flag's name ("first" for `first`,
        "homemade" for `isHomemade`), or two telling words of what its description says it does
        ("the match statistics" for "include match statistics like possession")."""
        return self.mentions(_CAMEL_HUMP.sub(" ", name)) or len(flag.cues & self.stems) >= 2

    def asks_here(self, name: str, flag: _Flag, arguments: Mapping[str, Any]) -> bool:
        """Whether the request asks for the flag (`asks_for`) nearer to a value of `arguments`
        than to any other value it writes, and never in the negative. The words of its name
        place it, else those of its description: "the last match of 'Manchester United'" is no
        place to ask for match statistics."""
        request = self.request
        if request is None or not self.asks_for(name, flag):
            return False
        here = [at for at in self._flag_mentions(name, flag) if request.nearest_held(at, arguments)]
        return bool(here) and not any(_negated(request.text, at) for at in here)

    def varies(self, name: str, flag: _Flag) -> bool:
        """Whether the request mentions the flag in the negative or as a condition ("what if
        the process is not isothermal", "if we allow transfer"): a call with it and another
        without ask two things."""
        request = self.request
        return request is not None and any(
            _negated(request.text, at, _VARIATION) for at in self._flag_mentions(name, flag)
        )

    def _flag_mentions(self, name: str, flag: _Flag) -> list[int]:
        """Where the request writes a word of the flag's name, else of its description."""
        text = self.request.text if self.request is not None else ""

        def found(stems: Iterable[str]) -> list[int]:
            return [
                at.start()
                for stem in stems
                for at in re.finditer(rf"(?<!\w){re.escape(stem)}", text)
            ]

        return found(_stems(_CAMEL_HUMP.sub(" ", name))) or found(flag.cues)

    def mentions(self, option: str) -> bool:
        """Whether the conversation holds `option` whole, or a word like a telling word of it."""
        folded = _folded(option)
        return folded in self.said or any(
            word[:_STEM] in self.stems for word in folded.split() if len(word) >= _TELLING_WORD
        )


@dataclass(frozen=True, slots=True)
class _OptionList:
    options: frozenset[str]
    required: bool

    def holds_every_option(self, value: Any) -> bool:
        return (
            isinstance(value, list)
            and len(value) > 1
            and all(isinstance(option, str) for option in value)
            and set(value) == self.options
        )


@dataclass(frozen=True, slots=True)
class _Flag:
    default: bool
    """False unless the schema says otherwise."""
    cues: frozenset[str]
    """The stems of the telling words of its description."""
    optional: bool = True


@dataclass(frozen=True, slots=True)
class _Unit:
    kind: str
    default: str
    """The canonical name of the unit the tool takes unless told (see `known_unit`)."""
    options: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class _Guessable:
    """A tool's parameters open to made-up values, and those that take fractions."""

    free_text: frozenset[str] = frozenset()
    """Optional, taking free text."""
    options: frozenset[str] = frozenset()
    """Optional, taking one of an `enum`'s strings."""
    option_lists: Mapping[str, _OptionList] = field(default_factory=dict)
    """Taking a list of an `enum`'s strings, required or not."""
    numbers: frozenset[str] = frozenset()
    """Optional, taking a number."""
    flags: Mapping[str, _Flag] = field(default_factory=dict)
    """Taking a boolean."""
    fractions: frozenset[str] = frozenset()
    """Taking a `number` the schema declares a fraction (see `_takes_fraction`), required or
    not."""
    units: Mapping[str, _Unit] = field(default_factory=dict)
    """Optional, taking a unit, with a default unit the schema names."""
    choices: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Taking one of an `enum`'s strings, required or not: its options."""
    structures: frozenset[str] = frozenset()
    """Optional, taking a list or an object, other than a list of an `enum`'s strings."""
    ends: tuple[str, str] | None = None
    """The string parameters naming the two ends of a conversion or a route, from and to."""


_NOTHING_GUESSABLE = _Guessable()


def _guessable(tool: ToolDefinition) -> _Guessable:
    properties = tool.parameters.get("properties")
    if not isinstance(properties, Mapping):
        return _NOTHING_GUESSABLE
    required = set(tool.parameters.get("required") or ())
    free_text: set[str] = set()
    options: set[str] = set()
    option_lists: dict[str, _OptionList] = {}
    numbers: set[str] = set()
    flags: dict[str, _Flag] = {}
    fractions: set[str] = set()
    units: dict[str, _Unit] = {}
    choices: dict[str, frozenset[str]] = {}
    structures: set[str] = set()
    ends: dict[str, list[str]] = {"source": [], "target": []}
    for name, schema in properties.items():
        if not isinstance(schema, Mapping):
            continue
        optional = name not in required
        if optional and "unit" in name.casefold() and (unit := _unit(schema)):
            units[name] = unit
        items = schema.get("items")
        listed = items.get("enum") if isinstance(items, Mapping) else None
        kind = schema.get("type", "string")
        if kind == "number" and _takes_fraction(schema):
            fractions.add(name)
        if kind == "string":
            words = set(_folded(_CAMEL_HUMP.sub(" ", name)).split())
            for end, named in (("source", _SOURCE_WORDS), ("target", _TARGET_WORDS)):
                if words & named:
                    ends[end].append(name)
            if isinstance(schema.get("enum"), list):
                choices[name] = frozenset(map(str, schema["enum"]))
        if optional and kind == "string" and "const" not in schema:
            (options if "enum" in schema else free_text).add(name)
        elif optional and kind in ("integer", "number") and "enum" not in schema:
            numbers.add(name)
        elif kind == "boolean":
            description = _stems(schema.get("description"))
            flags[name] = _Flag(schema.get("default") is True, description, optional)
        elif isinstance(listed, list) and listed and all(isinstance(o, str) for o in listed):
            option_lists[name] = _OptionList(frozenset(listed), not optional)
        elif optional and kind in ("array", "object"):
            structures.add(name)
    [sources, targets] = ends.values()
    from_to = None
    if len(sources) == len(targets) == 1 and sources != targets:
        from_to = (sources[0], targets[0])
    return _Guessable(
        frozenset(free_text),
        frozenset(options),
        option_lists,
        frozenset(numbers),
        flags,
        frozenset(fractions),
        units,
        choices,
        frozenset(structures),
        from_to,
    )


def _unit(schema: Mapping[str, Any]) -> _Unit | None:
    """A string parameter's default unit, from its schema or its description."""
    if schema.get("type", "string") != "string":
        return None
    default = schema.get("default")
    if not isinstance(default, str):
        named = _DEFAULT_UNIT.search(str(schema.get("description", "")))
        default = named.group(1) if named else ""
    known = known_unit(_leading_unit(default.split()) or "")
    if known is None:
        return None
    options = schema.get("enum")
    return _Unit(*known, tuple(map(str, options)) if isinstance(options, list) else None)


def _measures(text: str) -> tuple[tuple[float, str, str, str], ...]:
    """Each number `text` writes with a unit after it ("5.6 feet", "10 square meters", "50km"):
    the number, the unit's kind and canonical name, and the unit as written."""
    return tuple(
        (float(number.replace(",", "")), *known, unit)
        for number, after in _MEASURE.findall(text)
        if (unit := _leading_unit(after.split())) and (known := known_unit(unit))
    )


def _leading_unit(words: Sequence[str]) -> str | None:
    """The longest run of `words` from the first that names a unit. The preposition "in"
    ("5 in the box") names none: inches are rarely written so."""
    runs = (" ".join(words[:count]) for count in range(len(words), 0, -1))
    return next((run for run in runs if run != "in" and known_unit(run)), None)


def _stems(text: object) -> frozenset[str]:
    words = _folded(str(text or "")).split()
    return frozenset(word[:_STEM] for word in words if len(word) >= _TELLING_WORD)


def _negated(text: str, at: int, negation: re.Pattern[str] = _NEGATION) -> bool:
    clause = max((found.end() for found in _CLAUSE_END.finditer(text, 0, at)), default=0)
    return bool(negation.search(text, max(clause, at - _NEGATION_REACH), at))


def _numbers(arguments: Mapping[str, Any]) -> set[float]:
    """The numbers a call passes, on their own or in a list."""
    return {
        number
        for value in arguments.values()
        for number in (value if isinstance(value, list) else [value])
        if isinstance(number, int | float) and not isinstance(number, bool)
    }


def _scalar(value: Any) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def changes(written: Mapping[str, Any], grounded: Mapping[str, Any]) -> tuple[str, ...]:
    """What `Grounding.arguments` changed in a call, and why, one line each (shown to users)."""
    lines: list[str] = []
    swapped = {
        name
        for name in written
        for other in written
        if name != other
        and grounded.get(name) == written[other]
        and grounded.get(other) == written[name]
        and written[name] != written[other]
    }
    if swapped:
        first, second = sorted(swapped)
        lines.append(f"{first} and {second} swapped: the request names them the other way round")
    for name, value in written.items():
        if name in swapped:
            continue
        if name not in grounded:
            lines.append(
                f"{name}={value!r} left out: the conversation never gave it, so the tool's "
                "default applies"
            )
        elif grounded[name] != value:
            now = grounded[name]
            if now is True:
                why = "the request asks for it"
            elif isinstance(now, list):
                why = "only the options the conversation mentions"
            else:
                why = "the schema takes a fraction"
            lines.append(f"{name}={value!r} became {now!r}: {why}")
    for name, value in grounded.items():
        if name not in written:
            why = "the request asks for it" if value is True else "the unit the request writes"
            lines.append(f"{name}={value!r} added: {why}")
    return tuple(lines)


def _percentages(text: str) -> frozenset[float]:
    return frozenset(float(found) for found in _PERCENTAGE.findall(text))


def _takes_fraction(schema: Mapping[str, Any]) -> bool:
    """Whether a `number` parameter's schema declares that it takes a fraction."""
    for bound in ("maximum", "exclusiveMaximum"):
        limit = schema.get(bound)
        if isinstance(limit, int | float) and not isinstance(limit, bool) and limit <= 1:
            return True
    return bool(_FRACTION.search(str(schema.get("description", ""))))


def _folded(text: str) -> str:
    """Case folded, every run of non-word characters one space, padded with one on each side,
    so that a value is found whole words at a time however either is punctuated."""
    return f" {_SEPARATORS.sub(' ', text.casefold()).strip()} "
