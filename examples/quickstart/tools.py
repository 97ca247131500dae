"""Two small tools for the quickstart: `toolwire run ... --tools examples/quickstart/tools.py`."""

from toolwire import tool


@tool(side_effect="read_only")
def add(a: float, b: float) -> float:
    """Add two numbers.

    Args:
        a: the first number
        b: the second number
    """
    return a + b


@tool(side_effect="read_only")
def word_count(text: str) -> int:
    """Count the words in a text.

    Args:
        text: the text to count
    """
    return len(text.split())
