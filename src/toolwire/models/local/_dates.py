"""The dates a request's day words stand for, written out beside it for a small model.

An application tells the model the date ("Today is Tuesday 2026-03-10"), and a tool takes an
ISO date; the user says "tomorrow", "on Friday", "next Tuesday". A model of a billion parameters
or less cannot count days: it passes today's date, or one it makes up. Given the date the
conversation states, each day word of the request a conversation ends with is resolved here by
the calendar and the dates are written after it as a note ("(tomorrow: Wednesday 2026-03-11)"),
so that the model copies the date instead of counting. The model still chooses whether and where
to use it; nothing it writes is changed. Once the request has results, the note is gone: a small
model answering after it copies the note as its answer.

Where no message states today's date, nothing is added: the model layer does not guess it.
"""

from __future__ import annotations

import dataclasses
import datetime
import re
from collections.abc import Sequence

from ...messages import Message, TextPart
from ._relevance import last_request

__all__ = ["relative_days", "stated_today", "weekdays_of", "with_dates"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
"""The days of the week, in the order of `datetime.date.weekday`."""
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_STATED_TODAY = re.compile(
    r"\b(?:today|current date|date today)\b[^.\n\d]{0,40}(\d{4})-(\d{2})-(\d{2})", re.IGNORECASE
)
"""Where a message states today's date: "Today is Tuesday 2026-03-10", "Current date: ..."."""
_DAY_WORD = re.compile(
    r"\b(?:(?P<relative>the day after tomorrow|day after tomorrow|tomorrow|yesterday|today|"
    r"tonight)|(?:(?P<which>this|next|last|coming)\s+)?(?P<weekday>" + "|".join(_WEEKDAYS) + r")"
    r"(?!\s+\d))\b",
    re.IGNORECASE,
)
"""A day the user names by its relation to today; a weekday followed by a number is a date
written out ("Monday 16 March"), which needs no note."""
_RELATIVE_DAYS = {
    "the day after tomorrow": 2,
    "day after tomorrow": 2,
    "tomorrow": 1,
    "yesterday": -1,
    "today": 0,
    "tonight": 0,
}


def with_dates(messages: Sequence[Message]) -> tuple[Message, ...]:
    """`messages` with a note after the request they end with, if it names days by their
    relation to today, giving their dates, where a message states today's date; as they are
    otherwise."""
    request = last_request(messages)
    today = stated_today(messages) if request is not None else None
    if today is None:
        return tuple(messages)
    return (*messages[:-1], _noted(messages[-1], today))


def stated_today(messages: Sequence[Message]) -> datetime.date | None:
    """The date a system or user message states as today's, if one does."""
    for message in messages:
        if message.role not in ("system", "user") or message.tool_results:
            continue
        found = _STATED_TODAY.search(message.text)
        if found is not None:
            try:
                return datetime.date(*(int(part) for part in found.groups()))
            except ValueError:
                return None
    return None


def relative_days(text: str, today: datetime.date) -> dict[str, str]:
    """The words of `text` naming a day by its relation to today alone ("tomorrow"), each with
    the ISO date it stands for; not a weekday, which any date on that day holds (see
    `weekdays_of`), nor a phrase of several words ("the day after tomorrow")."""
    return {
        relative: (today + datetime.timedelta(days=_RELATIVE_DAYS[relative])).isoformat()
        for found in _DAY_WORD.finditer(text)
        if (relative := (found.group("relative") or "").lower()) and " " not in relative
    }


def weekdays_of(text: str) -> set[str]:
    """The days of the week of the dates `text` writes ("thursday" of "2026-03-12"): a date is
    the day a request names by its weekday ("cancel the dentist on thursday")."""
    days = set()
    for year, month, day in _ISO_DATE.findall(text):
        try:
            days.add(_WEEKDAYS[datetime.date(int(year), int(month), int(day)).weekday()])
        except ValueError:
            continue  # no such day: "2026-02-30"
    return days


def _noted(message: Message, today: datetime.date) -> Message:
    if not all(isinstance(part, TextPart) for part in message.parts):
        return message
    dates: dict[str, datetime.date] = {}
    for found in _DAY_WORD.finditer(message.text):
        dates.setdefault(found.group().lower(), _resolve(found, today))
    if not dates:
        return message
    said = "; ".join(f"{words}: {day:%A} {day.isoformat()}" for words, day in dates.items())
    return dataclasses.replace(message, parts=(TextPart(text=f"{message.text}\n\n({said})"),))


def _resolve(found: re.Match[str], today: datetime.date) -> datetime.date:
    relative = found.group("relative")
    if relative is not None:
        return today + datetime.timedelta(days=_RELATIVE_DAYS[relative.lower()])
    weekday = _WEEKDAYS.index(found.group("weekday").lower())
    ahead = (weekday - today.weekday()) % 7
    which = (found.group("which") or "").lower()
    if which == "last":
        return today - datetime.timedelta(days=(today.weekday() - weekday) % 7 or 7)
    if which in ("next", "coming"):
        ahead = ahead or 7
    return today + datetime.timedelta(days=ahead)
