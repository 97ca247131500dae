"""Unit conversion between units of one kind: length, mass, volume, time, speed, area, data
size, and temperature (which is offset, not only scaled)."""

from __future__ import annotations

import re

from ..errors import ToolError
from ..tools import tool

__all__ = ["convert", "convert_units", "known_unit"]

# kind -> {unit: size in the kind's base unit}; each unit's spellings map to it below.
_SCALES: dict[str, dict[str, float]] = {
    "length": {
        "m": 1.0, "km": 1000.0, "cm": 0.01, "mm": 0.001, "um": 1e-6, "nm": 1e-9,
        "mi": 1609.344, "yd": 0.9144, "ft": 0.3048, "in": 0.0254, "nmi": 1852.0,
    },
    "mass": {
        "kg": 1.0, "g": 0.001, "mg": 1e-6, "t": 1000.0, "lb": 0.45359237, "oz": 0.028349523125,
        "st": 6.35029318,
    },
    "volume": {
        "l": 1.0, "ml": 0.001, "cl": 0.01, "dl": 0.1, "m3": 1000.0, "cm3": 0.001,
        "gal": 3.785411784, "qt": 0.946352946, "pt": 0.473176473, "cup": 0.2365882365,
        "floz": 0.0295735295625, "impgal": 4.54609,
    },
    "time": {
        "s": 1.0, "ms": 0.001, "min": 60.0, "h": 3600.0, "day": 86400.0, "week": 604800.0,
        "year": 31557600.0,
    },
    "speed": {"m/s": 1.0, "km/h": 1000 / 3600, "mph": 1609.344 / 3600, "kn": 1852 / 3600,
              "ft/s": 0.3048},
    "area": {
        "m2": 1.0, "km2": 1e6, "cm2": 1e-4, "ha": 1e4, "acre": 4046.8564224, "ft2": 0.09290304,
        "mi2": 2589988.110336,
    },
    "data": {
        "b": 1.0, "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "kib": 1024.0, "mib": 1024.0**2,
        "gib": 1024.0**3, "tib": 1024.0**4, "bit": 0.125,
    },
}  # fmt: skip
_TEMPERATURE = {"c", "f", "k"}

_SPELLINGS = {
    "meter": "m", "metre": "m", "kilometer": "km", "kilometre": "km", "centimeter": "cm",
    "centimetre": "cm", "millimeter": "mm", "millimetre": "mm", "micrometer": "um",
    "nanometer": "nm", "mile": "mi", "yard": "yd", "foot": "ft", "feet": "ft", "inch": "in",
    "inches": "in", "nautical mile": "nmi",
    "kilogram": "kg", "kilo": "kg", "gram": "g", "milligram": "mg", "tonne": "t", "ton": "t",
    "metric ton": "t", "pound": "lb", "lbs": "lb", "ounce": "oz", "stone": "st",
    "liter": "l", "litre": "l", "milliliter": "ml", "millilitre": "ml", "centiliter": "cl",
    "deciliter": "dl", "cubic meter": "m3", "m³": "m3", "cubic centimeter": "cm3", "cc": "cm3",
    "gallon": "gal", "us gallon": "gal", "quart": "qt", "pint": "pt", "fluid ounce": "floz",
    "fl oz": "floz", "imperial gallon": "impgal",
    "second": "s", "sec": "s", "millisecond": "ms", "minute": "min", "hour": "h", "hr": "h",
    "days": "day", "d": "day", "weeks": "week", "years": "year", "yr": "year",
    "meters per second": "m/s", "kph": "km/h", "kmh": "km/h", "kilometers per hour": "km/h",
    "miles per hour": "mph", "knot": "kn", "knots": "kn", "kt": "kn", "feet per second": "ft/s",
    "square meter": "m2", "m²": "m2", "square kilometer": "km2", "km²": "km2",
    "square centimeter": "cm2", "hectare": "ha", "acres": "acre", "square foot": "ft2",
    "square feet": "ft2", "ft²": "ft2", "square mile": "mi2", "mi²": "mi2",
    "byte": "b", "kilobyte": "kb", "megabyte": "mb", "gigabyte": "gb", "terabyte": "tb",
    "kibibyte": "kib", "mebibyte": "mib", "gibibyte": "gib", "tebibyte": "tib", "bits": "bit",
    "celsius": "c", "°c": "c", "centigrade": "c", "fahrenheit": "f", "°f": "f", "kelvin": "k",
}  # fmt: skip


