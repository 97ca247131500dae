"""Checks on the arguments of a call a small model writes, each resting on the tool's schema.

A call's arguments are the model's proposal. These checks change them only where the schema
says what the tool's author wants, and every change is reported (`changes`, shown as a
`CallCorrected` event; `LocalModel(drop_guessed_arguments=False)` turns them all off). A
parameter that may also be null reads as the one type it takes otherwise (`float | None = None`
is a number whose default is null).

- An optional parameter the schema gives a default keeps its default where the model's value is
  one the conversation never gave: an option of an `enum` nobody mentioned (an option counts as
  mentioned when the conversation holds it whole, or a word beginning with the same five
  letters: "children" for "child"), a number the conversation never writes (judged only where
  it writes no number in words), a list or object holding such values. Free text is left as
  written: a small model's knowledge ("Asia/Kolkata" for Mumbai) cannot be told from a guess.
- An optional free-text parameter keeps its default where the model passes a date (an ISO date
  such as "2026-03-10") and the user names no day, month or date: a small model fills a date
  filter nobody asked for with today's date from the system message ("Jane Doe's orders placed
  after 2026-03-10": none). So does one whose value writes the name of another of the tool's
  parameters as the schema coins it, which nobody wrote (`query="unread_only: true"`), and one
  made only of words the tool's documentation writes as prose (not the examples or quoted
  values it offers) that the conversation never mentions ("pytest" for "run the tests", from
  "Run the test suite (pytest)"), or never writes together (another parameter's description).
- A flag the model turns away from its default stays at the default unless the conversation
  mentions a word of its name or two telling words of its description; a flag off by default
  is turned on where the request asks for it nearest this call's values, and never in the
  negative.
- A list of an `enum`'s options that holds every option is the model copying the menu: it keeps
  the options the conversation mentions.
- A percentage the conversation writes ("5%") passed whole to a `number` the schema declares a
  fraction (a `maximum` of 1 or less, "fraction", "decimal", "between 0 and 1") becomes the
  fraction.
- A unit parameter left to its default takes the unit the request writes after the call's
  numbers, where that unit is of the default's kind.
- The two ends of a conversion or a route (parameters named from/to, source/target...) are
  swapped where the conversation writes them the other way round.

A call that passes an identifier the tools' documentation gives as an example (a quoted value
with digits in a description, or one of the schema's `examples`, of any tool the model is shown:
"ORD-10517", "evt_204", "17 * 23"), which the conversation never wrote, whole or one of its
numbers that tell it apart ("165 * 23", "17 / 3"), is the model copying the documentation, not
the user's value (`copied_example`): the reply drops it. Nothing else
can be the source of an identifier: no model knows the user's order numbers.

A call after the first of a reply may go on past what the request asks (`made_up`): a tool the
request does not name, asked with nothing of the request that no earlier call took up ("165
pounds" searched in the notes after the conversion of 165 pounds, the time in UTC after it),
values the conversation never gave where every earlier call of the tool took that parameter
from it, an option nobody mentioned beside ones mentioned, a unit nobody named, an earlier
call again with a flag turned off that the request never turns off. The reply drops such a
call.

A required number (no default) that the request cannot have given, since it writes no number
and the conversation never wrote that one, is the user's to give (`missing`): the reply drops
the call and asks for it. So is a required identifier (a string parameter the schema names `id`
or `..._id`) that the conversation never wrote, whole or its digits: no model knows the user's
order numbers, and "Cancel the order please" is not ORD-10517; a look-up may find it first.
So is a required file path (a parameter the schema names `path`, `file`, `file_name`...) that
the conversation never wrote, whole or the file's name, nor the request that name less its
extension ("the changelog"): "read the file" is not "weatherly/weather.txt". A file to read may
be looked up first; where to write a new one is only the user's to say. So is an email address
the conversation never wrote, passed to a required parameter whose name or description says it
takes email addresses: "email Lena" is not lena@example.com; the contacts may find it first.
And so is a required date (an ISO date passed) of a call that changes something, where the user
names no day, month or date: "Schedule a meeting with Marco" is not today at 10:00. And so is
required free text that is its parameter's description ("the text to find" for "search the
code"): the model copied the documentation. Where the request opens the conversation and
refers to a thing nothing names ("What's 15% of it?", "open that test": see `_references`),
every value is: the model cannot see what "it" is.

The checks also say what a call the model writes on trial must hold to be kept: after results,
a part of the request no call took up (`tools_left`, `named_left`, `takes_up_part`); after a
follow-up, the same tool asked again for what the follow-up says (`follows_up`); in place of a
first call that passed an identifier nobody gave, a look-up of something the request says
beyond the action (`looks_up`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from ...builtin._units import known_unit
from ...messages import Message
from ...tools import ToolDefinition
from ._answering import Answering, answering_of, echoes, writes_whole
from ._coverage import RequestValues, clauses, described_by, leaves, spelled_out
from ._dates import stated_today
from ._lists import POSSESSIVE, listed_beside
from ._patterns import (
    UNWRITABLE,
    fewer_of,
    held_to_patterns,
    literal_words,
    one_of,
    searched_words,
)
from ._records import RecordsNamed, records_named
from ._references import unreferenced
from ._relevance import last_question, last_request
from ._schema_reading import (
    NOTHING_GUESSABLE,
    Flag,
    Guessable,
    Unit,
    documented_examples,
    free_text,
    guessable_of,
    identified,
    name_words,
    scalar,
    takes_a_file,
)
from ._wording import (
    DIGITS,
    NUMBER,
    STEM,
    TELLING_WORD,
    files_written,
    folded,
    measures,
    names_written,
    negated,
    percentages,
    stems,
    telling_words,
    unit_roots,
    units_named,
)

__all__ = ["Grounding", "changes"]

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
"""An ordinal opening a sentence to mark a step ("First, I'd like..."): it stands for no
number."""
_TELLING_NUMBER = re.compile(r"(?!10*$)[1-9]\d+")
"""A number an example holds that a copy can be told by: two digits or more, not a power of
ten (which any calculation may hold)."""
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?\S*)?")
_DAY_NAMED = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|(?:mon|tues|wednes|thurs|fri|satur|sun)days?|"
    r"weekends?|weeks?|months?|years?|january|february|march|april|may|june|july|august|"
    r"september|october|november|december|(?:jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?)\b"
    r"|\d{4}-\d{2}-\d{2}|\b\d{1,2}[/.]\d{1,2}\b",
    re.IGNORECASE,
)
"""A day, a month or a date named: where the user names none, a date passed to an optional
filter is made up."""
_PATH_SEPARATOR = re.compile(r"[\\/]")
_ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_NAME_BREAKS = re.compile(r"[\W_]+")
_VARIATION = re.compile(r"\b(?:not|no|without|never|if|whether|unless)\b|n't\b")
"""What turns a flag off or makes it a condition: "what if the process is not isothermal", "and
then the shortest distance if we allow transfer"."""


