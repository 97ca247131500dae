"""Arithmetic the model asks for, evaluated by walking the expression's syntax tree: numbers,
operators, a few math functions and constants, nothing else (no names, attributes, calls to
anything unlisted), with limits on size, nesting, the magnitude of results and the work each
operation may cost.

Expressions are read as people write them, which is how models write them too: "15% of 80",
"$250 * 36", "5,570 / 11.5", and several at once separated by commas ("25 * 4, 144 / 12"), each
answered in turn. The tool's description does not list these: a small model copies what a
description shows into requests it does not fit ("15% of 80" as an example of a percentage).
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from ..errors import ToolError
from ..tools import tool

__all__ = ["calculate", "evaluate"]

MAX_LENGTH = 500
MAX_NODES = 200
MAX_DEPTH = 40
MAX_INT_BITS = 4096
# Every value fits in MAX_INT_BITS, under 10**1234: rounding to more digits than this, either
# way, changes nothing, and an integer rounded to -n digits costs a 10**n first.
_MAX_ROUND_DIGITS = 1240

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "tau": math.tau}

_NUMBER = r"\d+(?:\.\d+)?|\.\d+"
# A percent sign after a number or a bracket, unless a number or a bracket follows it
# ("17 % 5" is a remainder); "of" after it multiplies.
_PERCENT = re.compile(rf"({_NUMBER}|\))\s*%(?!\s*[\d.(])(\s*of\b)?", re.IGNORECASE)
_CURRENCY = re.compile(r"[$\u20ac\u00a3\u00a5](?=\s*[\d.])")
# Digits grouped in threes by commas, with no space: "5,570", "1,000,000".
_THOUSANDS = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?!\d)")


def _factorial(n: float) -> int:
    if n != int(n) or not 0 <= n <= 1000:
        raise ToolError("factorial takes a whole number from 0 to 1000")
    return math.factorial(int(n))


def _log(x: float, base: float = math.e) -> float:
    return math.log(x, base)


_FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int]] = {
    # name: (function, fewest arguments, most arguments)
    "sqrt": (math.sqrt, 1, 1),
    "cbrt": (math.cbrt, 1, 1),
    "abs": (abs, 1, 1),
    "round": (round, 1, 2),
    "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
    "exp": (math.exp, 1, 1),
    "log": (_log, 1, 2),
    "log10": (math.log10, 1, 1),
    "log2": (math.log2, 1, 1),
    "sin": (math.sin, 1, 1),
    "cos": (math.cos, 1, 1),
    "tan": (math.tan, 1, 1),
    "asin": (math.asin, 1, 1),
    "acos": (math.acos, 1, 1),
    "atan": (math.atan, 1, 1),
    "degrees": (math.degrees, 1, 1),
    "radians": (math.radians, 1, 1),
    "hypot": (math.hypot, 1, 10),
    "min": (min, 1, 20),
    "max": (max, 1, 20),
    "factorial": (_factorial, 1, 1),
}


def evaluate(expression: str) -> int | float:
    """The value of an arithmetic expression; `ToolError` says what is wrong with a bad one."""
    if len(expression) > MAX_LENGTH:
        raise ToolError(f"the expression is longer than {MAX_LENGTH} characters")
    text = _as_python(expression)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise ToolError(f"not an arithmetic expression: {expression!r}") from None
    if sum(1 for _ in ast.walk(tree)) > MAX_NODES:
        raise ToolError(f"the expression has more than {MAX_NODES} parts")
    try:
        return _value(tree.body, 0)
    except ZeroDivisionError:
        raise ToolError("division by zero") from None
    except OverflowError:
        raise ToolError("the result is too large") from None
    except (ValueError, TypeError) as error:
        raise ToolError(f"cannot evaluate {expression!r}: {error}") from None


def _as_python(expression: str) -> str:
    """What people (and models) type for multiplication, division, powers, percentages, amounts
    of money and thousands, as Python writes it."""
    text = expression.replace("\u00d7", "*").replace("\u00f7", "/").replace("^", "**")
    text = _THOUSANDS.sub(lambda found: found.group().replace(",", ""), _CURRENCY.sub("", text))
    return _PERCENT.sub(_fraction, text).strip()


def _fraction(percentage: re.Match[str]) -> str:
    of = " *" if percentage[2] else ""
    if percentage[1] == ")":
        return f") / 100{of}"
    return f"({percentage[1]} / 100){of}"


def _parts(expression: str) -> list[str]:
    """The expressions separated by a comma and a space outside brackets ("1,5" is one number,
    written in one of two ways: left to fail as a list)."""
    parts: list[str] = []
    depth, start = 0, 0
    for at, character in enumerate(expression):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(character, 0)
        if character == "," and depth == 0 and expression[at + 1 : at + 2].isspace():
            parts.append(expression[start:at].strip())
            start = at + 1
    parts.append(expression[start:].strip())
    return [part for part in parts if part]


def _value(node: ast.expr, depth: int) -> int | float:
    if depth > MAX_DEPTH:
        raise ToolError(f"the expression nests deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise ToolError(f"only numbers are allowed, not {node.value!r}")
        return _checked(node.value)
    if isinstance(node, ast.BinOp):
        left, right = _value(node.left, depth + 1), _value(node.right, depth + 1)
        if isinstance(node.op, ast.Pow):
            return _checked(_power(left, right))
        operation = _BINARY.get(type(node.op))
        if operation is None:
            raise ToolError(f"operator {type(node.op).__name__} is not allowed")
        return _checked(operation(left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](_value(node.operand, depth + 1)))
    if isinstance(node, ast.Name):
        if node.id not in _CONSTANTS:
            raise ToolError(f"unknown name {node.id!r}; constants: {', '.join(_CONSTANTS)}")
        return _CONSTANTS[node.id]
    if isinstance(node, ast.Call):
        return _call(node, depth)
    if isinstance(node, ast.Tuple):
        raise ToolError(
            "several expressions are separated by a comma and a space; decimals take a point"
        )
    raise ToolError(f"{type(node).__name__} is not allowed in arithmetic")


def _call(node: ast.Call, depth: int) -> int | float:
    name = node.func.id if isinstance(node.func, ast.Name) else None
    if name not in _FUNCTIONS or node.keywords:
        raise ToolError(f"functions: {', '.join(_FUNCTIONS)} (positional arguments only)")
    function, fewest, most = _FUNCTIONS[name]
    if not fewest <= len(node.args) <= most:
        raise ToolError(f"{name} takes {fewest}-{most} arguments")
    arguments = [_value(a, depth + 1) for a in node.args if not isinstance(a, ast.Starred)]
    if len(arguments) != len(node.args):
        raise ToolError("starred arguments are not allowed")
    if name == "round" and len(arguments) == 2:
        digits = int(arguments[1])
        arguments[1] = max(-_MAX_ROUND_DIGITS, min(digits, _MAX_ROUND_DIGITS))
    return _checked(function(*arguments))


def _power(base: int | float, exponent: int | float) -> int | float:
    # Bound an integer result's size before computing it.
    if (
        isinstance(base, int)
        and isinstance(exponent, int)
        and exponent > 0
        and abs(base).bit_length() * exponent > MAX_INT_BITS
    ):
        raise ToolError("the result is too large")
    result = base**exponent
    if isinstance(result, complex):
        raise ToolError("the result is not a real number")
    return result


def _checked(value: Any) -> int | float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ToolError("the result is not a real number")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise ToolError("the result is too large")
    if isinstance(value, float) and not math.isfinite(value):
        raise ToolError("the result is not finite")
    return value


def _format(value: int | float) -> str:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return str(value) if isinstance(value, int) else format(value, ".12g")


@tool(side_effect="read_only")
def calculate(expression: str) -> str:
    """Evaluate an arithmetic expression exactly, e.g. "17 * 23", "(2 + 3) ** 2 / 7",
    "sqrt(2) * pi" or "log(100, 10)". Use it for any arithmetic instead of computing in your head.

    Args:
        expression: numbers with + - * / // % ** (or ^) and parentheses; functions sqrt, cbrt,
            abs, round, floor, ceil, exp, log, log10, log2, sin, cos, tan, asin, acos, atan,
            degrees, radians, hypot, min, max, factorial; constants pi, e, tau
    """
    if len(expression) > MAX_LENGTH:
        raise ToolError(f"the expression is longer than {MAX_LENGTH} characters")
    parts = _parts(expression)
    if len(parts) < 2:
        return f"{expression} = {_format(evaluate(parts[0] if parts else expression))}"
    return "; ".join(f"{part} = {_format(evaluate(part))}" for part in parts)