_WANTED_AS = re.compile(r"(?:in|into|to|as) (?=\S)")


def _unit_named(unit: str) -> str:
    """The unit without the word asking for it ("in feet", "to miles"): "in" alone is inches."""
    text = " ".join(unit.split())
    wanted = _WANTED_AS.match(text.lower())
    if wanted and _kind(_spelled(text[wanted.end() :])) is not None:
        return text[wanted.end() :]
    return text


def _canonical(unit: str) -> str:
    return _spelled(_unit_named(unit))


def _spelled(unit: str) -> str:
    """The canonical name of a unit written without an asking word, or the text lowered."""
    text = unit.lower()
    if text in _SPELLINGS:
        return _SPELLINGS[text]
    if _kind(text) is not None or not text.endswith("s"):
        return text  # "ms" is milliseconds, not the plural of "m"
    single = text[:-1]  # plurals: "meters", "hours", "cups", "kgs"
    return _SPELLINGS.get(single, single if _kind(single) is not None else text)


def known_unit(unit: str) -> tuple[str, str] | None:
    """A unit however written ("Feet", "km²"): its kind and its canonical name, if known."""
    canonical = _canonical(unit)
    kind = _kind(canonical)
    return None if kind is None else (kind, canonical)


def _kind(unit: str) -> str | None:
    if unit in _TEMPERATURE:
        return "temperature"
    return next((kind for kind, scale in _SCALES.items() if unit in scale), None)


def convert(value: float, from_unit: str, to_unit: str) -> float:
    source, target = _canonical(from_unit), _canonical(to_unit)
    kinds = _kind(source), _kind(target)
    for unit, kind in zip((from_unit, to_unit), kinds, strict=True):
        if kind is None:
            raise ToolError(f"unknown unit {unit!r}; kinds: temperature, {', '.join(_SCALES)}")
    if kinds[0] != kinds[1]:
        raise ToolError(f"cannot convert {kinds[0]} ({from_unit}) to {kinds[1]} ({to_unit})")
    if kinds[0] == "temperature":
        return _from_kelvin(_to_kelvin(value, source), target)
    scale = _SCALES[str(kinds[0])]
    return value * scale[source] / scale[target]


def _to_kelvin(value: float, unit: str) -> float:
    kelvin = {"c": value + 273.15, "f": (value - 32) * 5 / 9 + 273.15, "k": value}[unit]
    if kelvin < 0:
        raise ToolError(f"{value} {unit.upper()} is below absolute zero")
    return kelvin


def _from_kelvin(kelvin: float, unit: str) -> float:
    return {"c": kelvin - 273.15, "f": (kelvin - 273.15) * 9 / 5 + 32, "k": kelvin}[unit]


@tool(side_effect="read_only")
def convert_units(value: float, from_unit: str, to_unit: str) -> str:
    """Convert a quantity from one unit to another of the same kind: length (m, km, mi, ft, in),
    mass (kg, g, lb, oz), volume (l, ml, gal, cup), time (s, min, h, day), speed (km/h, mph,
    m/s, knots), area (m2, ha, acre), data size (MB, GiB) or temperature (C, F, K).

    Args:
        value: the amount to convert
        from_unit: the unit of `value`, e.g. "km", "miles", "°F", "pounds"
        to_unit: the unit wanted, e.g. "mi", "celsius", "kg"
    """
    result = convert(value, from_unit, to_unit)
    return f"{value:g} {_unit_named(from_unit)} = {result:.6g} {_unit_named(to_unit)}"
