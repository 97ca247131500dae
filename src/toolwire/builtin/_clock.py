"""The current date and time in a time zone (IANA names, through zoneinfo)."""

from __future__ import annotations

import datetime
import difflib
import zoneinfo
from collections.abc import Callable

from ..errors import ToolError
from ..tools import tool

__all__ = ["current_time", "describe_time"]

_ALIASES = {"utc": "UTC", "gmt": "UTC", "z": "UTC"}


def describe_time(timezone: str, now: Callable[[], datetime.datetime]) -> str:
    zone = _zone(timezone)
    moment = now().astimezone(zone)
    offset = moment.strftime("%z")
    # One ISO date and time with the weekday: every fact once, since each token of a result is
    # evaluated again by a local model in the step that reads it.
    return (
        f"{moment.strftime('%A %Y-%m-%d %H:%M:%S')} in {zone.key} "
        f"(UTC{offset[:3]}:{offset[3:]}, {moment.tzname()})"
    )


def _zone(name: str) -> zoneinfo.ZoneInfo:
    key = _ALIASES.get(name.strip().lower(), name.strip().replace(" ", "_"))
    try:
        return zoneinfo.ZoneInfo(key)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        pass
    names = zoneinfo.available_timezones()
    by_lower = {n.lower(): n for n in names}
    if key.lower() in by_lower:
        return zoneinfo.ZoneInfo(by_lower[key.lower()])
    # "Paris" or "new york": the zone whose city part matches.
    city = key.lower()
    cities = {n.rsplit("/", 1)[-1].lower(): n for n in names if "/" in n}
    if city in cities:
        return zoneinfo.ZoneInfo(cities[city])
    close = difflib.get_close_matches(key, sorted(names), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else " (e.g. Europe/Paris, UTC)"
    raise ToolError(f"unknown time zone {name!r}: use an IANA name{hint}")


@tool(side_effect="read_only")
def current_time(timezone: str = "UTC") -> str:
    """The current date, time and weekday in a time zone.

    Args:
        timezone: an IANA time zone such as "Europe/Paris", "America/New_York", "Asia/Tokyo"
            or "UTC" (a city name such as "Paris" also works)
    """
    return describe_time(timezone, lambda: datetime.datetime.now(datetime.UTC))
