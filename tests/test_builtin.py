from __future__ import annotations

import datetime
import math

import anyio
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolwire import ToolContext, ToolError
from toolwire.builtin import (
    TOOLS,
    builtin_toolset,
    calculate,
    clock_tool,
    convert_units,
    current_time,
    search_notes,
)
from toolwire.builtin._arithmetic import MAX_LENGTH, evaluate
from toolwire.builtin._clock import describe_time
from toolwire.builtin._notes import load_notes, search
from toolwire.builtin._units import convert
from toolwire.tools import Tool

CONTEXT = ToolContext(run_id="r", call_id="c", step=1, idempotency_key="k")


def run(tool: Tool, **arguments: object) -> str:
    return anyio.run(tool.invoke, tool.validate(arguments), CONTEXT)


def test_the_builtin_set_is_read_only_and_needs_no_approval() -> None:
    assert [t.name for t in TOOLS] == ["calculate", "current_time", "convert_units", "search_notes"]
    assert all(t.side_effect == "read_only" and not t.needs_approval for t in TOOLS)
    assert [t.name for t in anyio.run(builtin_toolset().get_tools)] == [t.name for t in TOOLS]


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("17 * 23", 391),
        ("2 ^ 10", 1024),
        ("(2 + 3) ** 2 / 5", 5.0),
        ("7 // 2 + 7 % 2", 4),
        ("-3 + +4", 1),
        ("sqrt(16) + abs(-2)", 6.0),
        ("log(100, 10)", 2.0),
        ("round(2.567, 2)", 2.57),
        ("max(1, 5, 3) - min(4, 2)", 3),
        ("factorial(5)", 120),
        ("2 \u00d7 3 \u00f7 4", 1.5),
        ("15% of 80", 12),
        ("80 * 15%", 12),
        ("12.5 % of 40", 5),
        ("(10 + 5)% of 200", 30),
        ("17 % 5", 2),
        ("17 %(5)", 2),
        ("$250 * 36", 9000),
        ("\u20ac1,250.50 + \u00a30.5", 1251),
        ("5,570 / 10", 557),
        ("1,000,000 - 1", 999999),
    ],
)
def test_arithmetic(expression: str, value: float) -> None:
    assert evaluate(expression) == pytest.approx(value)


def test_several_expressions_are_each_answered() -> None:
    assert run(calculate, expression="25 * 4, 144 / 12") == "25 * 4 = 100; 144 / 12 = 12"
    assert run(calculate, expression="max(1, 2), 15% of 80") == "max(1, 2) = 2; 15% of 80 = 12"
    assert run(calculate, expression="1,000 * 2") == "1,000 * 2 = 2000"


def test_constants_and_formatting() -> None:
    assert evaluate("pi") == math.pi
    assert run(calculate, expression="6 / 2") == "6 / 2 = 3"
    assert run(calculate, expression="1 / 3") == "1 / 3 = 0.333333333333"


@pytest.mark.parametrize(
    ("expression", "message"),
    [
        ("__import__('os').system('true')", "functions"),
        ("open('/etc/passwd')", "functions"),
        ("x + 1", "unknown name"),
        ("(1).__class__", "not allowed"),
        ("'a' * 3", "only numbers"),
        ("True + 1", "only numbers"),
        ("1 / 0", "division by zero"),
        ("9 ** 9 ** 9", "too large"),
        ("10.0 ** 400", "too large"),
        ("factorial(10000)", "factorial"),
        ("(-8) ** 0.5", "not a real number"),
        ("[1, 2]", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("1 +", "not an arithmetic expression"),
        ("sqrt(-1)", "cannot evaluate"),
        ("sqrt(1, 2)", "takes"),
        ("sqrt(x=1)", "positional"),
        ("1 if 1 else 2", "not allowed"),
        ("1 < 2", "not allowed"),
        ("1,5", "comma and a space"),
        ("x%", "not an arithmetic expression"),
    ],
)
def test_arithmetic_refuses_anything_but_arithmetic(expression: str, message: str) -> None:
    with pytest.raises(ToolError, match=message):
        evaluate(expression)


def test_arithmetic_limits_size_and_nesting() -> None:
    with pytest.raises(ToolError, match="longer than"):
        evaluate("1+" * MAX_LENGTH + "1")
    with pytest.raises(ToolError, match="parts"):
        evaluate("+".join(["1"] * 150))
    with pytest.raises(ToolError, match="nests deeper"):
        evaluate("-" * 60 + "1")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=80))
def test_any_text_gives_a_number_or_a_tool_error(text: str) -> None:
    try:
        value = evaluate(text)
    except ToolError:
        return
    assert isinstance(value, int | float) and not isinstance(value, bool)


def test_time_in_a_zone() -> None:
    moment = datetime.datetime(2025, 7, 1, 12, 30, tzinfo=datetime.UTC)
    text = describe_time("Europe/Paris", lambda: moment)
    assert text == "Tuesday 2025-07-01 14:30:00 in Europe/Paris (UTC+02:00, CEST)"
    assert "in Asia/Tokyo" in describe_time("tokyo", lambda: moment)
    assert "in UTC" in describe_time("gmt", lambda: moment)
    assert "America/New_York" in describe_time("america/new_york", lambda: moment)


