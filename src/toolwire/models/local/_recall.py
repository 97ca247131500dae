"""The last result before a follow-up, written out beside it for a small model.

A follow-up leans on what came before: "add 6" after `12 * 12 = 144`, "in feet" after
`10 km = 6.21371 miles`. The result is in the conversation already, but a model of a billion
parameters or less reads a short request on its own: it calculates `6 + 6`. Where the request a
conversation ends with follows tool results, and those results are short (one line each,
`RECALLED_CHARACTERS` in all), they are written after it as a note ("(last result: 12 * 12 =
144)"); longer results (a list of orders) would only repeat the prompt's bulk. The model still
chooses whether and how to use them; nothing it writes is changed. Once the request has results
of its own, the note is gone, as the notes of dates are (see `_dates`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ...messages import Message, TextPart
from ._relevance import last_request

__all__ = ["RECALLED_CHARACTERS", "with_last_result"]

RECALLED_CHARACTERS = 160


def with_last_result(messages: Sequence[Message]) -> tuple[Message, ...]:
    """`messages` with a note after the request they end with giving the last results before
    it, where there are some and they are short; as they are otherwise."""
    request = last_request(messages)
    if request is None or not all(isinstance(part, TextPart) for part in request.parts):
        return tuple(messages)
    earlier = next((m for m in reversed(messages[:-1]) if m.tool_results), None)
    if earlier is None:
        return tuple(messages)
    results = [result.content.strip() for result in earlier.tool_results]
    recalled = "; ".join(results)
    if any("\n" in result for result in results) or len(recalled) > RECALLED_CHARACTERS:
        return tuple(messages)
    noun = "result" if len(results) == 1 else "results"
    noted = TextPart(text=f"{request.text}\n\n(last {noun}: {recalled})")
    return (*messages[:-1], dataclasses.replace(request, parts=(noted,)))
