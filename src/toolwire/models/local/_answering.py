"""Where a conversation ends with tool results: the request they answer, and the calls since.

A call written after results is judged against them, not only against the request: handing a
tool back what it returned, or asking it again what it was asked, narrowed by what it found,
asks nothing new; a call that found nothing took up no part of the request.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from ...messages import Message, ToolResult
from ._coverage import RequestValues, leaves
from ._relevance import last_question
from ._schema_reading import NOTHING_GUESSABLE, Guessable
from ._wording import NUMBER, folded

__all__ = ["Answering", "answering_of", "echoes", "found_nothing", "writes_whole"]

_NOTHING_FOUND = frozenset(["", "[]", "{}", "null", '""'])
"""What a tool returns that found nothing."""


@dataclass(frozen=True, slots=True)
class Answering:
    request: RequestValues
    """The last question, which the calls since answer."""
    made: tuple[Mapping[str, Any], ...]
    """The arguments of those calls."""
    asked: tuple[Mapping[str, Any], ...]
    """The same, less the values that are their tools' defaults."""
    results: Mapping[str, tuple[str, ...]]
    """By tool name: what the tool returned to them."""
    returned: Mapping[str, tuple[str, ...]]
    """The same, but for the calls that failed: an error's suggestion ("did you mean
    America/New_York?") is a step on, not an answer."""
    failed: bool
    """Whether one of them failed."""
    calls: Mapping[str, tuple[Mapping[str, Any], ...]] = field(default_factory=dict)
    """By tool name: the arguments of its calls among them."""
    found: tuple[Mapping[str, Any], ...] = ()
    """The arguments of those calls that found something: neither failed nor returned
    nothing (an empty list, object or text). A call that found nothing took up no part of the
    request: a log of a path the model made up ("tests/src/weatherly/tests.py") has not shown
    "what files are in src/weatherly"."""

    def narrowed(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call asks `tool` again what one of its calls among them asked, each value
        that differs holding that call's value whole, or, where that call passed none, written
        whole by the tool's results, and no piece of the request that no call held but in a
        value its results wrote whole: a search narrowed by what it found ("Priya Natarajan"
        after "Priya" for "emails from Priya"; "Omar Said" and a file of his commit after
        "Omar" for "what did Omar Said commit?", a name the log wrote), a listing of one of the
        files listed ("src/weatherly/__init__.py" after "src"). What the request asked of the
        tool is answered; such a call asks the tool about its own result."""
        found = writes_whole(self.results.get(tool, ()))
        for earlier in self.calls.get(tool, ()):
            changed = {
                name: value for name, value in arguments.items() if earlier.get(name) != value
            }
            holding = {name for name, value in changed.items() if _holds(value, earlier.get(name))}
            if not changed or not all(
                name in holding or (name not in earlier and found(value))
                for name, value in changed.items()
            ):
                continue
            # A name completed from the results: the request's rest of it is what they found.
            new = {
                name: value
                for name, value in changed.items()
                if not (name in holding and found(value))
            }
            if not self.request.takes_up(new, self.made):
                return True
        return False


def _holds(value: Any, earlier: Any) -> bool:
    """Whether text holds an earlier call's text whole ("Omar Said" holds "Omar")."""
    return (
        isinstance(value, str)
        and isinstance(earlier, str)
        and bool(folded(earlier).strip())
        and folded(earlier) in folded(value)
    )


def answering_of(
    messages: Sequence[Message], guessable: Mapping[str, Guessable], today: date | None = None
) -> Answering | None:
    asked = last_question(messages)
    if asked is None:
        return None
    request = RequestValues.of(messages[asked].text, list(guessable), today)
    since = messages[asked + 1 :]
    calls = [call for message in since for call in message.tool_calls]
    made = tuple(call.arguments for call in calls)
    if not made:
        return None
    undefaulted = tuple(
        guessable.get(call.name, NOTHING_GUESSABLE).asked(call.arguments) for call in calls
    )
    results: dict[str, tuple[str, ...]] = {}
    returned: dict[str, tuple[str, ...]] = {}
    failed = False
    empty: set[str] = set()
    for message in since:
        for result in message.tool_results:
            results[result.name] = (*results.get(result.name, ()), result.content)
            if not result.is_error:
                returned[result.name] = (*returned.get(result.name, ()), result.content)
            failed = failed or result.is_error
            if found_nothing(result):
                empty.add(result.call_id)
    by_tool: dict[str, tuple[Mapping[str, Any], ...]] = {}
    for call in calls:
        by_tool[call.name] = (*by_tool.get(call.name, ()), call.arguments)
    found = tuple(call.arguments for call in calls if call.id not in empty)
    return Answering(request, made, undefaulted, results, returned, failed, by_tool, found)


def found_nothing(result: ToolResult) -> bool:
    """Whether a call found nothing: it failed, or returned an empty list, object or text."""
    return result.is_error or result.content.strip() in _NOTHING_FOUND


def echoes(arguments: Mapping[str, Any], returned: Iterable[str], request: RequestValues) -> bool:
    """Whether every value `arguments` pass is one that `returned` write: a number alone
    ("12" to the calculator that answered "15 * 80 / 100 = 12"), or text written there whole,
    not as a part of a path or a name, that holds no piece of the request ("Asia/Kolkata" to
    the clock that answered "in Asia/Kolkata" for "Mumbai")."""
    values = [value for value in leaves(arguments) if not isinstance(value, bool)]
    writes = writes_whole(returned)

    def echoed(value: Any) -> bool:
        number = NUMBER.fullmatch(str(value).strip()) is not None
        return writes(value) and (number or not request.takes_up({"value": value}, ()))

    return bool(values) and all(map(echoed, values))


def writes_whole(returned: Iterable[str]) -> Callable[[Any], bool]:
    """Whether the results `returned` write a value: a number among theirs, or text whole, not
    a part of a path or a name they wrote ("weatherly" of "src/weatherly/cache.py" is a folder
    to look in)."""
    texts = list(returned)
    numbers = {number for text in texts for number in NUMBER.findall(text)}
    written = "\n".join(texts)

    def writes(value: Any) -> bool:
        text = str(value).strip()
        if NUMBER.fullmatch(text):
            return text in numbers
        whole = rf"(?<![\w/.-]){re.escape(text)}(?![\w/.-])"
        return (
            isinstance(value, str)
            and bool(text)
            and re.search(whole, written, re.IGNORECASE) is not None
        )

    return writes