def test_a_clock_tool_tells_the_time_it_is_given_as_the_builtin_one_would() -> None:
    moment = datetime.datetime(2025, 7, 1, 12, 30, tzinfo=datetime.UTC)
    stopped = clock_tool(lambda: moment)
    assert stopped.definition == current_time.definition
    assert run(stopped, timezone="Paris") == describe_time("Paris", lambda: moment)
    assert run(stopped, timezone="Paris") == run(stopped, timezone="Paris")


@pytest.mark.parametrize(
    ("place", "zone"),
    [
        ("Mumbai", "Asia/Kolkata"),
        ("Asia/Mumbai", "Asia/Kolkata"),
        ("san francisco", "America/Los_Angeles"),
        ("America/San_Francisco", "America/Los_Angeles"),
        ("Washington D.C.", "America/New_York"),
        ("St. Louis", "America/Chicago"),
        ("Beijing", "Asia/Shanghai"),
        # A country in one zone, or mostly in one, as the time zone database says.
        ("New Zealand", "Pacific/Auckland"),
        ("Pacific/New_Zealand", "Pacific/Auckland"),
        ("South Korea", "Asia/Seoul"),
        ("United Arab Emirates", "Asia/Dubai"),
        ("Kenya", "Africa/Nairobi"),
        ("C\u00f4te d'Ivoire", "Africa/Abidjan"),
    ],
)
def test_a_city_zoneinfo_does_not_name_is_found(place: str, zone: str) -> None:
    moment = datetime.datetime(2025, 7, 1, 12, 30, tzinfo=datetime.UTC)
    assert f" in {zone} (" in describe_time(place, lambda: moment)


@pytest.mark.parametrize("place", ["United States", "Canada", "Australia", "Korea"])
def test_a_country_split_between_zones_is_no_zone(place: str) -> None:
    with pytest.raises(ToolError, match="unknown time zone"):
        describe_time(place, lambda: datetime.datetime.now(datetime.UTC))


def test_unknown_time_zone_suggests_names() -> None:
    with pytest.raises(ToolError, match=r"did you mean .*Europe/Paris"):
        describe_time("Europe/Pariss", lambda: datetime.datetime.now(datetime.UTC))
    with pytest.raises(ToolError, match="unknown time zone"):
        describe_time("../../etc/passwd", lambda: datetime.datetime.now(datetime.UTC))


@pytest.mark.parametrize(
    ("value", "source", "target", "expected"),
    [
        (100, "km", "miles", 62.1371192),
        (1, "mile", "feet", 5280),
        (98.6, "°F", "celsius", 37.0),
        (0, "K", "C", -273.15),
        (10, "pounds", "kg", 4.5359237),
        (1, "GiB", "MB", 1073.741824),
        (90, "minutes", "h", 1.5),
        (100, "km/h", "mph", 62.1371192),
        (2, "hectares", "acres", 4.94210763),
        (1, "US gallon", "liters", 3.785411784),
        # Plurals of a unit's short name, not only of its spellings.
        (3, "gallons", "cups", 48.0),
        (2000, "gs", "kgs", 2.0),
        (1500, "ms", "s", 1.5),
        # The unit as people ask for it; "in" alone stays inches.
        (10, "km", "in feet", 32808.399),
        (2, "in", "into cm", 5.08),
        (5, "kg", "to lbs", 11.0231131),
    ],
)
def test_unit_conversion(value: float, source: str, target: str, expected: float) -> None:
    assert convert(value, source, target) == pytest.approx(expected)


@given(st.text(max_size=60), st.integers(min_value=0, max_value=3000))
def test_any_unit_text_converts_or_gives_a_tool_error(text: str, asking: int) -> None:
    for unit in (text, "to " * asking + text, "in " * asking + "feet"):
        try:
            assert isinstance(run(convert_units, value=1, from_unit="km", to_unit=unit), str)
        except ToolError as error:
            assert str(error).count("\n") == 0


def test_unit_conversion_errors() -> None:
    with pytest.raises(ToolError, match="cannot convert length"):
        convert(1, "km", "kg")
    with pytest.raises(ToolError, match="unknown unit 'parsecs'"):
        convert(1, "parsecs", "km")
    with pytest.raises(ToolError, match="unknown unit 'in parsecs'"):
        convert(1, "km", "in parsecs")
    with pytest.raises(ToolError, match="below absolute zero"):
        convert(-500, "C", "F")
    assert run(convert_units, value=3, from_unit="ft", to_unit="m") == "3 ft = 0.9144 m"
    assert run(convert_units, value=1, from_unit="km", to_unit="in m") == "1 km = 1000 m"


def test_notes_are_bundled_and_searchable() -> None:
    titles = [note.title for note in load_notes()]
    assert len(titles) >= 8 and "Writing your own tools" in titles
    (best, passage), *_ = search("how do I write my own tools")
    assert best.title == "Writing your own tools"
    assert "@tool" in passage
    assert search("approve destructive calls")[0][0].title == "Approvals"
    assert run(search_notes, query="sha-256 cache", limit=1).startswith("## Local models")


def test_notes_search_without_matches_lists_the_notes() -> None:
    assert "The notes are:" in run(search_notes, query="zebra quasar")
    with pytest.raises(ToolError, match="no searchable words"):
        search("the of and")
    with pytest.raises(ToolError, match="between 1 and 10"):
        run(search_notes, query="tools", limit=0)