@dataclass(frozen=True, slots=True)
class Grounding:
    """What a conversation says, and which parameters of its tools grounding judges."""

    said: str
    """The conversation's text, folded (see `folded`)."""
    words: frozenset[str]
    """Its words."""
    stems: frozenset[str]
    """The first `STEM` letters of its words of `TELLING_WORD` letters or more."""
    guessable: Mapping[str, Guessable]
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
    digit_runs: frozenset[str] = frozenset()
    """The runs of digits it writes."""
    names_day: bool = True
    """Whether the user's messages or the tools' results name a day, a month or a date (the
    system message's date is the application's, not a filter anyone asked for)."""
    examples: frozenset[str] = frozenset()
    """The identifiers the tools' documentation gives as examples, folded."""
    example_numbers: frozenset[str] = frozenset()
    """The numbers those examples write that tell them apart (`_TELLING_NUMBER`), less those
    the conversation writes."""
    answering: Answering | None = None
    """Where the conversation ends with tool results: the request they answer, and the calls
    made for it."""
    changing: frozenset[str] = frozenset()
    """The tools whose calls change something (not read-only)."""
    called: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """Where the conversation ends with a request: by tool name, the arguments of the last call
    of each tool it made before."""
    request_words: tuple[str, ...] = ()
    """The words of the request the conversation ends with, or that its results answer, as
    written, each once, but for the grammar's words that say nothing of what is asked ("what",
    "please")."""
    described: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """By tool name: the words its description alone writes (see `described_by`)."""
    units: frozenset[str] = frozenset()
    """The units it names, by the canonical names of the units they are made of (see
    `unit_roots`)."""
    returned: tuple[str, ...] = ()
    """What the tools returned in it, each result's text once."""
    request_names: tuple[str, ...] = ()
    """The names the request that `request_words` come from writes: its words written with a
    capital letter that opens no sentence ("Auckland", not "What"), as written."""
    request_files: tuple[str, ...] = ()
    """The files the request that `request_words` come from names ("pyproject.toml",
    "src/weatherly/cache.py"), as written."""
    unreferenced: str | None = None
    """Where the conversation opens with the request it ends with: the words that request
    refers back with, which nothing before them names (see `unreferenced`)."""
    today: date | None = None
    """The date the conversation states as today's, by which "tomorrow" is a date."""

    @classmethod
    def of(cls, messages: Iterable[Message], tools: Sequence[ToolDefinition]) -> Grounding:
        texts: list[str] = []
        called: dict[str, Mapping[str, Any]] = {}
        names_day = False
        conversation = list(messages)
        for message in conversation:
            if message.role != "system":
                names_day = names_day or any(
                    _DAY_NAMED.search(text)
                    for text in (message.text, *(r.content for r in message.tool_results))
                )
            texts.append(message.text)
            texts.extend(result.content for result in message.tool_results)
            texts.extend(call.raw_arguments for call in message.tool_calls)
            called.update((call.name, call.arguments) for call in message.tool_calls)
        text = " ".join(texts)
        said = folded(text)
        words = frozenset(said.split())
        numbers = None
        if not _NUMBER_WORDS.search(_ORDINAL_MARKER.sub(r"\1", text.casefold())):
            # A date's digits are a date, not quantities: "Today is 2026-03-10" gives no 10.
            undated = _ISO_DATE.sub(" ", text)
            written = [float(found.replace(",", "")) for found in NUMBER.findall(undated)]
            numbers = frozenset([*written, *(number / 100 for number in written)])
        last = last_request(conversation)
        asked = last_question(conversation)
        today = stated_today(conversation)
        examples = frozenset(example for tool in tools for example in documented_examples(tool))
        digit_runs = frozenset(DIGITS.findall(text))
        guessable = {tool.name: guessable_of(tool) for tool in tools}
        return cls(
            said,
            words,
            stems(said),
            guessable,
            numbers,
            percentages(text),
            request=(
                RequestValues.of(last.text, [tool.name for tool in tools], today) if last else None
            ),
            measures=measures(text),
            digit_runs=digit_runs,
            names_day=names_day,
            examples=examples,
            example_numbers=frozenset(
                number
                for example in examples
                for number in DIGITS.findall(example)
                if _TELLING_NUMBER.fullmatch(number)
            )
            - digit_runs,
            answering=None if last else answering_of(conversation, guessable, today),
            changing=frozenset(tool.name for tool in tools if tool.side_effect != "read_only"),
            called=called if last else {},
            request_words=telling_words(conversation[asked].text) if asked is not None else (),
            request_names=names_written(conversation[asked].text) if asked is not None else (),
            request_files=files_written(conversation[asked].text) if asked is not None else (),
            unreferenced=(
                unreferenced(last.text)
                if last is not None and all(m.role == "system" for m in conversation[:-1])
                else None
            ),
            today=today,
            described=described_by((tool.name, tool.description) for tool in tools),
            units=units_named(text),
            returned=tuple(
                dict.fromkeys(
                    result.content for message in conversation for result in message.tool_results
                )
            ),
        )

    @property
    def _answered_request(self) -> RequestValues | None:
        """The request the calls since it answer, where results have come; else the request
        the conversation ends with."""
        answering = self.answering
        return self.request if answering is None else answering.request

    def arguments(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        earlier: Sequence[tuple[str, Mapping[str, Any]]] = (),
    ) -> dict[str, Any]:
        """`arguments` without the optional ones the conversation never gave (but for those
        equal to the tool's default, which ask for nothing; a path counts as given as
        `_made_up_path` says: "tests" of a log's `path` for "what did Omar commit?" narrows
        the log to a folder nobody named; free text holding only what a required value of
        the call holds of the request, which writes it once, is not given again), each option
        the conversation does not mention swapped for the one other option the request names
        ("inbox" for "check my archive"), with each list holding every option cut down to the
        options it mentions, each percentage passed whole to a `number` parameter as its
        fraction, each flag the request asks for this call turned on (unless a call `earlier`
        in the reply, as name and arguments, already asked the tool with it on), and each unit
        left to the tool's default given the one the conversation writes for the call's
        numbers."""
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        grounded: dict[str, Any] = {}
        for name, value in arguments.items():
            if isinstance(value, str) and name in parameters.choices and not self.mentions(value):
                named = self._option_named(parameters.choices[name], arguments)
                if named is not None:
                    grounded[name] = named
                    continue
            if isinstance(value, str) and name in parameters.options and not self.mentions(value):
                continue
            if name in parameters.numbers and self._made_up_number(value):
                continue
            if name in parameters.texts and (
                self._made_up_date(value)
                or self._names_parameter(parameters, name, value)
                or self._documentation_only(parameters, value)
                or (takes_a_file(name) and self._made_up_path(value, (tool, name)))
                or self._repeats_required(parameters, name, value, arguments)
            ):
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
        for name, value in arguments.items():
            if name not in grounded and not parameters.asked({name: value}):
                grounded[name] = value  # the tool's own default: leaving it out changes nothing
        return grounded

    def made_up(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        earlier: Sequence[tuple[str, Mapping[str, Any]]],
    ) -> bool:
        """Whether a call goes on past what the conversation asks. The first of a reply to a
        request: it asks the tool nothing but its defaults, the request writes no word of the
        tool's name or documentation, and names another tool (`current_time "UTC"` for "how do
        I install toolwire?", which only the notes' search is about). A call after the
        `earlier` ones of a reply (as name and arguments): it calls a tool no earlier call has
        and the request does not name, with values (not its defaults) that take up nothing of
        the request no earlier call has (`RequestValues.takes_up`); it asks an earlier call
        again with flags turned off that the request never turns off or makes a condition of;
        it passes a value the conversation never gave to a parameter every
        earlier call of the tool took from it; it passes an option the conversation does not
        mention where it mentions another; or it passes as free text a unit the conversation
        never names (after the time in Tokyo, "15 °F in °C" for "what is 15% of 80")."""
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        asked = parameters.asked(arguments)
        request = self.request
        if not earlier:
            return (
                request is not None
                and not asked
                and not self._about(request, tool)
                and any(self._named(request, other) for other in self.guessable if other != tool)
            )
        if (
            request is not None
            and all(called != tool for called, _ in earlier)
            and not request.names(tool)
            and not request.takes_up(asked, [before for _, before in earlier])
        ):
            return True
        free_text = (value for name, value in asked.items() if name not in parameters.choices)
        if any(self._unit_unnamed(value) for value in free_text):
            return True
        siblings = [before for called, before in earlier if called == tool]
        for name, value in arguments.items():
            if self._given(parameters, name, value):
                continue
            options = parameters.choices.get(name, ())
            if any(self.mentions(option) for option in options):
                return True
            taken = [before[name] for before in siblings if scalar(before.get(name))]
            if taken and all(self._given(parameters, name, before) for before in taken):
                return True
        return any(self._switched_off(parameters, arguments, before) for before in siblings)

    def asks_nothing_new(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call made after tool results asks nothing the conversation has not
        answered: it asks again for what the calls before it asked (every value it passes holds
        a piece of the request they answer, and none a piece they did not hold: "Europe/Paris"
        after "Paris"); it hands its tool back, alone, a number that tool returned ("12" to the
        calculator that answered "15 * 80 / 100 = 12"), or text it returned that the request
        does not hold ("Asia/Kolkata" after the clock's answer for "Mumbai"); or it calls a
        tool the request does not name and no call since used, with values (not its defaults)
        the conversation never gave (a distance in km after the time in Tokyo), or one that
        changes something, asked nothing of the request that the calls before it did not ask (an
        event created from the one found for "what's on my schedule next Tuesday?", on the
        date the look-up asked for); or it asks its tool again what it asked it,
        narrowed by what the results said (see `Answering.narrowed`). A value taken from a
        result of another tool (an order id found), from an error's suggestion, or worked out
        ("42.2 / 4") is a step on."""
        answering = self.answering
        if answering is None:
            return False
        request, made = answering.request, answering.made
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        asked = parameters.asked(arguments)
        unasked = tool not in answering.results and not request.names(tool)
        return (
            request.restates(arguments, made)
            or echoes(arguments, answering.returned.get(tool, ()), request)
            or (
                unasked
                and not any(self._given(parameters, name, value) for name, value in asked.items())
            )
            or (unasked and tool in self.changing and not request.takes_up(asked, made))
            or answering.narrowed(tool, arguments)
        )

    def tools_left(self, tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
        """After tool results, the tools that may take up a part of the request they answer
        that no call took up: those the request names ("time" for `current_time`, see
        `RequestValues.names`, or "toolwire", which only the notes' search's description
        writes, see `described_by`) that no call since has used ("what time is it in Tokyo"
        after the calculator's part); where it names none of them but writes values no call
        since has used ("15% of 80" after the time in Tokyo), every tool no call since has used,
        as long as each call since succeeded, every value it asked (not its defaults) holding a
        piece of the request: values a failed call left ("$250 * 365 / 12" for "$250 a month
        for 3 years") or one that made its own up (1000 miles for "1 mile, 5 miles and 10
        miles") are no other part."""
        answering = self.answering
        if answering is None:
            return []
        request = answering.request
        unused = [tool for tool in tools if tool.name not in answering.results]
        named = [tool for tool in unused if self._named(request, tool.name)]
        if named or not request.unused(answering.made) or answering.failed:
            return named
        # Values left by a call that made values up are its own failure, not another part.
        if not all(request.extends(asked, ()) for asked in answering.asked):
            return named
        return unused

    def part_left(self, request: str, tools: Sequence[ToolDefinition]) -> str:
        """What of `request` (the text the results answer) is left for `tools` (from
        `tools_left`): its clauses that name one of them, or where none does, those holding a
        value no call used ("what is 15% of 80?" of "What time is it in Tokyo, and what is 15%
        of 80?"); the whole request where no clause, or each one, is left. Asked the whole
        request, a small model asks the tool left for the part already done ("Wednesday" as
        the email search for "What's on my calendar tomorrow, and any unread emails?")."""
        answering = self.answering
        if answering is None:
            return request
        names = [tool.name for tool in tools]
        left = _clauses_picked(
            request,
            list(self.guessable),
            self.today,
            lambda values: any(self._named(values, name) for name in names),
            lambda values: bool(values.unused(answering.made)),
        )
        return request if left is None else " ".join(left)

    def named_left(
        self, request: str, tools: Sequence[ToolDefinition]
    ) -> tuple[str, list[ToolDefinition]] | None:
        """After tool results, the clauses of `request` (the text the results answer) that
        write a name no call since holds (not a day's or a month's, which a call holds as a
        date), where they are not every clause, with the tools those calls used (none
        destructive), for a call written on trial: the request asks a tool it used again, of
        another thing ("Is the AeroPress Go in stock" after the search for "how much is the
        Hario Buono kettle"), and a small model answers the part it called for. None where no
        clause is left so."""
        answering = self.answering
        if answering is None:
            return None
        held = [folded(value) for value in leaves(answering.made) if isinstance(value, str)]
        left = [
            name
            for name in self.request_names
            if not _DAY_NAMED.fullmatch(name) and not any(folded(name) in value for value in held)
        ]
        used = [
            tool
            for tool in tools
            if tool.name in answering.calls and tool.side_effect != "destructive"
        ]
        if not left or not used:
            return None
        parts = clauses(request, list(self.guessable))
        written = [re.compile(rf"(?<!\w){re.escape(name)}(?!\w)") for name in left]
        picked = [part for part in parts if any(name.search(part) for name in written)]
        if not picked or len(picked) == len(parts):
            return None
        return " ".join(picked), used

    def _about(self, request: RequestValues, tool: str) -> bool:
        """Whether `request` writes a word of the tool's name or documentation, long enough to
        tell (`TELLING_WORD` letters)."""
        documented = self.guessable.get(tool, NOTHING_GUESSABLE).documented
        return request.names(tool) or request.says(
            word for word in documented if len(word) >= TELLING_WORD
        )

    def names(self, tool: str) -> bool:
        """Whether the request the conversation ends with names `tool` (see `_named`)."""
        return self.request is not None and self._named(self.request, tool)

    def _named(self, request: RequestValues, tool: str) -> bool:
        """Whether `request` names `tool`, or writes a word its description alone writes."""
        return request.names(tool) or request.says(self.described.get(tool, ()))

    def part_taken_up(
        self, request: str, tool: str, arguments: Mapping[str, Any], tools: Sequence[str]
    ) -> str:
        """The clauses of `request` a call of `tool` (one of `tools`) took up: those holding a
        piece of what it asked (not its defaults), or where none does, those naming the tool
        ("cancel it" for the cancellation of an order found); the whole request where no
        clause, or each one, is taken up."""
        asked = self.guessable.get(tool, NOTHING_GUESSABLE).asked(arguments)
        taken = _clauses_picked(
            request,
            tools,
            self.today,
            lambda values: values.takes_up(asked, ()),
            lambda values: values.names(tool),
        )
        return request if taken is None else " ".join(taken).rstrip(",;: ")

    def follows_up(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call to a new request asks a tool the conversation called before for
        the same again, but for what the request says: every value that differs from the
        tool's last call holds a piece of the request, one of them new ("Europe/London" for
        "and in London?" after the time in Tokyo; "cups" for "and in cups?" after 3 gallons in
        liters). A value the request gives that no call held is a new part asked for. Or it
        asks a tool never called that the request names, acting on what results found
        (`_acts_on_found`)."""
        request, before = self.request, self.called.get(tool)
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        if request is None:
            return False
        if before is None:
            asked = parameters.asked(arguments)
            return self._acts_on_found(request, tool, asked) or self._named_look_up(
                request, tool, asked
            )
        asked, last = parameters.asked(arguments), parameters.asked(before)
        changed = {name: value for name, value in asked.items() if last.get(name) != value}
        return bool(changed) and request.extends(changed, [last])

    def _named_look_up(self, request: RequestValues, tool: str, asked: Mapping[str, Any]) -> bool:
        """Whether a call to a tool that changes nothing looks up what the request says, every
        value it asks (not a default) holding a piece of the request other than the words
        naming the tool: a tool reading a file the request names (`reads_a_file_named`), that
        file ("pyproject.toml" for "what version does pyproject.toml say?"); in a conversation
        that has called no tool, a tool the request names ("strict mode" in the notes for
        "what does strict mode do in toolwire")."""
        if tool in self.changing:
            return False
        paths = self.guessable.get(tool, NOTHING_GUESSABLE).paths
        if self.reads_a_file_named(tool) and any(name in paths for name in asked):
            named_files = all(
                folded(str(value)) in map(folded, self.request_files)
                for name, value in asked.items()
                if name in paths
            )
            return named_files and self._beyond(request, [tool]).extends(asked, ())
        if self.called or not self._named(request, tool):
            return False
        return self._beyond(request, [tool]).extends(asked, ())

    def reads_a_file_named(self, tool: str) -> bool:
        """Whether `tool` changes nothing and takes a file (a required parameter the schema
        names `path`, `file`...), and the request it would answer names one by its name with
        an extension or its folders, and names no tool that changes something: a question
        about a file the user names is the file's to answer ("what version does pyproject.toml
        say?"), which a small model makes up; "Create docs/faq.md" asks for a change."""
        request = self.request
        return (
            tool not in self.changing
            and bool(self.request_files)
            and bool(self.guessable.get(tool, NOTHING_GUESSABLE).paths)
            and request is not None
            and not self._asks_for_a_change(request)
        )

    def _asks_for_a_change(self, request: RequestValues) -> bool:
        """Whether `request` names a tool that changes something (see `_named`), or writes a
        word beginning as one of its name or its description alone does ("Create" for
        "creating its folders")."""
        written = stems(" ".join(request.words))
        return any(
            self._named(request, tool)
            or written & stems(" ".join([*name_words(tool), *self.described.get(tool, ())]))
            for tool in self.changing
        )

    def held_to_files(self, tool: ToolDefinition) -> ToolDefinition:
        """`tool` with the files it takes held to those the request names (see
        `reads_a_file_named`), for a call written on trial: the only call of it such a trial
        keeps, where a small model writes a path of its own ("src/weatherly/tools/read_file.py"
        for "show me units.py")."""
        properties = tool.parameters.get("properties")
        files = [name for name in self.request_files if not UNWRITABLE & set(name)]
        if (
            not self.reads_a_file_named(tool.name)
            or not isinstance(properties, Mapping)
            or not files
        ):
            return tool
        paths = self.guessable.get(tool.name, NOTHING_GUESSABLE).paths
        return held_to_patterns(tool, dict.fromkeys(paths, one_of(files)), properties)

    def held_to_records_named(
        self, tool: ToolDefinition, arguments: Mapping[str, Any]
    ) -> tuple[ToolDefinition, RecordsNamed] | None:
        """Where a call passes to an identifier (a parameter the schema names `id` or
        `..._id`) a record's identifier from a list the results hold, and the request names
        other records of that list and not that one (`records_named`; the words of the tool's
        name say what to do, not which record): `tool` with that parameter held to the
        identifiers of the records the request names, for the call written again on trial."""
        properties = tool.parameters.get("properties")
        if not self.returned or not isinstance(properties, Mapping):
            return None
        action = name_words(tool.name)
        named = records_named(
            self.returned,
            [word for word in self.request_words if word.casefold() not in action],
            arguments,
            [parameter for parameter in properties if identified(parameter)],
        )
        if named is None or any(UNWRITABLE & set(found) for found in named.identifiers):
            return None
        held = {named.parameter: one_of(named.identifiers)}
        return held_to_patterns(tool, held, properties), named

    def _acts_on_found(self, request: RequestValues, tool: str, asked: Mapping[str, Any]) -> bool:
        """Whether a call to a tool the conversation never called, which `request` names,
        acts on what earlier results found: every value it asks holds a piece of the request
        or is written whole by a result, one of them by a result and not the request
        ("ORD-10522", found before, for "change its shipping address to 12 Lake Rd")."""
        if not self.returned or not self._named(request, tool):
            return False
        by_results = writes_whole(self.returned)
        values = [value for value in leaves(asked) if not isinstance(value, bool)]

        def by_request(value: Any) -> bool:
            return request.takes_up({"value": value}, ())

        return all(by_results(value) or by_request(value) for value in values) and any(
            by_results(value) and not by_request(value) for value in values
        )

    def finders(self, tools: Sequence[ToolDefinition], parameter: str) -> list[ToolDefinition]:
        """Of `tools`, those whose name or documentation writes what `parameter`, an
        identifier, identifies (`identified`: "order" of `order_id`): where one was made up,
        the tools that deal in that thing are the ones to find it with, not whichever else
        takes a few words ("refund $15" is no product to search for). All of them where none
        does, or the parameter is no identifier."""
        thing = identified(parameter)
        if thing is None:
            return list(tools)
        wanted = {word[:STEM] for word in thing.split()}
        finding = [
            tool
            for tool in tools
            if wanted
            & {
                word[:STEM]
                for word in (
                    name_words(tool.name)
                    | self.guessable.get(tool.name, NOTHING_GUESSABLE).documented
                )
            }
        ]
        return finding or list(tools)

    def looks_up(self, tool: str, arguments: Mapping[str, Any], unfounded: Iterable[str]) -> bool:
        """Whether a call to a new request looks up what the request says beyond the action
        of the `unfounded` tools (those whose call lacked an identifier): a value the call asks
        (not a default) holds a piece of the request other than a word of their names
        ("dentist" to find the appointment `cancel_event` wants; not "order" for
        `refund_order`, which only says again what is to be done), or it turns on a flag the
        request asks for."""
        request = self.request
        if request is None:
            return False
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        asked = parameters.asked(arguments)
        if self._beyond(request, unfounded).takes_up(asked, ()):
            return True
        # A flag the request asks for is a piece of it too ("unread" for `unread_only`).
        return any(
            value is True
            and name in parameters.flags
            and self.asks_for(name, parameters.flags[name])
            for name, value in asked.items()
        )

    @staticmethod
    def _beyond(request: RequestValues, tools: Iterable[str]) -> RequestValues:
        """`request` without the words naming `tools`, which say what to do, not what with."""
        action = {word[:STEM] for name in tools for word in name_words(name)}
        return replace(request, words=frozenset(w for w in request.words if w[:STEM] not in action))

    def in_request_words(self, tool: ToolDefinition, held: Iterable[str]) -> ToolDefinition:
        """`tool` with its `held` parameters (free text it copied the description of, see
        `copied_descriptions`) held to words of the request, for a look-up written on trial
        again (`looks_up` keeps only one asking for a piece of the request): asked to look
        something up it cannot place, a small model writes the parameter's description ("what
        to look for, in a few words") however often it is refused."""
        properties = tool.parameters.get("properties")
        names = set(held)
        if not self.request_words or not isinstance(properties, Mapping) or not names:
            return tool
        word = f"({'|'.join(self.request_words)})"
        return held_to_patterns(tool, dict.fromkeys(names, f"^{word}([ ./_-]{word})*$"), properties)

    def fewer_words(self, tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
        """After tool results, each tool that is safe to call again (it changes nothing, or
        nothing more when repeated) whose one call since the request found nothing (failed, or
        returned an empty list, object or text) for free text of several words, with that text
        held to a run of fewer of them, for a call written on trial: a small model passes a
        search the request's words whole ("Chloe, candidate's portfolio", "cache tests"), which
        a search wanting every word finds nowhere, and shown that, answers that there is
        nothing rather than asking again with less. A word written as a possessive is held to
        the word alone ("Tom" of "Tom's budget review"), which any search finding the
        possessive finds too, so that text of one such word is asked again, and the run may
        hold them all. Asked once: a search that finds nothing with fewer words either is the
        answer."""
        answering = self.answering
        if answering is None:
            return []
        narrower = []
        for tool in tools:
            made = answering.calls.get(tool.name, ())
            properties = tool.parameters.get("properties")
            if (
                len(made) != 1
                or made[0] in answering.found
                or tool.side_effect == "destructive"
                or not isinstance(properties, Mapping)
            ):
                continue
            identifiers = self.guessable.get(tool.name, NOTHING_GUESSABLE).identifiers
            patterns = {
                name: fewer_of(words)
                for name, value in made[0].items()
                if name not in identifiers
                and free_text(properties.get(name))
                and isinstance(value, str)
                and (
                    len(words := searched_words(value)) > 1
                    or any(POSSESSIVE.search(word) for word in words)
                )
            }
            if patterns:
                narrower.append(held_to_patterns(tool, patterns, properties))
        return narrower

    def listed_left(self, request: str, tools: Sequence[ToolDefinition]) -> list[ToolDefinition]:
        """After tool results, each tool (not destructive) whose call since `request` found
        something for free text that is one item of a list the request writes (see
        `listed_beside`), with that text held to the list's items no call that found something
        holds, for a call written on trial: the request asks the same of each item, and a
        small model answers it for one ("São Paulo" of "Dubai and São Paulo", the first of two
        files to read)."""
        answering = self.answering
        if answering is None:
            return []
        held = [
            folded(value)
            for made in answering.found
            for value in leaves(made)
            if isinstance(value, str)
        ]
        listed = []
        for tool in tools:
            properties = tool.parameters.get("properties")
            if tool.side_effect == "destructive" or not isinstance(properties, Mapping):
                continue
            patterns = {}
            for made in answering.calls.get(tool.name, ()):
                if made not in answering.found:
                    continue
                for name, value in made.items():
                    if not isinstance(value, str) or not free_text(properties.get(name)):
                        continue
                    left = [
                        literal_words(item.split())
                        for item in listed_beside(request, value)
                        if not any(folded(item) in was for was in held)
                        and not UNWRITABLE & set(item)
                    ]
                    if left:
                        patterns[name] = f"^({'|'.join(left)})$"
            if patterns:
                listed.append(held_to_patterns(tool, patterns, properties))
        return listed

    def takes_up_part(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call made after tool results takes up a part of the request they answer
        that no call took up (see `RequestValues.extends`), by the values it asks (not its
        defaults, which the request need not write), beyond the words naming the tools (a
        file named "read_file" for "read the file" says again which tool, not what with)."""
        answering = self.answering
        if answering is None:
            return False
        asked = self.guessable.get(tool, NOTHING_GUESSABLE).asked(arguments)
        return self._beyond(answering.request, self.guessable).extends(asked, answering.found)

    def missing(self, tool: str, arguments: Mapping[str, Any]) -> str | None:
        """The required parameter a call passes a value only the user can give, and has not, if
        there is one: a number (no default) where the request (the last, which any results
        since answer) writes none, and the conversation never wrote that one ("convert my
        height to cm" is not 17 m); an identifier the conversation never wrote (see
        `_made_up_identifier`); a path nobody wrote, or holding only what another of its
        values holds (see `_repeats_required`); a date no user named, for a call that changes
        something; free text that is its parameter's description ("the text to find" for
        "search the code"), or an example of it where the request says more ("Asia/Tokyo" for
        Mumbai), the model copying the documentation. The right reply asks for it, or looks it
        up (`findable`). Where the request opens the conversation and refers to what nothing
        names ("What's 15% of it?"), any value the call passes for it is made up: a required
        parameter is missing (or, where none is required, the first it passes)."""
        request = self._answered_request
        if request is None:
            return None
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        if self.unreferenced is not None:
            return min(parameters.required, default=next(iter(arguments), None))
        needed = () if request.numbers else sorted(parameters.needed)
        made_up = [name for name in needed if self._made_up_number(arguments.get(name))]
        made_up += [
            name
            for name in sorted(parameters.identifiers)
            if name in arguments and self._made_up_identifier(arguments[name])
        ]
        made_up += [
            name
            for name in sorted(parameters.paths)
            if name in arguments
            and (
                self._made_up_path(arguments[name], (tool, name))
                or self._repeats_required(parameters, name, arguments[name], arguments)
            )
        ]
        made_up += [
            name
            for name in sorted(parameters.addresses)
            if name in arguments and self._made_up_address(arguments[name])
        ]
        if tool in self.changing:
            made_up += [
                name
                for name in sorted(parameters.required)
                if self._made_up_date(arguments.get(name))
            ]
        made_up += self.copied_descriptions(tool, arguments)
        made_up += self.copied_examples(tool, arguments)
        return made_up[0] if made_up else None

    def copied_descriptions(self, tool: str, arguments: Mapping[str, Any]) -> list[str]:
        """The required free-text parameters passed their own description (whole, or up to
        its examples), or words of their tool's name alone, which the conversation never
        wrote: the model copying the documentation ("the text to find"; "notes" as what to
        look for in the notes)."""
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        named = name_words(tool)
        return [
            name
            for name, said in sorted(parameters.described.items())
            if isinstance(value := arguments.get(name), str)
            and (folded(value) in said or set(folded(value).split()) <= named)
            and folded(value) not in self.said
        ]

    def copied_examples(self, tool: str, arguments: Mapping[str, Any]) -> list[str]:
        """The free-text parameters, required or not, of a tool that changes nothing, passed
        an example their description quotes, not their default, none of whose words the
        conversation writes or begins a word with ("Asia/Tokyo" for "what time is it in
        Mumbai", where "*.py" for "the python files" is the model's knowledge), while the
        request says something the call leaves out (`_says_more`): a small model copies an
        example where it cannot place the request's value; where it knows better, the
        conversation says something of it. So is a free-text default, passed by a call that
        asks nothing else, where the request names something the call leaves out ("UTC" for
        "what day is it in Auckland"; a word the request writes is no value of the user's
        where it is no name: "UTC" stays for "what time is it right now"). A call that
        changes something keeps its example: written again from the request's words, an
        optional value nobody gave becomes junk (a meeting's location "12.00" for "Zoom")."""
        if tool in self.changing:
            return []
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        copied = [
            name
            for name, offered in sorted(parameters.exemplified.items())
            if isinstance(value := arguments.get(name), str)
            and folded(value) in offered
            and not any(self._begins_a_word(word) for word in folded(value).split())
            and self._says_more(tool, arguments, self.request_words)
        ]
        if parameters.asked(arguments) or not self._says_more(tool, arguments, self.request_names):
            return copied
        return copied + [
            name
            for name, default in sorted(parameters.defaults.items())
            if isinstance(default, str)
            and arguments.get(name) == default
            and name not in parameters.choices
        ]

    def _says_more(self, tool: str, arguments: Mapping[str, Any], said: Iterable[str]) -> bool:
        """Whether the request writes a word of `said` of `TELLING_WORD` letters or more that
        no value of the call holds, nor the tool's name, its parameters' names or its
        documentation ("Mumbai", beside `current_time "Asia/Tokyo"`): a value of the user's
        the call left out. Where every word is placed ("the area of a circle with a radius of
        10"), an example passed is the model's choice of form, as the tool's author offered
        it."""
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        placed = {
            *folded(" ".join(str(value) for value in leaves(arguments))).split(),
            *name_words(tool),
            *parameters.parameter_words,
            *parameters.documented,
        }
        return any(
            len(word) >= TELLING_WORD
            and not any(
                known.startswith(word) or (len(known) >= TELLING_WORD and word.startswith(known))
                for known in placed
            )
            for word in (folded(written).strip() for written in said)
        )

    def _begins_a_word(self, start: str) -> bool:
        """Whether the conversation writes a word that is `start`, or begins with it."""
        return any(word.startswith(start) for word in self.words)

    def findable(self, tool: str, parameter: str) -> bool:
        """Whether the value of a parameter `missing` found may be looked up with another tool
        before the user is asked for it: an identifier ("cancel the dentist" names the event
        to find), or the path of a file to read ("the file with the failing test"); not a
        number only the user knows, nor where to write a new file, nor what a request refers
        to that nothing names."""
        if self.unreferenced is not None:
            return False
        parameters = self.guessable.get(tool, NOTHING_GUESSABLE)
        if parameter in parameters.paths:
            return tool not in self.changing
        return parameter in parameters.identifiers | parameters.addresses

    def copied_example(self, arguments: Mapping[str, Any]) -> str | None:
        """The value `arguments` pass that copies an example of the tools' documentation, if
        there is one: small models copy the examples of any tool they are shown, whole
        ("17 * 23", "ORD-10517") or in part ("165 * 23", "17 / 3"). A copy holds the example
        whole, or a number of it (two digits or more, not a power of ten) that the
        conversation never wrote."""
        for value in leaves(arguments):
            if not isinstance(value, str):
                continue
            digits = set(DIGITS.findall(value))
            if digits <= self.digit_runs:
                continue
            if value.strip().casefold() in self.examples or digits & self.example_numbers:
                return value
        return None

    def _given(self, parameters: Guessable, name: str, value: Any) -> bool:
        """Whether the conversation gave a scalar `value` (lists and objects count as given):
        an option mentioned, a string given, a number written (zero, the value of nothing
        done, always is)."""
        if isinstance(value, str):
            return self.mentions(value) if name in parameters.choices else self.gave(value)
        return value == 0 or not self._made_up_number(value)

    def _switched_off(
        self, parameters: Guessable, arguments: Mapping[str, Any], before: Mapping[str, Any]
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
            f" from{folded(target)}to{folded(source)}" in self.said
            and f" from{folded(source)}" not in self.said
        )

    def unit_written(self, unit: Unit, arguments: Mapping[str, Any]) -> str | None:
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

    def _unit_unnamed(self, value: Any) -> bool:
        unit = known_unit(value) if isinstance(value, str) else None
        return unit is not None and not unit_roots(unit[1]) <= self.units

    def gave(self, value: str) -> bool:
        """Whether the conversation holds `value` whole, or a telling word of it."""
        written = folded(value)
        telling = {word for word in written.split() if len(word) >= TELLING_WORD}
        return written in self.said or bool(telling & self.words)

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

    def _made_up_identifier(self, value: Any) -> bool:
        """Whether an identifier is one the conversation never wrote: not whole, and not its
        digits ("order 10517" gives "ORD-10517")."""
        if not isinstance(value, str):
            return False
        digits = set(DIGITS.findall(value))
        return folded(value).strip() not in self.said and not (digits and digits <= self.digit_runs)

    def _made_up_path(self, value: Any, names: tuple[str, str]) -> bool:
        """Whether a file's path is one the conversation never wrote: not whole, not the file's
        name ("cache.py" for "src/weatherly/cache.py"), and not that name less its extension as
        a word of the request ("the changelog" for "CHANGELOG.md") other than a word of the
        tool's or the parameter's `names` ("the file" says which tool, not which file). No
        model knows the user's files: "read the file" is not "weatherly/weather.txt"."""
        if not isinstance(value, str) or not value.strip():
            return False
        name = _PATH_SEPARATOR.split(value.strip().rstrip("/\\"))[-1]
        if folded(value) in self.said or (name and folded(name) in self.said):
            return False
        naming = set(_NAME_BREAKS.split(spelled_out(" ".join(names)).casefold()))
        stem = name.split(".")[0].casefold()
        return stem in naming or stem not in {word.casefold() for word in self.request_words}

    def _made_up_address(self, value: Any) -> bool:
        """Whether a value holds an email address the conversation never wrote: no model knows
        the addresses of the user's contacts ("lena@example.com" for "email Lena")."""
        return any(
            folded(address) not in self.said
            for text in leaves(value)
            if isinstance(text, str)
            for address in _ADDRESS.findall(text)
        )

    def _names_parameter(self, parameters: Guessable, name: str, value: Any) -> bool:
        """Whether free text writes the name of another of the tool's parameters, as coined,
        which the conversation never writes: the model put the schema in the value
        (`query="unread_only: true"` beside `unread_only=true`)."""
        return isinstance(value, str) and any(
            other != name
            and re.search(rf"(?<!\w){re.escape(other)}(?!\w)", value)
            and folded(other) not in self.said
            for other in parameters.coined
        )

    def _repeats_required(
        self, parameters: Guessable, name: str, value: Any, arguments: Mapping[str, Any]
    ) -> bool:
        """Whether a value holds only what another required parameter of the call holds of
        the request, which writes it once (`RequestValues.repeats`): "*httpx*" as the files'
        pattern of a code search for "httpx" narrows the search to files named so, which
        nobody asked; "hello world" as the path of a file whose content is to be 'hello world'
        is a file nobody named."""
        request = self._answered_request
        required = [
            arguments[other] for other in parameters.required - {name} if other in arguments
        ]
        return request is not None and request.repeats(value, required)

    def _documentation_only(self, parameters: Guessable, value: Any) -> bool:
        """Whether free text is the tool's documentation, not the user's: words its prose writes
        that the conversation never mentions ("pytest" for "run the tests"), or never writes
        together ("test file or folder", a description, for "does the test suite pass?"). An
        option of an `enum` nobody mentioned is left to its default alike."""
        if not isinstance(value, str) or not (words := folded(value).split()):
            return False
        if not set(words) <= parameters.documented:
            return False
        return not self.mentions(value) or (len(words) > 1 and folded(value) not in self.said)

    def _made_up_date(self, value: Any) -> bool:
        return isinstance(value, str) and not self.names_day and bool(_ISO_DATE.fullmatch(value))

    def _made_up_inside(self, value: Any) -> bool:
        """Whether a list or an object holds a string the conversation never gave, or a number
        it never wrote."""
        return any(
            (isinstance(leaf, str) and not self.gave(leaf)) or self._made_up_number(leaf)
            for leaf in leaves(value)
        )

    def asks_for(self, name: str, flag: Flag) -> bool:
        """Whether the conversation mentions a word of the flag's name ("first" for `first`,
        "homemade" for `isHomemade`), or two telling words of what its description says it does
        ("the match statistics" for "include match statistics like possession")."""
        return self.mentions(spelled_out(name)) or len(flag.cues & self.stems) >= 2

    def asks_here(self, name: str, flag: Flag, arguments: Mapping[str, Any]) -> bool:
        """Whether the request asks for the flag (`asks_for`) nearer to a value of `arguments`
        than to any other value it writes, and never in the negative. The words of its name
        place it, else those of its description: "the last match of 'Manchester United'" is no
        place to ask for match statistics."""
        request = self.request
        if request is None or not self.asks_for(name, flag):
            return False
        here = [at for at in self._flag_mentions(name, flag) if request.nearest_held(at, arguments)]
        return bool(here) and not any(negated(request.text, at) for at in here)

    def varies(self, name: str, flag: Flag) -> bool:
        """Whether the request mentions the flag in the negative or as a condition ("what if
        the process is not isothermal", "if we allow transfer"): a call with it and another
        without ask two things."""
        request = self.request
        return request is not None and any(
            negated(request.text, at, _VARIATION) for at in self._flag_mentions(name, flag)
        )

    def _flag_mentions(self, name: str, flag: Flag) -> list[int]:
        """Where the request writes a word of the flag's name, else of its description."""
        text = self.request.text if self.request is not None else ""

        def found(stems: Iterable[str]) -> list[int]:
            return [
                at.start()
                for stem in stems
                for at in re.finditer(rf"(?<!\w){re.escape(stem)}", text)
            ]

        return found(stems(spelled_out(name))) or found(flag.cues)

    def _option_named(self, options: Iterable[str], arguments: Mapping[str, Any]) -> str | None:
        """The one option of `options` the request writes as a word, which no value of
        `arguments` is, if there is one: the value the user chose, as the schema spells it."""
        request = self._answered_request
        if request is None:
            return None
        written = folded(request.text)
        taken = {folded(value) for value in arguments.values() if isinstance(value, str)}
        named = [
            option
            for option in options
            if folded(option) not in taken and folded(option) in written
        ]
        return named[0] if len(named) == 1 else None

    def mentions(self, option: str) -> bool:
        """Whether the conversation holds `option` whole, or a word like a telling word of it."""
        written = folded(option)
        return written in self.said or any(
            word[:STEM] in self.stems for word in written.split() if len(word) >= TELLING_WORD
        )


def _clauses_picked(
    request: str,
    tool_names: Sequence[str],
    today: date | None,
    *picks: Callable[[RequestValues], bool],
) -> list[str] | None:
    """The clauses of `request` (see `clauses`) that the first of `picks` to keep any keeps;
    None where the request is one clause, or that pick keeps each one or no pick keeps any."""
    parts = clauses(request, tool_names)
    if len(parts) < 2:
        return None
    said = [(part, RequestValues.of(part, tool_names, today)) for part in parts]
    for pick in picks:
        picked = [part for part, values in said if pick(values)]
        if picked:
            return picked if len(picked) < len(parts) else None
    return None


def _numbers(arguments: Mapping[str, Any]) -> set[float]:
    """The numbers a call passes, on their own or in a list."""
    return {
        number
        for value in arguments.values()
        for number in (value if isinstance(value, list) else [value])
        if isinstance(number, int | float) and not isinstance(number, bool)
    }


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
            elif isinstance(now, str):
                why = "the request names it"
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
