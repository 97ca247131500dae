"""The tools the adapter tests offer."""

from __future__ import annotations

from pydantic import BaseModel

from toolwire.tools import tool


@tool(side_effect="read_only")
def weather(city: str, unit: str = "celsius") -> str:
    """The weather in a city.

    Args:
        city: The city.
        unit: celsius or fahrenheit.
    """
    return f"sunny in {city}"


@tool(side_effect="read_only")
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@tool
def tag(labels: dict[str, int]) -> str:
    """Tag things (a free-form map: no strict mode, no Gemini subset)."""
    return "tagged"


class Point(BaseModel):
    x: float
    y: float


@tool(side_effect="read_only")
def distance(start: Point, end: Point) -> float:
    """The distance between two points."""
    return ((start.x - end.x) ** 2 + (start.y - end.y) ** 2) ** 0.5


TOOLS = (weather.definition, add.definition)
