"""The answer a follow-up leans on, written out beside it for a small model.

A follow-up leans on what came before: "add 6" after the answer 144, "in feet" after "10 km =
6.21371 miles". The answer is in the conversation already, but a model of a billion parameters
or less reads a short request on its own: it calculates `6 + 6`, or, shown the calculation
`12 * 12 = 144`, `12 + 6`. Where the request a conversation ends with follows an answer made
from tool results, and that answer is short (`RECALLED_CHARACTERS`), it is written after the
request as a note ("(last answer: 144)"); a longer answer (a list of orders) would only repeat
the prompt's bulk. The model still chooses whether and how to use it; nothing it writes is
changed. Once the request has results of its own, the note is gone, as the notes of dates are
(see `_dates`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...messages import Message, TextPart
from ._relevance import last_request

__all__ = ["RECALLED_CHARACTERS", "with_last_answer"]

RECALLED_CHARACTERS = 160


def with_last_answer(messages: Sequence[Message]) -> tuple[Message, ...]:
    """`messages` with a note after the request they end with giving the answer before it,
    where that answer was made from tool results and is short; as they are otherwise."""
    request = last_request(messages)
    answer = _answer_from_results(messages[:-1])
    if request is None or answer is None:
        return tuple(messages)
    if not all(isinstance(part, TextPart) for part in request.parts):
        return tuple(messages)
    noted = TextPart(text=f"{request.text}\n\n(last answer: {answer})")
    return (*messages[:-1], dataclasses.replace(request, parts=(noted,)))


def _answer_from_results(earlier: Sequence[Message]) -> str | None:
    """The answer `earlier` ends with, its lines joined, if tool results came before it since
    the request it answers, and it is short."""
    if not earlier or earlier[-1].role != "assistant" or earlier[-1].tool_calls:
        return None
    answer = "; ".join(line.strip() for line in earlier[-1].text.splitlines() if line.strip())
    if not answer or len(answer) > RECALLED_CHARACTERS:
        return None
    for message in reversed(earlier[:-1]):
        if message.tool_results:
            return answer
        if message.role == "user":
            return None
    return None
