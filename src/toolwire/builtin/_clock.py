"""The current date and time in a time zone (IANA names, through zoneinfo), or in a city or a
country as people name them."""

from __future__ import annotations

import datetime
import difflib
import functools
import importlib.resources
import re
import unicodedata
import zoneinfo
from collections.abc import Callable, Iterator
from pathlib import Path

from ..errors import ToolError
from ..tools import Tool, tool

__all__ = ["clock_tool", "current_time", "describe_time"]

_ALIASES = {"utc": "UTC", "gmt": "UTC", "z": "UTC"}

# People name cities, and zoneinfo names only one city per zone: the large cities whose zone is
# named after another one.
_CITY_ZONES = {
    **dict.fromkeys(
        [
            "mumbai",
            "bombay",
            "delhi",
            "new delhi",
            "bangalore",
            "bengaluru",
            "chennai",
            "hyderabad",
            "pune",
            "ahmedabad",
            "calcutta",
            "india",
        ],
        "Asia/Kolkata",
    ),
    **dict.fromkeys(
        ["beijing", "shenzhen", "guangzhou", "chengdu", "wuhan", "hangzhou", "china"],
        "Asia/Shanghai",
    ),
    **dict.fromkeys(["osaka", "kyoto", "yokohama"], "Asia/Tokyo"),
    **dict.fromkeys(["busan", "incheon"], "Asia/Seoul"),
    **dict.fromkeys(["hanoi", "saigon", "vietnam"], "Asia/Ho_Chi_Minh"),
    **dict.fromkeys(["abu dhabi", "sharjah"], "Asia/Dubai"),
    **dict.fromkeys(["tel aviv", "haifa"], "Asia/Jerusalem"),
    **dict.fromkeys(["islamabad", "lahore"], "Asia/Karachi"),
    **dict.fromkeys(
        [
            "san francisco",
            "seattle",
            "san diego",
            "san jose",
            "portland",
            "las vegas",
            "silicon valley",
            "california",
        ],
        "America/Los_Angeles",
    ),
    **dict.fromkeys(["salt lake city", "albuquerque"], "America/Denver"),
    **dict.fromkeys(
        [
            "dallas",
            "houston",
            "austin",
            "san antonio",
            "minneapolis",
            "new orleans",
            "st louis",
            "saint louis",
            "texas",
        ],
        "America/Chicago",
    ),
    **dict.fromkeys(
        [
            "washington",
            "washington dc",
            "boston",
            "miami",
            "atlanta",
            "philadelphia",
            "baltimore",
            "pittsburgh",
            "orlando",
            "charlotte",
            "nyc",
        ],
        "America/New_York",
    ),
    **dict.fromkeys(["montreal", "ottawa", "quebec"], "America/Toronto"),
    **dict.fromkeys(["rio de janeiro", "rio", "brasilia", "brazil"], "America/Sao_Paulo"),
    **dict.fromkeys(["munich", "frankfurt", "hamburg", "cologne", "germany"], "Europe/Berlin"),
    **dict.fromkeys(["barcelona", "seville", "valencia", "spain"], "Europe/Madrid"),
    **dict.fromkeys(["milan", "venice", "florence", "naples", "italy"], "Europe/Rome"),
    **dict.fromkeys(["geneva", "basel", "bern", "switzerland"], "Europe/Zurich"),
    **dict.fromkeys(["st petersburg", "saint petersburg"], "Europe/Moscow"),
    **dict.fromkeys(
        ["edinburgh", "manchester", "glasgow", "birmingham", "liverpool", "uk", "england"],
        "Europe/London",
    ),
    **dict.fromkeys(["lyon", "marseille", "nice", "france"], "Europe/Paris"),
    **dict.fromkeys(["cape town", "durban", "pretoria"], "Africa/Johannesburg"),
    **dict.fromkeys(["canberra"], "Australia/Sydney"),
    **dict.fromkeys(["wellington"], "Pacific/Auckland"),
}


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
    for spelling in _spellings(name):
        zone = _known_zone(spelling)
        if zone is not None:
            return zone
    names = zoneinfo.available_timezones()
    close = difflib.get_close_matches(name.strip(), sorted(names), n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else " (e.g. Europe/Paris, UTC)"
    raise ToolError(f"unknown time zone {name!r}: use an IANA name{hint}")


def _spellings(name: str) -> list[str]:
    """The name as given, without accents ("São Paulo"), and each part of a place written
    with its country ("Sydney, Australia")."""
    plain = _without_accents(name).strip()
    return [name.strip(), plain, *(part.strip() for part in plain.split(",") if part.strip())]


def _without_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _known_zone(name: str) -> zoneinfo.ZoneInfo | None:
    key = _ALIASES.get(name.lower(), name.replace(" ", "_"))
    try:
        return zoneinfo.ZoneInfo(key)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # "Canada" is a folder
        pass
    names = zoneinfo.available_timezones()
    by_lower = {n.lower(): n for n in names}
    if key.lower() in by_lower:
        return zoneinfo.ZoneInfo(by_lower[key.lower()])
    # "Paris", "new york", "Mumbai" or a made-up "Asia/Mumbai": the zone of the city part.
    city = key.rsplit("/", 1)[-1].lower()
    cities = {n.rsplit("/", 1)[-1].lower(): n for n in names if "/" in n}
    spoken = city.replace("_", " ").replace(".", "")
    zone = cities.get(city) or _CITY_ZONES.get(spoken) or _country_zones().get(spoken)
    return None if zone is None else zoneinfo.ZoneInfo(zone)


# The zone a country's table line says covers most of it, or all of it but islands.
_MAIN_ZONE = re.compile(r"^most of |\(mainland\)$")


@functools.cache
def _country_zones() -> dict[str, str]:
    """By country name ("japan", "new zealand", "south korea"), the zone of a country with one,
    or whose first zone the time zone database says covers most of it; none for the countries
    whose zones split them (the United States, Canada, Australia, Russia). Empty where no copy
    of the database's tables is installed."""
    tables = _zone_tables()
    if tables is None:
        return {}
    countries, zones = tables
    by_code: dict[str, list[tuple[str, str]]] = {}
    for line in zones.splitlines():
        fields = line.split("\t")
        if len(fields) >= 3 and not line.startswith("#"):
            by_code.setdefault(fields[0], []).append((fields[2], (fields[3:] or [""])[0]))
    found: dict[str, set[str]] = {}
    for line in countries.splitlines():
        code, _, name = line.partition("\t")
        listed = by_code.get(code, [])
        if line.startswith("#") or not listed:
            continue
        zone, comment = listed[0]
        if len(listed) == 1 or _MAIN_ZONE.search(comment):
            for spoken in _country_names(name.strip()):
                found.setdefault(spoken, set()).add(zone)
    # "Korea" and "Congo" name two countries each, in two zones: neither is meant.
    return {spoken: zone for spoken, (zone, *others) in found.items() if not others}


def _country_names(name: str) -> Iterator[str]:
    """How people write a country the table names "Korea (South)": "korea", "south korea"."""
    plain = _without_accents(name).lower()
    base, _, qualifier = plain.partition(" (")
    yield base.replace(".", "")
    if qualifier:
        yield f"{qualifier.rstrip(')')} {base}".replace(".", "")


def _zone_tables() -> tuple[str, str] | None:
    """The time zone database's country table (`iso3166.tab`) and zone table (`zone.tab`),
    from the system's copy zoneinfo reads, else the `tzdata` package's."""
    for directory in map(Path, zoneinfo.TZPATH):
        try:
            return (directory / "iso3166.tab").read_text(), (directory / "zone.tab").read_text()
        except OSError:
            continue
    try:
        package = importlib.resources.files("tzdata") / "zoneinfo"
        return (package / "iso3166.tab").read_text(), (package / "zone.tab").read_text()
    except (ModuleNotFoundError, OSError):
        return None


def _utc_now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def clock_tool(now: Callable[[], datetime.datetime] = _utc_now) -> Tool:
    """The `current_time` tool, reading the time from `now`: a fixed moment makes a run that
    asks the time repeatable (a test, a benchmark)."""

    @tool(side_effect="read_only")
    def current_time(timezone: str = "UTC") -> str:
        """The current date, time and weekday in a time zone.

        Args:
            timezone: an IANA time zone such as "Europe/Paris", "America/New_York", "Asia/Tokyo"
                or "UTC" (a city name such as "Paris" also works)
        """
        return describe_time(timezone, now)

    return current_time


current_time = clock_tool()
